package dev.tensorbuf.interop.staging;

/**
 * A tensor the pipeline would not take or did not stage: the queue stayed full past the submit
 * timeout, the pipeline was closed, or it closed with {@link StagingPipeline.CloseMode#REJECT}
 * before the tensor's turn. The message says which, with the pipeline's name and numbers.
 *
 * {@snippet :
 * pipeline.close();
 * pipeline.submit(view, target);
 * // StagingRejectedException: "staging pipeline 'demo' is closed; tensor not accepted"
 * }
 */
public final class StagingRejectedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** @param message what was rejected and why */
    public StagingRejectedException(String message) {
        super(message);
    }
}
