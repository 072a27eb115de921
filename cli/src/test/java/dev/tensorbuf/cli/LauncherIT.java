package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.views.DType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./tensorbuf} launcher of this checkout running the real command-line jar, which the
 * package phase builds (so this runs in the integration-test phase, {@code mvn verify}): bad input
 * leaves one line on stderr, the JVM's incubator-module warning included or not. The launcher is
 * told not to rebuild (TENSORBUF_NO_BUILD=1): the jar was built from these sources moments ago.
 */
class LauncherIT {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @TempDir
    static Path dir;

    @BeforeAll
    static void theJarExists() {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "the launcher is a bash script; no /bin/bash here");
        Assumptions.assumeTrue(Files.isRegularFile(ROOT.resolve("cli/target/tensorbuf.jar")),
                "no cli/target/tensorbuf.jar: the package phase builds it (mvn verify)");
    }

    private record Result(int code, String out, String err) {
    }

    private static Result launch(String... args) throws Exception {
        return launchWith(null, args);
    }

    /** Runs the launcher with TENSORBUF_JAVA_OPTS set to {@code javaOpts} (none when null). */
    private static Result launchWith(String javaOpts, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("/bin/bash", ROOT.resolve("tensorbuf").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        pb.environment().remove("TENSORBUF_JAVA_OPTS");
        if (javaOpts != null) {
            pb.environment().put("TENSORBUF_JAVA_OPTS", javaOpts);
        }
        pb.environment().put("TENSORBUF_NO_BUILD", "1");
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        p.getOutputStream().close();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "launcher finished");
        return new Result(p.exitValue(), out, err.get(120, TimeUnit.SECONDS));
    }

    private static void assertOneLine(Result r, String start) {
        assertEquals(2, r.code(), r.err());
        assertEquals(1, r.err().lines().count(), () -> "stderr:\n" + r.err());
        assertTrue(r.err().startsWith(start), r.err());
        assertTrue(r.err().endsWith("\n"), r.err());
    }

    @Test
    void badInputToADataCommandIsOneLineWithOrWithoutTheIncubatorModule() throws Exception {
        Path in = dir.resolve("in.npy");
        Npy.write(in, new DenseTensor(DType.F32, List.of(2L), Arena.ofAuto().allocate(8)));
        Result convert = launch("convert", in.toString(), dir.resolve("out.npy").toString(), "--dtype", "f３2");
        assertOneLine(convert, "tensorbuf convert: ");
        assertTrue(convert.err().contains("(U+FF13 FULLWIDTH DIGIT THREE) is not an ASCII digit"), convert.err());
        assertOneLine(launch("run", dir.resolve("missing.hlo").toString()), "tensorbuf run: ");
        assertOneLine(launch("bench", "--threads", "0"), "tensorbuf bench: ");
        Result badSetting = launchWith("-Dtensorbuf.copy.streamedFills=yes", "convert", in.toString(),
                dir.resolve("out.npy").toString());
        assertOneLine(badSetting, "tensorbuf convert: ");
        assertTrue(badSetting.err().contains("tensorbuf.copy.streamedFills=yes is not true, false or auto"),
                badSetting.err());
    }

    @Test
    void runHoldsAnElementwiseChainOfThousandsOfOps() throws Exception {
        // A Python loop in a jitted function writes such chains; on the JVM's default 1 MiB
        // stack, run's recursive planning stopped near 500 ops (Main.COMMAND_STACK_BYTES).
        int n = 3000;
        StringBuilder text = new StringBuilder("HloModule chain\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  v0 = f32[4]{0} copy(p)\n");
        for (int i = 1; i < n; i++) {
            text.append("  v").append(i).append(" = f32[4]{0} add(v").append(i - 1).append(", p)\n");
        }
        text.append("  ROOT r = f32[4]{0} copy(v").append(n - 1).append(")\n}\n");
        Path hlo = dir.resolve("chain.hlo");
        Files.writeString(hlo, text);
        Path in = dir.resolve("chain-in.npy");
        var data = Arena.ofAuto().allocate(16);
        for (int i = 0; i < 4; i++) {
            data.setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED, i, i);
        }
        Npy.write(in, new DenseTensor(DType.F32, List.of(4L), data));
        Path out = dir.resolve("chain-out.npy");
        Result r = launch("run", hlo.toString(), "--arg", "p=" + in, "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        float[] got = new float[4];
        try (Npy.Tensor t = Npy.map(out)) {
            for (int i = 0; i < 4; i++) {
                got[i] = t.data().segment().getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED, i);
            }
        }
        assertArrayEquals(new float[] {0, n, 2 * n, 3 * n}, got);
    }

    /**
     * A small convert starts without the Vector API module and with the JVM's options in the
     * jar's manifest instead of the command line, from an AOT cache the launcher makes before the
     * first one: the first run (training included) and the second (from the cache) both transpose
     * right and say nothing of the cache.
     */
    @Test
    void aSmallConvertRunsFromItsAotCacheWithNoWordOfIt() throws Exception {
        Path in = dir.resolve("t.npy");
        var data = Arena.ofAuto().allocate(24);
        for (int i = 0; i < 6; i++) {
            data.setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED, i, i);
        }
        Npy.write(in, new DenseTensor(DType.F32, List.of(2L, 3L), data));
        for (int run = 0; run < 2; run++) {
            Path out = dir.resolve("t" + run + ".npy");
            Result r = launch("convert", in.toString(), out.toString(), "--transpose", "1,0", "--quiet");
            assertEquals(0, r.code(), r.err());
            assertEquals("", r.err(), "run " + run);
            byte[] bytes = Files.readAllBytes(out);
            var floats = java.nio.ByteBuffer.wrap(bytes, (int) Npy.readHeader(out).dataOffset(), 24)
                    .order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            float[] got = new float[6];
            floats.get(got);
            // np.arange(6, dtype=np.float32).reshape(2, 3).T
            org.junit.jupiter.api.Assertions.assertArrayEquals(new float[] {0, 3, 1, 4, 2, 5}, got, "run " + run);
        }
    }

    /**
     * tensorbuf.jar holds the modules and Agrona and names tensorbuf-deps.jar, the other libraries,
     * in its Class-Path: a convert of .npy files never opens the second (the JVM reads a jar's
     * whole directory when it opens it), and one of an .arrow file loads Arrow from it.
     */
    @Test
    void theLibrariesLiveInASecondJarThatOnlyTheCommandsNeedingThemOpen() throws Exception {
        try (var jar = new java.util.jar.JarFile(ROOT.resolve("cli/target/tensorbuf.jar").toFile())) {
            assertEquals("tensorbuf-deps.jar", jar.getManifest().getMainAttributes().getValue("Class-Path"));
            List<String> others = jar.stream().map(java.util.zip.ZipEntry::getName)
                    .filter(n -> n.endsWith(".class") && !n.startsWith("dev/tensorbuf/") && !n.startsWith("org/agrona/"))
                    .toList();
            assertEquals(List.of(), others);
        }
        try (var deps = new java.util.jar.JarFile(ROOT.resolve("cli/target/tensorbuf-deps.jar").toFile())) {
            assertTrue(deps.getEntry("org/apache/arrow/vector/ipc/ArrowFileReader.class") != null);
            assertTrue(deps.stream().noneMatch(e -> e.getName().startsWith("dev/tensorbuf/")));
        }
        Path in = dir.resolve("d.npy");
        var data = Arena.ofAuto().allocate(24);
        for (int i = 0; i < 6; i++) {
            data.setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED, i, i);
        }
        Npy.write(in, new DenseTensor(DType.F32, List.of(2L, 3L), data));
        String debug = "-Dsun.misc.URLClassPath.debug=true";
        Result npy = launchWith(debug, "convert", in.toString(), dir.resolve("d1.npy").toString(), "--transpose", "1,0");
        assertEquals(0, npy.code(), npy.err());
        assertTrue(!npy.err().contains("tensorbuf-deps.jar"), npy.err());
        Path arrow = dir.resolve("d.arrow");
        Result toArrow = launchWith(debug, "convert", in.toString(), arrow.toString(), "--quiet");
        assertEquals(0, toArrow.code(), toArrow.err());
        assertTrue(toArrow.err().contains("Opening file:" + ROOT.resolve("cli/target/tensorbuf-deps.jar").toUri().getPath()),
                toArrow.err());
        Result back = launch("convert", arrow.toString(), dir.resolve("d2.npy").toString(), "--transpose", "1,0", "--quiet");
        assertEquals(0, back.code(), back.err());
        assertEquals(java.util.Arrays.toString(Files.readAllBytes(dir.resolve("d1.npy"))),
                java.util.Arrays.toString(Files.readAllBytes(dir.resolve("d2.npy"))));
    }

    @Test
    void theJarsManifestOpensWhatTheLauncherNoLongerOpensOnTheCommandLine() throws Exception {
        try (var jar = new java.util.jar.JarFile(ROOT.resolve("cli/target/tensorbuf.jar").toFile())) {
            var main = jar.getManifest().getMainAttributes();
            assertEquals("ALL-UNNAMED", main.getValue("Enable-Native-Access"));
            assertEquals(List.of("java.base/jdk.internal.misc", "java.base/java.nio"),
                    List.of(main.getValue("Add-Opens").split(" ")));
        }
    }

    @Test
    void badInputToAQueryCommandIsOneLine() throws Exception {
        Result strides = launch("strides", "--dtype", "f32", "--sizes", "３,16,16,3");
        assertOneLine(strides, "tensorbuf strides: --sizes ");
        assertTrue(strides.err().contains("(U+FF13 FULLWIDTH DIGIT THREE) is not an ASCII digit at position 0"), strides.err());
        Result simplify = launch("simplify", "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [３, 19]");
        assertOneLine(simplify, "tensorbuf simplify: ");
        assertTrue(simplify.err().contains("(U+FF13 FULLWIDTH DIGIT THREE) is not an ASCII digit at position 52"),
                simplify.err());
    }
}
