package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code tensorbuf} launcher script, run by bash from a copy of the repository root whose
 * {@code cli/target/tensorbuf.jar} is {@link LauncherProbe}: which JVM flags each command gets
 * (the Vector API module for the data-moving commands, the scalar-first byte count for the
 * one-shot ones, no module for a convert of up to 1 GiB of files), that arguments arrive intact,
 * and its two set-up errors.
 */
class LauncherTest {
    @TempDir
    Path root;

    private Path launcher;

    @BeforeEach
    void copyLauncherBesideAProbeJar() throws IOException {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "the launcher is a bash script; no /bin/bash here");
        launcher = root.resolve("tensorbuf");
        Files.copy(Path.of("..", "tensorbuf"), launcher);
        Path jar = root.resolve("cli/target/tensorbuf.jar");
        Files.createDirectories(jar.getParent());
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, LauncherProbe.class.getName());
        // As the real jar's (LauncherIT checks it): the launcher leaves these to the manifest where it can.
        manifest.getMainAttributes().putValue("Enable-Native-Access", "ALL-UNNAMED");
        manifest.getMainAttributes().putValue("Add-Opens", "java.base/jdk.internal.misc java.base/java.nio");
        String entry = LauncherProbe.class.getName().replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest)) {
            out.putNextEntry(new JarEntry(entry));
            try (var in = LauncherProbe.class.getClassLoader().getResourceAsStream(entry)) {
                in.transferTo(out);
            }
            out.closeEntry();
        }
        // The libraries' jar, which the real one names in its Class-Path: there, or the jar is rebuilt.
        try (OutputStream file = Files.newOutputStream(jar.resolveSibling("tensorbuf-deps.jar"));
             JarOutputStream out = new JarOutputStream(file)) {
            out.putNextEntry(new JarEntry("META-INF/"));
            out.closeEntry();
        }
    }

    private record Result(int code, String output) {
        Map<String, String> values() {
            Map<String, String> v = new LinkedHashMap<>();
            output.lines().filter(l -> l.contains("=") && !l.startsWith("WARNING")).forEach(l -> {
                int eq = l.indexOf('=');
                v.put(l.substring(0, eq), l.substring(eq + 1));
            });
            return v;
        }
    }

    /** Runs the launcher with JAVA_HOME set to this test's JDK (or unset) and the given extra environment. */
    private Result launch(Map<String, String> env, boolean javaHome, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("/bin/bash", launcher.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(root.toFile()).redirectErrorStream(true);
        pb.environment().remove("TENSORBUF_JAVA_OPTS");
        pb.environment().remove("JAVA_HOME");
        pb.environment().remove("GLIBC_TUNABLES");
        // Class-data archives cost a dump at each fresh root's first run; only the test of them has them.
        pb.environment().put("TENSORBUF_CDS", "0");
        if (javaHome) {
            pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        }
        pb.environment().putAll(env);
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "launcher finished");
        return new Result(p.exitValue(), output);
    }

    private record Split(int code, String out, String err) {
    }

    /**
     * Runs the command with standard error apart, read to its end: the launcher's filter may still
     * be writing it when the JVM has exited, and the pipe ends only when both are done.
     */
    private static Split run(List<String> cmd, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("TENSORBUF_JAVA_OPTS");
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        var err = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "finished");
        return new Split(p.exitValue(), out, err.get(60, TimeUnit.SECONDS));
    }

    private Split launchSplit(Map<String, String> env, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("/bin/bash", launcher.toString()));
        cmd.addAll(List.of(args));
        return run(cmd, env);
    }

    @Test
    void theJvmItselfWarnsOfTheIncubatorModuleOnStderr() throws Exception {
        // What the launcher filters, so that the tests below could fail: the JVM's own line, before main.
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Split r = run(List.of(java.toString(), "--add-modules", "jdk.incubator.vector", "-jar",
                root.resolve("cli/target/tensorbuf.jar").toString(), "convert"), Map.of("PROBE_STDERR", "bad input\n"));
        assertEquals("WARNING: Using incubator modules: jdk.incubator.vector\nbad input\n", r.err());
    }

    @Test
    void badInputLeavesOneLineOnStderrThoughTheJvmWarnsOfTheIncubatorModule() throws Exception {
        for (String command : List.of("convert", "run", "demo", "bench")) {
            String line = "tensorbuf " + command + ": '３' (U+FF13 FULLWIDTH DIGIT THREE) is not an ASCII digit\n";
            Split r = launchSplit(Map.of("PROBE_STDERR", line), command, "x.npy");
            assertEquals(2, r.code(), command);
            // A small convert starts without the module (no warning to drop); the others with it.
            assertTrue(r.out().contains(command.equals("convert") ? "vector=false" : "vector=true"), r.out());
            assertEquals(line, r.err(), command);
        }
        String line = "tensorbuf convert: bad\n";
        Split large = launchSplit(Map.of("PROBE_STDERR", line), "convert", "model.safetensors.index.json", "out.safetensors");
        assertTrue(large.out().contains("vector=true"), large.out());
        assertEquals(line, large.err());
        Split query = launchSplit(Map.of("PROBE_STDERR", "tensorbuf strides: bad\n"), "strides");
        assertEquals(2, query.code());
        assertEquals("tensorbuf strides: bad\n", query.err());
    }

    @Test
    void whatFollowsTheWarningPassesThroughUnchangedEvenWithoutANewline() throws Exception {
        // The progress bar redraws with \r and no newline: it must not wait for one.
        String text = "\r[=====>     ] 45% 1.2 GB/s\r[==========>] 100%";
        Split r = launchSplit(Map.of("PROBE_STDERR", text), "convert");
        assertEquals(text, r.err());
        Split warning = launchSplit(Map.of("PROBE_STDERR", "WARNING: Using incubator modules: jdk.incubator.vector\n"),
                "convert");
        assertEquals("WARNING: Using incubator modules: jdk.incubator.vector\n", warning.err(),
                "only the JVM's first line is dropped, not the command's own");
    }

    /** A source file dated after the jar: the launcher then wants to rebuild. */
    private void sourceNewerThanTheJar() throws IOException {
        Path source = root.resolve("cli/src/main/java/Changed.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, "class Changed {}\n");
        Files.setLastModifiedTime(source, FileTime.from(Instant.now().plusSeconds(60)));
    }

    /** {@return a PATH with the launcher's basic tools but no mvn} */
    private String pathWithoutMaven() throws IOException {
        Path bin = Files.createDirectories(root.resolve("bin-without-maven"));
        for (String tool : List.of("find", "sed", "head", "dirname", "mktemp", "cat", "rm", "readlink")) {
            for (String dir : List.of("/usr/bin", "/bin")) {
                Path p = Path.of(dir, tool);
                if (Files.isExecutable(p) && !Files.exists(bin.resolve(tool), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    Files.createSymbolicLink(bin.resolve(tool), p);
                    break;
                }
            }
        }
        return bin.toString();
    }

    private Result launch(String... args) throws Exception {
        return launch(Map.of(), true, args);
    }

    @Test
    void oneShotDataCommandsGetTheVectorModuleAndScalarFirstBytes() throws Exception {
        Map<String, String> v = launch("run", "in.npy", "--out", "out.npy").values();
        assertEquals("true", v.get("vector"));
        assertEquals("268435456", v.get("scalarFirstBytes"));
        assertEquals("null", v.get("copyVector"));
        assertEquals("run|in.npy|--out|out.npy", v.get("args"));
    }

    @Test
    void aConvertOfUpTo1GibOfFilesStartsWithoutTheVectorModuleAndAsksForScalarKernels() throws Exception {
        Files.write(root.resolve("in.npy"), new byte[4096]);
        for (String[] args : List.of(new String[] {"convert", "in.npy", "out.npy"}, new String[] {"convert", "missing.npy", "o.npy"})) {
            Map<String, String> v = launch(args).values();
            assertEquals("false", v.get("vector"), String.join(" ", args));
            assertEquals("false", v.get("copyVector"), "else the engine warns that its vector kernels are missing");
            assertEquals("2147483648", v.get("scalarJobBytes"));
            assertEquals("true", v.get("nativeAccess"), "from the jar's manifest");
            assertEquals(String.join("|", args), v.get("args"));
        }
    }

    @Test
    void aConvertOfMoreThan1GibOfFilesOrOfAShardedCheckpointGetsTheVectorModule() throws Exception {
        Path big = root.resolve("big.npy");
        try (var file = new java.io.RandomAccessFile(big.toFile(), "rw")) {
            file.setLength((1L << 30) + 1); // sparse: no disk used
        }
        Files.write(root.resolve("small.npy"), new byte[16]);
        List<String[]> large = List.of(new String[] {"convert", "big.npy", "out.npy", "--quiet"},
                new String[] {"convert", "--transpose", "1,0", big.toString(), "out.npy"},
                new String[] {"convert", "model.safetensors.index.json", "out.safetensors"});
        for (String[] args : large) {
            Map<String, String> v = launch(args).values();
            assertEquals("true", v.get("vector"), String.join(" ", args));
            assertEquals("268435456", v.get("scalarFirstBytes"));
            assertEquals("2147483648", v.get("scalarJobBytes"));
            assertEquals("null", v.get("copyVector"));
            assertEquals("true", v.get("nativeAccess"));
        }
        Files.write(root.resolve("half.npy"), new byte[1 << 20]);
        try (var file = new java.io.RandomAccessFile(root.resolve("half.npy").toFile(), "rw")) {
            file.setLength(1L << 29);
        }
        // Two files of 512 MiB and 16 bytes: over 1 GiB only together with a second 512 MiB.
        assertEquals("false", launch("convert", "half.npy", "small.npy").values().get("vector"));
        Files.copy(root.resolve("half.npy"), root.resolve("half2.npy"));
        assertEquals("true", launch("convert", "half.npy", "half2.npy", "small.npy").values().get("vector"));
    }

    /**
     * A convert without the Vector API module is a process of about a second: it runs at four
     * times the JIT's compile thresholds, which about halved its compilers' CPU. A large one (the
     * vector kernels' warm-up wants C2 early) and the other commands keep the JVM's own. The
     * scalar transpose's row loop, named in the launcher, is compiled sooner instead; the JVM
     * ignores a command for a method that does not exist, so the test holds the name to the code.
     */
    @Test
    void aConvertWithoutTheVectorModuleRaisesTheCompileThresholdsAndNothingElseDoes() throws Exception {
        Map<String, String> small = launch("convert", "in.npy", "out.npy").values();
        assertEquals("4", small.get("compileThresholdScaling"));
        assertEquals("quiet|CompileThresholdScaling,dev.tensorbuf.ops.copy.internal.ScalarTranspose::row*,0.05"
                        + "|CompileThresholdScaling,dev.tensorbuf.ops.copy.internal.DenseConvert::*,0.05"
                        + "|CompileThresholdScaling,dev.tensorbuf.ops.copy.internal.ChunkReads::*,0.05"
                        + "|CompileThresholdScaling,dev.tensorbuf.ops.copy.internal.ChunkConvert::*,0.05"
                        + "|CompileThresholdScaling,dev.tensorbuf.ops.copy.internal.ScalarBytePlanes::*,0.05"
                        + "|CompileThresholdScaling,dev.tensorbuf.ops.copy.internal.Bf16Pairs::*,0.05",
                small.get("compileCommands"), "the scalar transpose's row loops and the type conversions compiled sooner, silently");
        assertTrue(java.util.Arrays.stream(Class.forName("dev.tensorbuf.ops.copy.internal.ScalarTranspose").getDeclaredMethods())
                .anyMatch(m -> m.getName().equals("rowPair")), "the methods the launcher names exist");
        for (String kernel : List.of("DenseConvert", "ChunkReads", "ChunkConvert", "ScalarBytePlanes", "Bf16Pairs")) {
            assertTrue(Class.forName("dev.tensorbuf.ops.copy.internal." + kernel).getDeclaredMethods().length > 0,
                    "the classes the launcher names exist: " + kernel);
        }
        Path big = root.resolve("big.npy");
        try (var file = new java.io.RandomAccessFile(big.toFile(), "rw")) {
            file.setLength((1L << 30) + 1); // sparse: no disk used
        }
        Map<String, String> large = launch("convert", "big.npy", "out.npy").values();
        assertEquals("true", large.get("vector"));
        assertEquals("default", large.get("compileThresholdScaling"));
        assertEquals("", large.get("compileCommands"));
        for (String command : List.of("run", "serve", "layout")) {
            assertEquals("default", launch(command).values().get("compileThresholdScaling"), command);
        }
    }

    @Test
    void convertRunsJobsUpTo2GibScalarThroughoutAndNoOtherCommandIsTold() throws Exception {
        assertEquals("2147483648", launch("convert", "in.npy", "out.npy").values().get("scalarJobBytes"));
        for (String command : List.of("run", "demo", "bench", "layout")) {
            assertEquals("null", launch(command).values().get("scalarJobBytes"), command);
        }
    }

    /**
     * Every command's heap is advised for huge pages; convert's stage ring starts on a huge page
     * boundary and malloc advises its mappings too (the tunable added to the user's own, which stay);
     * commands that move no bulk data through malloc are not told.
     */
    @Test
    void everyHeapGetsHugePagesAndConvertsStagesTooWithTheUsersTunablesKept() throws Exception {
        Map<String, String> convert = launch("convert", "in.npy", "out.npy").values();
        assertEquals("true", convert.get("hugePageStages"));
        assertEquals("glibc.malloc.hugetlb=1", convert.get("glibcTunables"));
        assertEquals("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1",
                launch(Map.of("GLIBC_TUNABLES", "glibc.malloc.arena_max=2"), true, "convert", "in.npy", "out.npy")
                        .values().get("glibcTunables"));
        // The JVM warns on stdout when asked for huge pages the kernel does not have.
        Path thp = Path.of("/sys/kernel/mm/transparent_hugepage/enabled");
        String mode = Files.isReadable(thp) ? Files.readString(thp) : "";
        String expected = Boolean.toString(mode.contains("[always]") || mode.contains("[madvise]"));
        for (String command : List.of("convert", "run", "demo", "layout", "serve")) {
            assertEquals(expected, launch(command).values().get("hugePageHeap"), command + ", THP " + mode.strip());
        }
        for (String command : List.of("run", "demo", "layout")) {
            Map<String, String> v = launch(command).values();
            assertEquals("null", v.get("hugePageStages"), command);
            assertEquals("null", v.get("glibcTunables"), command);
        }
    }

    /** A Flight client or server keeps the memory of the batches it frees for the next ones. */
    @Test
    void flightCommandsKeepMallocsFreedBatchesForTheNext() throws Exception {
        for (String command : List.of("fetch", "serve")) {
            assertEquals("glibc.malloc.hugetlb=1:glibc.malloc.trim_threshold=1073741824:glibc.malloc.mmap_threshold=33554432",
                    launch(command).values().get("glibcTunables"), command);
        }
    }

    @Test
    void longRunningDataCommandsGetTheVectorModuleWithVectorKernelsFromTheFirstCopy() throws Exception {
        for (String command : List.of("demo", "bench")) {
            Map<String, String> v = launch(command).values();
            assertEquals("true", v.get("vector"), command);
            assertEquals("null", v.get("scalarFirstBytes"), command);
        }
    }

    @Test
    void queryCommandsStartWithoutTheIncubatorModuleSoNoWarningIsPrinted() throws Exception {
        for (String command : List.of("layout", "strides", "indexing", "simplify", "compose", "inspect", "render")) {
            Result r = launch(command, "--help");
            assertEquals("false", r.values().get("vector"), command);
            assertTrue(!r.output().contains("WARNING"), command + ":\n" + r.output());
        }
        assertEquals("false", launch().values().get("vector"), "no command");
    }

    /**
     * The class-data archive: written beside the jar when a run exits, one for each command (an
     * archive is refused under other module flags, and holds only what its first run loaded), reused
     * while the jar stays, rewritten when the jar is rebuilt, and never a word on
     * the console. A convert without the module has an AOT cache instead, made by a training run
     * before the first one.
     */
    @Test
    void classDataArchivesAreWrittenBesideTheJarReusedAndRenewedWithTheJar() throws Exception {
        Map<String, String> on = Map.of("TENSORBUF_CDS", "1");
        Path vector = root.resolve("cli/target/tensorbuf-run-vector.jsa");
        Path plain = root.resolve("cli/target/tensorbuf-help.jsa");
        Result r = launch(on, true, "run", "m.hlo");
        assertEquals(0, r.code(), r.output());
        assertEquals("run|m.hlo", r.values().get("args"));
        assertTrue(Files.size(vector) > 0, "archive written");
        assertFalse(Files.exists(plain));
        assertTrue(r.output().lines().allMatch(l -> l.contains("=") || l.startsWith("WARNING: Using incubator")), r.output());
        r = launch(on, true, "layout", "--help");
        assertTrue(Files.size(plain) > 0, "archive written");
        assertTrue(!r.output().contains("WARNING") && !r.output().contains("cds") && !r.output().contains("aot"), r.output());
        FileTime written = Files.getLastModifiedTime(vector);
        Thread.sleep(1100);
        r = launch(on, true, "run", "m.hlo");
        assertEquals(written, Files.getLastModifiedTime(vector), "reused, not rewritten");
        assertEquals("true", r.values().get("vector"));

        r = launch(on, true, "convert", "in.npy", "out.npy");
        assertEquals(0, r.code(), r.output());
        assertEquals("convert|in.npy|out.npy", r.values().get("args"), "the training run's output is not the user's");
        assertEquals(List.of(), r.output().lines().filter(l -> !l.contains("=")).toList(), "not a word of the cache");
        Path cache = aotCache();
        FileTime trained = Files.getLastModifiedTime(cache);
        r = launch(on, true, "convert", "in.npy", "out.npy");
        assertEquals(trained, Files.getLastModifiedTime(cache), "reused, not made again");
        assertEquals(List.of(), r.output().lines().filter(l -> !l.contains("=")).toList());

        // A rebuilt jar: its classes may differ, so the archive is refused and written anew.
        Path jar = root.resolve("cli/target/tensorbuf.jar");
        Files.setLastModifiedTime(jar, FileTime.from(Instant.now().plusSeconds(5)));
        r = launch(on, true, "run", "m.hlo");
        assertEquals("run|m.hlo", r.values().get("args"));
        assertTrue(Files.getLastModifiedTime(vector).compareTo(written) > 0, "rewritten for the new jar");
        assertTrue(r.output().lines().allMatch(l -> l.contains("=") || l.startsWith("WARNING: Using incubator")), r.output());
        r = launch(on, true, "convert", "in.npy", "out.npy");
        assertEquals("convert|in.npy|out.npy", r.values().get("args"));
        assertTrue(Files.getLastModifiedTime(aotCache()).compareTo(trained) > 0, "the cache made again for the new jar");
        Files.delete(aotCache());
        launch(Map.of("TENSORBUF_CDS", "0"), true, "convert", "in.npy", "out.npy");
        try (var left = Files.list(root.resolve("cli/target"))) {
            assertEquals(List.of(), left.filter(p -> p.toString().endsWith(".aot")).toList(), "TENSORBUF_CDS=0: no cache");
        }
        // TENSORBUF_CDS=0: no archive at all.
        launch(Map.of("TENSORBUF_CDS", "0"), true, "layout");
        assertFalse(Files.exists(root.resolve("cli/target/tensorbuf-layout.jsa")));
    }

    /**
     * Each command's archive is written by a run of that command: a {@code fetch --help} run first
     * (which loads next to nothing of fetch's) no longer decides the start of every later fetch, nor
     * a layout that of plan. Help anywhere on the line, --version and unknown words share archives of
     * their own, with or without the Vector API module as the command's flags have it.
     */
    @Test
    void eachCommandHasAnArchiveOfItsOwnAndHelpRunsDoNotWriteIt() throws Exception {
        Map<String, String> on = Map.of("TENSORBUF_CDS", "1");
        Path target = root.resolve("cli/target");
        assertEquals("fetch|--help", launch(on, true, "fetch", "--help").values().get("args"));
        assertEquals(List.of("tensorbuf-help-vector.jsa"), archives());
        launch(on, true, "fetch", "grpc://localhost:1", "-h");
        launch(on, true, "layout", "f32[2]", "--", "--help");
        assertEquals(List.of("tensorbuf-help-vector.jsa", "tensorbuf-help.jsa"), archives(), "help anywhere, as Main reads it");
        Result r = launch(on, true, "fetch", "grpc://localhost:1", "x");
        assertEquals("fetch|grpc://localhost:1|x", r.values().get("args"));
        assertEquals("true", r.values().get("vector"));
        assertTrue(Files.size(target.resolve("tensorbuf-fetch-vector.jsa")) > 0, "fetch's own archive");
        launch(on, true, "layout", "f32[2]");
        launch(on, true, "plan", "x.npy");
        launch(on, true, "--version");
        launch(on, true, "draw", "f32[2]");
        assertEquals(List.of("tensorbuf-fetch-vector.jsa", "tensorbuf-help-vector.jsa", "tensorbuf-help.jsa",
                "tensorbuf-layout.jsa", "tensorbuf-other.jsa", "tensorbuf-plan.jsa"), archives());
        FileTime fetch = Files.getLastModifiedTime(target.resolve("tensorbuf-fetch-vector.jsa"));
        Thread.sleep(1100);
        launch(on, true, "serve", "x.npy");
        launch(on, true, "fetch", "grpc://localhost:1", "--help");
        assertEquals(fetch, Files.getLastModifiedTime(target.resolve("tensorbuf-fetch-vector.jsa")), "untouched by other runs");
        assertTrue(Files.size(target.resolve("tensorbuf-serve-vector.jsa")) > 0, "serve's own archive");
    }

    /**
     * A first run that fails (here the probe refuses its input and exits 2) loads a fraction of the
     * command's classes: its archive is not kept, so the next run, which succeeds, writes the
     * command's own. The exit status and the one line on stderr pass through as with exec.
     */
    @Test
    void aFailingFirstRunLeavesNoArchiveAndTheNextGoodRunWritesIt() throws Exception {
        Map<String, String> failing = Map.of("TENSORBUF_CDS", "1", "PROBE_STDERR", "tensorbuf: no such file: x.npy\n");
        for (String command : List.of("plan", "run")) { // without and with the Vector API module
            Split bad = launchSplit(failing, command, "x.npy");
            assertEquals(2, bad.code(), bad.err());
            assertEquals("tensorbuf: no such file: x.npy\n", bad.err());
            assertEquals(List.of(), leftInTarget(), "no archive, no temporary");
        }
        assertEquals(0, launch(Map.of("TENSORBUF_CDS", "1"), true, "plan", "x.npy").code());
        assertEquals(0, launch(Map.of("TENSORBUF_CDS", "1"), true, "run", "x.npy").code());
        assertEquals(List.of("tensorbuf-plan.jsa", "tensorbuf-run-vector.jsa"), leftInTarget());
        FileTime plan = Files.getLastModifiedTime(root.resolve("cli/target/tensorbuf-plan.jsa"));
        Thread.sleep(1100);
        assertEquals(2, launchSplit(failing, "plan", "x.npy").code());
        assertEquals(plan, Files.getLastModifiedTime(root.resolve("cli/target/tensorbuf-plan.jsa")), "a kept archive is used, not replaced");
    }

    /** {@return the names in cli/target other than the two jars, sorted} */
    private List<String> leftInTarget() throws IOException {
        try (var files = Files.list(root.resolve("cli/target"))) {
            return files.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith(".jar")).sorted().toList();
        }
    }

    /** {@return the names of the class-data archives in cli/target, sorted} */
    private List<String> archives() throws IOException {
        try (var files = Files.list(root.resolve("cli/target"))) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".jsa")).sorted().toList();
        }
    }

    /** {@return the one AOT cache in cli/target} */
    private Path aotCache() throws IOException {
        try (var files = Files.list(root.resolve("cli/target"))) {
            List<Path> caches = files.filter(p -> p.getFileName().toString().matches("tensorbuf-convert.*\\.aot")).toList();
            assertEquals(1, caches.size(), caches.toString());
            assertTrue(Files.size(caches.getFirst()) > 0);
            return caches.getFirst();
        }
    }

    @Test
    void argumentsArriveWordForWordAndNativeAccessIsOn() throws Exception {
        Map<String, String> v = launch("layout", "f32[3,4]{1,0:T(2,2)}", "two words", "*", "--index=1,2").values();
        assertEquals("layout|f32[3,4]{1,0:T(2,2)}|two words|*|--index=1,2", v.get("args"));
        assertEquals("true", v.get("nativeAccess"));
        assertEquals(String.valueOf(Runtime.version().feature()), v.get("feature"));
    }

    @Test
    void aSymlinkOnThePathRunsTheCheckoutItPointsTo() throws Exception {
        // Two hops, the second relative: bin/tensorbuf -> ../links/tb -> ../tensorbuf.
        Path links = Files.createDirectories(root.resolve("links"));
        Files.createSymbolicLink(links.resolve("tb"), Path.of("..", "tensorbuf"));
        Path bin = Files.createDirectories(root.resolve("bin"));
        Files.createSymbolicLink(bin.resolve("tensorbuf"), links.resolve("tb"));
        List<String> cmd = List.of("/bin/bash", bin.resolve("tensorbuf").toString(), "layout", "--help");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), output);
        assertTrue(output.contains("args=layout|--help"), output);
    }

    @Test
    void tensorbufJavaOptsComeLastSoTheyOverrideTheLaunchersSettings() throws Exception {
        Map<String, String> v = launch(Map.of("TENSORBUF_JAVA_OPTS", "-Dtensorbuf.copy.scalarFirstBytes=0"), true,
                "convert").values();
        assertEquals("0", v.get("scalarFirstBytes"));
    }

    @Test
    void withoutAJdk25TheLauncherSaysWhatToInstall() throws Exception {
        Path empty = Files.createDirectories(root.resolve("no-jdks"));
        Result r = launch(Map.of("TENSORBUF_JDK_DIRS", empty.toString()), false, "demo");
        assertEquals(2, r.code());
        assertEquals("tensorbuf: needs a JDK 25 or newer (none found in JAVA_HOME or the usual JDK folders); install one,"
                + " e.g. Temurin 25, and set JAVA_HOME to it.", r.output().strip());
    }

    @Test
    void noBuildRunsTheJarAsItIsAndSaysSoWhenThereIsNone() throws Exception {
        sourceNewerThanTheJar();
        // Stale, and no Maven on this PATH: it would fail to build, but it does not try.
        Result r = launch(Map.of("TENSORBUF_NO_BUILD", "1", "PATH", pathWithoutMaven()), true, "layout");
        assertEquals(0, r.code(), r.output());
        assertEquals("layout", r.values().get("args"));
        Files.delete(root.resolve("cli/target/tensorbuf.jar"));
        r = launch(Map.of("TENSORBUF_NO_BUILD", "1"), true, "layout");
        assertEquals(2, r.code());
        assertTrue(r.output().startsWith("tensorbuf: TENSORBUF_NO_BUILD=1 but there is no "), r.output());
    }

    @Test
    void aMissingLibrariesJarIsRebuiltLikeAMissingJar() throws Exception {
        assertEquals(0, launch(Map.of("PATH", pathWithoutMaven()), true, "layout").code());
        Files.delete(root.resolve("cli/target/tensorbuf-deps.jar"));
        Result r = launch(Map.of("PATH", pathWithoutMaven()), true, "layout");
        assertEquals(2, r.code(), r.output());
        assertEquals("tensorbuf: building needs Apache Maven 3.8+ on PATH (e.g. apt-get install maven).", r.output().strip());
    }

    @Test
    void onlyWhatGoesIntoTheJarMakesItStale() throws Exception {
        // Tests, experiments and a virtualenv in the checkout change without changing the jar; walking
        // the virtualenv's files took 0.1-0.3 s of every command.
        for (String file : List.of("cli/src/test/java/ChangedTest.java", "bench/experiments/Changed.java",
                ".venv/lib/python3/site-packages/changed/pom.xml", "docs/changed.md")) {
            Path p = Files.createDirectories(root.resolve(file).getParent()).resolve(Path.of(file).getFileName());
            Files.writeString(p, "changed\n");
            Files.setLastModifiedTime(p, FileTime.from(Instant.now().plusSeconds(60)));
        }
        Result r = launch(Map.of("PATH", pathWithoutMaven()), true, "layout");
        assertEquals(0, r.code(), r.output());
        assertEquals("layout", r.values().get("args"));
        Path pom = root.resolve("views/pom.xml");
        Files.createDirectories(pom.getParent());
        Files.writeString(pom, "<project/>\n");
        Files.setLastModifiedTime(pom, FileTime.from(Instant.now().plusSeconds(60)));
        r = launch(Map.of("PATH", pathWithoutMaven()), true, "layout");
        assertEquals(2, r.code(), "a module's pom.xml makes it stale: " + r.output());
    }

    @Test
    void sourcesNewerThanTheJarNeedMavenToRebuild() throws Exception {
        sourceNewerThanTheJar();
        Result r = launch(Map.of("PATH", pathWithoutMaven()), true, "demo");
        assertEquals(2, r.code(), r.output());
        assertEquals("tensorbuf: building needs Apache Maven 3.8+ on PATH (e.g. apt-get install maven).", r.output().strip());
    }
}
