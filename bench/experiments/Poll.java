import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.TensorView;
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
        long bytes = 4L * 64 * 112 * 112;
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (Allocator arena = Allocators.shared()) {
            TensorView src = TensorView.of(arena.allocate(bytes), "f32[1,64,112,112]{3,2,1,0}");
            TensorView dst = TensorView.of(arena.allocate(bytes), "f32[1,64,112,112]{1,3,2,0}");
            CopyEngine engine = CopyEngine.of(2, true, 0);
            for (int i = 0; i < 2000; i++) {
                engine.copy(src, dst);
            }
            long cpu0 = os.getProcessCpuTime();
            long t0 = System.nanoTime();
            long copyNanos = 0;
            int n = 0;
            while (System.nanoTime() - t0 < 3_000_000_000L) {
                long s = System.nanoTime();
                engine.copy(src, dst);
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
