package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.StridedLayout.TensorFormat;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Without {@code jdk.incubator.vector} the engine says so once per process, naming the flag:
 * child JVMs run {@link #main} (several engines, several copies) and their stderr is read.
 */
class VectorNoticeTest {
    private static final String FLAG = "--add-modules jdk.incubator.vector";

    @TempDir
    Path dir;

    @Test
    void aJvmWithoutTheModuleIsToldOnceNamingTheFlagAndTheSlowdown() throws Exception {
        List<String> lines = noticeLines(runChild());
        assertEquals(1, lines.size(), "one notice after several engines and copies: " + lines);
        assertTrue(lines.get(0).contains("scalar kernels") && lines.get(0).contains("slower"), lines.get(0));
    }

    @Test
    void noNoticeWhenTheModuleIsThereOrScalarKernelsAreAsked() throws Exception {
        assertEquals(List.of(), noticeLines(runChild("--add-modules", "jdk.incubator.vector")));
        assertEquals(List.of(), noticeLines(runChild("-Dtensorbuf.copy.vector=false")));
    }

    private static List<String> noticeLines(String stderr) {
        return stderr.lines().filter(l -> l.contains(FLAG)).toList();
    }

    private String runChild(String... options) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.addAll(List.of(options));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), VectorNoticeTest.class.getName()));
        Path err = dir.resolve("stderr-" + System.nanoTime() + ".txt");
        Process p = new ProcessBuilder(command).redirectError(err.toFile())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the child JVM ended");
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), stderr);
        return stderr;
    }

    /** The child: three engines, four copies each (one of them on two threads). */
    public static void main(String[] args) {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment a = arena.allocate(4L * 2 * 16 * 64 * 64);
            MemorySegment b = arena.allocate(4L * 2 * 16 * 64 * 64);
            for (CopyEngine engine : List.of(CopyEngine.defaults(), CopyEngine.of(1), CopyEngine.of(2, true, 0))) {
                for (int i = 0; i < 4; i++) {
                    AccessCopies.copy(engine, Access.strided(a, DType.F32, StridedLayout.of(TensorFormat.NCHW, 2, 16, 64, 64)),
                            Access.strided(b, DType.F32, StridedLayout.of(TensorFormat.NHWC, 2, 16, 64, 64)));
                }
            }
        }
    }
}
