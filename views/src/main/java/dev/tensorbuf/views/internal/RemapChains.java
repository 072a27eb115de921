package dev.tensorbuf.views.internal;

import dev.tensorbuf.views.Remap;
import dev.tensorbuf.views.TensorView;
import java.util.List;
import java.util.Objects;
import java.util.function.BiFunction;

/**
 * A view remapped through several steps in one call, made once while its strides take them: the
 * bitcast's transpose, reshape, transpose. Not API (a user chains {@link TensorView#remap(Remap)});
 * the views package installs the one implementation when {@link TensorView} is initialized, which
 * any view passed here has been.
 * {@snippet :
 * RemapChains.remap(TensorView.of(buffer, "f32[2,3]{1,0}"), List.of(Remap.Reshape.of(new long[] {2, 3}, new long[] {3, 2}),
 *         Remap.Affine.of(new long[] {2, 3}, new long[][] {{0, 1}, {1, 0}}, new long[] {0, 0}))).toString();
 * // "f32[2,3] strides [1, 2]"
 * }
 */
public final class RemapChains {
    private static volatile BiFunction<TensorView, List<Remap>, TensorView> chain;

    private RemapChains() {
    }

    /**
     * Installs the implementation: the views package's, once.
     *
     * @throws IllegalStateException when one is installed already
     */
    public static synchronized void install(BiFunction<TensorView, List<Remap>, TensorView> implementation) {
        if (chain != null) {
            throw new IllegalStateException("the remap chain is installed already");
        }
        chain = Objects.requireNonNull(implementation, "implementation");
    }

    /**
     * {@return {@code view} remapped through each step in turn}: the same view as
     * {@code view.remap(steps.get(0)).remap(steps.get(1))...}
     *
     * @throws IllegalArgumentException as {@link TensorView#remap(Remap)} for the first step that does not fit
     */
    public static TensorView remap(TensorView view, List<Remap> steps) {
        Objects.requireNonNull(view, "view");
        return chain.apply(view, List.copyOf(steps));
    }
}
