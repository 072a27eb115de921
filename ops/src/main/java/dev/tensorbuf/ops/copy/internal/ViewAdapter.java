package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.copy.Access;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.MapForm;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import java.util.Optional;

/**
 * Turns a {@link TensorView} into the engine's {@link Access}, choosing the addressing from the
 * view's map form: strided, tiled (an XLA layout the engine knows), or a mapped fallback.
 */
public final class ViewAdapter {
    private ViewAdapter() {}

    /**
     * {@return the view as one engine access, or empty when the view spans several buffers (pad,
     * concatenate) or stores sub-byte elements packed: those are copied element by element}
     */
    public static Optional<Access> access(TensorView view) {
        if (!(view.map() instanceof ViewMap.Single single)) {
            return Optional.empty();
        }
        DType dtype = view.dtype();
        if (view.access().storageBits() < 8) {
            return Optional.empty();
        }
        var segment = single.buffer().segment();
        MapForm form = view.form();
        return Optional.of(switch (form) {
            case MapForm.Strided s -> Access.strided(segment, dtype, s.layout());
            case MapForm.Tiled t when t.xlaShape().isPresent() && t.xlaShape().get().dims().equals(view.dims())
                    -> Access.tiled(segment, t.xlaShape().get());
            case MapForm.Tiled t -> Access.mapped(segment, dtype, t.map());
            case MapForm.General g -> Access.mapped(segment, dtype, g.map());
        });
    }

    /**
     * Copies element by element in logical order, for views the kernels cannot address. Values
     * move as raw bits when the types match, as longs between integer types, else as doubles.
     */
    public static void copyElements(TensorView src, TensorView dst) {
        DType s = src.dtype();
        DType d = dst.dtype();
        boolean sameType = s == d;
        boolean integral = isIntegral(s) && isIntegral(d);
        dst.forEachIndex(index -> {
            if (sameType) {
                dst.setBits(src.getBits(index), index);
            } else if (integral) {
                dst.setLong(src.getLong(index), index);
            } else {
                dst.setDouble(src.getDouble(index), index);
            }
        });
    }

    private static boolean isIntegral(DType t) {
        return t.kind() == DType.Kind.SIGNED || t.kind() == DType.Kind.UNSIGNED || t.kind() == DType.Kind.BOOLEAN;
    }
}
