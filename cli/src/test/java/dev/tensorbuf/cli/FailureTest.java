package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.AllocationLimitException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FailureTest {
    @Test
    void exampleFromJavadoc() {
        assertEquals(new Failure(2, "index 7 out of bounds [0, 4)"),
                Failure.of(new IllegalArgumentException("index 7 out of bounds [0, 4)")));
        assertEquals(new Failure(2, "not enough memory: cannot reserve 4000000000000 bytes ..."),
                Failure.of(new OutOfMemoryError("cannot reserve 4000000000000 bytes ...")));
    }

    @Test
    void resourceLimitsAndDeepInputAreBadInputNotDefects() {
        AllocationLimitException limit = new AllocationLimitException("small", 2048, 2048, 0, 1024);
        assertEquals(new Failure(2, "not enough memory: " + limit.getMessage()), Failure.of(limit));
        assertEquals(new Failure(2, "not enough memory"), Failure.of(new OutOfMemoryError()));
        assertEquals(new Failure(2, "input nested too deeply to process"), Failure.of(new StackOverflowError()));
    }

    @Test
    void anyOtherThrowableIsAnInternalError() {
        Failure f = Failure.of(new IllegalStateException("invariant broken"));
        assertTrue(f.internal());
        assertTrue(f.message().startsWith("internal error: java.lang.IllegalStateException: invariant broken"), f.message());
    }

    @Test
    void fileErrorsNameThePathAndTheProblem(@TempDir Path dir) {
        assertEquals("no such file: " + dir.resolve("a.npy"), Failure.of(new NoSuchFileException(dir.resolve("a.npy").toString())).message());
        assertEquals("no such folder: " + dir.resolve("sub") + " (for " + dir.resolve("sub/a.npy") + ")",
                Failure.of(new NoSuchFileException(dir.resolve("sub/a.npy").toString())).message());
        assertEquals("permission denied: /x", Failure.of(new AccessDeniedException("/x")).message());
        assertEquals("d.npy: Is a directory", Failure.of(new FileSystemException("d.npy", null, "Is a directory")).message());
        assertEquals(new Failure(2, "I/O error: disk on fire"),
                Failure.of(new UncheckedIOException(new IOException("disk on fire"))));
    }

    @Test
    void messagesAreOneLineOfValidText() {
        assertEquals("a\\nb\\r\\u001b[2Jc\td\uFFFD", Failure.oneLine("a\nb\r\u001b[2Jc\td\uD800"));
        assertEquals("pair \uD83D\uDE00 kept", Failure.oneLine("pair \uD83D\uDE00 kept"));
        // C1 controls too: some terminals take U+009B as CSI. Latin-1 letters just above stay.
        assertEquals("\\u0085\\u009b[2J\u00a0\u00e9", Failure.oneLine("\u0085\u009b[2J\u00a0\u00e9"));
        assertEquals("x\\ny", Failure.of(new IllegalArgumentException("x\ny")).message());
    }
}
