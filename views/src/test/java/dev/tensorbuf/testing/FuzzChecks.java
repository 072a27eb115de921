package dev.tensorbuf.testing;

import dev.tensorbuf.views.text.TextFormatException;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The invariants every fuzz target checks: a parser either returns a value or
 * throws one of the documented exception types, and it answers within a time bound.
 */
public final class FuzzChecks {
    /**
     * Generous: instrumented code on a loaded 2-core machine is slow, and a real hang (an
     * unbounded loop or an exponential rewrite) overshoots this by orders of magnitude.
     */
    public static final Duration HANG = Duration.ofSeconds(5);

    private FuzzChecks() {
    }

    /** A step of a fuzz target that may throw only documented exceptions. */
    @FunctionalInterface
    public interface Step {
        void run();
    }

    /** {@return the bytes as text, invalid UTF-8 replaced, as a caller reading a file would see it} */
    public static String text(byte[] data) {
        return new String(data, StandardCharsets.UTF_8);
    }

    /**
     * Runs {@code step}; documented exceptions (IllegalArgumentException, which includes
     * TextFormatException, IndexOutOfBoundsException and UncheckedIOException) are the expected
     * answer to bad input, anything else propagates as a finding, and so does a step that
     * takes longer than {@link #HANG}.
     */
    public static void expectOnlyDocumentedExceptions(String input, Step step) {
        long start = System.nanoTime();
        try {
            step.run();
        } catch (IllegalArgumentException | IndexOutOfBoundsException | UncheckedIOException expected) {
            if (expected.getMessage() == null || expected.getMessage().isBlank()) {
                throw new AssertionError("exception without a message for input " + quote(input), expected);
            }
        } finally {
            long millis = (System.nanoTime() - start) / 1_000_000;
            if (millis > HANG.toMillis()) {
                throw new AssertionError("took " + millis + " ms (bound " + HANG.toMillis() + " ms) for input "
                        + quote(input));
            }
        }
    }

    /** A step that reads files: an IOException is a finding too, since the fuzz files always exist. */
    @FunctionalInterface
    public interface IoStep {
        void run() throws java.io.IOException;
    }

    /** {@link #expectOnlyDocumentedExceptions} for a step that reads files. */
    public static void expectOnlyDocumentedExceptionsIo(String input, IoStep step) {
        expectOnlyDocumentedExceptions(input, () -> {
            try {
                step.run();
            } catch (java.io.IOException e) {
                throw new AssertionError("I/O error on a readable file for input " + quote(input), e);
            }
        });
    }

    /** {@return a scratch file, reused by every input of one target: in memory where the system has /dev/shm} */
    public static java.nio.file.Path scratch(String name) {
        try {
            java.nio.file.Path shm = java.nio.file.Path.of("/dev/shm");
            java.nio.file.Path dir = java.nio.file.Files.isDirectory(shm) && java.nio.file.Files.isWritable(shm)
                    ? java.nio.file.Files.createTempDirectory(shm, "tensorbuf-fuzz")
                    : java.nio.file.Files.createTempDirectory("tensorbuf-fuzz");
            dir.toFile().deleteOnExit();
            java.nio.file.Path file = dir.resolve(name);
            file.toFile().deleteOnExit();
            return file;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Fails when a value printed and read back is not the value. */
    public static void assertRoundTrip(Object value, String printed, Object reparsed) {
        if (!value.equals(reparsed)) {
            throw new AssertionError("round trip changed the value: printed " + quote(printed) + ", read back "
                    + reparsed + ", expected " + value);
        }
    }

    public static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
                sb.append(c);
            } else {
                sb.append(String.format("\\u%04x", (int) c));
            }
        }
        return sb.append('"').toString();
    }
}
