package dev.tensorbuf.interop.staging;

import dev.tensorbuf.views.TensorView;
import java.util.Objects;

/**
 * What became of one accepted submission: every tensor a {@link StagingPipeline} accepts ends in
 * exactly one outcome, {@link Staged} or {@link Failed}.
 *
 * {@snippet :
 * switch (pipeline.poll(Duration.ofSeconds(1))) {
 *     case StagingOutcome.Staged s -> {
 *         try (s) {                       // gives the buffer back to the pool
 *             TensorElements.of(s.view()).getFloat(2, 3);    // the converted tensor, in the target's layout
 *         }
 *     }
 *     case StagingOutcome.Failed f -> System.err.println("tensor #" + f.id() + ": " + f.error().getMessage());
 *     case null -> { }                    // nothing within a second
 * }
 * }
 */
public sealed interface StagingOutcome permits StagingOutcome.Staged, StagingOutcome.Failed {
    /** {@return the id {@code submit} returned} */
    long id();

    /**
     * A converted tensor in a pooled buffer; the receiver owns it and closes it to give the buffer
     * back (closing twice does nothing).
     *
     * @param id the submission's id
     * @param view the tensor in the target's layout and type, over its own pooled buffer
     */
    record Staged(long id, TensorView view) implements StagingOutcome, AutoCloseable {
        /** Checks for null. */
        public Staged {
            Objects.requireNonNull(view, "view");
        }

        /** Gives the buffer back to its pool. */
        @Override
        public void close() {
            view.buffer().close();
        }
    }

    /**
     * A submission that was not staged: the conversion failed (a value the target type cannot
     * hold, the pool's limit, more memory than the system gives), or the pipeline closed with
     * {@link StagingPipeline.CloseMode#REJECT} ({@link StagingRejectedException}). An
     * {@link Error} (the pool's {@link OutOfMemoryError}) comes wrapped in an
     * {@link IllegalStateException}, as its cause.
     *
     * @param id the submission's id
     * @param source the tensor as submitted
     * @param error why
     */
    record Failed(long id, TensorView source, RuntimeException error) implements StagingOutcome {
        /** Checks for null. */
        public Failed {
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(error, "error");
        }
    }
}
