// Does zeroing a destination chunk with MemorySegment.fill spare the vector stores that follow
// their write-allocate? A sequential vector copy with and without a fill of each chunk first,
// against MemorySegment.copy, on a 103 MB destination (the write-allocate notes in RESULTS).
import java.lang.foreign.*;
import jdk.incubator.vector.*;
import java.util.concurrent.*;
public class Prezero {
  static final VectorSpecies<Float> S = FloatVector.SPECIES_512;
  static final java.nio.ByteOrder LE = java.nio.ByteOrder.LITTLE_ENDIAN;
  interface Part { void run(long from, long to); }
  static double time(ExecutorService ex, int threads, long bytes, Part p) throws Exception {
    double best = 1e9;
    for (int r = 0; r < 10; r++) {
      long t0 = System.nanoTime();
      Future<?>[] fs = new Future<?>[threads];
      long chunk = bytes / threads;
      for (int t = 0; t < threads; t++) { long a = t*chunk, b = (t==threads-1)? bytes : a+chunk; fs[t] = ex.submit(() -> p.run(a,b)); }
      for (Future<?> f : fs) f.get();
      double s = (System.nanoTime()-t0)/1e9; if (r>=2) best = Math.min(best, s);
    }
    return best;
  }
  static void vcopy(MemorySegment src, MemorySegment dst, long f, long t) {
    for (long o = f; o < t; o += 256) {
      FloatVector.fromMemorySegment(S, src, o, LE).intoMemorySegment(dst, o, LE);
      FloatVector.fromMemorySegment(S, src, o+64, LE).intoMemorySegment(dst, o+64, LE);
      FloatVector.fromMemorySegment(S, src, o+128, LE).intoMemorySegment(dst, o+128, LE);
      FloatVector.fromMemorySegment(S, src, o+192, LE).intoMemorySegment(dst, o+192, LE);
    }
  }
  public static void main(String[] a) throws Exception {
    long n = 32L*64*112*112*4;
    Arena arena = Arena.global();
    MemorySegment dst = arena.allocate(n, 4096); dst.fill((byte)1);
    MemorySegment src = arena.allocate(n, 4096); src.fill((byte)2);
    long chunk = Long.parseLong(a.length>0?a[0]:"16384");
    int threads = Integer.parseInt(a.length>1?a[1]:"2");
    ExecutorService ex = Executors.newFixedThreadPool(2);
    for (int rep = 0; rep < 3; rep++) {
      double s;
      s = time(ex, threads, n, (f,t) -> MemorySegment.copy(src, f, dst, f, t-f));
      System.out.printf("copy            %.1f GB/s counted%n", 2*n/s/1e9);
      s = time(ex, threads, n, (f,t) -> vcopy(src, dst, f, t));
      System.out.printf("veccopy         %.1f GB/s counted%n", 2*n/s/1e9);
      s = time(ex, threads, n, (f,t) -> { for (long o=f; o<t; o+=chunk) { long e=Math.min(t,o+chunk); dst.asSlice(o,e-o).fill((byte)0); vcopy(src,dst,o,e);} });
      System.out.printf("fill+veccopy %d %.1f GB/s counted%n", chunk, 2*n/s/1e9);
      s = time(ex, threads, n, (f,t) -> { for (long o=f; o<t; o+=chunk) { long e=Math.min(t,o+chunk); dst.asSlice(o,e-o).fill((byte)0);} });
      System.out.printf("fill only       %.1f GB/s written%n", n/s/1e9);
    }
    ex.shutdown();
  }
}
