package dev.tensorbuf.views.internal;

import dev.tensorbuf.views.PadRemap;
import dev.tensorbuf.views.Remap;
import dev.tensorbuf.views.TensorView;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The op a view was made by and kept, where it kept one: a view over several pieces (a pad, a
 * concatenation) or a remap of a view without strides. The copy engine reads it to copy such a
 * view as planned copies of its parts instead of element by element; nothing else needs it, so
 * it stays out of {@link TensorView}'s API. {@link TensorView} installs the reader when its class
 * is initialized, which happens before any view exists to be asked about.
 * {@snippet :
 * ViewOrigin.of(Ops.concatenate(0, List.of(a, b)));   // Optional[Joined[parts=[a, b], places=[...]]]
 * ViewOrigin.of(TensorView.of(buffer, "f32[2,3]"));   // Optional.empty(): its own layout
 * }
 */
public sealed interface ViewOrigin {

    /**
     * A concatenation: the non-empty parts side by side, each placed by a pad without interior
     * padding (its low edge is where it starts).
     *
     * @param parts the non-empty parts, in order
     * @param places each part's place in the joined view
     */
    record Joined(List<TensorView> parts, List<PadRemap> places) implements ViewOrigin {
    }

    /**
     * A pad: {@code source} read through {@code pad}'s windows, {@code fill} (rank 0) elsewhere.
     *
     * @param source the padded view
     * @param pad the edges and interior padding per dimension
     * @param fill the rank-0 fill
     */
    record Padded(TensorView source, PadRemap pad, TensorView fill) implements ViewOrigin {
    }

    /**
     * A view of {@code source} through a total op map, kept because the source has no strides to
     * compose it into.
     *
     * @param source the view read
     * @param op from this view's index to the source's
     */
    record Remapped(TensorView source, Remap op) implements ViewOrigin {
    }

    /** {@return the op {@code view} was made by, if it kept one}: empty for views with strides or a layout of their own */
    static Optional<ViewOrigin> of(TensorView view) {
        return Reader.reader.apply(Objects.requireNonNull(view, "view"));
    }

    /**
     * Installs the reader; {@link TensorView}'s class initializer calls this once.
     *
     * @throws IllegalStateException on a second call
     */
    static void install(Function<TensorView, Optional<ViewOrigin>> reader) {
        synchronized (Reader.class) {
            if (Reader.reader != null) {
                throw new IllegalStateException("the view origin reader is installed already");
            }
            Reader.reader = Objects.requireNonNull(reader, "reader");
        }
    }

    /** Holds the installed reader. */
    final class Reader {
        private static volatile Function<TensorView, Optional<ViewOrigin>> reader;

        private Reader() {
        }
    }
}
