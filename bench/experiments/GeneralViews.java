// Copies of general views (reshapes of transposes) into dense destinations, beside the strided copy
// of the same transpose and a 2-thread MemorySegment.copy of the same bytes, timed in turns.
// Output: one line per case, "case bytes ms_median GB/s ratio_to_copy route [kernels]" (route and kernels from CopyEngine.explain).
// java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -cp cli/target/tensorbuf.jar \
//     bench/experiments/GeneralViews.java [ROUNDS]

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.regex.Pattern;

public class GeneralViews {
    // The kernels of the explanation's run steps (its JSON names each as "kernel").
    static final Pattern KERNEL = Pattern.compile("\"kernel\":\"([^\"]+)\"");
    static final CopyEngine E = CopyEngine.defaults();
    static final Allocator A = Allocators.shared();

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        System.out.println("# parallelism " + E.parallelism() + ", vector " + E.vectorKernels());
        // NHWC -> NCHW, then C, H and W flattened: [32, 64 * 112 * 112].
        TensorView nhwc = view("f32[32,112,112,64]");
        run("NHWC->NCHW strided", rounds, Ops.transpose(nhwc, 0, 3, 1, 2), view("f32[32,64,112,112]"));
        run("NHWC->NCHW flattened", rounds, Ops.reshape(Ops.transpose(nhwc, 0, 3, 1, 2), 32, 64L * 112 * 112),
                view("f32[32," + (64L * 112 * 112) + "]"));
        TensorView square = view("f32[4096,4096]");
        run("transpose 4096^2 strided", rounds, Ops.transpose(square, 1, 0), view("f32[4096,4096]"));
        run("transpose 4096^2 flattened", rounds, Ops.reshape(Ops.transpose(square, 1, 0), 4096L * 4096),
                view("f32[" + (4096L * 4096) + "]"));
    }

    static TensorView view(String shape) {
        TensorView v = TensorView.of(A.allocate(sizeOf(shape)), shape);
        v.buffer().segment().fill((byte) 1);
        return v;
    }

    static long sizeOf(String shape) {
        long n = 4;
        for (String d : shape.substring(shape.indexOf('[') + 1, shape.indexOf(']')).split(",")) {
            n *= Long.parseLong(d.trim());
        }
        return n;
    }

    static void run(String name, int rounds, TensorView src, TensorView dst) {
        long bytes = src.buffer().segment().byteSize();
        MemorySegment a = A.allocate(bytes).segment();
        MemorySegment b = A.allocate(bytes).segment();
        a.fill((byte) 2);
        b.fill((byte) 3);
        Runnable copy = () -> {
            // Two threads, each half, as the engine's parallel copy.
            Thread t = Thread.ofPlatform().start(() -> MemorySegment.copy(a, 0, b, 0, bytes / 2));
            MemorySegment.copy(a, bytes / 2, b, bytes / 2, bytes - bytes / 2);
            try {
                t.join();
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            }
        };
        Runnable kase = () -> E.copy(src, dst);
        double[] ct = new double[rounds];
        double[] kt = new double[rounds];
        for (int w = 0; w < 2; w++) {
            copy.run();
            kase.run();
        }
        for (int r = 0; r < rounds; r++) {
            ct[r] = time(copy);
            kt[r] = time(kase);
        }
        Arrays.sort(ct);
        Arrays.sort(kt);
        double k = kt[rounds / 2];
        double c = ct[rounds / 2];
        var explanation = E.explain(src, dst);
        String kernels = explanation.route() + " " + KERNEL.matcher(explanation.toJson()).results().map(m -> m.group(1))
                .distinct().toList();
        System.out.printf("%-28s %11d %9.2f ms %6.2f GB/s %5.2f of copy  %s%n", name, bytes, k * 1e3, 2 * bytes / k / 1e9,
                c / k, kernels);
    }

    static double time(Runnable r) {
        long t = System.nanoTime();
        r.run();
        return (System.nanoTime() - t) / 1e9;
    }
}
