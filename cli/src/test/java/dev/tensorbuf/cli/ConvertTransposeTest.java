package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.testing.PythonPeer;
import dev.tensorbuf.views.DType;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code convert --transpose} and {@code --from-format/--to-format}: NumPy's transpose on the same files, and bad input. */
class ConvertTransposeTest {
    @TempDir
    Path dir;

    /** f32[2,3,4,5] holding 0, 1, 2... in C order. */
    private Path counting() throws IOException {
        Path file = dir.resolve("c.npy");
        float[] values = new float[120];
        for (int i = 0; i < values.length; i++) {
            values[i] = i;
        }
        Npy.write(file, new DenseTensor(DType.F32, List.of(2L, 3L, 4L, 5L),
                Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, values)));
        return file;
    }

    @Test
    void nchwToNhwcWritesTheTransposedDimsRowMajor() throws IOException {
        Path out = dir.resolve("t.npy");
        CliHarness r = CliHarness.run("convert", counting().toString(), out.toString(), "--transpose", "0,2,3,1");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains(": f32[2,4,5,3]{3,2,1,0}, 608 bytes (npy)"), r.out());
        // out[n][h][w][c] = in[n][c][h][w] = n*60 + c*20 + h*5 + w, written in C order of [2,4,5,3].
        float[] want = new float[120];
        int k = 0;
        for (int n = 0; n < 2; n++) {
            for (int h = 0; h < 4; h++) {
                for (int w = 0; w < 5; w++) {
                    for (int c = 0; c < 3; c++) {
                        want[k++] = n * 60 + c * 20 + h * 5 + w;
                    }
                }
            }
        }
        try (Npy.Tensor a = Npy.map(out)) {
            assertEquals(List.of(2L, 4L, 5L, 3L), a.header().shape());
            assertArrayEquals(want, a.data().segment().toArray(ValueLayout.JAVA_FLOAT));
        }
        Path named = dir.resolve("n.npy");
        r = CliHarness.run("convert", counting().toString(), named.toString(), "--from-format", "nchw", "--to-format", "NHWC");
        assertEquals(0, r.code(), r.err());
        assertArrayEquals(Files.readAllBytes(out), Files.readAllBytes(named));
    }

    @Test
    void aLayoutThatOnlyOrdersTheDimsIsRefusedForNpyWithTheTransposeThatWritesIt() throws IOException {
        Path out = dir.resolve("t.npy");
        CliHarness r = CliHarness.run("convert", counting().toString(), out.toString(), "--layout", "f32[2,3,4,5]{1,3,2,0}");
        assertEquals(2, r.code());
        assertEquals("tensorbuf convert: a .npy file holds row-major (C order) data, f32[2,3,4,5]{3,2,1,0}; --layout"
                + " f32[2,3,4,5]{1,3,2,0} is for raw output (OUT with another extension); to write the dims in that order,"
                + " give --transpose 0,2,3,1 (OUT then holds f32[2,4,5,3])\n", r.err());
        // The raw bytes of that layout are the bytes of the transposed .npy's data.
        Path raw = dir.resolve("t.bin");
        assertEquals(0, CliHarness.run("convert", counting().toString(), raw.toString(), "--layout",
                "f32[2,3,4,5]{1,3,2,0}").code());
        assertEquals(0, CliHarness.run("convert", counting().toString(), out.toString(), "--transpose", "0,2,3,1").code());
        byte[] npy = Files.readAllBytes(out);
        assertArrayEquals(Files.readAllBytes(raw), java.util.Arrays.copyOfRange(npy, npy.length - 480, npy.length));
    }

    @Test
    void transposesAgreeWithNumpyForNpyAndSafetensors() throws IOException {
        PythonPeer.assumeModules("numpy", "ml_dtypes", "safetensors");
        Path peer = Files.createDirectory(dir.resolve("peer"));
        PythonPeer.runScript("/peers/transpose_peer.py", peer, "make", dir.toString());
        List<Map<String, Object>> cases = new ArrayList<>();
        caseOf(cases, "f32_4d.npy", "f32_nhwc.npy", List.of(0, 2, 3, 1), null, "--transpose", "0,2,3,1");
        caseOf(cases, "f32_4d.npy", "f32_named.npy", List.of(0, 2, 3, 1), null, "--from-format", "NCHW", "--to-format", "NHWC");
        caseOf(cases, "f32_4d.npy", "f32_back.npy", List.of(0, 3, 1, 2), null, "--from-format", "NHWC", "--to-format", "NCHW");
        caseOf(cases, "f32_4d.npy", "f32_any.npy", List.of(3, 1, 0, 2), null, "--transpose", "3,1,0,2");
        caseOf(cases, "f32_4d.npy", "f32_same.npy", List.of(0, 1, 2, 3), null, "--transpose", "0,1,2,3");
        caseOf(cases, "f64_3d.npy", "f64_hwc.npy", List.of(1, 2, 0), null, "--from-format", "CHW", "--to-format", "HWC");
        caseOf(cases, "i8_4d.npy", "i8_t.npy", List.of(1, 0, 3, 2), null, "--transpose", "1,0,3,2");
        caseOf(cases, "u16_2d.npy", "u16_t.npy", List.of(1, 0), null, "--transpose", "1,0");
        caseOf(cases, "f16_5d.npy", "f16_ndhwc.npy", List.of(0, 2, 3, 4, 1), null,
                "--from-format", "NCDHW", "--to-format", "NDHWC");
        caseOf(cases, "bf16_4d.npy", "bf16_nhwc.npy", List.of(0, 2, 3, 1), null, "--from-dtype", "bf16", "--transpose", "0,2,3,1");
        caseOf(cases, "f32_4d.npy", "f32_bf16.npy", List.of(0, 2, 3, 1), null, "--dtype", "bf16", "--transpose", "0,2,3,1")
                .put("dtype", "bfloat16");
        Map<String, Object> single = caseOf(cases, "bf16_4d.npy", "bf16_t.safetensors", List.of(2, 0, 3, 1), null,
                "--from-dtype", "bf16", "--transpose", "2,0,3,1");
        single.put("name", "bf16_4d");
        single.put("view", "bfloat16");
        caseOf(cases, "m.safetensors", "conv_hwio.npy", List.of(2, 3, 1, 0), null,
                "--tensor", "conv", "--from-format", "OIHW", "--to-format", "HWIO").put("in", dir.resolve("conv.npy").toString());
        caseOf(cases, "m.safetensors", "m_hwio.safetensors", List.of(2, 3, 1, 0), List.of("conv", "act", "emb"),
                "--from-format", "OIHW", "--to-format", "HWIO", "--all-rank", "4");
        caseOf(cases, "m.safetensors", "m_two.safetensors", List.of(0, 2, 3, 1), List.of("emb", "act"),
                "--transpose", "0,2,3,1", "--tensor", "emb", "--tensor", "act");
        caseOf(cases, "m.safetensors", "m_ohwi.safetensors", List.of(0, 2, 3, 1), List.of("conv"),
                "--from-format", "OIHW", "--to-format", "OHWI", "--tensor", "conv");
        caseOf(cases, "m.safetensors", "m_bf16.safetensors", List.of(0, 2, 3, 1), List.of("conv", "act", "emb"),
                "--dtype", "bf16", "--transpose", "0,2,3,1", "--all-rank", "4").put("dtype", "bfloat16");
        // The conv tensor alone, as NumPy would get it from the safetensors file, for the .npy case above.
        try (SafetensorsFile m = SafetensorsFile.open(dir.resolve("m.safetensors"))) {
            Npy.write(dir.resolve("conv.npy"), new DenseTensor(DType.F32, m.tensor("conv").shape(),
                    m.tensor("conv").data().segment()));
        }
        Path casesFile = dir.resolve("cases.json");
        Files.writeString(casesFile, Json.write(cases));
        String report = PythonPeer.runScript("/peers/transpose_peer.py", Files.createDirectory(dir.resolve("peer2")),
                "check", casesFile.toString());
        List<String> lines = report.strip().lines().toList();
        assertEquals(cases.size(), lines.size(), report);
        for (String line : lines) {
            Map<String, Object> result = Json.parseObject(line);
            assertEquals(Boolean.TRUE, result.get("ok"), line);
        }
    }

    /** Runs convert IN OUT ARGS in {@link #dir}, asserts it succeeded, and adds the peer's case. */
    private Map<String, Object> caseOf(List<Map<String, Object>> cases, String in, String out, List<Integer> perm,
            List<String> tensors, String... args) {
        List<String> argv = new ArrayList<>(List.of("convert", dir.resolve(in).toString(), dir.resolve(out).toString()));
        argv.addAll(List.of(args));
        CliHarness r = CliHarness.run(argv.toArray(String[]::new));
        assertEquals(0, r.code(), String.join(" ", argv) + ": " + r.err());
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("case", String.join(" ", args) + " -> " + out);
        c.put("in", dir.resolve(in).toString());
        c.put("out", dir.resolve(out).toString());
        c.put("perm", perm);
        c.put("tensors", tensors == null ? List.of() : tensors);
        cases.add(c);
        return c;
    }

    @Test
    void wholeSafetensorsReportsTheTensorsReorderedAndTheirShapes() throws IOException {
        Path in = dir.resolve("w.safetensors");
        SafetensorsFile.write(in, Map.of(
                "w", new DenseTensor(DType.F32, List.of(4L, 3L, 2L, 1L), Arena.ofAuto().allocate(96)),
                "b", new DenseTensor(DType.F32, List.of(4L), Arena.ofAuto().allocate(16))));
        Path out = dir.resolve("o.safetensors");
        CliHarness r = CliHarness.run("convert", in.toString(), out.toString(), "--from-format", "OIHW", "--to-format",
                "HWIO", "--all-rank", "4");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith(in + " -> " + out + ": 2 tensors, 1 transposed 2,3,1,0, "), r.out());
        r = CliHarness.run("convert", in.toString(), out.toString(), "--transpose", "2,3,1,0", "--tensor", "w", "--json");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("{\"name\":\"w\",\"shape\":\"f32[2,1,3,4]{3,2,1,0}\"}"), r.out());
        assertTrue(r.out().contains("\"transposed\":[\"w\"],\"permutation\":[2,3,1,0]"), r.out());
        try (SafetensorsFile f = SafetensorsFile.open(out)) {
            assertEquals(List.of(2L, 1L, 3L, 4L), f.tensor("w").shape());
            assertEquals(List.of(4L), f.tensor("b").shape());
        }
    }

    /** Each bad command line exits 2 with one line naming what is wrong, and writes nothing. */
    @Test
    void badOrdersAreRefusedByNameBeforeAnythingIsWritten() throws IOException {
        String x = counting().toString();
        Path st = dir.resolve("m.safetensors");
        SafetensorsFile.write(st, Map.of(
                "w", new DenseTensor(DType.F32, List.of(2L, 1L, 1L, 1L), Arena.ofAuto().allocate(8)),
                "b", new DenseTensor(DType.F32, List.of(2L), Arena.ofAuto().allocate(8))));
        String m = st.toString();
        Map<List<String>, String> cases = new LinkedHashMap<>();
        cases.put(List.of(x, "o.npy", "--transpose", "0,1,1,3"),
                "--transpose 0,1,1,3 is not a permutation: 1 appears twice (4 dims, each named once)");
        cases.put(List.of(x, "o.npy", "--transpose", "0,1,4,2"),
                "--transpose 0,1,4,2 is not a permutation: 4 is not in [0, 4) (4 dims, each named once)");
        cases.put(List.of(x, "o.npy", "--transpose", "-1,0,1,2"),
                "--transpose -1,0,1,2 is not a permutation: -1 is not in [0, 4) (4 dims, each named once)");
        cases.put(List.of(x, "o.npy", "--transpose", "1,0"),
                "--transpose 1,0 orders 2 dims, but " + x + " is f32[2,3,4,5] of rank 4");
        // Was: "--transpose 0,2,3 is not a permutation: 3 is not in [0, 3)", for a dim left out.
        cases.put(List.of(x, "o.npy", "--transpose", "0,2,3"),
                "--transpose 0,2,3 orders 3 dims, but " + x + " is f32[2,3,4,5] of rank 4");
        cases.put(List.of(x, "o.npy", "--transpose", "0,two"), "--transpose: 'two' is not an integer (in '0,two')");
        cases.put(List.of(x, "o.npy", "--transpose", ""), "--transpose '' is empty: give the input dim of each output dim,"
                + " e.g. 0,2,3,1");
        cases.put(List.of(x, "o.npy", "--from-format", "NCHW", "--to-format", "NWHC"), "--to-format NWHC: unknown format;"
                + " known: NCHW, NHWC, NCDHW, NDHWC, CHW, HWC, OIHW, HWIO, OHWI (or give the order itself: --transpose 0,2,3,1)");
        cases.put(List.of(x, "o.npy", "--from-format", "NCHW", "--to-format", "HWIO"), "--from-format NCHW and --to-format"
                + " HWIO have different letters: no order of the dims of one is the other (formats of the same letters: NCHW, NHWC)");
        cases.put(List.of(x, "o.npy", "--from-format", "CHW", "--to-format", "HWC"),
                "--from-format CHW --to-format HWC orders 3 dims, but " + x + " is f32[2,3,4,5] of rank 4");
        cases.put(List.of(x, "o.npy", "--to-format", "NHWC"), "--to-format NHWC needs --from-format too: the input's and"
                + " the output's order of the same letters, e.g. --from-format NCHW --to-format NHWC");
        cases.put(List.of(x, "o.npy", "--transpose", "0,2,3,1", "--to-format", "NHWC"),
                "--transpose 0,2,3,1 and --to-format both give the output's dim order: give one of them");
        cases.put(List.of(x, "o.npy", "--transpose", "0,2,3,1", "--all-rank", "4"), "--all-rank picks the tensors to"
                + " reorder (--transpose...) when a safetensors IN converts whole into a .safetensors OUT; " + x + " -> "
                + dir.resolve("o.npy") + " converts one tensor");
        cases.put(List.of(x, "o.npy", "--layout", "f32[2,3,4,5]{3,2,1,0}", "--transpose", "0,2,3,1"),
                "--layout f32[2,3,4,5]{3,2,1,0} has dims [2, 3, 4, 5] but the input");
        cases.put(List.of(m, "o.safetensors", "--transpose", "0,2,3,1", "--tensor", "nope"), "--tensor nope: " + m
                + " holds no tensor of that name; its 2 tensors are [b, w]");
        cases.put(List.of(m, "o.safetensors", "--transpose", "0,2,3,1", "--tensor", "b"),
                "--transpose 0,2,3,1 orders 4 dims, but tensor 'b' of " + m + " is f32[2] of rank 1");
        cases.put(List.of(m, "o.safetensors", "--transpose", "0,2,3,1", "--tensor", "w", "--tensor", "w"),
                "--tensor w given twice");
        cases.put(List.of(m, "o.safetensors", "--transpose", "0,2,3,1"), "--transpose 0,2,3,1 of " + m + " (converted whole"
                + " into a .safetensors OUT) needs the tensors to reorder: name them with --tensor NAME (repeatable) or take"
                + " every tensor of rank 4 with --all-rank 4");
        cases.put(List.of(m, "o.safetensors", "--transpose", "0,2,3,1", "--tensor", "w", "--all-rank", "4"),
                "needs the tensors to reorder: --tensor or --all-rank, not both");
        cases.put(List.of(m, "o.safetensors", "--transpose", "0,2,3,1", "--all-rank", "3"),
                "--all-rank 3 differs from the rank --transpose 0,2,3,1 orders (4)");
        cases.put(List.of(m, "o.safetensors", "--transpose", "1,0,2", "--all-rank", "3"), m + " holds no tensor of rank 3"
                + " (--all-rank 3)");
        cases.put(List.of(m, "o.safetensors", "--all-rank", "4"), "--all-rank 4 picks the tensors to reorder, and no new"
                + " order is given: add --transpose PERM or --from-format F --to-format G");
        cases.put(List.of(m, "o.npy", "--tensor", "w", "--tensor", "b"), "--tensor is given 2 times: it picks the one"
                + " tensor to convert, and names several only for a new dim order (--transpose...) of a safetensors IN"
                + " into a .safetensors OUT");
        for (Map.Entry<List<String>, String> c : cases.entrySet()) {
            List<String> argv = new ArrayList<>(c.getKey());
            argv.set(1, dir.resolve(argv.get(1)).toString());
            argv.addFirst("convert");
            CliHarness r = CliHarness.run(argv.toArray(String[]::new));
            assertEquals(2, r.code(), argv + ": " + r.out() + r.err());
            assertTrue(r.err().startsWith("tensorbuf convert: ") && r.err().contains(c.getValue())
                    && r.err().indexOf('\n') == r.err().length() - 1, argv + ": " + r.err());
            assertFalse(Files.exists(Path.of(argv.get(2))), argv.toString());
        }
    }
}
