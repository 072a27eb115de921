package dev.tensorbuf.ops.exec.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.ops.copy.internal.Pointwise;
import dev.tensorbuf.ops.hlo.HloComputation;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.internal.MiniFloat;

/**
 * XLA's {@code convert}, element by element into new memory, with XLA's CPU semantics (checked
 * against jaxlib 0.10.2 on every pattern of the 8- and 16-bit types and the awkward values of the
 * wider ones, ConvertXlaAgreementTest): float to integer truncates toward zero and saturates, NaN gives 0;
 * integer to integer keeps the low bits (two's complement wrap); anything to {@code pred} is
 * {@code x != 0} (NaN is true); float to float rounds to nearest even (ElementAccess, ml_dtypes'
 * NaN and overflow rules); integer to {@code f32} is rounded once. Integers past 2^53 going to a
 * float type other than {@code f32}/{@code f64} pass through a double first, which may round twice.
 * Real to complex gives an imaginary part of 0; complex to complex converts part by part; complex
 * to a real type keeps the real part. Complex to {@code pred} is refused: jaxlib's CPU compiler
 * crashes on it. Denormals are flushed where XLA converts in f32/f64 arithmetic ({@link Pointwise#flushed}).
 */
public final class Conversions {

    private Conversions() {
    }

    /**
     * {@return whether XLA drops the convert {@code in} reads: {@code in} converts, directly, a
     * convert that widens a float or complex value, and one of the three types is complex} XLA's
     * simplifier converts from the narrower type at once (jax 0.10.2: f32 -> c128 -> c64, f32 ->
     * f64 -> c64 and f32 -> c128 -> f32 keep a denormal, which f32 -> c128 alone flushes; seed
     * 1142). Chains of real floats {@link Fusion} rewrites itself, across data movement too.
     */
    static boolean dropsWidening(HloComputation comp, HloInstruction in) {
        if (!in.opcode().equals("convert") || in.operands().size() != 1) {
            return false;
        }
        HloInstruction middle = comp.instruction(in.operands().getFirst());
        if (!middle.opcode().equals("convert") || middle.operands().size() != 1) {
            return false;
        }
        DType from = comp.instruction(middle.operands().getFirst()).arrayShape().dtype();
        DType via = middle.arrayShape().dtype();
        DType to = in.arrayShape().dtype();
        boolean complex = from.kind() == DType.Kind.COMPLEX || via.kind() == DType.Kind.COMPLEX || to.kind() == DType.Kind.COMPLEX;
        return complex && WIDE_FLOATS.contains(from) && WIDE_FLOATS.contains(via) && WIDE_FLOATS.contains(to)
                && partBits(via) > partBits(from);
    }

    /**
     * {@return the instruction {@code in} reads as operand {@code k}: the operand, or where
     * {@link #dropsWidening} the convert's own operand} Whatever evaluates or lays out that operand
     * asks here, so that the value and its shape agree.
     */
    static HloInstruction operandRead(HloComputation comp, HloInstruction in, int k) {
        HloInstruction operand = comp.instruction(in.operands().get(k));
        return dropsWidening(comp, in) ? comp.instruction(operand.operands().getFirst()) : operand;
    }

    private static final java.util.Set<DType> WIDE_FLOATS = java.util.Set.of(DType.F16, DType.BF16, DType.F32, DType.F64,
            DType.C64, DType.C128);

    private static int partBits(DType t) {
        return t.kind() == DType.Kind.COMPLEX ? t.componentType().bitWidth() : t.bitWidth();
    }

