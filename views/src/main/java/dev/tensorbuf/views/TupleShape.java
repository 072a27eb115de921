package dev.tensorbuf.views;

import dev.tensorbuf.views.internal.XlaShapePrinter;

import java.util.List;

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
public record TupleShape(List<XlaShape> elements) implements XlaShape {
    public TupleShape {
        elements = List.copyOf(elements);
    }

    /** {@return a tuple of these shapes} */
    public static TupleShape of(XlaShape... elements) {
        return new TupleShape(List.of(elements));
    }

    /** {@return the canonical text, e.g. {@code "(f32[2]{0}, s32[])"}} */
    @Override
    public String toString() {
        return XlaShapePrinter.shape(this, true);
    }
}
