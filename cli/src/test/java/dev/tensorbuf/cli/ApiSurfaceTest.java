package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * The public API a user sees, read from the shipped module descriptors' sources: the packages
 * each library module exports to everyone, and the public top-level types in them. It stays
 * small (issue 36 asked for under 60 types), and no type's simple name collides with a public
 * type of an exported {@code java.*} package, so {@code import java.nio.*;} next to our imports
 * never turns a name ambiguous.
 */
class ApiSurfaceTest {
    static final List<String> LIBRARY = List.of("memory", "views", "ops", "interop", "net");
    private static final List<String> TOOLS = List.of("bench", "cli");
    private static final int MAX_PUBLIC_TYPES = 59;
    private static final Pattern EXPORT = Pattern.compile("^\\s*exports\\s+([\\w.]+)\\s*(to\\b[^;]*)?;", Pattern.MULTILINE);
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "^public\\s+(?:(?:final|sealed|non-sealed|abstract|static|strictfp)\\s+)*(?:class|interface|record|enum|@interface)\\s+(\\w+)",
            Pattern.MULTILINE);

    @Test
    void libraryExportsUnderSixtyPublicTypes() {
        Map<String, Set<String>> api = publicTypes(LIBRARY);
        int total = api.values().stream().mapToInt(Set::size).sum();
        StringBuilder listing = new StringBuilder();
        api.forEach((pkg, types) -> listing.append(pkg).append(" (").append(types.size()).append("): ")
                .append(types).append('\n'));
        assertTrue(total <= MAX_PUBLIC_TYPES, total + " public types in exported packages:\n" + listing);
        assertTrue(total > 20, "the scan found only " + total + " types:\n" + listing);
    }

    @Test
    void toolModulesExportNothingToEveryone() {
        assertEquals(Map.of(), publicTypes(TOOLS), "bench and cli are programs, not libraries");
    }

    @Test
    void noPublicTypeNameCollidesWithTheJdk() throws IOException {
        Set<String> jdk = jdkPublicTypeNames();
        assertTrue(jdk.contains("Buffer") && jdk.contains("TextStyle"), "the JDK scan misses known types");
        List<String> clashes = new ArrayList<>();
        publicTypes(LIBRARY).forEach((pkg, types) -> types.stream().filter(jdk::contains)
                .forEach(t -> clashes.add(pkg + "." + t)));
        assertEquals(List.of(), clashes, "names that collide with a java.* type");
    }

    static Map<String, Set<String>> publicTypes(List<String> modules) {
        Path root = Path.of("").toAbsolutePath().getParent();
        Map<String, Set<String>> api = new TreeMap<>();
        for (String module : modules) {
            Path sources = root.resolve(module).resolve("src/main/java");
            try {
                Matcher exports = EXPORT.matcher(stripComments(Files.readString(sources.resolve("module-info.java"))));
                while (exports.find()) {
                    if (exports.group(2) != null) {
                        continue;
                    }
                    String pkg = exports.group(1);
                    Set<String> types = new TreeSet<>();
                    try (Stream<Path> files = Files.list(sources.resolve(pkg.replace('.', '/')))) {
                        for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                            Matcher type = PUBLIC_TYPE.matcher(stripComments(Files.readString(file)));
                            if (type.find()) {
                                types.add(type.group(1));
                            }
                        }
                    }
                    api.put(pkg, types);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return api;
    }

    private static String stripComments(String source) {
        return source.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("(?m)//.*$", "");
    }

    private static Set<String> jdkPublicTypeNames() throws IOException {
        Set<String> names = new TreeSet<>();
        FileSystem jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
        for (Module module : ModuleLayer.boot().modules()) {
            if (!module.getName().startsWith("java.")) {
                continue;
            }
            for (ModuleDescriptor.Exports export : module.getDescriptor().exports()) {
                if (export.isQualified()) {
                    continue;
                }
                Path dir = jrt.getPath("/modules", module.getName(), export.source().replace('.', '/'));
                try (Stream<Path> files = Files.list(dir)) {
                    for (Path file : files.toList()) {
                        String name = file.getFileName().toString();
                        if (!name.endsWith(".class") || name.contains("$") || name.equals("module-info.class")
                                || name.equals("package-info.class")) {
                            continue;
                        }
                        String simple = name.substring(0, name.length() - ".class".length());
                        try {
                            Class<?> type = Class.forName(export.source() + "." + simple, false,
                                    ClassLoader.getPlatformClassLoader());
                            if (Modifier.isPublic(type.getModifiers())) {
                                names.add(simple);
                            }
                        } catch (ClassNotFoundException | LinkageError e) {
                            // a class the platform loader cannot see is not one a user imports
                        }
                    }
                }
            }
        }
        return names;
    }
}
