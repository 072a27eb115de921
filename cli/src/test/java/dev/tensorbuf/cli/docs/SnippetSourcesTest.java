package dev.tensorbuf.cli.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every {@code ```java} block of README.md and docs/*.md is a region of the test sources in this
 * package, which {@link DocsSnippetTest} compiles and runs. A block is preceded by
 * {@code <!-- snippet:NAME -->}; the region lies between {@code // snippet:NAME} and
 * {@code // end-snippet:NAME}, shown with the start marker's indentation removed and without its
 * lines that start with {@code assert} (the checks of what the snippet's comments say). To change
 * a snippet, change the test source and paste the region, less those lines, into the Markdown.
 */
class SnippetSourcesTest {
    private static final Path ROOT = Path.of("..");
    private static final Path SOURCES = Path.of("src", "test", "java", "dev", "tensorbuf", "cli", "docs");
    private static final Pattern MARKER = Pattern.compile("<!-- snippet:([\\w-]+) -->");
    private static final Pattern START = Pattern.compile("^(\\s*)// snippet:([\\w-]+)\\s*$");

    /** A region of a test source, as the Markdown shows it. */
    record Region(String name, Path file, int firstLine, List<String> shown) {}

    /** A {@code ```java} block of a Markdown file. */
    record Block(String name, Path file, int firstLine, List<String> lines) {}

    static Map<String, Region> regions() throws IOException {
        Map<String, Region> regions = new LinkedHashMap<>();
        List<Path> files;
        try (Stream<Path> s = Files.list(SOURCES)) {
            files = s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
        for (Path file : files) {
            List<String> lines = Files.readAllLines(file);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = START.matcher(lines.get(i));
                if (!m.matches()) {
                    continue;
                }
                String indent = m.group(1);
                String name = m.group(2);
                List<String> shown = new ArrayList<>();
                int j = i + 1;
                for (; j < lines.size() && !lines.get(j).strip().equals("// end-snippet:" + name); j++) {
                    String line = lines.get(j);
                    if (line.strip().startsWith("assert")) {
                        continue;
                    }
                    if (!line.isBlank() && !line.startsWith(indent)) {
                        fail(file + ":" + (j + 1) + ": line of snippet '" + name + "' is indented less than its // snippet: marker");
                    }
                    shown.add(line.isBlank() ? "" : line.substring(indent.length()));
                }
                if (j == lines.size()) {
                    fail(file + ":" + (i + 1) + ": snippet '" + name + "' has no // end-snippet:" + name);
                }
                if (regions.put(name, new Region(name, file, i + 2, List.copyOf(shown))) != null) {
                    fail("snippet '" + name + "' is defined twice, the second time in " + file);
                }
            }
        }
        return regions;
    }

    static List<Path> markdownFiles() throws IOException {
        List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        return files;
    }

    static List<Block> blocks(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        List<Block> blocks = new ArrayList<>();
        boolean inCode = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (!line.startsWith("```")) {
                continue;
            }
            if (inCode) {
                inCode = false;
                continue;
            }
            inCode = true;
            if (!line.strip().equals("```java")) {
                continue;
            }
            Matcher m = i > 0 ? MARKER.matcher(lines.get(i - 1).strip()) : null;
            if (m == null || !m.matches()) {
                fail(file + ":" + (i + 1) + ": a ```java block without a <!-- snippet:NAME --> line right above it;"
                        + " every Java snippet must come from a test source in " + SOURCES);
            }
            int end = i + 1;
            while (end < lines.size() && !lines.get(end).startsWith("```")) {
                end++;
            }
            blocks.add(new Block(m.group(1), file, i + 2, List.copyOf(lines.subList(i + 1, end))));
        }
        return blocks;
    }

    @TestFactory
    Stream<DynamicTest> everyJavaBlockIsItsTestedRegion() throws IOException {
        Map<String, Region> regions = regions();
        List<DynamicTest> tests = new ArrayList<>();
        for (Path md : markdownFiles()) {
            for (Block b : blocks(md)) {
                tests.add(DynamicTest.dynamicTest(ROOT.relativize(b.file()) + ": " + b.name(), () -> {
                    Region r = regions.get(b.name());
                    if (r == null) {
                        fail("snippet '" + b.name() + "' in " + b.file() + ":" + b.firstLine() + " has no // snippet:"
                                + b.name() + " region in " + SOURCES + " (known: " + regions.keySet() + ")");
                    }
                    for (int k = 0; k < Math.max(r.shown().size(), b.lines().size()); k++) {
                        String want = k < r.shown().size() ? r.shown().get(k) : "(end of the region)";
                        String got = k < b.lines().size() ? b.lines().get(k) : "(end of the block)";
                        if (!want.equals(got)) {
                            fail("snippet '" + b.name() + "' in " + b.file() + " differs from " + r.file()
                                    + " at line " + (b.firstLine() + k) + " of the Markdown:\n  markdown: " + got
                                    + "\n  source:   " + want + "\n(paste the region, less its assert lines, into the Markdown)");
                        }
                    }
                }));
            }
        }
        assertFalse(tests.isEmpty(), "README.md and docs/ have Java snippets");
        return tests.stream();
    }

    @Test
    void everyRegionIsShownSomewhere() throws IOException {
        Set<String> shown = new TreeSet<>();
        for (Path md : markdownFiles()) {
            blocks(md).forEach(b -> shown.add(b.name()));
        }
        Set<String> unused = new TreeSet<>(regions().keySet());
        unused.removeAll(shown);
        assertEquals(Set.of(), unused, "snippet regions no Markdown file shows (remove them or show them)");
    }

    @Test
    void theReadmeOpensWithTheStagingProgram() throws IOException {
        List<Block> readme = blocks(ROOT.resolve("README.md"));
        assertTrue(!readme.isEmpty() && readme.getFirst().name().equals("stage-images"),
                "README.md's first Java block is the complete staging program");
    }
}
