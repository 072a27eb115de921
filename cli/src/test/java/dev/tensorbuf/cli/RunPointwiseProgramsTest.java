package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.json.Json;
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
 * jax's output byte for byte, and a ROOT that is elementwise over views must be one copy, its
 * elementwise steps reported as fused into it. Six reduce: a 3x3 max pool with stride 2 and edge
 * padding (a reduce-window), int8 quantization by the tensor's largest magnitude, division by
 * each image's per-channel maximum, a count of values over a threshold, any/all of a mask, and
 * argmax and argmin over rows with NaNs, ties, -0 and a denormal among zeros; optimised, XLA
 * splits the second and fourth into a {@code reduce-window} of 32 and a reduce, and rewrites the
 * division into a multiply by the broadcast reciprocal. Three more take bf16 (a max pool, row
 * maxima, an argmax over rows with NaN, infinities, -0, a denormal and ties): optimised, XLA runs
 * them in f32 with reducers that round each step through bf16. Needs no Python: the outputs are
 * committed.
 */
class RunPointwiseProgramsTest {
    private static final java.util.Set<String> BF16_OUTPUTS = java.util.Set.of("tril_mask", "bf16_max_pool", "bf16_row_max");

    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({
        "normalise_transpose, hlo, '6 views, 1 copy, 3 fused'",
        "normalise_transpose, opt.hlo, 0 views, 1 copy",
        "rope_rotate_half, hlo, ''",
        "rope_rotate_half, opt.hlo, ''",
        "clip_cast, hlo, '2 views, 1 copy, 1 fused'",
        "clip_cast, opt.hlo, 0 views, 1 copy",
        "tril_mask, hlo, ''",
        "tril_mask, opt.hlo, 0 views, 1 copy",
        "quantize_int8, hlo, ''",
        "quantize_int8, opt.hlo, 0 views, 1 copy",
        "root_bins, hlo, '3 views, 1 copy, 7 fused'",
        "root_bins, opt.hlo, 0 views, 1 copy",
        "quantize_per_tensor, hlo, '2 views, 1 copy, 4 fused, 1 reduce'",
        "quantize_per_tensor, opt.hlo, '2 views, 1 copy, 1 reduce'",
        "max_normalise, hlo, '2 views, 1 copy, 5 fused, 1 reduce'",
        "max_normalise, opt.hlo, '1 view, 1 copy'",
        "mask_count, hlo, '1 view, 0 copies, 1 fused, 1 reduce'",
        "mask_count, opt.hlo, '1 view, 0 copies, 2 reduces'",
        "any_all, hlo, '2 views, 1 copy, 2 fused, 2 reduces'",
        "any_all, opt.hlo, 0 views, 1 copy",
        "argmax_argmin, hlo, '4 views, 1 copy, 3 fused'",
        "argmax_argmin, opt.hlo, '2 views, 1 copy'",
        "max_pool, hlo, '1 view, 0 copies, 2 fused, 1 reduce'",
        "max_pool, opt.hlo, '1 view, 0 copies, 1 reduce'",
        "bf16_max_pool, hlo, ''",
        "bf16_max_pool, opt.hlo, ''",
        "bf16_row_max, hlo, ''",
        "bf16_row_max, opt.hlo, ''",
        "bf16_argmax, hlo, ''",
        "bf16_argmax, opt.hlo, ''"})
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
        try (Npy.Tensor ours = Npy.map(out, BF16_OUTPUTS.contains(name) ? DType.BF16 : null); Npy.Tensor jax = Npy.map(expected)) {
            assertEquals(jax.shape(), ours.shape());
            assertArrayEquals(jax.data().segment().toArray(ValueLayout.JAVA_BYTE),
                    ours.data().segment().toArray(ValueLayout.JAVA_BYTE), () -> name + "." + kind + " differs from jax");
        }
    }

    @org.junit.jupiter.api.Test
    void jsonSaysWhichCopyEachElementwiseStepIsFusedIntoAndWhichKernelRanIt() throws IOException {
        Path hlo = resource("normalise_transpose.hlo");
        Path in = resource("normalise_transpose.in.npy");
        CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "0=" + in, "--out", dir.resolve("n.npy").toString(),
                "--json");
        assertEquals(0, r.code(), () -> r.err() + r.out());
        @SuppressWarnings("unchecked")
        java.util.List<java.util.Map<String, Object>> steps =
                (java.util.List<java.util.Map<String, Object>>) Json.parseObject(r.out().strip()).get("instructions");
        java.util.Map<String, java.util.Map<String, Object>> byName = new java.util.HashMap<>();
        steps.forEach(s -> byName.put((String) s.get("name"), s));
        for (String n : java.util.List.of("convert_element_type.1", "sub.7", "div.7")) {
            assertEquals("fused", byName.get(n).get("kind"), n);
            assertEquals("transpose.1", byName.get(n).get("fused_into"), n);
        }
        java.util.Map<String, Object> root = byName.get("transpose.1");
        assertEquals("copy", root.get("kind"));
        assertTrue(((String) root.get("why")).contains("lookup table 3x256"), () -> root.toString());
        // The pass is explained as the copy engine explains a copy, the expression and its kernel its epilogue.
        @SuppressWarnings("unchecked")
        java.util.List<java.util.Map<String, Object>> plans = (java.util.List<java.util.Map<String, Object>>) root.get("plans");
        assertEquals(1, plans.size(), () -> root.toString());
        assertEquals("blocks", plans.getFirst().get("route"));
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object> epilogue = (java.util.Map<String, Object>) plans.getFirst().get("epilogue");
        assertEquals("multiply(add(convert<f32>(%0), negate(%1)), reciprocal(%2))", epilogue.get("expression"));
        assertEquals("lookup table 3x256 (channels along dim 1) of operand %0", epilogue.get("kernel"));
        assertTrue(((String) plans.getFirst().get("source")).startsWith("%0 = u8"), () -> plans.toString());
        for (String n : java.util.List.of("convert_element_type.1", "sub.7", "div.7", "sub.6")) {
            assertEquals(null, byName.get(n).get("plans"), n);
        }
        // The text report says the same under the copy's line.
        CliHarness t = CliHarness.run("run", hlo.toString(), "--arg", "0=" + in, "--out", dir.resolve("t.npy").toString());
        assertEquals(0, t.code(), () -> t.err() + t.out());
        assertTrue(t.out().contains("\n      epilogue: multiply(add(convert<f32>(%0), negate(%1)), reciprocal(%2)) per element,"
                + " lookup table 3x256 (channels along dim 1) of operand %0\n"), t::out);
        assertEquals("view", byName.get("sub.6").get("kind"));
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
