// One engine case timed back to back (100 calls a round) and in blocks of 5 after 5 of its
// baseline copies (the first call of a block not counted), as `tensorbuf bench` takes its samples:
// on a VM whose last-level cache keeps part of a case repeated over the same buffers, the two
// differ (f32 -> T(8,128) on the Intel Xeon VM: 3.9-4.5 against 5.5-6.0 ms). `after_copies.py` does the
// same for PyTorch. Needs the built jar:
// java --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED -cp cli/target/tensorbuf.jar \
//   bench/experiments/AfterCopies.java [CASE [THREADS]]
import java.lang.foreign.*;
import dev.tensorbuf.bench.CopyCase;
import dev.tensorbuf.ops.copy.CopyEngine;
public class AfterCopies {
  public static void main(String[] a) {
    String name = a.length > 0 ? a[0] : "f32_4096x4096_to_T8x128";
    int threads = a.length > 1 ? Integer.parseInt(a[1]) : 2;
    var p = CopyCase.byName(name).prepare(Arena.global(), CopyEngine.of(threads));
    for (int w = 0; w < 50; w++) { p.run(); p.runBaseline(); }
    for (int r = 0; r < 5; r++) {
      long t0 = System.nanoTime();
      for (int i = 0; i < 100; i++) p.run();
      double backToBack = (System.nanoTime() - t0) / 100 / 1e6;
      double after = 0;
      int n = 0;
      for (int k = 0; k < 20; k++) {
        for (int i = 0; i < 5; i++) p.runBaseline();
        for (int i = 0; i < 5; i++) {
          long u0 = System.nanoTime();
          p.run();
          if (i > 0) { after += System.nanoTime() - u0; n++; }
        }
      }
      System.out.printf("%s, %d threads: back to back %.2f ms, after copies %.2f ms%n", name, threads, backToBack, after / n / 1e6);
    }
  }
}
