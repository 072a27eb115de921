/**
 * Staging: producers submit tensors in any layout; one worker converts each into a pooled buffer
 * of a target layout and type and hands it to a consumer.
 *
 * <p>Key types: {@link dev.tensorbuf.interop.staging.StagingPipeline} (with its builder),
 * {@link dev.tensorbuf.interop.staging.StagingTarget} (an XLA shape with layout, or a dtype and a
 * strided layout), {@link dev.tensorbuf.interop.staging.StagingOutcome} (staged or failed, one per
 * accepted tensor), {@link dev.tensorbuf.interop.staging.StagingStats}.
 * {@snippet :
 * try (StagingPipeline p = StagingPipeline.builder().name("demo").pool(pool).build()) {
 *     p.submit(view, StagingTarget.of("f32[3,5]{1,0:T(2,2)}"));
 *     try (var s = (StagingOutcome.Staged) p.poll(Duration.ofSeconds(5))) {
 *         s.view().buffer().byteSize(); // 96: tiles and zeroed padding
 *     }
 * }
 * }
 *
 * <p>Rules for every method here: a staged buffer belongs to whoever receives it, who closes it;
 * the pool belongs to the caller; nothing here needs Agrona's {@code --add-opens} flag (only
 * {@code AgentRunner} and idle strategies are used, which do not touch {@code Unsafe}).
 */
package dev.tensorbuf.interop.staging;
