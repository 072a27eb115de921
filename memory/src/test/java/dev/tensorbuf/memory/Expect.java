package dev.tensorbuf.memory;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.function.Executable;

/** Asserting errors by type and message. */
final class Expect {
    private Expect() {}

    static <T extends Throwable> T throwsWith(Class<T> type, String messagePart, Executable code) {
        T thrown = assertThrows(type, code);
        String message = String.valueOf(thrown.getMessage());
        assertTrue(message.contains(messagePart),
                () -> "expected the message to contain '" + messagePart + "' but it was '" + message + "'");
        return thrown;
    }
}
