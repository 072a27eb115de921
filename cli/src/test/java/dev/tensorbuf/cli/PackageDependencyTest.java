package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The architecture's two dependency rules, checked on the imports and the fully qualified names
 * in code (not in comments or strings) of every main source file of every module: modules depend only downward ({@code memory -> views -> ops -> interop -> net -> bench ->
 * cli}), and packages form no cycle, except that an API package and its own {@code .internal}
 * implementation package use each other (the {@code java.lang.foreign} / {@code
 * jdk.internal.foreign} split that STYLE.md asks for).
 */
class PackageDependencyTest {
    private static final List<String> MODULES = List.of("memory", "views", "ops", "interop", "net", "bench", "cli");
    private static final Pattern PACKAGE = Pattern.compile("^package (dev\\.tensorbuf[\\w.]*);", Pattern.MULTILINE);
    private static final Pattern IMPORT = Pattern.compile(
            "^import (?:static )?(dev\\.tensorbuf(?:\\.[a-z]\\w*)*)\\.[A-Z]", Pattern.MULTILINE);
    /** A qualified name in code, {@code dev.tensorbuf.views.internal.MiniFloat.encode(...)}: its package. */
    private static final Pattern QUALIFIED = Pattern.compile("(?<![\\w.])(dev\\.tensorbuf(?:\\.[a-z]\\w*)*)\\.[A-Z]");

    @Test
    void modulesDependOnlyDownward() {
        Map<String, Integer> moduleOf = new HashMap<>();
        Map<String, Set<String>> deps = scan(moduleOf);
        List<String> upward = new ArrayList<>();
        deps.forEach((from, tos) -> {
            for (String to : tos) {
                Integer target = moduleOf.get(to);
                if (target != null && target > moduleOf.get(from)) {
                    upward.add(from + " (" + MODULES.get(moduleOf.get(from)) + ") -> " + to + " ("
                            + MODULES.get(target) + ")");
                }
            }
        });
        assertEquals(List.of(), upward, "imports from a higher module");
    }

    @Test
    void packagesFormNoCycleBeyondApiAndItsInternal() {
        Map<String, Set<String>> deps = scan(new HashMap<>());
        List<Set<String>> cycles = new ArrayList<>();
        for (Set<String> component : stronglyConnected(deps)) {
            if (component.size() > 1 && !isApiWithItsInternal(component)) {
                cycles.add(component);
            }
        }
        assertEquals(List.of(), cycles, "package cycles");
    }

    @Test
    void cycleFinderFindsCycles() {
        Map<String, Set<String>> deps = new TreeMap<>();
        deps.put("a", Set.of("b"));
        deps.put("b", Set.of("c"));
        deps.put("c", Set.of("a", "d"));
        deps.put("x", Set.of("x.internal"));
        deps.put("x.internal", Set.of("x"));
        List<Set<String>> found = stronglyConnected(deps).stream().filter(c -> c.size() > 1).toList();
        assertEquals(Set.of(Set.of("a", "b", "c"), Set.of("x", "x.internal")), Set.copyOf(found));
        assertTrue(isApiWithItsInternal(Set.of("x", "x.internal")));
        assertTrue(!isApiWithItsInternal(Set.of("x", "y.internal")));
    }

    /** A review found an upward dependency written as a qualified name in code would have passed. */
    @Test
    void qualifiedNamesCountInCodeButNotInCommentsOrStrings() {
        String code = """
                package dev.tensorbuf.views;
                /** See {@link dev.tensorbuf.cli.Main}. */
                class A {
                    // dev.tensorbuf.bench.X is only mentioned
                    String s = "dev.tensorbuf.interop.Npy \\" dev.tensorbuf.interop.Y";
                    char c = '"';
                    Object o = dev.tensorbuf.ops.Ops.transpose(null);
                    String t = \"""
                        dev.tensorbuf.interop.Z
                        \""";
                    Object p = dev.tensorbuf.memory.internal.Errors.class; /* dev.tensorbuf.cli.B */
                }
                """;
        assertEquals(Set.of("dev.tensorbuf.ops", "dev.tensorbuf.memory.internal"), used(QUALIFIED, codeOnly(code)));
    }

    private static Set<String> used(Pattern pattern, String text) {
        Set<String> found = new TreeSet<>();
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }

