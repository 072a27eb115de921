package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.Dlpack;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.TensorView;
import java.io.File;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * tensorbuf as named modules, the way a modular application uses it: a small program of its own
 * module ({@code requires dev.tensorbuf.interop}) runs on the module path with our modules as
 * built (the jars after {@code package}, the class folders before) and Agrona as an automatic
 * module. It stages a u8 NHWC batch to f32 NCHW and exports it through DLPack (restricted FFM
 * calls, all in {@code dev.tensorbuf.interop}).
 *
 * <p>With {@code --enable-native-access=dev.tensorbuf.interop} the only line on stderr is the JVM's
 * incubator notice, and the copy engine runs the Vector API kernels although no
 * {@code --add-modules jdk.incubator.vector} is given: ops' {@code requires jdk.incubator.vector}
 * resolves the module. The class path's {@code ALL-UNNAMED} grants nothing to a named module,
 * which the second run shows by its warning.
 */
class ModulePathTest {
    private static final String INCUBATOR = "WARNING: Using incubator modules: jdk.incubator.vector";
    private static final List<String> OUR_MODULES = List.of(
            "dev.tensorbuf.memory", "dev.tensorbuf.views", "dev.tensorbuf.ops", "dev.tensorbuf.interop");

    @TempDir
    static Path dir;

    private static String modulePath;
    private static final Path JAVA_BIN = Path.of(System.getProperty("java.home"), "bin");

    @BeforeAll
    static void compileTheProgram() throws Exception {
        List<Path> entries = new ArrayList<>();
        for (Class<?> c : List.of(MemoryBuffer.class, TensorView.class, CopyEngine.class, Dlpack.class)) {
            entries.add(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()));
        }
        URL agrona = ClassLoader.getSystemResource("org/agrona/BitUtil.class");
        assertTrue(agrona != null && agrona.getProtocol().equals("jar"), "Agrona's jar on the test class path: " + agrona);
        String a = agrona.getPath();
        entries.add(Path.of(java.net.URI.create(a.substring(0, a.indexOf("!/")))));
        modulePath = String.join(File.pathSeparator, entries.stream().map(Path::toString).toList());

