// The ::2 slice of f32[32,64,112,112] as standalone loops: two-vector selectFrom with the old
// index-moving loop, with a counted loop plus a last block, an L2I narrowing, and scalar code.
import java.lang.foreign.*;
import jdk.incubator.vector.*;
import java.util.concurrent.*;
import java.nio.ByteOrder;
public class Slice {
  static final VectorSpecies<Integer> S = IntVector.SPECIES_512;
  static final VectorSpecies<Long> SL = LongVector.SPECIES_512;
  static final VectorSpecies<Integer> S256 = IntVector.SPECIES_256;
  static final int L = 16;
  static final IntVector EVEN = IntVector.fromArray(S, new int[]{0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30}, 0);
  static final ByteOrder O = ByteOrder.LITTLE_ENDIAN;
  interface Part { long run(long from, long to); }
  static volatile long sink;
  static double time(ExecutorService ex, int threads, long rows, Part p) throws Exception {
    double best = 1e9;
    for (int r = 0; r < 20; r++) {
      long t0 = System.nanoTime();
      Future<?>[] fs = new Future<?>[threads];
      long chunk = rows / threads;
      for (int t = 0; t < threads; t++) { long a = t*chunk, b = (t==threads-1)? rows : a+chunk; fs[t] = ex.submit(() -> { sink += p.run(a,b); }); }
      for (Future<?> f : fs) f.get();
      double s = (System.nanoTime()-t0)/1e9; if (r>=5) best = Math.min(best, s);
    }
    return best;
  }
  public static void main(String[] a) throws Exception {
    long rows = 32L*64*112;
    long n = rows*448;
    Arena arena = Arena.global();
    MemorySegment src = arena.allocate(n, 4096); src.fill((byte)1);
    MemorySegment dst = arena.allocate(n/4, 4096); dst.fill((byte)1);
    ExecutorService ex = Executors.newFixedThreadPool(2);
    long out = rows/2;
    for (int threads = 1; threads <= 2; threads++) {
      double s;
      s = time(ex, threads, out, (f,t) -> { for (long r=f; r<t; r++) { long sb = r*896, db = r*224; int nn = 56;
          for (long i = 0; ; i += L) { if (i > nn - L) { if (i == nn) break; i = nn - L; }
            IntVector x = IntVector.fromMemorySegment(S, src, sb + 8*i, O); IntVector y = IntVector.fromMemorySegment(S, src, sb + 8*i + 64, O);
            EVEN.selectFrom(x, y).intoMemorySegment(dst, db + 4*i, O); } } return 0; });
      System.out.printf("t=%d selectFrom   %.2f ms  %.1f GB/s counted%n", threads, s*1e3, out*448/s/1e9);
      s = time(ex, threads, out, (f,t) -> { for (long r=f; r<t; r++) { long sb = r*896, db = r*224; int nn = 56;
          for (long i = 0; ; i += L) { if (i > nn - L) { if (i == nn) break; i = nn - L; }
            IntVector x = IntVector.fromMemorySegment(S, src, sb + 8*i, O); IntVector y = IntVector.fromMemorySegment(S, src, sb + 8*i + 64, O);
            x.add(y).intoMemorySegment(dst, db + 4*i, O); } } return 0; });
      System.out.printf("t=%d add (no perm) %.2f ms  %.1f GB/s counted%n", threads, s*1e3, out*448/s/1e9);
      s = time(ex, threads, out, (f,t) -> { for (long r=f; r<t; r++) { long sb = r*896, db = r*224;
            for (int i = 0; i < 48; i += 16) { IntVector x = IntVector.fromMemorySegment(S, src, sb + 8*i, O); IntVector y = IntVector.fromMemorySegment(S, src, sb + 8*i + 64, O);
            EVEN.selectFrom(x, y).intoMemorySegment(dst, db + 4*i, O); }
            IntVector x = IntVector.fromMemorySegment(S, src, sb + 8*40, O); IntVector y = IntVector.fromMemorySegment(S, src, sb + 8*40 + 64, O);
            EVEN.selectFrom(x, y).intoMemorySegment(dst, db + 4*40, O); } return 0; });
      System.out.printf("t=%d select fixed %.2f ms  %.1f GB/s counted%n", threads, s*1e3, out*448/s/1e9);
      final long nn2 = Long.getLong("nn", 56);
      s = time(ex, threads, out, (f,t) -> { for (long r=f; r<t; r++) { long sb = r*896, db = r*224; long last = nn2 - L;
            for (long i = 0; i < last; i += L) { IntVector x = IntVector.fromMemorySegment(S, src, sb + 8*i, O); IntVector y = IntVector.fromMemorySegment(S, src, sb + 8*i + 64, O);
            EVEN.selectFrom(x, y).intoMemorySegment(dst, db + 4*i, O); }
            IntVector x = IntVector.fromMemorySegment(S, src, sb + 8*last, O); IntVector y = IntVector.fromMemorySegment(S, src, sb + 8*last + 64, O);
            EVEN.selectFrom(x, y).intoMemorySegment(dst, db + 4*last, O); } return 0; });
      System.out.printf("t=%d select clean %.2f ms  %.1f GB/s counted%n", threads, s*1e3, out*448/s/1e9);
      s = time(ex, threads, out, (f,t) -> { for (long r=f; r<t; r++) { long sb = r*896, db = r*224; int nn = 56;
          for (long i = 0; ; i += 8) { if (i > nn - 8) { if (i == nn) break; i = nn - 8; }
            LongVector x = LongVector.fromMemorySegment(SL, src, sb + 8*i, O);
            x.convertShape(VectorOperators.L2I, S256, 0).intoMemorySegment(dst, db + 4*i, O); } } return 0; });
      System.out.printf("t=%d L2I          %.2f ms  %.1f GB/s counted%n", threads, s*1e3, out*448/s/1e9);
      s = time(ex, threads, out, (f,t) -> { for (long r=f; r<t; r++) { long sb = r*896, db = r*224;
          for (long i = 0; i < 56; i++) dst.set(ValueLayout.JAVA_INT_UNALIGNED, db+4*i, src.get(ValueLayout.JAVA_INT_UNALIGNED, sb+8*i)); } return 0; });
      System.out.printf("t=%d scalar       %.2f ms  %.1f GB/s counted%n", threads, s*1e3, out*448/s/1e9);
    }
    ex.shutdown();
  }
}
