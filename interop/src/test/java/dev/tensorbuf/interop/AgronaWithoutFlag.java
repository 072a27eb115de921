package dev.tensorbuf.interop;

import dev.tensorbuf.interop.staging.StagingPipeline;
import dev.tensorbuf.interop.staging.StagingTarget;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.PooledAllocator;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.time.Duration;

/**
 * Started by {@link AgronaBuffersTest} in a JVM without {@code --add-opens}: prints what the
 * bridge says, and stages one tensor to show the pipeline does not need the opening.
 */
public final class AgronaWithoutFlag {
    private AgronaWithoutFlag() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("available=" + AgronaBuffers.isAvailable());
        try (Allocator arena = Allocators.shared();
             PooledAllocator pool = PooledAllocator.builder().name("child").build()) {
            TensorView v = TensorView.of(arena.allocate(24), "f32[2,3]{1,0}");
            TensorElements.of(v).setFloat(6.5f, 1, 2);
            try {
                AgronaBuffers.asMutableDirectBuffer(v);
                System.out.println("no exception");
            } catch (RuntimeException e) {
                System.out.println(e);
            }
            try (StagingPipeline pipeline = StagingPipeline.builder().name("child").pool(pool).build()) {
                pipeline.submit(v, StagingTarget.of("f32[2,3]{0,1}"));
                try (var staged = (StagingPipeline.Outcome.Staged) pipeline.poll(Duration.ofSeconds(10))) {
                    System.out.println("staged=" + pipeline.stats().staged() + " value=" + TensorElements.of(staged.view()).getFloat(1, 2));
                }
            }
        }
    }
}