    /**
     * {@return {@code src} converted to {@code shape}'s type, in new memory laid out by {@code shape}}
     *
     * @throws IllegalArgumentException for complex to pred, token or opaque types, or dims that differ
     */
    public static TensorView convert(TensorView src, ArrayShape shape, Allocator allocator) {
        if (!src.dims().equals(shape.dims())) {
            throw new IllegalArgumentException("convert of " + src + " to " + shape + ": dims differ");
        }
        DType from = src.dtype();
        DType to = shape.dtype();
        if (from.kind() == DType.Kind.NONE || to.kind() == DType.Kind.NONE) {
            throw new IllegalArgumentException("convert from " + from + " to " + to + " is not supported: "
                    + (from.kind() == DType.Kind.NONE ? from : to) + " has no elements");
        }
        if (from.kind() == DType.Kind.COMPLEX && to == DType.PRED) {
            // jaxlib 0.10.2's CPU compiler crashes on this convert, so there is no XLA result to agree with.
            throw new IllegalArgumentException("convert from " + from + " to pred is not supported: XLA's CPU backend"
                    + " has no result for it to agree with; compare the real part instead");
        }
        TensorView dst = Materialize.allocate(shape, allocator);
        boolean fromComplex = from.kind() == DType.Kind.COMPLEX;
        boolean fromFloat = from.kind() == DType.Kind.FLOAT || fromComplex;
        DType fromPart = from.componentType();
        if (to.kind() == DType.Kind.COMPLEX) {
            // The real part converts as to the part's own type (f32 for c64); a real value's imaginary part is 0.
            DType toPart = to.componentType();
            if (to == DType.C64 && (from == DType.F32 || from == DType.BF16)) {
                // Exact as floats, and XLA keeps a signalling NaN's bits, which a double would quiet.
                TensorElements.of(src).forEachIndex(i -> TensorElements.of(dst).setComplexFloat(TensorElements.of(src).getFloat(i), 0f, i));
                return dst;
            }
            TensorElements.of(src).forEachIndex(i -> TensorElements.of(dst).setComplex(
                    fromComplex ? Pointwise.flushed(TensorElements.of(src).getReal(i), fromPart, toPart)
                            : fromFloat ? Pointwise.flushed(TensorElements.of(src).getDouble(i), fromPart, toPart)
                            : toPart == DType.F32 ? toF32(src, i) : TensorElements.of(src).getDouble(i),
                    fromComplex ? Pointwise.flushed(TensorElements.of(src).getImag(i), fromPart, toPart) : 0, i));
            return dst;
        }
        // Complex to real keeps the real part, which then converts as a float would.
        switch (to.kind()) {
            case BOOLEAN -> TensorElements.of(src).forEachIndex(i -> TensorElements.of(dst).setBits(
                    (fromFloat ? Pointwise.nonZero(TensorElements.of(src).getDouble(i), from) : TensorElements.of(src).getLong(i) != 0) ? 1 : 0, i));
            case SIGNED, UNSIGNED -> {
                long mask = to.bitWidth() == 64 ? -1L : (1L << to.bitWidth()) - 1;
                if (fromFloat) {
                    TensorElements.of(src).forEachIndex(i -> TensorElements.of(dst).setBits(Pointwise.saturate(realValue(src, i), to) & mask, i));
                } else {
                    TensorElements.of(src).forEachIndex(i -> TensorElements.of(dst).setBits(TensorElements.of(src).getLong(i) & mask, i));
                }
            }
            case FLOAT -> {
                if (to == DType.F32 && (!fromFloat || from == DType.BF16)) {
                    // bf16 exactly, a signalling NaN's bits too, as XLA keeps them (a double would quiet them).
                    TensorElements.of(src).forEachIndex(i -> TensorElements.of(dst).setFloat(toF32(src, i), i));
                } else if (to == DType.F8E5M2 && MiniFloat.e5m2NanFromNarrow(from)) {
                    TensorElements.of(src).forEachIndex(i -> {
                        double v = TensorElements.of(src).getDouble(i);
                        if (Double.isNaN(v)) {
                            TensorElements.of(dst).setBits(MiniFloat.E5M2_NAN_FROM_NARROW, i);
                        } else {
                            TensorElements.of(dst).setDouble(v, i);
                        }
                    });
                } else {
                    TensorElements.of(src).forEachIndex(i -> TensorElements.of(dst).setDouble(nanToF4(Pointwise.flushed(realValue(src, i), fromPart, to), to), i));
                }
            }
            case COMPLEX, NONE -> throw new AssertionError(to);
        }
        return dst;
    }



    /** {@return {@code v}, but a NaN bound for f4e2m1fn (which has none) as -0, as XLA gives it (ml_dtypes gives +0)} */
    private static double nanToF4(double v, DType to) {
        return to == DType.F4E2M1FN && Double.isNaN(v) ? -0.0 : v;
    }

    /** {@return the element as a double; a complex element's real part} */
    private static double realValue(TensorView src, long[] i) {
        return src.dtype().kind() == DType.Kind.COMPLEX ? TensorElements.of(src).getReal(i) : TensorElements.of(src).getDouble(i);
    }

    /** {@return the element rounded once to f32, 64-bit integers included; a complex element's real part} */
    private static float toF32(TensorView src, long[] i) {
        return src.dtype().kind() == DType.Kind.COMPLEX ? (float) TensorElements.of(src).getReal(i) : TensorElements.of(src).getFloat(i);
    }

}
