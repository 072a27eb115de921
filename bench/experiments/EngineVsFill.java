// The engine's broadcast f32[1,64,1,1] -> [32,64,112,112] against a standalone 2-thread vector-store fill of
// the same bytes, alternating in one JVM: is there engine overhead, or only the memory system?
import java.lang.foreign.*;
import jdk.incubator.vector.*;
import java.util.concurrent.*;
import dev.tensorbuf.bench.CopyCase;
import dev.tensorbuf.ops.copy.CopyEngine;
public class EngineVsFill {
  static final VectorSpecies<Float> S = FloatVector.SPECIES_512;
  static final long IMG = 64L*112*112*4, N = 32*IMG, RUN = 112*112*4;
  static MemorySegment dst;
  static void fillImage(long at) {
    for (int c = 0; c < 64; c++) {
      FloatVector v = FloatVector.broadcast(S, c * 0.5f);
      long o = at + c * RUN, end = o + RUN;
      for (; o + 64 <= end; o += 64) v.intoMemorySegment(dst, o, java.nio.ByteOrder.LITTLE_ENDIAN);
    }
  }
  public static void main(String[] a) throws Exception {
    dst = Arena.global().allocate(N, 4096); dst.fill((byte)1);
    ExecutorService ex = Executors.newFixedThreadPool(1);
    var p = CopyCase.byName("broadcast_f32_1x64x1x1_to_32x64x112x112").prepare(Arena.global(), CopyEngine.defaults());
    int R = 40; double[] te = new double[R], tf = new double[R];
    for (int w = 0; w < 20; w++) { p.run(); }
    for (int r = 0; r < R; r++) {
      long t0 = System.nanoTime(); p.run(); long t1 = System.nanoTime();
      Future<?> f = ex.submit(() -> { for (int i = 1; i < 32; i += 2) fillImage(i * IMG); });
      for (int i = 0; i < 32; i += 2) fillImage(i * IMG);
      f.get(); long t2 = System.nanoTime();
      te[r] = N / ((t1 - t0) / 1e9) / 1e9; tf[r] = N / ((t2 - t1) / 1e9) / 1e9;
    }
    java.util.Arrays.sort(te); java.util.Arrays.sort(tf);
    System.out.printf("written GB/s engine: median %.1f max %.1f min %.1f | standalone 2-thread fill: median %.1f max %.1f min %.1f%n", te[R/2], te[R-1], te[0], tf[R/2], tf[R-1], tf[0]);
    ex.shutdown(); System.exit(0);
  }
}
