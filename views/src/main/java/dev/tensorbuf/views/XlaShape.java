package dev.tensorbuf.views;

import dev.tensorbuf.views.internal.Errors;
import dev.tensorbuf.views.internal.XlaShapeParser;
import dev.tensorbuf.views.internal.XlaShapePrinter;
import dev.tensorbuf.views.text.TextFormatException;
import java.util.List;
import java.util.Objects;

/**
 * A shape in XLA's type system: an array, a tuple of shapes, a buffer holding an array, a token
 * or opaque data. Values print as XLA's canonical text ({@code toString()}) and read it back
 * with {@link #parse(String)}, accepting any spacing between tokens.
 * {@snippet :
 * XlaShape s = XlaShape.parse("(f32[1572864], s8[ 5120,1024 ])");
 * s.toString(); // "(f32[1572864]{0}, s8[5120,1024]{1,0})"
 * ArrayShape a = ArrayShape.parse("f32[3,5]{1,0:T(2,2)}");
 * a.arraySize(); // 96
 * }
 */
public sealed interface XlaShape permits ArrayShape, XlaShape.Tuple, XlaShape.BufferShape, XlaShape.Token, XlaShape.Opaque {

    /**
     * Reads a shape in XLA's text. Arrays without a layout get the default descending layout
     * ({@code {}} for scalars), as XLA's parser does with its default options.
     *
     * @throws TextFormatException naming what was expected or wrong, and where
     */
    static XlaShape parse(String text) {
        return XlaShapeParser.parseShape(text);
    }

    /**
     * Reads one shape out of a longer text (an HLO instruction, a signature) starting at
     * {@code position.getIndex()}, and moves {@code position} to just after the shape. A
     * <code>'&#123;'</code> after the dimensions starts a layout only when an integer or {@code ':'} follows
     * it, so <code>"f32[2] &#123;"</code> followed by a computation body is read as {@code f32[2]{0}}.
     *
     * @throws TextFormatException naming what was expected, with the position in the whole text
     */
    static XlaShape parse(String text, java.text.ParsePosition position) {
        return XlaShapeParser.parseShape(text, position);
    }

    /** {@return the canonical text without any layout, as XLA prints program signatures} */
    default String toStringWithoutLayout() {
        return XlaShapePrinter.shape(this, false);
    }

    /**
     * {@return the bytes XLA's {@code ShapeUtil::ByteSizeOf} gives: elements times width for
     * arrays (tiles and padding ignored), {@code pointerSize} per tuple element, 0 for a token}
     *
     * @param pointerSize bytes of one pointer, used for tuples and opaque values
     */
    default long byteSizeOf(long pointerSize) {
        return switch (this) {
            case ArrayShape a -> a.byteSizeOfElements();
            case BufferShape b -> b.array().byteSizeOfElements();
            case Tuple t -> multiply(pointerSize, t.elements().size());
            case Token tok -> 0;
            case Opaque o -> pointerSize;
        };
    }

    /** {@return the sum of {@code byteSizeOfElements()} over every array inside this shape} */
    default long byteSizeOfElementsRecursive() {
        return switch (this) {
            case ArrayShape a -> a.byteSizeOfElements();
            case BufferShape b -> b.array().byteSizeOfElements();
            case Tuple t -> {
                long sum = 0;
                for (XlaShape e : t.elements()) {
                    try {
                        sum = Math.addExact(sum, e.byteSizeOfElementsRecursive());
                    } catch (ArithmeticException ex) {
                        throw Errors.overflows("byte size of " + t, ex);
                    }
                }
                yield sum;
            }
            case Token tok -> 0;
            case Opaque o -> 0;
        };
    }

    private static long multiply(long a, long b) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            throw Errors.overflows(a + " * " + b, e);
        }
    }

    /**
     * A tuple of XLA shapes. It prints with {@code ", "} between elements and, from element 5 on,
     * every fifth separator annotated as XLA does.
     * {@snippet :
     * XlaShape t = XlaShape.parse("(f32[2], token[], (s32[]))");
     * t.toString(); // "(f32[2]{0}, token[], (s32[]))"
     * }
     *
     * @param elements the element shapes, possibly none
     */
    public record Tuple(List<XlaShape> elements) implements XlaShape {
        public Tuple {
            elements = List.copyOf(elements);
        }

        /** {@return a tuple of these shapes} */
        public static Tuple of(XlaShape... elements) {
            return new Tuple(List.of(elements));
        }

        /** {@return the canonical text, e.g. {@code "(f32[2]{0}, s32[])"}} */
        @Override
        public String toString() {
            return XlaShapePrinter.shape(this, true);
        }
    }

    /**
     * XLA's token shape, {@code token[]}: orders side effects, holds no data.
     * {@snippet :
     * XlaShape.parse("token[]").equals(new Token()); // true
     * new Token().byteSizeOf(8);                     // 0
     * }
     */
    public record Token() implements XlaShape {
        /** {@return {@code "token[]"}} */
        @Override
        public String toString() {
            return "token[]";
        }
    }

    /**
     * XLA's opaque shape, {@code opaque[]}: runtime data that XLA passes by pointer.
     * {@snippet :
     * XlaShape.parse("opaque[]").equals(new Opaque()); // true
     * new Opaque().byteSizeOf(8);                      // 8
     * }
     */
    public record Opaque() implements XlaShape {
        /** {@return {@code "opaque[]"}} */
        @Override
        public String toString() {
            return "opaque[]";
        }
    }

    /**
     * XLA's buffer shape {@code b(...)}: a buffer that holds one array.
     * {@snippet :
     * XlaShape b = XlaShape.parse("b(s32[3,4])");
     * b.toString(); // "b(s32[3,4]{1,0})"
     * }
     *
     * @param array the array the buffer holds
     */
    public record BufferShape(ArrayShape array) implements XlaShape {
        public BufferShape {
            Objects.requireNonNull(array, "array");
        }

        /** {@return the canonical text, e.g. {@code "b(s32[3,4]{1,0})"}} */
        @Override
        public String toString() {
            return XlaShapePrinter.shape(this, true);
        }
    }
}
