package dev.tensorbuf.views;

/**
 * XLA's opaque shape, {@code opaque[]}: runtime data that XLA passes by pointer.
 * {@snippet :
 * XlaShape.parse("opaque[]").equals(new OpaqueShape()); // true
 * new OpaqueShape().byteSizeOf(8);                      // 8
 * }
 */
public record OpaqueShape() implements XlaShape {
    /** {@return {@code "opaque[]"}} */
    @Override
    public String toString() {
        return "opaque[]";
    }
}
