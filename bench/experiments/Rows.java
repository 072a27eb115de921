// Read time of every row vs only the even rows of f32[32,64,112,112] (the slice notes: 73%).
import java.lang.foreign.*;
import jdk.incubator.vector.*;
import java.util.concurrent.*;
import java.nio.ByteOrder;
public class Rows {
  static final VectorSpecies<Integer> S = IntVector.SPECIES_512;
  static final ByteOrder O = ByteOrder.LITTLE_ENDIAN;
  interface Part { long run(long from, long to); }
  static volatile long sink;
  static double time(ExecutorService ex, int threads, long rows, Part p) throws Exception {
    double best = 1e9;
    for (int r = 0; r < 15; r++) {
      long t0 = System.nanoTime();
      Future<?>[] fs = new Future<?>[threads];
      long chunk = rows / threads;
      for (int t = 0; t < threads; t++) { long a = t*chunk, b = (t==threads-1)? rows : a+chunk; fs[t] = ex.submit(() -> { sink += p.run(a,b); }); }
      for (Future<?> f : fs) f.get();
      double s = (System.nanoTime()-t0)/1e9; if (r>=3) best = Math.min(best, s);
    }
    return best;
  }
  public static void main(String[] a) throws Exception {
    long rows = 32L*64*112; // source rows of 112 floats = 448 bytes
    long n = rows*448;
    Arena arena = Arena.global();
    MemorySegment src = arena.allocate(n, 4096); src.fill((byte)1);
    MemorySegment dst = arena.allocate(n/4, 4096); dst.fill((byte)1);
    ExecutorService ex = Executors.newFixedThreadPool(2);
    for (int threads = 1; threads <= 2; threads++) {
      double s;
      s = time(ex, threads, rows, (f,t) -> { IntVector acc = IntVector.zero(S); for (long r=f; r<t; r++) { long b = r*448; for (int i=0;i<448;i+=64) acc = acc.add(IntVector.fromMemorySegment(S, src, b+i, O)); } return acc.reduceLanes(VectorOperators.ADD); });
      System.out.printf("t=%d read all rows   %.2f ms%n", threads, s*1e3);
      s = time(ex, threads, rows/2, (f,t) -> { IntVector acc = IntVector.zero(S); for (long r=f; r<t; r++) { long b = r*896; for (int i=0;i<448;i+=64) acc = acc.add(IntVector.fromMemorySegment(S, src, b+i, O)); } return acc.reduceLanes(VectorOperators.ADD); });
      System.out.printf("t=%d read even rows  %.2f ms%n", threads, s*1e3);
      s = time(ex, threads, rows/2, (f,t) -> { IntVector z = IntVector.broadcast(S, 3); for (long r=f; r<t; r++) { long b = r*224; for (int i=0;i<224-63;i+=64) z.intoMemorySegment(dst, b+i, O); z.intoMemorySegment(dst, b+224-64, O);} return 0; });
      System.out.printf("t=%d write out rows  %.2f ms%n", threads, s*1e3);
    }
    ex.shutdown();
  }
}
