package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code $ ./tensorbuf ...} example in README.md and docs/*.md runs, in its own JVM started
 * in one folder per Markdown file shared by that file's examples, and prints what the file shows.
 * A {@code $ cat FILE} example creates FILE with the lines shown; a {@code $ python3 ...}
 * example runs in the same folder (skipped with a reason when NumPy is missing). A
 * {@code < FILE} at the end of a command feeds FILE to its stdin.
 */
class ReadmeExamplesTest {
    @TempDir
    Path dir;

    /** @param block which code block of the README the example is in: examples of one block build on each other */
    record Example(String command, List<String> expected, int block) {}

    /** Blocks (Markdown file name and block number) whose python3 example was skipped: the files it makes are missing for the rest of the block. */
    private final java.util.Set<String> blocksWithoutPython = new java.util.HashSet<>();

    @TestFactory
    Stream<DynamicTest> readmeExamplesPrintWhatTheReadmeShows() throws IOException {
        List<Path> files = new ArrayList<>(List.of(Path.of("..", "README.md")));
        try (Stream<Path> docs = Files.list(Path.of("..", "docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        List<DynamicTest> tests = new ArrayList<>();
        for (Path file : files) {
            String name = file.getFileName().toString();
            List<Example> examples = parse(Files.readAllLines(file));
            if (name.equals("README.md")) {
                assertFalse(examples.isEmpty(), "README.md has $ examples");
            }
            for (Example e : examples) {
                tests.add(DynamicTest.dynamicTest(name + ": " + e.command(), () -> run(name, e)));
            }
        }
        return tests.stream();
    }

    static List<Example> parse(List<String> lines) {
        List<Example> out = new ArrayList<>();
        boolean inBlock = false;
        int block = 0;
        String command = null;
        List<String> expected = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith("```")) {
                if (inBlock && command != null) {
                    out.add(new Example(command, List.copyOf(expected), block));
                }
                inBlock = !inBlock;
                block++;
                command = null;
                expected.clear();
                continue;
            }
            if (!inBlock) {
                continue;
            }
            if (line.startsWith("$ ")) {
                if (command != null) {
                    out.add(new Example(command, List.copyOf(expected), block));
                }
                command = line.substring(2);
                expected.clear();
            } else if (command != null) {
                expected.add(line);
            }
        }
        return out;
    }

    private void run(String file, Example e) throws Exception {
        Path dir = this.dir.resolve(file.replace(".md", ""));
        Files.createDirectories(dir);
        String block = file + "#" + e.block();
        Assumptions.assumeFalse(blocksWithoutPython.contains(block),
                "the python3 example before it in its README block was skipped, so its input is missing");
        List<String> words = split(e.command());
        switch (words.getFirst()) {
            case "cat" -> Files.write(dir.resolve(words.get(1)), e.expected());
            case "python3" -> {
                Process p = new ProcessBuilder(words).directory(dir.toFile()).redirectErrorStream(true).start();
                String output = new String(p.getInputStream().readAllBytes());
                p.waitFor(60, TimeUnit.SECONDS);
                if (p.exitValue() != 0) {
                    blocksWithoutPython.add(block);
                }
                Assumptions.assumeTrue(p.exitValue() == 0, "python3 example needs NumPy (one needs safetensors): " + output.strip());
            }
            case "./tensorbuf" -> {
                // A real JVM started in the example's folder, with the launcher's flags, so relative
                // paths (p0=x.npy, --out y.npy) mean what they mean to a user.
                List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                        "--enable-native-access=ALL-UNNAMED", "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED"));
                if (List.of("bench", "run", "convert").contains(words.get(1))) {
                    cmd.addAll(List.of("--add-modules", "jdk.incubator.vector"));
                }
                cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
                int redirect = words.indexOf("<");
                cmd.addAll(words.subList(1, redirect >= 0 ? redirect : words.size()));
                ProcessBuilder builder = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
                if (redirect >= 0) {
                    builder.redirectInput(dir.resolve(words.get(redirect + 1)).toFile());
                }
                Process p = builder.start();
                String printed = new String(p.getInputStream().readAllBytes()).lines()
                        .filter(l -> !l.startsWith("WARNING: Using incubator modules"))
                        .reduce((a, b) -> a + "\n" + b).orElse("").strip();
                assertTrue(p.waitFor(120, TimeUnit.SECONDS), "finished: " + e.command());
                String shown = String.join("\n", e.expected());
                assertEquals(0, p.exitValue(), "exit code of: " + e.command() + "\n" + printed);
                assertEquals(withoutDurations(shown.strip()), withoutDurations(printed), "output of: " + e.command());
            }
            default -> throw new AssertionError("README example with an unknown program: " + e.command());
        }
    }

    /** Wall times differ from run to run: {@code "in 0.22 s"} compares as {@code "in N s"}. */
    static String withoutDurations(String text) {
        return text.replaceAll("\\b\\d+(\\.\\d+)? s\\b", "N s");
    }

    /** Splits a shell line on spaces, keeping single- and double-quoted words whole. */
    static List<String> split(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        char quote = 0;
        boolean inWord = false;
        for (char c : line.toCharArray()) {
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                inWord = true;
            } else if (c == ' ') {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }
}
