import dev.tensorbuf.memory.*;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.*;
import java.util.*;

/**
 * Copies of views over several pieces, timed in one JVM (median of 15 after 5 warm-ups), to compare
 * two builds: java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector
 * --add-opens=java.base/java.nio=ALL-UNNAMED -cp JAR bench/experiments/PiecePlanSpeed.java LABEL [CASE]
 */
public class PiecePlanSpeed {
    record Case(String name, TensorView src, TensorView dst) {}

    public static void main(String[] args) {
        Allocator a = Allocators.shared();
        CopyEngine engine = CopyEngine.defaults();
        List<Case> cases = new ArrayList<>();
        TensorView h = TensorView.of(a.allocate(512L * 1024 * 4), "f32[512,1024]");
        TensorView l = TensorView.of(a.allocate(512L * 1024 * 4), "f32[512,1024]");
        TensorView cat = Ops.concatenate(0, List.of(h, l));
        cases.add(new Case("strided_slice_of_concat_f32_1024x1024",
                Ops.slice(cat, new long[] {0, 0}, new long[] {1024, 1024}, new long[] {2, 2}),
                TensorView.of(a.allocate(512L * 512 * 4), "f32[512,512]")));
        TensorView small = Ops.concatenate(0, List.of(TensorView.of(a.allocate(16L * 64 * 4), "f32[16,64]"),
                TensorView.of(a.allocate(16L * 64 * 4), "f32[16,64]")));
        cases.add(new Case("broadcast_of_concat_f32_32x64_to_32x64x256",
                Ops.broadcast(small, new long[] {32, 64, 256}, 0, 1),
                TensorView.of(a.allocate(32L * 64 * 256 * 4), "f32[32,64,256]")));
        TensorView c1 = Ops.concatenate(1, List.of(TensorView.of(a.allocate(1024L * 100 * 4), "f32[1024,100]"),
                TensorView.of(a.allocate(1024L * 100 * 4), "f32[1024,100]")));
        cases.add(new Case("reshape_of_concat_f32_1024x200_to_200x1024", Ops.reshape(c1, 200, 1024),
                TensorView.of(a.allocate(1024L * 200 * 4), "f32[200,1024]")));
        TensorView s4 = TensorView.of(a.allocate(1024L * 1024 / 2), "s4[1024,1024]{1,0:E(4)}");
        cases.add(new Case("pad_of_s4_1024x1024_to_s8", Ops.pad(s4, new long[] {4, 4}, new long[] {4, 4}, new long[] {0, 0}, 0L),
                TensorView.of(a.allocate(1032L * 1032), "s8[1032,1032]")));
        cases.add(new Case("transpose_of_concat_f32_1024x1024", Ops.transpose(cat, 1, 0),
                TensorView.of(a.allocate(1024L * 1024 * 4), "f32[1024,1024]")));
        String only = args.length > 1 ? args[1] : null;
        for (Case c : cases) {
            if (only != null && !c.name().equals(only)) continue;
            for (int i = 0; i < 5; i++) engine.copy(c.src(), c.dst());
            long[] t = new long[15];
            for (int i = 0; i < t.length; i++) {
                long s = System.nanoTime();
                engine.copy(c.src(), c.dst());
                t[i] = System.nanoTime() - s;
            }
            Arrays.sort(t);
            System.out.printf(Locale.ROOT, "%s %s %.3f ms%n", args.length > 0 ? args[0] : "", c.name(), t[t.length / 2] / 1e6);
        }
    }
}
