package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Restricted FFM calls crash the JVM when wrong, so they live in one class: this scans every Java
 * source of every module (tests included) and fails naming each other file that calls one.
 */
class RestrictedNativeScanTest {
    /** Built from pieces so that this file does not match itself. */
    private static final Pattern RESTRICTED = Pattern.compile(
            "\\.(" + "reinter" + "pret|" + "downcall" + "Handle|" + "upcall" + "Stub|" + "library" + "Lookup)\\s*\\(");
    private static final String HOME = "RestrictedNative.java";

    @Test
    void onlyRestrictedNativeCallsRestrictedMethods() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent();
        List<Path> sources;
        try (Stream<Path> walk = Files.walk(root)) {
            sources = walk.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> p.toString().contains("/src/"))
                    .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/.git/"))
                    .toList();
        }
        assertTrue(sources.size() > 100, "scanned " + sources.size() + " files under " + root + ": wrong root?");
        List<String> offenders = new ArrayList<>();
        int homeCalls = 0;
        for (Path p : sources) {
            long calls = countCalls(p);
            if (p.getFileName().toString().equals(HOME)) {
                homeCalls += (int) calls;
            } else if (calls > 0) {
                offenders.add(root.relativize(p) + " (" + calls + ")");
            }
        }
        assertEquals(List.of(), offenders, "restricted FFM calls outside " + HOME);
        assertTrue(homeCalls >= 4, "the scan finds the calls in " + HOME + " itself (found " + homeCalls + ")");
    }

    private static long countCalls(Path p) {
        try {
            return RESTRICTED.matcher(Files.readString(p)).results().count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
