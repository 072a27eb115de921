package dev.tensorbuf.ops.exec.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.internal.AsciiDigits;
import dev.tensorbuf.ops.copy.internal.Pointwise;
import dev.tensorbuf.ops.copy.internal.ScalarLiteral;
import dev.tensorbuf.ops.internal.Errors;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the literal of a {@code constant} as XLA prints it: a scalar ({@code 1.5}, {@code -inf},
 * {@code nan}, {@code true}) or nested braces, one level per dimension
 * ({@code {{1, 2}, {3, 4}}}), complex values as (real, imaginary) pairs ({@code (1, -2.5)}), into
 * new memory laid out by the constant's shape. Elided literals ({@code {...}}), NaN payloads
 * and finite values the type rounds to infinity or NaN are refused with the reason, as XLA
 * refuses them; {@code -nan} keeps its sign, and {@code -0} is negative zero, as the program
 * XLA printed it from had it. Every float spelling XLA prints (its shortest round-trip digits,
 * exponents, denormals such as {@code 4.94065645841247e-324}, {@code inf}, {@code nan}) reads
 * back to the value printed, the decimal rounded once to the type by {@link ScalarLiteral}, the
 * reader an epilogue's constants go through too.
 */
public final class Literals {
    private Literals() {
    }

    /**
     * {@return the constant's value as a view of {@code shape}}
     *
     * @throws IllegalArgumentException naming the position and what was expected, for a literal
     *     that does not match the shape or type
     */
    public static TensorView parse(String literal, ArrayShape shape, Allocator allocator) {
        List<String> values = values(literal, shape);
        TensorView v = Materialize.allocate(shape, allocator);
        int[] next = {0};
        TensorElements.of(v).forEachIndex(i -> set(v, shape.dtype(), values.get(next[0]++), i, literal));
        return v;
    }

    /**
     * Checks a constant's literal against its shape and type as {@link #parse} reads it, storing
     * nothing: XLA's parser reads every constant, so one the run never reads is checked too.
     *
     * @throws IllegalArgumentException as {@link #parse} does
     */
    public static void check(String literal, ArrayShape shape) {
        for (String value : values(literal, shape)) {
            set(null, shape.dtype(), value, null, literal);
        }
    }

    /** {@return the literal's values in row-major order, as written: a complex one's parts joined by a comma} */
    private static List<String> values(String literal, ArrayShape shape) {
        DType t = shape.dtype();
        if (t.kind() == DType.Kind.NONE) {
            throw new IllegalArgumentException("constants of " + t + " are not supported: it has no elements");
        }
        if (literal.contains("...")) {
            throw new IllegalArgumentException("the literal of " + shape + " is elided ('" + literal
                    + "'): print the module with its large constants");
        }
        // HloParser has refused these in module text already; an instruction built in code has not,
        // and Long.parseLong and BigInteger would read '３' as 3.
        AsciiDigits.require(literal, 0, literal.length(), (problem, at) -> new IllegalArgumentException(
                problem + " at position " + at + " of the literal '" + literal + "' of " + shape));
        List<String> values = new ArrayList<>();
        Reader r = new Reader(literal, shape);
        r.values(0, values);
        r.end();
        return values;
    }

