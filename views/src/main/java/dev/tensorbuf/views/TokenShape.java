package dev.tensorbuf.views;

/**
 * XLA's token shape, {@code token[]}: orders side effects, holds no data.
 * {@snippet :
 * XlaShape.parse("token[]").equals(new TokenShape()); // true
 * new TokenShape().byteSizeOf(8);                     // 0
 * }
 */
public record TokenShape() implements XlaShape {
    /** {@return {@code "token[]"}} */
    @Override
    public String toString() {
        return "token[]";
    }
}