        Path src = dir.resolve("src/modcheck");
        Files.createDirectories(src.resolve("modcheck"));
        Files.writeString(src.resolve("module-info.java"), "module modcheck { requires dev.tensorbuf.interop; }\n");
        Files.writeString(src.resolve("modcheck/Main.java"), PROGRAM);
        Path out = dir.resolve("classes");
        Result javac = run(List.of(JAVA_BIN.resolve("javac").toString(), "-d", out.toString(), "--module-path", modulePath,
                src.resolve("module-info.java").toString(), src.resolve("modcheck/Main.java").toString()));
        assertEquals(0, javac.code, "javac: " + javac.stdout + javac.stderr);
        modulePath = out + File.pathSeparator + modulePath;
    }

    @Test
    void everyModuleShipsItsDescriptor() throws Exception {
        List<Class<?>> classes = List.of(MemoryBuffer.class, TensorView.class, CopyEngine.class, Dlpack.class);
        for (int i = 0; i < classes.size(); i++) {
            Path where = Path.of(classes.get(i).getProtectionDomain().getCodeSource().getLocation().toURI());
            if (Files.isRegularFile(where)) {
                try (JarFile jar = new JarFile(where.toFile())) {
                    assertTrue(jar.getEntry("module-info.class") != null, where + " has no module-info.class");
                }
            }
            ModuleReference ref = ModuleFinder.of(where).findAll().iterator().next();
            ModuleDescriptor d = ref.descriptor();
            assertFalse(d.isAutomatic(), where + " is read as an automatic module");
            assertEquals(OUR_MODULES.get(i), d.name(), where.toString());
        }
    }

    @Test
    void nativeAccessForOurModuleLeavesOnlyTheIncubatorLineAndTheVectorApiIsUsed() throws Exception {
        Result r = run(List.of(JAVA_BIN.resolve("java").toString(), "--enable-native-access=dev.tensorbuf.interop",
                "--module-path", modulePath, "-m", "modcheck/modcheck.Main"));
        assertEquals(0, r.code, r.stdout + r.stderr);
        assertEquals(List.of(INCUBATOR), r.stderr.lines().toList(), "stderr");
        assertEquals(List.of("module dev.tensorbuf.ops", "vector kernels true", "checked 96 elements", "dlpack export released"),
                r.stdout.lines().toList());
    }

    @Test
    void allUnnamedDoesNotCoverOurNamedModules() throws Exception {
        Result r = run(List.of(JAVA_BIN.resolve("java").toString(), "--enable-native-access=ALL-UNNAMED",
                "--module-path", modulePath, "-m", "modcheck/modcheck.Main"));
        assertEquals(0, r.code, r.stdout + r.stderr);
        assertTrue(r.stderr.contains("WARNING: A restricted method in java.lang.foreign")
                && r.stderr.contains("module dev.tensorbuf.interop"), "stderr: " + r.stderr);
    }

    private record Result(int code, String stdout, String stderr) {
    }

    private static Result run(List<String> cmd) throws Exception {
        Path err = Files.createTempFile(dir, "stderr", ".txt");
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "timed out: " + cmd);
        return new Result(p.exitValue(), out, Files.readString(err));
    }

    /** The program: a copy that needs the engine and a DLPack export that needs native access. */
    private static final String PROGRAM = """
            package modcheck;

            import dev.tensorbuf.interop.Dlpack;
            import dev.tensorbuf.memory.Allocator;
            import dev.tensorbuf.memory.Allocators;
            import dev.tensorbuf.memory.MemoryBuffer;
            import dev.tensorbuf.ops.copy.CopyEngine;
            import dev.tensorbuf.views.DType;
            import dev.tensorbuf.views.StridedLayout;
            import dev.tensorbuf.views.StridedLayout.TensorFormat;
            import dev.tensorbuf.views.TensorView;
            import java.lang.foreign.MemorySegment;
            import java.lang.foreign.ValueLayout;

            public final class Main {
                public static void main(String[] args) {
                    int n = 2, c = 3, h = 4, w = 4;
                    try (Allocator arena = Allocators.shared()) {
                        MemoryBuffer pixels = arena.allocate(n * h * w * c);
                        MemoryBuffer batch = arena.allocate(4L * n * c * h * w);
                        for (int i = 0; i < n * h * w * c; i++) {
                            pixels.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
                        }
                        CopyEngine engine = CopyEngine.defaults();
                        TensorView nchw = TensorView.strided(batch, DType.F32, StridedLayout.of(TensorFormat.NCHW, n, c, h, w));
                        engine.copy(TensorView.strided(pixels, DType.U8, StridedLayout.of(TensorFormat.NHWC, n, c, h, w)), nchw);
                        System.out.println(CopyEngine.class.getModule());
                        System.out.println("vector kernels " + engine.vectorKernels());
                        int checked = 0;
                        for (int in = 0; in < n; in++) for (int ic = 0; ic < c; ic++) for (int ih = 0; ih < h; ih++) for (int iw = 0; iw < w; iw++) {
                            float got = batch.segment().getAtIndex(ValueLayout.JAVA_FLOAT, ((in * c + ic) * h + ih) * w + iw);
                            int want = (((in * h + ih) * w + iw) * c + ic) * 7 & 0xFF;
                            if (got != want) throw new AssertionError("[" + in + "," + ic + "," + ih + "," + iw + "] " + got + " != " + want);
                            checked++;
                        }
                        System.out.println("checked " + checked + " elements");
                        MemorySegment dl = Dlpack.exportVersioned(nchw);
                        Dlpack.release(dl, true);
                        System.out.println("dlpack export released");
                    }
                }
            }
            """;
}