    /** {@return the text with comments, string and character literals and text blocks blanked} */
    private static String codeOnly(String text) {
        StringBuilder out = new StringBuilder(text.length());
        int i = 0;
        while (i < text.length()) {
            int end;
            if (text.startsWith("//", i)) {
                end = text.indexOf('\n', i);
                end = end < 0 ? text.length() : end;
            } else if (text.startsWith("/*", i)) {
                end = text.indexOf("*/", i + 2);
                end = end < 0 ? text.length() : end + 2;
            } else if (text.startsWith("\"\"\"", i)) {
                end = closing(text, i + 3, "\"\"\"");
            } else if (text.charAt(i) == '"' || text.charAt(i) == '\'') {
                end = closing(text, i + 1, String.valueOf(text.charAt(i)));
            } else {
                out.append(text.charAt(i++));
                continue;
            }
            out.append(" ".repeat(end - i));
            i = end;
        }
        return out.toString();
    }

    /** {@return the index just past {@code close} at or after {@code from}, skipping escaped characters} */
    private static int closing(String text, int from, String close) {
        int i = from;
        while (i < text.length()) {
            if (text.charAt(i) == '\\') {
                i += 2;
            } else if (text.startsWith(close, i)) {
                return i + close.length();
            } else {
                i++;
            }
        }
        return text.length();
    }

    private static boolean isApiWithItsInternal(Set<String> component) {
        if (component.size() != 2) {
            return false;
        }
        List<String> two = new ArrayList<>(new TreeSet<>(component));
        return two.get(1).equals(two.getFirst() + ".internal");
    }

    /** {@return each package's imported tensorbuf packages}; fills {@code moduleOf} with each package's module index */
    private static Map<String, Set<String>> scan(Map<String, Integer> moduleOf) {
        Path root = Path.of("").toAbsolutePath().getParent();
        Map<String, Set<String>> deps = new TreeMap<>();
        int files = 0;
        for (int m = 0; m < MODULES.size(); m++) {
            Path sources = root.resolve(MODULES.get(m)).resolve("src/main/java");
            List<Path> javaFiles;
            try (Stream<Path> walk = Files.walk(sources)) {
                javaFiles = walk.filter(p -> p.toString().endsWith(".java")).toList();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            for (Path p : javaFiles) {
                String text = read(p);
                Matcher pkg = PACKAGE.matcher(text);
                if (!pkg.find()) {
                    continue;
                }
                files++;
                String from = pkg.group(1);
                moduleOf.put(from, m);
                Set<String> tos = deps.computeIfAbsent(from, k -> new TreeSet<>());
                for (Set<String> used : List.of(used(IMPORT, text), used(QUALIFIED, codeOnly(text)))) {
                    for (String to : used) {
                        if (!to.equals(from)) {
                            tos.add(to);
                        }
                    }
                }
            }
        }
        assertTrue(files > 200, "scanned " + files + " files under " + root + ": wrong root?");
        return deps;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Tarjan's strongly connected components, iteratively. */
    private static List<Set<String>> stronglyConnected(Map<String, Set<String>> deps) {
        Set<String> nodes = new TreeSet<>(deps.keySet());
        deps.values().forEach(nodes::addAll);
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<Set<String>> out = new ArrayList<>();
        for (String start : nodes) {
            if (index.containsKey(start)) {
                continue;
            }
            Deque<Map.Entry<String, ArrayDeque<String>>> work = new ArrayDeque<>();
            visit(start, deps, index, low, stack, onStack, work);
            while (!work.isEmpty()) {
                Map.Entry<String, ArrayDeque<String>> top = work.peek();
                String v = top.getKey();
                String w = top.getValue().poll();
                if (w != null) {
                    if (!index.containsKey(w)) {
                        visit(w, deps, index, low, stack, onStack, work);
                    } else if (onStack.contains(w)) {
                        low.put(v, Math.min(low.get(v), index.get(w)));
                    }
                    continue;
                }
                work.pop();
                if (!work.isEmpty()) {
                    String parent = work.peek().getKey();
                    low.put(parent, Math.min(low.get(parent), low.get(v)));
                }
                if (low.get(v).equals(index.get(v))) {
                    Set<String> component = new TreeSet<>();
                    String x;
                    do {
                        x = stack.pop();
                        onStack.remove(x);
                        component.add(x);
                    } while (!x.equals(v));
                    out.add(component);
                }
            }
        }
        return out;
    }

    private static void visit(String v, Map<String, Set<String>> deps, Map<String, Integer> index,
                              Map<String, Integer> low, Deque<String> stack, Set<String> onStack,
                              Deque<Map.Entry<String, ArrayDeque<String>>> work) {
        index.put(v, index.size());
        low.put(v, index.get(v));
        stack.push(v);
        onStack.add(v);
        work.push(Map.entry(v, new ArrayDeque<>(deps.getOrDefault(v, Set.of()))));
    }
}
