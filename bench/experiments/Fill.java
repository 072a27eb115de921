// Write bandwidth on a 100 MB destination, 1 and 2 threads: MemorySegment.fill, MemorySegment.copy,
// repeated bulk copies of one cached block, and 512-bit vector stores (the broadcast notes); and
// whether zeroing each ZERO_CHUNK bytes with fill first spares a sequential vector copy's stores
// their write-allocate (the write-allocate notes). Arguments: [BLOCK_BYTES [ZERO_CHUNK_BYTES]].
import java.lang.foreign.*;
import jdk.incubator.vector.*;
import java.util.concurrent.*;
public class Fill {
  static final VectorSpecies<Float> S = FloatVector.SPECIES_512;
  static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
  interface Part { void run(long from, long to); }
  static double time(ExecutorService ex, int threads, long bytes, Part p) throws Exception {
    double best = 1e9;
    for (int r = 0; r < 12; r++) {
      long t0 = System.nanoTime();
      Future<?>[] fs = new Future<?>[threads];
      long chunk = bytes / threads;
      for (int t = 0; t < threads; t++) { long a = t*chunk, b = (t==threads-1)? bytes : a+chunk; fs[t] = ex.submit(() -> p.run(a,b)); }
      for (Future<?> f : fs) f.get();
      double s = (System.nanoTime()-t0)/1e9; if (r>=2) best = Math.min(best, s);
    }
    return best;
  }
  /** Sequential 512-bit copy with ordinary stores, four vectors per step. */
  static void vcopy(MemorySegment src, MemorySegment dst, long f, long t) {
    for (long o = f; o < t; o += 256) {
      for (int i = 0; i < 256; i += 64)
        FloatVector.fromMemorySegment(S, src, o+i, java.nio.ByteOrder.LITTLE_ENDIAN).intoMemorySegment(dst, o+i, java.nio.ByteOrder.LITTLE_ENDIAN);
    }
  }
  public static void main(String[] a) throws Exception {
    long n = 32L*64*112*112*4;
    Arena arena = Arena.global();
    MemorySegment dst = arena.allocate(n, 4096); dst.fill((byte)1);
    MemorySegment src = arena.allocate(n, 4096); src.fill((byte)2);
    int blk = Integer.parseInt(a.length>0?a[0]:"4194304");
    long zero = Long.parseLong(a.length>1?a[1]:"16384");
    MemorySegment block = arena.allocate(blk, 4096); block.fill((byte)3);
    ExecutorService ex = Executors.newFixedThreadPool(2);
    for (int threads = 1; threads <= 2; threads++) {
      double s;
      s = time(ex, threads, n, (f,t) -> dst.asSlice(f, t-f).fill((byte)5));
      System.out.printf("t=%d fill          %.1f GB/s write (%.1f counted 2x)%n", threads, n/s/1e9, 2*n/s/1e9);
      s = time(ex, threads, n, (f,t) -> MemorySegment.copy(src, f, dst, f, t-f));
      System.out.printf("t=%d copy          %.1f GB/s counted r+w%n", threads, 2*n/s/1e9);
      s = time(ex, threads, n, (f,t) -> { for (long o=f; o<t; ) { long len = Math.min(blk, t-o); MemorySegment.copy(block, 0, dst, o, len); o+=len; } });
      System.out.printf("t=%d blockcopy %d  %.1f GB/s write (%.1f counted 2x)%n", threads, blk, n/s/1e9, 2*n/s/1e9);
      s = time(ex, threads, n, (f,t) -> { FloatVector v = FloatVector.broadcast(S, 1.5f); for (long o=f; o<t; o+=64) v.intoMemorySegment(dst, o, java.nio.ByteOrder.LITTLE_ENDIAN); });
      System.out.printf("t=%d vecstore      %.1f GB/s write (%.1f counted 2x)%n", threads, n/s/1e9, 2*n/s/1e9);
      s = time(ex, threads, n, (f,t) -> vcopy(src, dst, f, t));
      System.out.printf("t=%d veccopy       %.1f GB/s counted r+w%n", threads, 2*n/s/1e9);
      s = time(ex, threads, n, (f,t) -> { for (long o=f; o<t; o+=zero) { long e=Math.min(t,o+zero); dst.asSlice(o,e-o).fill((byte)0); vcopy(src,dst,o,e);} });
      System.out.printf("t=%d fill+veccopy %d  %.1f GB/s counted r+w%n", threads, zero, 2*n/s/1e9);
    }
    ex.shutdown();
  }
}
