package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.StridedLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * ChannelAffine as a Pointwise expression: the expression each pair gets, the evaluator's two
 * modes on denormals, and every copy path (vector u8 -> f32 loops, the expression runner, channel
 * outer or innermost, strided source) against ChannelAffine's documented arithmetic, computed here
 * element by element: {@code fma} in doubles into f64, else {@code fma} of the value rounded to a
 * float (through a double), stored with the destination's rounding. The scales and biases make
 * denormal results, which XLA's rules would flush.
 */
class ChannelExpressionTest {
    private static final List<CopyEngine> ENGINES = List.of(CopyEngine.of(1, false), CopyEngine.of(1, true),
            CopyEngine.of(2, true, 0));

    @Test
    void eachPairIsOneExpression() {
        assertEquals("fma(convert<f32>(%0), %1, %2)", ChannelExpression.of(DType.U8, DType.F32).toString());
        assertEquals("fma(%0, %1, %2)", ChannelExpression.of(DType.F32, DType.F32).toString());
        assertEquals("convert<bf16>(fma(convert<f32>(%0), %1, %2))", ChannelExpression.of(DType.U8, DType.BF16).toString());
        assertEquals("fma(convert<f64>(%0), convert<f64>(%1), convert<f64>(%2))",
                ChannelExpression.of(DType.F32, DType.F64).toString());
        assertEquals("fma(%0, convert<f64>(%1), convert<f64>(%2))", ChannelExpression.of(DType.F64, DType.F64).toString());
        assertEquals("fma(convert<f32>(convert<f64>(%0)), %1, %2)", ChannelExpression.of(DType.S64, DType.F32).toString());
        assertEquals("convert<f8e4m3fn>(fma(convert<f32>(%0), %1, %2))",
                ChannelExpression.of(DType.F16, DType.F8E4M3FN).toString());
    }

    /** IEEE keeps a denormal operand and result where XLA's rules read and store zero. */
    @Test
    void theModeDecidesDenormals() {
        Object[] leaves = {new double[] {0x1p-140, 3}, new double[] {1, 0x1p-130}, new double[] {0, 0}};
        Pointwise.Expr f32 = ChannelExpression.of(DType.F32, DType.F32);
        double[] ieee = (double[]) Pointwise.eval(f32, leaves, 2, Pointwise.Mode.IEEE);
        double[] xla = (double[]) Pointwise.eval(f32, leaves, 2, Pointwise.Mode.XLA);
        assertEquals(0x1p-140, ieee[0]);
        assertEquals(3 * 0x1p-130, ieee[1]);
        assertEquals(0.0, xla[0]);
        assertEquals(0.0, xla[1]);
        Object[] wide = {new double[] {2.5e-310}, new double[] {1}, new double[] {0}};
        Pointwise.Expr f64 = ChannelExpression.of(DType.F64, DType.F64);
        assertEquals(2.5e-310, ((double[]) Pointwise.eval(f64, wide, 1, Pointwise.Mode.IEEE))[0]);
        assertEquals(0.0, ((double[]) Pointwise.eval(f64, wide, 1, Pointwise.Mode.XLA))[0]);
        assertEquals(f32.toString(), ChannelExpression.of(DType.F32, DType.F32).toString(), "one expression, two modes");
    }

    @Test
    void copiesFollowTheDocumentedArithmetic() {
        DType[][] pairs = {{DType.U8, DType.F32}, {DType.U8, DType.BF16}, {DType.U8, DType.F16}, {DType.F32, DType.F32},
                {DType.F32, DType.BF16}, {DType.F16, DType.F32}, {DType.BF16, DType.F64}, {DType.F64, DType.F32},
                {DType.F64, DType.F64}, {DType.S64, DType.F32}, {DType.U64, DType.F64}, {DType.S8, DType.F8E4M3FN}};
        // dims [2, 3, 16]: channel dim 1 (outer) or a 16-channel dim 2 (innermost).
        long[] dims = {2, 3, 16};
        Random random = new Random(39);
        try (Arena arena = Arena.ofShared()) {
            for (DType[] pair : pairs) {
                for (int channelDim : new int[] {1, 2}) {
                    int channels = (int) dims[channelDim];
                    float[] scale = new float[channels];
                    float[] bias = new float[channels];
                    for (int c = 0; c < channels; c++) {
                        scale[c] = switch (c % 4) {
                            case 0 -> 0x1p-128f; // denormal results from most values
                            case 1 -> -1.5f;
                            case 2 -> 1f;
                            default -> random.nextFloat() * 100 - 50;
                        };
                        bias[c] = c % 3 == 0 ? 0x1p-140f : c % 3 == 1 ? -0.0f : random.nextFloat();
                    }
                    ChannelAffine affine = new ChannelAffine(channelDim, boxed(scale), boxed(bias));
                    for (boolean transposed : new boolean[] {false, true}) {
                        Access src = source(arena, pair[0], dims, transposed, random);
                        Access dst = Access.strided(arena.allocate(96L * pair[1].byteWidth()), pair[1], StridedLayout.packed(dims));
                        MemorySegment expected = expected(src, pair[1], dims, channelDim, scale, bias);
                        for (CopyEngine engine : ENGINES) {
                            dst.segment().fill((byte) 0x5a);
                            AccessCopies.copy(engine, src, dst, affine);
                            long at = expected.mismatch(dst.segment());
                            String where = pair[0] + " -> " + pair[1] + ", channel dim " + channelDim
                                    + (transposed ? ", strided source" : "") + ", vector " + engine.vectorKernels()
                                    + ", parallelism " + engine.parallelism();
                            assertEquals(-1, at, () -> where + ": first differing byte " + at);
                        }
                    }
                }
            }
        }
    }

