package dev.tensorbuf.views;

import dev.tensorbuf.views.internal.Errors;
import dev.tensorbuf.views.internal.XlaShapeParser;
import dev.tensorbuf.views.internal.XlaShapePrinter;
import dev.tensorbuf.views.text.TextFormatException;

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
public sealed interface XlaShape permits ArrayShape, TupleShape, BufferShape, TokenShape, OpaqueShape {

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
            case TupleShape t -> multiply(pointerSize, t.elements().size());
            case TokenShape tok -> 0;
            case OpaqueShape o -> pointerSize;
        };
    }

    /** {@return the sum of {@code byteSizeOfElements()} over every array inside this shape} */
    default long byteSizeOfElementsRecursive() {
        return switch (this) {
            case ArrayShape a -> a.byteSizeOfElements();
            case BufferShape b -> b.array().byteSizeOfElements();
            case TupleShape t -> {
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
            case TokenShape tok -> 0;
            case OpaqueShape o -> 0;
        };
    }

    private static long multiply(long a, long b) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            throw Errors.overflows(a + " * " + b, e);
        }
    }
}
