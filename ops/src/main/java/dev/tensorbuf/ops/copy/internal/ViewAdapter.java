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
     * move as raw bits when the types match, as longs between integer types, as real and
     * imaginary parts into complex types, else as doubles (floats into f32, rounded once). The
     * rules are {@link ValueMover}'s, which the planned kernels follow.
     */
    public static void copyElements(TensorView src, TensorView dst) {
        if (src.elementCount() == 0) {
            return;
        }
        checkDisjoint(src, dst);
        if (dst.stridedLayout().isPresent()) {
            var layout = dst.stridedLayout().get();
            for (int k = 0; k < layout.rank(); k++) {
                if (layout.strides().get(k) == 0 && layout.sizes().get(k) > 1) {
                    throw new IllegalArgumentException("destination " + dst + " writes " + layout.sizes().get(k)
                            + " elements to one slot (stride 0 in dim " + k + "): a destination may not overlap itself");
                }
            }
        }
        DType s = src.dtype();
        DType d = dst.dtype();
        boolean sameType = s == d;
        boolean integral = isIntegral(s) && isIntegral(d);
        boolean complex = d.kind() == DType.Kind.COMPLEX;
        boolean fromComplex = s.kind() == DType.Kind.COMPLEX;
        if (fromComplex && !complex) {
            throw new IllegalArgumentException("cannot convert " + s + " to " + d
                    + ": the imaginary parts would be lost; complex values copy to c64 and c128 only");
        }
        dst.forEachIndex(index -> {
            if (complex) {
                // c128's 128 bits do not fit getBits; the parts carry any type's value (reals get imaginary 0).
                double real = fromComplex ? src.getReal(index) : d == DType.C64 ? src.getFloat(index) : src.getDouble(index);
                dst.setComplex(real, fromComplex ? src.getImag(index) : 0, index);
            } else if (sameType) {
                dst.setBits(src.getBits(index), index);
            } else if (d == DType.PRED) {
                dst.setLong(integral ? (src.getLong(index) != 0 ? 1 : 0) : (src.getDouble(index) != 0 ? 1 : 0), index);
            } else if (integral) {
                dst.setLong(src.getLong(index), index);
            } else if (isIntegral(d)) {
                // As the planned kernels convert (XLA's convert): toward zero; NaN and out of range throw.
                dst.setLong(ValueMover.toInteger(src.getDouble(index), d), index);
            } else if (d == DType.F32) {
                dst.setFloat(src.getFloat(index), index);
            } else {
                dst.setDouble(src.getDouble(index), index);
            }
        });
    }

    /** Element by element there is no temporary: a source sharing memory with the destination would read what it wrote. */
    private static void checkDisjoint(TensorView src, TensorView dst) {
        for (ViewMap.Single out : dst.map().pieces()) {
            for (ViewMap.Single in : src.map().pieces()) {
                if (out.buffer().segment().asOverlappingSlice(in.buffer().segment()).isPresent()) {
                    throw new IllegalArgumentException("source " + src + " and destination " + dst
                            + " share memory: copy through a temporary");
                }
            }
        }
    }

    private static boolean isIntegral(DType t) {
        return t.kind() == DType.Kind.SIGNED || t.kind() == DType.Kind.UNSIGNED || t.kind() == DType.Kind.BOOLEAN;
    }
}