    /**
     * {@return {@code v}, the value of a constant as XLA's folding leaves it, as its simplifier
     * sees it: where it is a float array of one long dim ({@link #oneLongDim}) that counts 0, 1,
     * 2, ... from -0 or a denormal ({@link #countsFromZero}), a copy from +0} The simplifier makes such a constant an iota (jax 0.10:
     * {@code f32[4] constant({-0.0, 1, 2, 3})} copied out starts with +0; of one element, of two
     * long dims, or counting by 2 it stays -0). One of more dims of one is so only for the readers
     * XLA's reshape mover makes ops of one dim ({@code Interpreter.seesOneDim}); the caller keeps
     * the value as written for the others.
     */
    static TensorView asSimplified(TensorView v, Allocator allocator) {
        if (!oneLongDim(v.dims()) || v.dtype().kind() != DType.Kind.FLOAT) {
            return v;
        }
        // Read along its long dim; copied only where it changes.
        int along = v.dims().indexOf(v.dims().stream().filter(d -> d != 1).findFirst().orElseThrow());
        long[] at = new long[v.rank()];
        TensorElements e = TensorElements.of(v);
        java.util.function.LongToDoubleFunction value = i -> {
            at[along] = i;
            return e.getDouble(at);
        };
        if (!countsFromZero(v.dtype(), v.elementCount(), value) || Double.doubleToRawLongBits(value.applyAsDouble(0)) == 0) {
            return v;
        }
        TensorView copy = Materialize.materialize(v, ArrayShape.of(v.dtype(), dev.tensorbuf.views.internal.Extents.toArray(v.dims())),
                allocator);
        TensorElements.of(copy).setDouble(0, new long[v.rank()]);
        return copy;
    }

    /** {@return whether exactly one of {@code dims} is longer than one: a constant XLA's simplifier may see as one of one dim} */
    static boolean oneLongDim(List<Long> dims) {
        return dims.stream().filter(n -> n != 1).count() == 1 && dims.stream().anyMatch(n -> n >= 2);
    }

    /**
     * {@return whether the {@code n} values of {@code type} that {@code value} gives count 0, 1,
     * 2, ... (a -0 for the 0 too), as XLA's {@code IsR1Iota} compares them} It compares with
     * denormals read as zero: an f32, bf16 or f64 constant {2e-40, 1, 2} is an iota to it, and
     * comes out {0, 1, 2} (jax 0.10; an f16 denormal is a normal float there and stays).
     */
    static boolean countsFromZero(DType type, long n, java.util.function.LongToDoubleFunction value) {
        for (long i = 0; i < n; i++) {
            if (Pointwise.flushIn(value.applyAsDouble(i), type, true) != i) {
                return false;
            }
        }
        return true;
    }

    /** Reads one value of {@code t} and stores it at {@code index} of {@code v}, or only reads it where {@code v} is null. */
    private static void set(TensorView v, DType t, String text, long[] index, String literal) {
        try {
            switch (t.kind()) {
                case BOOLEAN, UNSIGNED -> {
                    long bits = integer(text, t);
                    if (v != null) {
                        TensorElements.of(v).setBits(bits, index);
                    }
                }
                case SIGNED -> {
                    long value = integer(text, t);
                    if (v != null) {
                        TensorElements.of(v).setLong(value, index);
                    }
                }
                case FLOAT -> {
                    double value = real(text, t, literal);
                    if (v != null && t == DType.F32) {
                        TensorElements.of(v).setFloat(toFloat(value), index);
                    } else if (v != null) {
                        TensorElements.of(v).setDouble(value, index);
                    }
                }
                case COMPLEX -> {
                    int comma = text.indexOf(',');
                    boolean single = t == DType.C64;
                    DType part = t.componentType();
                    double real = real(text.substring(0, comma), part, literal);
                    double imag = real(text.substring(comma + 1), part, literal);
                    if (v != null) {
                        TensorElements.of(v).setComplex(single ? toFloat(real) : real, single ? toFloat(imag) : imag, index);
                    }
                }
                case NONE -> throw new AssertionError(t);
            }
        } catch (NumberFormatException e) {
            String shown = t.kind() == DType.Kind.COMPLEX ? "(" + text.replace(",", ", ") + ")" : text;
            throw new IllegalArgumentException("'" + shown + "' is not a " + t + " value, in literal '" + literal + "'", e);
        }
    }

    /** {@code (float)} of a value, keeping a NaN's sign: the JVM need not keep it through d2f. */
    private static float toFloat(double value) {
        if (Double.isNaN(value)) {
            return Float.intBitsToFloat(Double.doubleToRawLongBits(value) < 0 ? 0xffc00000 : 0x7fc00000);
        }
        return (float) value;
    }

