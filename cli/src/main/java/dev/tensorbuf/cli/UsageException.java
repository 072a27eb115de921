package dev.tensorbuf.cli;

import java.io.Serial;

/** Arguments that do not fit a command: reported on one line, exit code 2. */
public final class UsageException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** @param message what was wrong, e.g. {@code "unknown option --jsn (did you mean --json?)"} */
    public UsageException(String message) {
        super(message);
    }
}
