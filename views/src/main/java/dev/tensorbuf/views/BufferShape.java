package dev.tensorbuf.views;

import dev.tensorbuf.views.internal.XlaShapePrinter;

import java.util.Objects;

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
