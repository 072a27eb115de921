package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.AllocationLimitException;
import dev.tensorbuf.ops.hlo.internal.HloSyntaxException;
import dev.tensorbuf.views.text.TextFormatException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
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

    @Test
    void echoExamplesFromJavadoc() {
        String map = "(d0" + ", d0".repeat(10_000);
        assertEquals("expected ')' at position 40003 of '(39803 characters before) ..." + ", d0".repeat(50) + "'",
                Failure.of(new TextFormatException("expected ')'", map, 40_003)).message());
        assertEquals("unexpected argument '" + "x".repeat(200) + "... (100 more characters)'",
                Failure.of(new UsageException("unexpected argument '" + "x".repeat(300) + "'"), List.of("x".repeat(300)))
                        .message());
    }

    /** The text a parser quotes is cut around its position, which stays inside what is shown. */
    @Test
    void longParsedTextIsShownAroundThePositionNamed() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; sb.length() < 40_000; i++) {
            sb.append("d").append(i).append(", ");
        }
        String text = sb.toString();
        for (int position : new int[] {0, 10, 149, 150, 20_000, text.length() - 1, text.length()}) {
            String message = Failure.of(new TextFormatException("bad", text, position)).message();
            String prefix = "bad at position " + position + " of '";
            assertTrue(message.startsWith(prefix) && message.endsWith("'"), message);
            String shown = message.substring(prefix.length(), message.length() - 1);
            int from = 0;
            if (shown.startsWith("(")) {
                from = Integer.parseInt(shown.substring(1, shown.indexOf(' ')));
                shown = shown.substring(shown.indexOf(") ...") + 5);
            }
            int more = 0;
            if (shown.endsWith(" more characters)")) {
                int cut = shown.lastIndexOf("... (");
                more = Integer.parseInt(shown.substring(cut + 5, shown.length() - " more characters)".length()));
                shown = shown.substring(0, cut);
            }
            assertEquals(Failure.ECHO_CHARS, shown.length(), message);
            assertEquals(text.substring(from, from + shown.length()), shown, "the shown text is the input's, at " + from);
            assertEquals(text.length(), from + shown.length() + more, "the counts add up: " + message);
            assertTrue(position >= from && position <= from + shown.length(), "position " + position + " is shown: " + message);
            assertTrue(message.length() < 300, message);
        }
        String shortText = "(d0) -> (d0 +)";
        assertEquals("bad at position 13 of '(d0) -> (d0 +)'", Failure.of(new TextFormatException("bad", shortText, 13)).message());
    }

    @Test
    void anHloLineIsCutAroundItsColumn() {
        String line = "  p0 = f32[2] parameter(0), metadata={op_name=\"" + "a".repeat(500) + "\"} junk";
        String module = "HloModule m\nENTRY e {\n" + line + "\n}\n";
        int position = module.indexOf("junk");
        HloSyntaxException e = new HloSyntaxException("expected computation name", module, position);
        String message = Failure.of(e).message();
        assertEquals("3:" + (line.indexOf("junk") + 1) + ": expected computation name (line 3: '("
                + (line.length() - 200) + " characters before) ..." + line.substring(line.length() - 200) + "')", message);
    }

    @Test
    void argumentsAreCutWhereverTheyAppearAndFileProblemsKeepTheirReason() {
        String name = "x".repeat(300);
        assertEquals("x".repeat(200) + "... (100 more characters): File name too long",
                Failure.of(new FileSystemException(name, null, "File name too long"), List.of(name)).message());
        String sizes = "1,".repeat(400) + "x";
        assertEquals("--sizes: 'x' is not an integer (in '" + "1,".repeat(100) + "... (601 more characters)')",
                Failure.of(new UsageException("--sizes: 'x' is not an integer (in '" + sizes + "')"), List.of(sizes)).message());
        assertEquals("short 'abc' stays", Failure.of(new IllegalArgumentException("short 'abc' stays"), List.of("abc")).message());
    }

    @Test
    void aMessageStillTooLongKeepsItsStartAndEnd() {
        String message = "cannot compose: the map applied first, " + "m".repeat(5000) + ", has 4 result(s) but the second has 2";
        String shown = Failure.of(new IllegalArgumentException(message)).message();
        assertTrue(shown.startsWith("cannot compose: the map applied first, mmm"), shown);
        assertTrue(shown.endsWith("mmm, has 4 result(s) but the second has 2"), shown);
        assertTrue(shown.contains(" ... (" + (message.length() - 900) + " characters left out) ... "), shown);
        assertTrue(shown.length() <= Failure.MAX_CHARS + 40, shown);
    }

    @Test
    void cutsNeverSplitASurrogatePair() {
        String emoji = "\uD83D\uDE00".repeat(300);
        String clipped = Failure.clip(emoji);
        assertEquals("\uD83D\uDE00".repeat(100) + "... (400 more characters)", clipped);
        String odd = "a" + emoji;
        assertEquals("a" + "\uD83D\uDE00".repeat(99) + "... (402 more characters)", Failure.clip(odd));
        assertEquals(-1, dev.tensorbuf.interop.json.Json.unpairedSurrogate(Failure.around(odd, 400)));
    }
}
