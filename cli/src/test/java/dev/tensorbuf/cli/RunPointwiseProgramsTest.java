package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.views.DType;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Real preprocessing programs written in jax, lowered by jax 0.10.2 (pointwise/lower.py) to plain
 * and optimised HLO, with jax's input and output kept beside them: {@code tensorbuf run} must give
 * jax's output byte for byte, and a ROOT that is elementwise over views must be one copy.
 * Needs no Python: the outputs are committed.
 */
class RunPointwiseProgramsTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({
        "normalise_transpose, hlo, 9 views, 1 copy",
        "normalise_transpose, opt.hlo, 0 views, 1 copy",
        "rope_rotate_half, hlo, ''",
        "rope_rotate_half, opt.hlo, ''",
        "clip_cast, hlo, 3 views, 1 copy",
        "clip_cast, opt.hlo, 0 views, 1 copy",
        "tril_mask, hlo, ''",
        "tril_mask, opt.hlo, 0 views, 1 copy"})
    void runsAsJaxDoes(String name, String kind, String summary) throws IOException {
        Path hlo = resource(name + "." + kind);
        Path in = resource(name + ".in.npy");
        Path expected = resource(name + ".out.npy");
        Path out = dir.resolve(name + "." + kind + ".ours.npy");
        CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "0=" + in, "--out", out.toString());
        assertEquals(0, r.code(), () -> r.err() + r.out());
        if (!summary.isEmpty()) {
            // One pass: the chain of converts, arithmetic and a transpose copies once, at the ROOT.
            assertTrue(r.out().contains(summary), () -> "expected '" + summary + "' in\n" + r.out());
        }
        // bf16 comes back as void '<V2' (NumPy has no bf16); jax's output was kept as its uint16 bits.
        try (Npy.Tensor ours = Npy.map(out, name.equals("tril_mask") ? DType.BF16 : null); Npy.Tensor jax = Npy.map(expected)) {
            assertEquals(jax.shape(), ours.shape());
            assertArrayEquals(jax.data().segment().toArray(ValueLayout.JAVA_BYTE),
                    ours.data().segment().toArray(ValueLayout.JAVA_BYTE), () -> name + "." + kind + " differs from jax");
        }
    }

    private Path resource(String file) throws IOException {
        Path p = dir.resolve(file);
        if (!Files.exists(p)) {
            try (InputStream s = RunPointwiseProgramsTest.class.getResourceAsStream("/pointwise/" + file)) {
                Files.write(p, s.readAllBytes());
            }
        }
        return p;
    }
}
