import dev.tensorbuf.interop.staging.StagingPipeline;
import dev.tensorbuf.interop.staging.StagingTarget;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.PooledAllocator;
import dev.tensorbuf.views.TensorView;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * Submit-to-outcome latency of the staging pipeline for a small tensor, with a pause between
 * submissions (requests arriving one by one: the worker goes idle between them) and without
 * (a stream). Prints the median and 90th percentile in us.
 * java --add-modules jdk.incubator.vector -cp cli/target/tensorbuf.jar bench/experiments/StagingLatency.java [PAUSE_US...]
 */
public class StagingLatency {
    public static void main(String[] args) throws Exception {
        long[] pauses = args.length == 0 ? new long[] {0, 50, 200, 2000} : Arrays.stream(args).mapToLong(Long::parseLong).toArray();
        try (PooledAllocator pool = PooledAllocator.builder().name("lat").byteLimit(64 << 20).build();
                Allocator arena = Allocators.shared();
                StagingPipeline p = StagingPipeline.builder().name("lat").pool(pool).build()) {
            TensorView src = TensorView.of(arena.allocate(4 * 48), "f32[1,3,4,4]{3,2,1,0}");
            StagingTarget target = StagingTarget.of("bf16[1,3,4,4]{1,3,2,0}");
            for (long pause : pauses) {
                int n = pause >= 1000 ? 1500 : 4000;
                long[] t = new long[n];
                for (int i = 0; i < n + 500; i++) {
                    if (pause > 0) {
                        LockSupport.parkNanos(pause * 1000);
                    }
                    long start = System.nanoTime();
                    p.submit(src, target);
                    try (var s = (StagingPipeline.Outcome.Staged) p.poll(Duration.ofSeconds(5))) {
                        if (i >= 500) {
                            t[i - 500] = System.nanoTime() - start;
                        }
                    }
                }
                Arrays.sort(t);
                System.out.printf("pause %5d us: median %7.1f us, p90 %7.1f us%n", pause, t[n / 2] / 1e3, t[n * 9 / 10] / 1e3);
            }
        }
    }
}
