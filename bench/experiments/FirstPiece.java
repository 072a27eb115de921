import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.TensorView;
import java.nio.file.Path;

/**
 * What `convert --transpose 0,2,3,1` of an f32[64,256,56,56] `.npy` pays for its first pieces in a
 * fresh JVM: the input mapped as convert maps it, pieces of its NHWC view of 36 x 56 x 256
 * elements (2 MiB, convert's size) copied one after another by a one-thread scalar engine, as
 * convert's threads do. With `explain`, each piece's copy is planned (and timed) before it runs.
 *
 *   javac -cp cli/target/tensorbuf.jar -d /tmp/fp bench/experiments/FirstPiece.java
 *   java -XX:CompileThresholdScaling=4 -XX:CompileCommand=quiet \
 *     -XX:CompileCommand=CompileThresholdScaling,dev.tensorbuf.ops.copy.internal.ScalarTranspose::row*,0.05 \
 *     -Dtensorbuf.copy.vector=false --enable-native-access=ALL-UNNAMED -cp cli/target/tensorbuf.jar:/tmp/fp \
 *     FirstPiece X.npy 4 [explain]
 *
 * (the JIT settings are the launcher's for such a convert; X.npy as bench/peers/convert_e2e.sh makes it)
 */
public class FirstPiece {
    public static void main(String[] args) throws Exception {
        Npy.Tensor input = Npy.map(Path.of(args[0]));
        int pieces = Integer.parseInt(args[1]);
        boolean explain = args.length > 2 && args[2].equals("explain");
        TensorView nhwc = Ops.transpose(input.view(), 0, 2, 3, 1);
        CopyEngine engine = CopyEngine.of(CopyEngine.defaults().config().withScalarFirstBytes(Long.MAX_VALUE).withParallelism(1));
        try (Allocator arena = Allocators.shared()) {
            TensorView out = TensorView.of(arena.allocate(4L * 36 * 56 * 256), "f32[1,36,56,256]{3,2,1,0}");
            for (int i = 0; i < pieces; i++) {
                TensorView piece = Ops.slice(nhwc, new long[] {i, 0, 0, 0}, new long[] {i + 1, 36, 56, 256}, new long[] {1, 1, 1, 1});
                long t0 = System.nanoTime();
                if (explain) {
                    engine.explain(piece, out);
                }
                long t1 = System.nanoTime();
                engine.copy(piece, out);
                long t2 = System.nanoTime();
                System.out.printf("piece %d: explain %.1f ms, copy %.1f ms%n", i, (t1 - t0) / 1e6, (t2 - t1) / 1e6);
            }
        }
    }
}
