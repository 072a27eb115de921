package dev.tensorbuf.ops.copy.internal;

/**
 * A value a conversion refuses ({@link ValueMover} is the one place that refuses), e.g. {@code
 * value 300.0 out of range [0, 255] for u8}. Its own type lets the engine tell it from the copy's
 * other {@link IllegalArgumentException}s (dims, overlap, read-only), which name no element; the
 * kernels know byte offsets only, so the engine looks for the element afterwards
 * ({@link FirstRefused}) and words it with {@link #at}.
 */
public final class RefusedValue extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** The value as its source type prints it, which the message starts with after {@code "value "}. */
    private final String value;

    /**
     * @param value the value as its source type prints it
     * @param refusal the refusal's words, {@code "value " + value + ...}
     */
    RefusedValue(String value, IllegalArgumentException refusal) {
        super(refusal.getMessage(), refusal.getCause());
        this.value = value;
        assert getMessage().startsWith("value " + value + " ") : getMessage();
    }

    /**
     * {@return this refusal's words with {@code where} after the value}, e.g. {@code value 300.0
     * at index [1, 2] of f32[2,3]{1,0} out of range [0, 255] for u8}
     */
    public String at(String where) {
        String head = "value " + value;
        return head + " " + where + getMessage().substring(head.length());
    }
}
