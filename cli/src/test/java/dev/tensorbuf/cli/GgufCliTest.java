package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.GgmlType;
import dev.tensorbuf.interop.GgufFile;
import dev.tensorbuf.interop.GgufValue;
import dev.tensorbuf.interop.GgufWriter;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.ops.quant.internal.BlockKernels;
import dev.tensorbuf.views.BlockType;
import dev.tensorbuf.views.DType;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.tensorbuf.views.TensorElements;

/** {@code tensorbuf inspect} and {@code convert} on GGUF files. */
class GgufCliTest {
    @TempDir
    Path dir;
    private Path model;
    private float[] weights;
    private MemorySegment q8;

    @BeforeEach
    void writeModel() throws IOException {
        weights = new float[4 * 64];
        for (int i = 0; i < weights.length; i++) {
            weights[i] = (float) Math.sin(i * 0.37) * (1 + i % 7);
        }
        q8 = Arena.ofAuto().allocate(4 * 2 * 34);
        BlockKernels.defaults().quantize(BlockType.Q8_0, MemorySegment.ofArray(weights), 0, q8, 0, 8);
        Map<String, GgufValue> meta = new LinkedHashMap<>();
        meta.put("general.architecture", GgufValue.string("llama"));
        meta.put("llama.context_length", GgufValue.u32(4096));
        List<Object> tokens = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            tokens.add("t" + i);
        }
        meta.put("tokenizer.ggml.tokens", GgufValue.array(GgufValue.Type.STRING, tokens));
        model = dir.resolve("tiny.gguf");
        GgufWriter.write(model, meta, List.of(
                GgufWriter.tensor("w", GgmlType.Q8_0, List.of(4L, 64L), q8),
                GgufWriter.tensor("norm", GgmlType.F32, List.of(3L), MemorySegment.ofArray(new float[] {1, 2, 3})),
                GgufWriter.tensor("ids", GgmlType.I32, List.of(2L), MemorySegment.ofArray(new int[] {7, 9}))));
    }

    @Test
    void inspectListsTensorsAndSummarisesLongArrays() {
        CliHarness r = CliHarness.run("inspect", model.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith(model + ": GGUF v3, alignment 32, 3 metadata keys, 3 tensors\n"), r.out());
        assertTrue(r.out().contains("\n  w  Q8_0  [4, 64]  bytes ["), r.out());
        assertTrue(r.out().contains(")  272 bytes\n"), r.out());
        assertTrue(r.out().contains("    tokenizer.ggml.tokens  ARRAY  STRING[t0, t1, t2, t3, t4, t5, t6, t7, ... 12 more]"
                + " (20 items)\n"), r.out());
        assertTrue(r.out().contains("    llama.context_length  UINT32  4096\n"), r.out());
    }

    @Test
    @SuppressWarnings("unchecked")
    void inspectJson() {
        CliHarness r = CliHarness.run("inspect", model.toString(), "--json");
        assertEquals(0, r.code(), r.err());
        Map<String, Object> json = Json.parseObject(r.out());
        assertEquals("gguf", json.get("format"));
        Map<String, Object> tokens = (Map<String, Object>) ((Map<String, Object>) json.get("metadata")).get("tokenizer.ggml.tokens");
        assertEquals(20L, tokens.get("count"));
        assertEquals(8, ((List<Object>) tokens.get("items")).size());
        assertEquals(true, tokens.get("truncated"));
        Map<String, Object> w = (Map<String, Object>) ((List<Object>) json.get("tensors")).getFirst();
        assertEquals(List.of(4L, 64L), w.get("shape"));
        assertEquals("Q8_0", w.get("dtype"));
        assertEquals(8L, w.get("ggml_type"));
        assertEquals(272L, w.get("byte_size"));
    }

    private float[] dequantized() {
        float[] out = new float[4 * 64];
        BlockKernels.defaults().dequantize(BlockType.Q8_0, q8, 0, MemorySegment.ofArray(out), 0, 8);
        return out;
    }

    @Test
    void oneTensorDequantizesToNpyAndToATiledRawLayout() throws IOException {
        Path npy = dir.resolve("w.npy");
        CliHarness r = CliHarness.run("convert", model.toString(), npy.toString(), "--tensor", "w", "--quiet");
        assertEquals(0, r.code(), r.err());
        float[] expected = dequantized();
        try (Npy.Tensor a = Npy.map(npy)) {
            assertEquals(DType.F32, a.dtype());
            assertEquals(List.of(4L, 64L), a.header().shape());
            for (int i = 0; i < expected.length; i++) {
                assertEquals(expected[i], a.data().segment().getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i));
            }
        }
        Path raw = dir.resolve("w.bin");
        r = CliHarness.run("convert", model.toString(), raw.toString(), "--tensor", "w", "--layout", "f32[4,64]{0,1}", "--quiet");
        assertEquals(0, r.code(), r.err());
        MemorySegment bytes = MemorySegment.ofArray(java.nio.file.Files.readAllBytes(raw));
        assertEquals(expected[1 * 64 + 5], bytes.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, 5 * 4 + 1), "column-major");
        Path tiled = dir.resolve("w.tiled");
        r = CliHarness.run("convert", model.toString(), tiled.toString(), "--tensor", "w", "--layout", "f32[4,64]{1,0:T(8,128)}",
                "--quiet");
        assertEquals(0, r.code(), r.err());
        MemorySegment tile = MemorySegment.ofArray(java.nio.file.Files.readAllBytes(tiled));
        assertEquals(4 * 8 * 128, tile.byteSize(), "one (8,128) tile, padded");
        assertEquals(expected[3 * 64 + 63], tile.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, 3 * 128 + 63), "row 3 at 3 * 128");
        assertEquals(0f, tile.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, 3 * 128 + 64), "padding");
    }

    @Test
    void oneTensorToSafetensorsAsF16() throws IOException {
        Path out = dir.resolve("w.safetensors");
        CliHarness r = CliHarness.run("convert", model.toString(), out.toString(), "--tensor", "w", "--dtype", "f16", "--quiet");
        assertEquals(0, r.code(), r.err());
        float[] expected = dequantized();
        try (SafetensorsFile f = SafetensorsFile.open(out)) {
            assertEquals(List.of("w"), f.names(), "only the tensor asked for");
            assertEquals(DType.F16, f.tensor("w").dtype());
            assertEquals(List.of(4L, 64L), f.tensor("w").view().dims());
            for (int i = 0; i < expected.length; i++) {
                assertEquals(Float.float16ToFloat(Float.floatToFloat16(expected[i])),
                        TensorElements.of(f.tensor("w").view()).getFloat(i / 64, i % 64), "value " + i);
            }
        }
    }

    @Test
    void everyTensorToSafetensorsAsBf16() throws IOException {
        Path out = dir.resolve("all.safetensors");
        CliHarness r = CliHarness.run("convert", model.toString(), out.toString(), "--dtype", "bf16", "--quiet");
        assertEquals(0, r.code(), r.err());
        try (SafetensorsFile f = SafetensorsFile.open(out)) {
            assertEquals(java.util.Set.of("w", "norm", "ids"), java.util.Set.copyOf(f.names()));
            assertEquals(DType.BF16, f.tensor("w").dtype());
            assertEquals(DType.BF16, f.tensor("norm").dtype());
            assertEquals(DType.S32, f.tensor("ids").dtype(), "integers keep their type");
            assertEquals("llama", f.metadata().get("general.architecture"));
            float[] expected = dequantized();
            int bits = Float.floatToRawIntBits(expected[2 * 64 + 3]);
            float nearestBf16 = Float.intBitsToFloat(((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) << 16);
            assertEquals(nearestBf16, TensorElements.of(f.tensor("w").view()).getFloat(2, 3));
        }
    }

    @Test
    void safetensorsQuantizesToQ8_0KeepingVectorsF32() throws IOException {
        Path st = dir.resolve("in.safetensors");
        SafetensorsFile.write(st, Map.of("w", new DenseTensor(DType.F32, List.of(4L, 64L), MemorySegment.ofArray(weights)),
                "b", new DenseTensor(DType.F32, List.of(64L), MemorySegment.ofArray(new float[64])),
                "odd", new DenseTensor(DType.F32, List.of(2L, 3L), MemorySegment.ofArray(new float[6]))));
        Path out = dir.resolve("out.gguf");
        CliHarness r = CliHarness.run("convert", st.toString(), out.toString(), "--dtype", "q8_0", "--quiet");
        assertEquals(0, r.code(), r.err());
        try (GgufFile f = GgufFile.open(out)) {
            assertEquals(GgmlType.Q8_0, f.tensor("w").type());
            assertEquals(GgmlType.F32, f.tensor("b").type(), "1-D stays F32");
            assertEquals(GgmlType.F32, f.tensor("odd").type(), "innermost 3 is not a whole block");
            assertEquals(-1L, q8.mismatch(f.tensor("w").data().segment()), "the bytes BlockKernels.quantize gives");
        }
    }

    @Test
    void badRequestsExitTwoNamingTheProblem() {
        CliHarness r = CliHarness.run("convert", model.toString(), dir.resolve("x.npy").toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("holds 3 tensors: name one with --tensor NAME"), r.err());
        r = CliHarness.run("convert", model.toString(), dir.resolve("x.npy").toString(), "--tensor", "w", "--dtype", "s8");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--dtype s8: a GGUF tensor dequantizes to f32, f16 or bf16"), r.err());
        r = CliHarness.run("convert", model.toString(), dir.resolve("x.npy").toString(), "--tensor", "nope");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("no tensor 'nope' in tiny.gguf; it has [w, norm, ids]"), r.err());
    }
}
