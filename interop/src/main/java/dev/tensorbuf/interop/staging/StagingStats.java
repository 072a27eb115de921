package dev.tensorbuf.interop.staging;

/**
 * A snapshot of a pipeline's counts. In every snapshot {@code staged + failed + rejected <=
 * accepted}; once the pipeline is closed, {@code accepted == staged + failed + rejected}: every
 * accepted tensor has exactly one outcome. While a submission waits for room in the queue it
 * counts as accepted, and stops counting if it times out.
 *
 * {@snippet :
 * pipeline.stats().toString();
 * // "staging 'demo': 3 accepted, 3 staged (288 bytes), 0 failed, 0 rejected, 0 queued"
 * }
 *
 * @param name the pipeline's name
 * @param accepted submissions taken into the queue
 * @param staged tensors converted and delivered
 * @param failed tensors whose conversion failed
 * @param rejected tensors failed unstaged because the pipeline was closing: with REJECT, past the drain
 *     timeout, or by an interrupted close
 * @param bytesStaged bytes of the staged buffers
 * @param queued submissions waiting now
 */
public record StagingStats(String name, long accepted, long staged, long failed, long rejected, long bytesStaged, int queued) {
    @Override
    public String toString() {
        return "staging '" + name + "': " + accepted + " accepted, " + staged + " staged (" + bytesStaged + " bytes), "
                + failed + " failed, " + rejected + " rejected, " + queued + " queued";
    }
}
