import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.StridedLayout.TensorFormat;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.util.concurrent.locks.LockSupport;

/**
 * What the copy helpers' polling costs a program that copies now and then: NCHW -> NHWC of
 * f32[1,64,112,112] (3.2 MB, in cache) on two threads, then a pause of GAP_US, for 3 s. Prints
 * the copies' mean time and the process CPU time per copy (copy, pause and any polling).
 *
 *   java --add-modules jdk.incubator.vector -cp cli/target/tensorbuf.jar bench/experiments/Poll.java GAP_US
 */
public class Poll {
    public static void main(String[] args) {
        long gapNanos = Long.parseLong(args[0]) * 1_000;
        long[] dims = {1, 64, 112, 112};
        long bytes = 4L * 64 * 112 * 112;
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (Arena arena = Arena.ofShared()) {
            Access src = Access.strided(arena.allocate(bytes, 64), DType.F32, StridedLayout.of(TensorFormat.NCHW, dims));
            Access dst = Access.strided(arena.allocate(bytes, 64), DType.F32, StridedLayout.of(TensorFormat.NHWC, dims));
            CopyEngine engine = CopyEngine.of(2, true, 0);
            CopyPlan plan = engine.plan(src, dst);
            for (int i = 0; i < 2000; i++) {
                engine.execute(plan);
            }
            long cpu0 = os.getProcessCpuTime();
            long t0 = System.nanoTime();
            long copyNanos = 0;
            int n = 0;
            while (System.nanoTime() - t0 < 3_000_000_000L) {
                long s = System.nanoTime();
                engine.execute(plan);
                copyNanos += System.nanoTime() - s;
                n++;
                LockSupport.parkNanos(gapNanos);
            }
            long cpu = os.getProcessCpuTime() - cpu0;
            System.out.printf("pause %d us: %d copies, %.0f us per copy, process CPU %.0f us per copy%n",
                    gapNanos / 1_000, n, copyNanos / 1e3 / n, cpu / 1e3 / n);
        }
    }
}
