import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaShape;

/**
 * What one `engine.copy` of two views costs back to back, its plan looked up each call: NCHW ->
 * NHWC of f32[1,C,H,W] for each "C,H,W" given, best of 8 x 2,000 copies. The list runs twice and
 * only the second pass is printed: in the first, C2 is still compiling the copy path (a first
 * case read 10-12 us a copy where it reads 0.4 once compiled).
 *
 *   java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -cp cli/target/tensorbuf.jar \
 *       bench/experiments/BackToBack.java THREADS "64,112,112;64,2,2;4,16,16"
 */
public class BackToBack {
    public static void main(String[] args) {
        int threads = Integer.parseInt(args[0]);
        String[] cases = (args[1] + ";" + args[1]).split(";");
        try (Allocator arena = Allocators.shared()) {
            CopyEngine engine = CopyEngine.of(threads, true, 0);
            for (int c = 0; c < cases.length; c++) {
                String nchw = "f32[1," + cases[c] + "]{3,2,1,0}";
                String nhwc = "f32[1," + cases[c] + "]{1,3,2,0}";
                long bytes = ((ArrayShape) XlaShape.parse(nchw)).arraySize();
                TensorView src = TensorView.of(arena.allocate(bytes), nchw);
                TensorView dst = TensorView.of(arena.allocate(bytes), nhwc);
                double best = Double.MAX_VALUE;
                for (int r = 0; r < 8; r++) {
                    long t0 = System.nanoTime();
                    for (int i = 0; i < 2000; i++) {
                        engine.copy(src, dst);
                    }
                    best = Math.min(best, (System.nanoTime() - t0) / 2000.0 / 1e3);
                }
                if (c >= cases.length / 2) {
                    System.out.printf("%s -> %s, %d bytes, %d threads: %.1f us a copy%n", nchw, nhwc, bytes, threads, best);
                }
            }
        }
    }
}