    /** The plan's explanation names the expression its loops evaluate; a plain copy has none. */
    @Test
    void thePlanShowsTheExpression() {
        try (Arena arena = Arena.ofShared()) {
            Access src = Access.strided(arena.allocate(24), DType.U8, StridedLayout.of(new long[] {4, 3, 2}, new long[] {1, 8, 4}));
            Access dst = Access.strided(arena.allocate(48), DType.BF16, StridedLayout.packed(4, 3, 2));
            ChannelAffine affine = new ChannelAffine(1, List.of(1f, 2f, 3f), List.of(0f, 0f, 0f));
            CopyPlan.Explanation e = CopyEngine.of(1).explain(AccessCopies.plan(src, dst, affine));
            assertEquals("convert<bf16>(fma(convert<f32>(%0), %1, %2))", e.epilogue().orElseThrow().expression());
            assertTrue(e.epilogue().orElseThrow().kernel().startsWith("%1 and %2 the scale and bias of the channel along dim 1"),
                    e.epilogue().orElseThrow().kernel());
            assertTrue(e.toString().contains("epilogue: convert<bf16>(fma(convert<f32>(%0), %1, %2)) per element"), e.toString());
            assertTrue(e.toJson().contains("\"epilogue\":{\"expression\":\"convert<bf16>(fma(convert<f32>(%0), %1, %2))\""),
                    e.toJson());
            Access f64 = Access.strided(arena.allocate(192), DType.F64, StridedLayout.packed(4, 3, 2));
            assertEquals("fma(convert<f64>(%0), convert<f64>(%1), convert<f64>(%2))",
                    AccessCopies.plan(src, f64, affine).explain().epilogue().orElseThrow().expression());
            assertTrue(CopyEngine.of(1).explain(AccessCopies.plan(src, dst)).epilogue().isEmpty(), "a plain convert");
        }
    }

    /** Denormal results survive the copy: a check that the test's scales reach them. */
    @Test
    void denormalResultsAreKept() {
        try (Arena arena = Arena.ofShared()) {
            Access src = Access.strided(arena.allocate(4), DType.U8, StridedLayout.packed(1, 4));
            src.segment().copyFrom(MemorySegment.ofArray(new byte[] {1, 2, 3, (byte) 255}));
            Access dst = Access.strided(arena.allocate(16), DType.F32, StridedLayout.packed(1, 4));
            for (CopyEngine engine : ENGINES) {
                AccessCopies.copy(engine, src, dst, new ChannelAffine(0, List.of(0x1p-140f), List.of(0f)));
                for (int i = 0; i < 4; i++) {
                    float v = dst.segment().getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, i);
                    assertEquals(new float[] {1, 2, 3, 255}[i] * 0x1p-140f, v);
                    assertNotEquals(0f, v);
                }
            }
        }
    }

    private static Access source(Arena arena, DType type, long[] dims, boolean transposed, Random random) {
        long n = dims[0] * dims[1] * dims[2];
        MemorySegment m = arena.allocate(n * type.byteWidth());
        ElementAccess a = ElementAccess.of(type);
        for (long i = 0; i < n; i++) {
            long bits = random.nextLong();
            double special = switch (random.nextInt(8)) {
                case 0 -> 0x1p-135; // an f32 denormal
                case 1 -> -2.5e-310; // an f64 denormal
                case 2 -> Double.NaN;
                case 3 -> Double.NEGATIVE_INFINITY;
                case 4 -> -0.0;
                default -> Double.MAX_VALUE;
            };
            if (type.kind() == DType.Kind.FLOAT && special != Double.MAX_VALUE) {
                a.setDouble(m, i, type == DType.F64 || Double.isNaN(special) || Double.isInfinite(special) ? special
                        : type == DType.F32 ? (float) special : 0.0);
            } else {
                int width = type.bitWidth();
                a.setBits(m, i, width == 64 ? bits : bits & ((1L << width) - 1));
            }
        }
        // Transposed: the memory holds [16, 3, 2], read as [2, 3, 16].
        StridedLayout layout = transposed ? StridedLayout.of(dims, new long[] {1, dims[0], dims[0] * dims[1]})
                : StridedLayout.packed(dims);
        return Access.strided(m, type, layout);
    }

    /** ChannelAffine's documented arithmetic, element by element, into a packed destination. */
    private static MemorySegment expected(Access src, DType to, long[] dims, int channelDim, float[] scale, float[] bias) {
        StridedLayout l = src.addressing() instanceof Access.Strided(StridedLayout layout) ? layout : null;
        ElementAccess sa = ElementAccess.of(src.dtype());
        ElementAccess da = ElementAccess.of(to);
        MemorySegment out = MemorySegment.ofArray(new long[96]);
        long k = 0;
        for (long i = 0; i < dims[0]; i++) {
            for (long j = 0; j < dims[1]; j++) {
                for (long c = 0; c < dims[2]; c++, k++) {
                    int ch = (int) (channelDim == 1 ? j : c);
                    double x = sa.getDouble(src.segment(), l.offsetOf(i, j, c));
                    if (to == DType.F64) {
                        da.setDouble(out, k, Math.fma(x, scale[ch], bias[ch]));
                    } else {
                        da.setFloat(out, k, Math.fma((float) x, scale[ch], bias[ch]));
                    }
                }
            }
        }
        return out.asSlice(0, 96L * to.byteWidth());
    }

    private static List<Float> boxed(float[] values) {
        Float[] b = new Float[values.length];
        for (int i = 0; i < b.length; i++) {
            b[i] = values[i];
        }
        return List.of(b);
    }
}
