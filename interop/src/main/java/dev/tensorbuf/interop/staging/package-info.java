/**
 * Staging: producers submit tensors in any layout; one worker converts each into a pooled buffer
 * of a target layout and type and hands it to a consumer.
 *
 * <p>Two public types: {@link dev.tensorbuf.interop.staging.StagingPipeline} (with its
 * {@code Builder}, and nested {@code Outcome} (staged or failed, one per accepted tensor),
 * {@code Stats} and {@code RejectedException}) and {@link dev.tensorbuf.interop.staging.StagingTarget}
 * (an XLA shape with layout, or a dtype and a strided layout).
 * {@snippet :
 * try (StagingPipeline p = StagingPipeline.builder().name("demo").pool(pool).build()) {
 *     p.submit(view, StagingTarget.of("f32[3,5]{1,0:T(2,2)}"));
 *     try (var s = (StagingPipeline.Outcome.Staged) p.poll(Duration.ofSeconds(5))) {
 *         s.view().buffer().byteSize(); // 96: tiles and zeroed padding
 *     }
 * }
 * }
 *
 * <p>Rules for every method here: a staged buffer belongs to whoever receives it, who closes it;
 * the pool belongs to the caller; nothing here needs Agrona's {@code --add-opens} flag (only
 * {@code AgentRunner} and idle strategies are used, which do not touch {@code Unsafe}).
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>StagingPipeline.java</code></dt>
 * <dd>producers submit views in any layout; an Agrona <code>AgentRunner</code> converts each into a
 *     pooled buffer of the target layout; bounded queue (<code>submit</code> blocks up to a
 *     timeout, <code>trySubmit</code> never: no lock is shared with close, the worker waits out
 *     submitters in flight), drain or reject on close; close waits at most
 *     <code>drainTimeout</code> + 1 s, and from the consumer callback only starts closing;
 *     <code>submit</code> from the callback never waits (refused at once on a full queue); sources
 *     a confined arena keeps from the worker are refused at submit; a submit and a close unpark a
 *     worker that found the queue empty, so a tensor after a quiet spell does not wait out the idle
 *     strategy's park (up to 1 ms)</dd>
 * <dt><code>StagingAgent.java</code>, <code>StagingTarget.java</code>, and
 *     <code>StagingPipeline</code>'s nested <code>Outcome</code>, <code>Stats</code>,
 *     <code>RejectedException</code></dt>
 * <dd>the worker (every failure of a tensor, <code>Error</code>s included, becomes its outcome or a
 *     log line; it ends its own thread once closing and every accepted tensor is answered, and
 *     applies the drain deadline itself), targets (XLA or strided, optionally
 *     <code>normalised</code> by a per-channel <code>ChannelAffine</code>; a strided target that
 *     writes one slot twice is refused when made; gaps counted in bits, so packed sub-byte tails
 *     are zeroed), outcomes (staged or failed: exactly one per tensor), counts (a tensor counts as
 *     accepted before it is queued, and a snapshot reads outcomes first, so none shows more
 *     outcomes than acceptances), rejection</dd>
 * </dl>
 */
package dev.tensorbuf.interop.staging;
