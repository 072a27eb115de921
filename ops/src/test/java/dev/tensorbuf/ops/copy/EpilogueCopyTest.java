package dev.tensorbuf.ops.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.text.TextFormatException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link CopyEngine.Epilogue} and the engine's copy with it: the Javadoc's example, the text written back, the refusals. */
class EpilogueCopyTest {

    @Test
    void exampleFromJavadoc() {
        try (Allocator a = Allocators.shared()) {
            MemoryBuffer in = a.allocate(48);
            MemoryBuffer means = a.allocate(12);
            MemoryBuffer scales = a.allocate(12);
            MemoryBuffer out = a.allocate(4 * 48);
            for (int i = 0; i < 48; i++) {
                in.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 37 + 11));
            }
            float[] mean = {123.7f, 116.3f, 103.5f};
            float[] inverseStd = {1 / 58.4f, 1 / 57.1f, 1 / 57.4f};
            for (int c = 0; c < 3; c++) {
                means.segment().setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED, c, mean[c]);
                scales.segment().setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED, c, inverseStd[c]);
            }

            CopyEngine.Epilogue normalise = CopyEngine.Epilogue.parse("multiply(subtract(convert<f32>(%0), %1), %2)",
                    DType.U8, DType.F32, DType.F32);
            assertEquals(DType.F32, normalise.type());
            TensorView pixels = Ops.transpose(TensorView.of(in, "u8[1,4,4,3]{3,2,1,0}"), 0, 3, 1, 2);
            long[] nchw = {1, 3, 4, 4};
            TensorView mu = Ops.broadcast(TensorView.of(means, "f32[3]{0}"), nchw, 1);
            TensorView scale = Ops.broadcast(TensorView.of(scales, "f32[3]{0}"), nchw, 1);
            TensorView dst = TensorView.of(out, "f32[1,3,4,4]{3,2,1,0}");
            CopyEngine.defaults().copy(List.of(pixels, mu, scale), dst, normalise);

            for (int c = 0; c < 3; c++) {
                for (int h = 0; h < 4; h++) {
                    for (int w = 0; w < 4; w++) {
                        float x = TensorElements.of(pixels).getLong(0, c, h, w);
                        float want = (x - mean[c]) * inverseStd[c]; // each op rounded to f32, as XLA
                        assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(
                                TensorElements.of(dst).getFloat(0, c, h, w)), "[0," + c + "," + h + "," + w + "]");
                    }
                }
            }
            CopyPlan.Explanation e = CopyEngine.defaults().explain(List.of(pixels, mu, scale), dst, normalise);
            assertEquals("multiply(subtract(convert<f32>(%0), %1), %2)", e.epilogue().orElseThrow().expression());
            TextFormatException range = assertThrows(TextFormatException.class,
                    () -> CopyEngine.Epilogue.parse("add(%0, 70000)", DType.F16));
            assertEquals("value 70000 is out of range for f16, namely [-65504, 65504]", range.problem());
        }
    }

    @Test
    void constantsAreWrittenBackIntoTheText() {
        CopyEngine.Epilogue e = CopyEngine.Epilogue.parse(" clamp( -0, maximum(%0, -nan), fma(%0, %0, 0.1))", DType.F32);
        assertEquals("clamp(-0, maximum(%0, -nan), fma(%0, %0, 0.1))", e.toString());
        assertEquals(e, CopyEngine.Epilogue.parse(e.toString(), DType.F32));
        assertEquals(e.hashCode(), CopyEngine.Epilogue.parse(e.toString(), DType.F32).hashCode());
        assertNotEquals(e, CopyEngine.Epilogue.parse(e.toString().replace("0.1", "0.2"), DType.F32));
        CopyEngine.Epilogue ints = CopyEngine.Epilogue.parse("select(true, -128, %0)", DType.S8);
        assertEquals("select(true, -128, %0)", ints.toString());
        assertEquals(List.of(DType.S8), ints.operandTypes());
        // f16's nearest to 0.1, in the digits that read back to it
        assertEquals("add(%0, 0.0999755859375)", CopyEngine.Epilogue.parse("add(%0, 0.1)", DType.F16).toString());
    }

    @Test
    void operandsThatDoNotFitTheEpilogueAreRefusedByName() {
        try (Allocator a = Allocators.shared()) {
            TensorView f = TensorView.of(a.allocate(24), "f32[2,3]{1,0}");
            TensorView b = TensorView.of(a.allocate(12), "bf16[2,3]{1,0}");
            TensorView row = TensorView.of(a.allocate(12), "f32[3]{0}");
            CopyEngine engine = CopyEngine.defaults();
            CopyEngine.Epilogue add = CopyEngine.Epilogue.parse("add(%0, %1)", DType.F32, DType.F32);
            assertEquals("the epilogue add(%0, %1) reads 2 operands, got 1", assertThrows(IllegalArgumentException.class,
                    () -> engine.copy(List.of(f), f, add)).getMessage());
            assertTrue(assertThrows(IllegalArgumentException.class, () -> engine.copy(List.of(f, b), f, add)).getMessage()
                    .endsWith("is bf16, but the epilogue add(%0, %1) reads it as f32"));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> engine.copy(List.of(f, row), f, add)).getMessage()
                    .contains("has dims [3], the destination [2, 3]"));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> engine.explain(List.of(f, f), b, add)).getMessage()
                    .endsWith("holds bf16: end it with convert<bf16>(...)"));
            assertThrows(IllegalArgumentException.class, () -> CopyEngine.Epilogue.parse("%0", DType.C64));
        }
    }
}
