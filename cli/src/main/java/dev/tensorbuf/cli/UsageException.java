package dev.tensorbuf.cli;

import java.io.Serial;

/**
 * Arguments that do not fit a command: {@link Main} reports the message on one line and exits
 * with code 2.
 * {@snippet :
 * if (out == null) {
 *     throw Errors.withUsage("missing --out FILE.npy, FILE.safetensors or a raw FILE", synopsis()); // a UsageException
 * }
 * // $ tensorbuf run m.hlo
 * // tensorbuf run: missing --out FILE.npy, FILE.safetensors or a raw FILE (usage: tensorbuf run MODULE.hlo
 * //     --arg NAME=FILE ... --out FILE.npy|FILE.safetensors|FILE [--json])
 * }
 */
public final class UsageException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** @param message what was wrong, e.g. {@code "unknown option --jsn (did you mean --json?)"} */
    public UsageException(String message) {
        super(message);
    }
}
