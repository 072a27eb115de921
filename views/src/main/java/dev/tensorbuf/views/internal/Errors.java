package dev.tensorbuf.views.internal;

import dev.tensorbuf.views.DType;

import java.util.Arrays;
import java.util.List;

/**
 * The messages that {@code dev.tensorbuf.views} and this package build in more than one place, so
 * that an index, a size or a name is refused in the same words wherever it is checked.
 *
 * <p>Public only because both packages use it; the module exports this package to {@code ops} and
 * {@code interop} for other classes, and those modules word their failures through their own
 * {@code Errors}. The indexing algebra ({@code dev.tensorbuf.views.indexing}) imports nothing from
 * the rest of {@code views}, so it keeps its messages in its own classes ({@code Exprs},
 * {@code EvalNode}) rather than depend on this one.
 */
public final class Errors {
    private Errors() {
    }

    /**
     * {@return the refusal of an index outside its dim}, e.g. {@code index 7 out of bounds [0, 4) for
     * dim 1 of f32[2,4]{1,0}}
     *
     * @param of what the dims belong to: a shape, or {@code "sizes [2, 4]"}
     */
    public static IndexOutOfBoundsException indexOutOfBounds(long index, long size, int dim, Object of) {
        return new IndexOutOfBoundsException("index " + index + " out of bounds [0, " + size + ") for dim " + dim
                + " of " + of);
    }

    /**
     * {@return the refusal of an index with one value too many or too few}, e.g. {@code index [1] has
     * rank 1 but f32[2,4]{1,0} has rank 2}
     */
    public static IllegalArgumentException indexRank(long[] index, Object of, int rank) {
        return new IllegalArgumentException("index " + Arrays.toString(index) + " has rank " + index.length + " but "
                + of + " has rank " + rank);
    }

    /**
     * {@return the refusal of a negative size}, e.g. {@code size -1 of dim 1 is negative in sizes [2, -1]}
     *
     * @param of the dims with their name, e.g. {@code "sizes [2, -1]"} or {@code "f32[2, -1]"}
     */
    public static IllegalArgumentException negativeSize(long size, int dim, Object of) {
        return new IllegalArgumentException("size " + size + " of dim " + dim + " is negative in " + of);
    }

    /**
     * {@return the refusal of a size or count past {@code Long.MAX_VALUE}}, e.g. {@code element count
     * of sizes [4611686018427387904, 4] overflows a long}
     *
     * @param what the quantity and the counts it is made of
     */
    public static IllegalArgumentException overflows(String what, ArithmeticException cause) {
        return new IllegalArgumentException(what + " overflows a long", cause);
    }

    /**
     * {@return as {@link #overflows(String, ArithmeticException)}, the operation that overflowed
     * last}, e.g. {@code physical byte size of s8[...] overflows a long: 1024 * 9007199254740992}
     */
    public static IllegalArgumentException overflows(String what, String operation, ArithmeticException cause) {
        return new IllegalArgumentException(what + " overflows a long: " + operation, cause);
    }

    /**
     * {@return {@code unknown KIND 'NAME'}}: the text, for a parser to place at the name and for
     * {@link #unknown(String, String, String)}
     */
    public static String unknownText(String kind, String name) {
        return "unknown " + kind + " '" + name + "'";
    }

    /**
     * {@return the refusal of a name that names nothing}, e.g. {@code unknown tensor format 'NWHC':
     * expected one of [NCHW, ...]}
     *
     * @param expected what would have been understood; empty to say nothing more
     */
    public static IllegalArgumentException unknown(String kind, String name, String expected) {
        return new IllegalArgumentException(unknownText(kind, name) + (expected.isEmpty() ? "" : ": expected " + expected));
    }

    /** {@return the refusal of an integer that {@code type} cannot hold}, e.g. {@code value 16 out of range [0, 15] for u4} */
    public static IllegalArgumentException valueOutOfRange(Object value, DType type) {
        return new IllegalArgumentException("value " + value + " out of range " + type.integerRange() + " for " + type);
    }

    /**
     * {@return the refusal of a token or opaque type where elements are needed}
     *
     * @param use what was to be done with them, e.g. {@code "access"}
     */
    public static IllegalArgumentException noElements(DType type, String use) {
        return new IllegalArgumentException(type + " has no elements to " + use);
    }

    /**
     * {@return XLA's words for a {@code minor_to_major} entry outside the rank}, as text: the shape
     * parser places it at the entry, the layout and shape checks throw it
     *
     * @param shape the shape text, or null where the layout is checked without one
     */
    public static String minorToMajorOutOfBounds(List<Integer> minorToMajor, String shape) {
        return "layout minor_to_major field has out-of-bounds value: " + braced(minorToMajor)
                + (shape == null ? "" : "; shape: " + shape);
    }

    /** {@return {@code {1, 0}}: how XLA's layout messages print a list} */
    public static String braced(List<Integer> values) {
        List<String> parts = values.stream().map(String::valueOf).toList();
        return "{" + String.join(", ", parts) + "}";
    }

    /** {@return the refusal of a concatenation of nothing}: its dims would be unknown */
    public static IllegalArgumentException noParts() {
        return new IllegalArgumentException("a concatenation needs at least one part");
    }
}
