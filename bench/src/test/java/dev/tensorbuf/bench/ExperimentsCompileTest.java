package dev.tensorbuf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The single-file programs under {@code bench/experiments/}, which bench/RESULTS.md names as the
 * commands behind its figures, compile against the current API. They run as {@code java FILE.java}
 * and no build compiled them: five stopped compiling when {@code Access} left the public API, and
 * the RESULTS commands that name them with them.
 */
class ExperimentsCompileTest {
    @Test
    void everyExperimentCompiles(@TempDir Path out) throws IOException, InterruptedException {
        Path dir = Path.of("..", "bench", "experiments").toAbsolutePath().normalize();
        assertTrue(Files.isDirectory(dir), "no " + dir);
        List<String> sources;
        try (Stream<Path> files = Files.list(dir)) {
            sources = files.map(Path::toString).filter(f -> f.endsWith(".java")).sorted().toList();
        }
        assertFalse(sources.isEmpty(), "no experiments in " + dir);
        String classPath = System.getProperty("java.class.path") + File.pathSeparator
                + System.getProperty("jdk.module.path", "");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "javac").toString(),
                "-nowarn", "-proc:none", "-implicit:none", "-d", out.toString(), "-cp", classPath,
                "--add-modules", "jdk.incubator.vector"));
        command.addAll(sources);
        Process javac = new ProcessBuilder(command).redirectErrorStream(true).start();
        String printed = new String(javac.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int rc = javac.waitFor();
        List<String> errors = printed.lines().filter(l -> l.contains("error:")).limit(20).toList();
        assertEquals(0, rc, sources.size() + " experiments, javac exit " + rc + ":\n" + String.join("\n", errors));
    }
}
