package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.StridedLayout.TensorFormat;
import dev.tensorbuf.views.TensorView;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code DML_BUFFER_TENSOR_DESC} fields from views, against conformance/directml.jsonl. */
class DirectMLTensorDescTest {

    record Vector(String source, Map<String, Object> json) {
        @Override
        public String toString() {
            return source;
        }
    }

    static Stream<Vector> vectors() throws IOException {
        List<Vector> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(Objects.requireNonNull(
                DirectMLTensorDescTest.class.getResourceAsStream("/conformance/directml.jsonl")), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (!line.isBlank()) {
                    Map<String, Object> json = Json.parseObject(line);
                    out.add(new Vector((String) json.get("source"), json));
                }
            }
        }
        return out.stream();
    }

    private static long[] longs(Object list) {
        return ((List<?>) list).stream().mapToLong(o -> ((Number) o).longValue()).toArray();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void describesTheConformanceLayout(Vector v) {
        DType type = DType.fromDirectML((String) v.json().get("dtype"));
        long[] sizes = longs(v.json().get("sizes"));
        Object given = v.json().get("strides");
        StridedLayout layout = given == null ? StridedLayout.packed(sizes) : StridedLayout.of(sizes, longs(given));
        long base = v.json().get("base_offset_bytes") instanceof Number n ? n.longValue() : 0;
        if (base % 16 != 0) {
            long elementOffset = base * 8 / type.bitWidth();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> DirectMLTensorDesc.of(type, layout.withOffset(elementOffset)));
            assertTrue(e.getMessage().startsWith("binding offset " + base + " bytes (element offset " + elementOffset
                    + " of " + type + ") is not a multiple of 16"), e.getMessage());
        }
        DirectMLTensorDesc d = DirectMLTensorDesc.of(type, layout);
        assertEquals(v.json().get("dtype"), d.dataTypeName());
        assertEquals(sizes.length, d.dimensionCount());
        assertEquals(((Number) v.json().get("expected_buffer_bytes")).longValue(), d.totalTensorSizeInBytes());
        boolean rowMajor = StridedLayout.packed(sizes).strides().equals(layout.strides());
        assertEquals(rowMajor, d.strides().isEmpty(), "strides are NULL exactly when packed row-major");
        d.strides().ifPresent(s -> assertEquals(layout.strides(), s));
        assertEquals(16, d.guaranteedBaseOffsetAlignment());
    }

    @Test
    void exampleFromJavadoc() {
        DirectMLTensorDesc d = DirectMLTensorDesc.of(DType.F32, StridedLayout.of(TensorFormat.NHWC, 1, 3, 224, 224));
        assertEquals("FLOAT32", d.dataTypeName());
        assertEquals(1, d.dataTypeValue());
        assertEquals(Optional.of(List.of(150528L, 1L, 672L, 3L)), d.strides());
        assertEquals(602112, d.totalTensorSizeInBytes());
    }

    @Test
    void windowOfAViewBindsAtItsByteOffsetOnlyWhenAligned() {
        try (Allocator arena = Allocators.confined()) {
            TensorView image = TensorView.of(arena.allocate(4 * 8 * 8), "f32[8,8]{1,0}");
            TensorView aligned = Ops.slice(image, new long[] {2, 0}, new long[] {5, 3}, new long[] {1, 1});
            DirectMLTensorDesc d = DirectMLTensorDesc.of(aligned);
            assertEquals(64, d.bindingOffsetBytes());
            assertEquals(Optional.of(List.of(8L, 1L)), d.strides());
            assertEquals(4 * (2 * 8 + 2 + 1), d.totalTensorSizeInBytes());
            TensorView unaligned = Ops.slice(image, new long[] {1, 1}, new long[] {4, 4}, new long[] {1, 1});
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DirectMLTensorDesc.of(unaligned));
            assertTrue(e.getMessage().startsWith("binding offset 36 bytes (element offset 9 of f32) is not a multiple of 16"),
                    e.getMessage());
        }
    }

    @Test
    void refusesWhatDirectMLCannotExpress() {
        assertMessage("bf16 has no DML_TENSOR_DATA_TYPE", () -> DirectMLTensorDesc.of(DType.BF16, StridedLayout.packed(4)));
        assertMessage("stride -1 of dim 0 in [-1]: DirectML strides are 0 to 2^32 - 1 (no flips",
                () -> DirectMLTensorDesc.of(DType.F32, StridedLayout.of(new long[] {4}, new long[] {-1}, 3 + 13)));
        // A flipped f32[3,5] starts at element 10 (40 bytes, unaligned): the flip is what to name.
        assertMessage("stride -5 of dim 0 in [-5, 1]: DirectML strides are 0 to 2^32 - 1 (no flips",
                () -> DirectMLTensorDesc.of(DType.F32, StridedLayout.of(new long[] {3, 5}, new long[] {-5, 1}, 10)));
        assertMessage("DimensionCount 9 of sizes [1, 1, 1, 1, 1, 1, 1, 1, 2]: DirectML takes 1 to 8",
                () -> DirectMLTensorDesc.of(DType.F32, StridedLayout.packed(1, 1, 1, 1, 1, 1, 1, 1, 2)));
        assertMessage("has no elements: DirectML sizes are at least 1",
                () -> DirectMLTensorDesc.of(DType.F32, StridedLayout.packed(0, 3)));
        try (var arena = dev.tensorbuf.memory.Allocators.confined()) {
            assertMessage("has no elements: DirectML sizes are at least 1",
                    () -> DirectMLTensorDesc.of(dev.tensorbuf.views.TensorView.of(arena.allocate(1), "f32[0,5]")));
        }
        assertMessage("TotalTensorSizeInBytes 8 is below DMLCalcBufferTensorSize 12",
                () -> new DirectMLTensorDesc(DType.F32, 0, List.of(3L), Optional.empty(), 8, 16, 0));
        assertMessage("GuaranteedBaseOffsetAlignment 2 must be 0 or a power of two of at least the element size 4",
                () -> new DirectMLTensorDesc(DType.F32, 0, List.of(3L), Optional.empty(), 12, 2, 0));
        assertMessage("binding offset 32 bytes is not a multiple of 64, the GuaranteedBaseOffsetAlignment this"
                + " description promises", () -> new DirectMLTensorDesc(DType.F32, 0, List.of(3L), Optional.empty(), 12, 64, 32));
        assertMessage("binding offset -16 bytes is negative",
                () -> new DirectMLTensorDesc(DType.F32, 0, List.of(3L), Optional.empty(), 12, 16, -16));
        NullPointerException noStrides = assertThrows(NullPointerException.class,
                () -> new DirectMLTensorDesc(DType.F32, 0, List.of(3L), null, 12, 16, 0));
        assertEquals("strides (Optional.empty() for packed row-major)", noStrides.getMessage());
        // DMLCalcBufferTensorSize sums (size - 1) * stride in a 32-bit UINT: 2 * 2^31 + 1 would wrap to 1.
        assertMessage("the last element is at index 4294967297 of sizes [3, 2] strides [2147483648, 1]: DirectML"
                + " computes element indices in 32 bits", () -> DirectMLTensorDesc.of(DType.F32,
                        StridedLayout.of(new long[] {3, 2}, new long[] {1L << 31, 1})));
        assertMessage("the last element is at index beyond 2^32 of sizes [4294967295, 1] strides [4294967295, 1]",
                () -> new DirectMLTensorDesc(DType.U8, 0, List.of(0xffff_ffffL, 1L),
                        Optional.of(List.of(0xffff_ffffL, 1L)), Long.MAX_VALUE, 16, 0));
        assertMessage("element offset 4611686018427387904 of f32 is beyond any buffer: its byte offset overflows a long",
                () -> DirectMLTensorDesc.of(DType.F32, StridedLayout.of(new long[] {1}, new long[] {1}, 1L << 62)));
        try (Allocator arena = Allocators.confined()) {
            TensorView tiled = TensorView.of(arena.allocate(96), "f32[3,5]{1,0:T(2,2)}");
            assertMessage("DirectML describes strided views only", () -> DirectMLTensorDesc.of(tiled));
            TensorView unpacked = TensorView.strided(arena.allocate(4), DType.S4, StridedLayout.packed(4));
            assertMessage("DirectML packs s4 two to a byte, but this view stores one per byte",
                    () -> DirectMLTensorDesc.of(unpacked));
        }
    }

    @Test
    void aDimensionOfSizeOneIsNotRefusedForAStrideItNeverTakes() {
        DirectMLTensorDesc huge = DirectMLTensorDesc.of(DType.U8, StridedLayout.of(new long[] {1, 4}, new long[] {1L << 33, 1}));
        assertEquals(Optional.of(List.of(0L, 1L)), huge.strides());
        assertEquals(4, huge.totalTensorSizeInBytes());
        DirectMLTensorDesc flipped = DirectMLTensorDesc.of(DType.U8, StridedLayout.of(new long[] {4, 1}, new long[] {1, -7}));
        assertEquals(Optional.of(List.of(1L, 0L)), flipped.strides());
        // Strides DirectML can hold are kept as given, as its worked examples write them.
        assertEquals(Optional.of(List.of(10L, 1L)),
                DirectMLTensorDesc.of(DType.U8, StridedLayout.of(new long[] {1, 4}, new long[] {10, 1})).strides());
    }

    @Test
    void leadingOnesPadToTheOperatorRank() {
        DirectMLTensorDesc hw = DirectMLTensorDesc.of(DType.F16, StridedLayout.of(new long[] {2, 3}, new long[] {5, 1}));
        DirectMLTensorDesc nchw = hw.withLeadingOnes(4);
        assertEquals(List.of(1L, 1L, 2L, 3L), nchw.sizes());
        assertEquals(Optional.of(List.of(0L, 0L, 5L, 1L)), nchw.strides());
        assertEquals(hw.totalTensorSizeInBytes(), nchw.totalTensorSizeInBytes());
        assertEquals(16, hw.totalTensorSizeInBytes());
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