    /**
     * {@return a pred or integer literal of {@code t}: a pred as 0 or 1 (XLA's parser reads an
     * integer as a pred too, any nonzero one as true), an unsigned value as its bits}
     *
     * @throws NumberFormatException if {@code text} is no integer
     * @throws IllegalArgumentException for an unsigned value past {@code t}'s width
     */
    static long integer(String text, DType t) {
        return switch (t.kind()) {
            case BOOLEAN -> switch (text) {
                case "true" -> 1;
                case "false" -> 0;
                default -> new java.math.BigInteger(text).signum() != 0 ? 1 : 0;
            };
            case UNSIGNED -> checkedUnsigned(text, t);
            default -> Long.parseLong(text);
        };
    }

    private static long checkedUnsigned(String text, DType t) {
        long v = Long.parseUnsignedLong(text);
        if (t.bitWidth() < 64 && (v >>> t.bitWidth()) != 0) {
            throw Errors.valueOutOfIntegerRange(text, t, null);
        }
        return v;
    }

    /**
     * {@return a float literal's value in the float type {@code t}, as {@link ScalarLiteral} reads
     * it: rounded once, {@code -0} and {@code -nan} with their sign} XLA's own text parser reads
     * {@code -0} back as the integer 0, +0, which changes the program the text was printed from;
     * the program is what runs here.
     *
     * @throws IllegalArgumentException for a NaN payload or a value out of the type's range, naming it and the literal
     */
    private static double real(String text, DType t, String literal) {
        try {
            return ScalarLiteral.parse(text, t);
        } catch (NumberFormatException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + ", in literal '" + literal + "'", e);
        }
    }

    /** Walks the nesting: one brace level per dimension, {@code dims[level]} entries at each. */
    private static final class Reader {
        private final String text;
        private final ArrayShape shape;
        private int at;

        Reader(String text, ArrayShape shape) {
            this.text = text;
            this.shape = shape;
        }

        void values(int level, List<String> out) {
            if (level == shape.rank()) {
                out.add(scalar());
                return;
            }
            expect('{');
            long n = shape.dim(level);
            for (long k = 0; k < n; k++) {
                if (k > 0) {
                    expect(',');
                }
                values(level + 1, out);
            }
            skipSpace();
            if (at < text.length() && text.charAt(at) == ',') {
                throw error("'}' after " + n + " entries for dim " + level);
            }
            expect('}');
        }

        /** A value's text; a complex one's parts joined by a comma, {@code "1,-2.5"} for {@code (1, -2.5)}. */
        String scalar() {
            if (shape.dtype().kind() == DType.Kind.COMPLEX) {
                expect('(');
                String real = token();
                expect(',');
                String imag = token();
                expect(')');
                return real + "," + imag;
            }
            return token();
        }

        private String token() {
            skipSpace();
            int start = at;
            while (at < text.length() && "{}(),".indexOf(text.charAt(at)) < 0 && !Character.isWhitespace(text.charAt(at))) {
                at++;
            }
            if (start == at) {
                throw error("a value");
            }
            return text.substring(start, at);
        }

        void expect(char c) {
            skipSpace();
            if (at >= text.length() || text.charAt(at) != c) {
                throw error("'" + c + "'");
            }
            at++;
        }

        void end() {
            skipSpace();
            if (at != text.length()) {
                throw error("the end of the literal");
            }
        }

        private void skipSpace() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
                at++;
            }
        }

        private IllegalArgumentException error(String expected) {
            String found = at < text.length() ? "'" + text.charAt(at) + "'" : "the end";
            return new IllegalArgumentException("literal of " + shape + " at offset " + at + ": expected " + expected
                    + ", found " + found + " in '" + text + "'");
        }
    }
}
