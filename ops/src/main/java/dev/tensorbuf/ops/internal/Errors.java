package dev.tensorbuf.ops.internal;

import dev.tensorbuf.views.DType;

import java.util.List;

/**
 * The messages {@code ops} builds in more than one place, so that an operand, an attribute or a
 * value is refused in the same words by the ops, the HLO front end, the indexing analysis, the
 * executor and the copy kernels.
 */
public final class Errors {
    private Errors() {
    }

    /**
     * {@return the refusal of a number past the end of its list}, e.g. {@code operand 3 out of bounds
     * [0, 1) for negate n}
     *
     * @param what what the number counts, e.g. {@code "operand"}
     * @param of whose list it is; empty where the caller already says
     */
    public static IndexOutOfBoundsException outOfBounds(String what, long index, long size, String of) {
        return new IndexOutOfBoundsException(what + " " + index + " out of bounds [0, " + size + ")"
                + (of.isEmpty() ? "" : " for " + of));
    }

    /**
     * {@return the refusal of an instruction without an attribute its op cannot do without}, e.g.
     * {@code fusion f has no calls attribute}
     *
     * @param where the instruction, as the caller names it
     */
    public static IllegalArgumentException missingAttribute(String where, String attribute) {
        return new IllegalArgumentException(where + " has no " + attribute + " attribute");
    }

    /**
     * {@return the refusal of an attribute with one entry per dimension whose count is not the rank},
     * e.g. {@code slice s of f32[4]{0} to f32[2]{0}: slice has 2 dims, operand rank is 1 and result rank 1}
     */
    public static IllegalArgumentException attributeRank(String where, String attribute, int entries, int operandRank,
                                                         int resultRank) {
        return new IllegalArgumentException(where + ": " + attribute + " has " + entries + " dims, operand rank is "
                + operandRank + " and result rank " + resultRank);
    }

    /**
     * {@return the refusal of dimensions that should name each of {@code [0, rank)} once}, e.g.
     * {@code transpose t: dimensions [0, 0] are not a permutation of [0, 2)}
     */
    public static IllegalArgumentException notAPermutation(String where, Object dimensions, int rank) {
        return new IllegalArgumentException(where + ": dimensions " + dimensions + " are not a permutation of [0, "
                + rank + ")");
    }

    /**
     * {@return the refusal of a reshape that would add or drop elements}, e.g. {@code reshape of
     * f32[2,3]{1,0} (6 elements) to [4, 2] (8 elements): element counts differ}
     */
    public static IllegalArgumentException elementCountsDiffer(String what, Object from, long fromCount, Object to,
                                                               long toCount) {
        return new IllegalArgumentException(what + " of " + from + " (" + fromCount + " elements) to " + to + " ("
                + toCount + " elements): element counts differ");
    }

    /**
     * {@return the refusal of a size past {@code Long.MAX_VALUE}}
     *
     * @param what the size and the counts it is made of, e.g. {@code "pad of ...: size 1 + 2 + 3"}
     */
    public static IllegalArgumentException overflows(String what, ArithmeticException cause) {
        // The wording is views': a size overflows in the same words whichever module counts it.
        return dev.tensorbuf.views.internal.Errors.overflows(what, cause);
    }

    /**
     * {@return as {@link #overflows(String, ArithmeticException)}, the operation that overflowed
     * last}, e.g. {@code bytes read overflows a long: 4611686018427387904 * 4}
     */
    public static IllegalArgumentException overflows(String what, String operation, ArithmeticException cause) {
        return dev.tensorbuf.views.internal.Errors.overflows(what, operation, cause);
    }

    /**
     * {@return the refusal of a value that integer type {@code type} cannot hold, naming its
     * range}, e.g. {@code value -3.5 out of range [0, 255] for u8}; infinities and values past 64
     * bits alike ({@code value Infinity out of range [0, 255] for u8})
     *
     * @param value as the source prints it: -2.7 for an f32, not -2.700000047683716
     * @param cause the narrower check that refused it, or null
     */
    public static IllegalArgumentException valueOutOfIntegerRange(String value, DType type, Throwable cause) {
        // views words it for an element written out of range; a converted value is refused alike.
        IllegalArgumentException e = dev.tensorbuf.views.internal.Errors.valueOutOfRange(value, type);
        return cause == null ? e : (IllegalArgumentException) e.initCause(cause);
    }

    /**
     * {@return as {@link #valueOutOfIntegerRange}, for NaN}: {@code value NaN out of range [0, 255]
     * for u8: NaN has no integer value}, since no range holds it, however wide
     */
    public static IllegalArgumentException nanOutOfIntegerRange(DType type) {
        return new IllegalArgumentException(dev.tensorbuf.views.internal.Errors.valueOutOfRange("NaN", type).getMessage()
                + ": NaN has no integer value");
    }

    /** {@return the refusal of a destination with a zero stride}: it would write {@code count} values to one slot */
    public static IllegalArgumentException zeroStrideDestination(long count) {
        return overlapsItself("destination writes " + count + " elements to one slot (stride 0)");
    }

    /**
     * {@return the refusal of a destination that reaches one slot from two indices}: which value
     * would win depends on the kernel's order
     *
     * @param writes what the destination writes where, e.g. {@code "... writes index [0] and index [1] to one slot"}
     */
    public static IllegalArgumentException overlapsItself(String writes) {
        return new IllegalArgumentException(writes + ": a destination may not overlap itself");
    }

    /**
     * {@return the refusal of a lookup by a name that is not there}, e.g. {@code no instruction q in
     * computation e; it has [p]}
     *
     * @param there the names there are, or null where listing them would not help
     */
    public static IllegalArgumentException notFound(String kind, String name, String where, List<String> there) {
        return new IllegalArgumentException("no " + kind + " " + name + " in " + where
                + (there == null ? "" : "; it has " + there));
    }

    /**
     * {@return the refusal of a complex to real conversion}, e.g. {@code cannot convert c64 to f32:
     * the imaginary parts would be lost; complex values copy to c64 and c128 only}
     */
    public static IllegalArgumentException imaginaryPartsLost(DType from, DType to) {
        return new IllegalArgumentException("cannot convert " + from + " to " + to
                + ": the imaginary parts would be lost; complex values copy to c64 and c128 only");
    }
}
