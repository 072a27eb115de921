package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.StridedLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The convert kernel's chunk loops for a ChannelAffine's recognised fma form against the
 * expression evaluator ({@link ChannelExpression.Runner}, the route every other form takes), bit
 * for bit, on the scalar, vector and 2-thread engines: every source and destination the form
 * takes, random bit patterns (NaN payloads, denormals, infinities) and scales that overflow,
 * underflow to denormals and flip signs, through each of the kernel's loops: channel constant per
 * run (dense, strided and reversed source, runs longer than a chunk), channel loop innermost
 * under a longer loop (NCHW -> NHWC, also reversed), and innermost over a shorter one or alone.
 */
class AffineChunksTest {
    private static final List<CopyEngine> ENGINES = List.of(CopyEngine.of(1, false), CopyEngine.of(1, true),
            CopyEngine.of(2, true, 0));
    private static final DType[] SOURCES = {DType.S8, DType.U8, DType.S16, DType.U16, DType.S32, DType.F16, DType.BF16,
            DType.F32};
    private static final DType[] DESTINATIONS = {DType.F32, DType.BF16, DType.F16};

    @Test
    void theFmaFormIsRecognisedFromTheExpression() {
        for (DType from : SOURCES) {
            for (DType to : DESTINATIONS) {
                assertEquals(new AffineChunks.Form(from, to), ChannelExpression.recognised(from, to), from + " -> " + to);
            }
        }
        // Forms the loops do not compute: f64 arithmetic, a 64-bit integer through f64, u32, f64
        // sources, f8 destinations.
        for (DType[] pair : new DType[][] {{DType.F32, DType.F64}, {DType.U8, DType.F64}, {DType.S64, DType.F32},
                {DType.U64, DType.BF16}, {DType.U32, DType.F32}, {DType.F64, DType.F32}, {DType.F16, DType.F8E4M3FN},
                {DType.PRED, DType.F32}}) {
            assertNull(ChannelExpression.recognised(pair[0], pair[1]), pair[0] + " -> " + pair[1]);
        }
        // Read off the expression, not the types: another expression over the same leaves is not the form.
        Pointwise.Expr x = new Pointwise.Op("convert", DType.F32, List.of(new Pointwise.Leaf(0, DType.U8)), "");
        Pointwise.Expr scale = new Pointwise.Leaf(1, DType.F32);
        Pointwise.Expr bias = new Pointwise.Leaf(2, DType.F32);
        assertNotNull(AffineChunks.recognise(new Pointwise.Op(Pointwise.Op.FMA, DType.F32, List.of(x, scale, bias), "")));
        assertNull(AffineChunks.recognise(new Pointwise.Op(Pointwise.Op.FMA, DType.F32, List.of(x, bias, scale), "")));
        assertNull(AffineChunks.recognise(new Pointwise.Op("add", DType.F32, List.of(x, bias), "")));
        assertNull(AffineChunks.recognise(new Pointwise.Op(Pointwise.Op.FMA, DType.F32, List.of(scale, x, bias), "")));
        assertNull(AffineChunks.recognise(new Pointwise.Op("negate", DType.BF16, List.of(
                new Pointwise.Op(Pointwise.Op.FMA, DType.F32, List.of(x, scale, bias), "")), "")));
    }

    /**
     * A copy case: logical dims, the source's strides and offset (elements), the channel dim and
     * the planned loop it lands on; the destination is packed.
     */
    private record Case(String name, long[] dims, long[] srcStrides, long srcOffset, int channelDim, int channelLoop) {
    }

    private static final Case[] CASES = {
        // Channel outer, each run one channel: dense and longer than a chunk, then a strided source.
        new Case("dense NCHW", new long[] {2, 3, 1100}, new long[] {3300, 1100, 1}, 0, 1, 1),
        new Case("strided NHWC -> NCHW", new long[] {2, 3, 700}, new long[] {2100, 1, 3}, 0, 1, 1),
        new Case("reversed rows", new long[] {2, 3, 1100}, new long[] {3300, 1100, -1}, 1099, 1, 1),
        // NCHW -> NHWC: the channel loop innermost under a loop of 1,100 (the kernel takes both).
        new Case("NCHW -> NHWC", new long[] {2, 1100, 3}, new long[] {3300, 1, 1100}, 0, 2, 2),
        new Case("reversed NCHW -> NHWC", new long[] {2, 1100, 3}, new long[] {3300, -1, 1100}, 1099, 2, 2),
        // Channels innermost under a shorter loop, and a channel dim alone: channels per element.
        new Case("many channels", new long[] {3, 600}, new long[] {600, 1}, 0, 1, 1),
        new Case("channels alone", new long[] {1300}, new long[] {1}, 0, 0, 0),
    };

    @Test
    void theChunkLoopsGiveTheEvaluatorsBits() {
        Random random = new Random(3639);
        try (Arena arena = Arena.ofShared()) {
            for (Case k : CASES) {
                int channels = (int) k.dims()[k.channelDim()];
                float[] scale = new float[channels];
                float[] bias = new float[channels];
                for (int c = 0; c < channels; c++) {
                    scale[c] = switch (c % 5) {
                        case 0 -> 0x1p-128f; // denormal products
                        case 1 -> -1.5f;
                        case 2 -> 3e37f; // overflows bf16's and f16's range, and f32's from large values
                        case 3 -> 1f;
                        default -> random.nextFloat() * 100 - 50;
                    };
                    bias[c] = c % 3 == 0 ? 0x1p-140f : c % 3 == 1 ? -0.0f : random.nextFloat() * 10 - 5;
                }
                ChannelAffine affine = new ChannelAffine(k.channelDim(), boxed(scale), boxed(bias));
                for (DType from : SOURCES) {
                    Access src = source(arena, from, k, random);
                    for (DType to : DESTINATIONS) {
                        Access dst = Access.strided(arena.allocate(count(k.dims()) * to.byteWidth()), to,
                                StridedLayout.packed(k.dims()));
                        Step.Run run = (Step.Run) AccessCopies.steps(AccessCopies.plan(src, dst, affine)).getFirst();
                        String where = k.name() + ", " + from + " -> " + to;
                        if (from != DType.U8 || to != DType.F32) {
                            // u8 -> f32 may take the byte-plane loops, which compute the fma directly.
                            assertEquals(Kernel.CONVERT, run.kernel(), where);
                            assertEquals(k.channelLoop(), run.channelLoop(), where + ": " + run.loops());
                        }
                        MemorySegment expected = evaluated(arena, src, to, k, scale, bias);
                        for (CopyEngine engine : ENGINES) {
                            dst.segment().fill((byte) 0x5a);
                            AccessCopies.copy(engine, src, dst, affine);
                            long at = expected.mismatch(dst.segment());
                            assertEquals(-1, at, () -> where + ", vector " + engine.vectorKernels() + ", parallelism "
                                    + engine.parallelism() + ": first differing byte " + at);
                        }
                    }
                }
            }
        }
    }

    /** The plan says which route runs the expression. */
    @Test
    void theExplanationNamesTheRoute() {
        try (Arena arena = Arena.ofShared()) {
            Access src = Access.strided(arena.allocate(24), DType.U8, StridedLayout.packed(4, 3, 2));
            ChannelAffine affine = new ChannelAffine(1, List.of(1f, 2f, 3f), List.of(0f, 0f, 0f));
            Access bf16 = Access.strided(arena.allocate(48), DType.BF16, StridedLayout.packed(4, 3, 2));
            Access f64 = Access.strided(arena.allocate(192), DType.F64, StridedLayout.packed(4, 3, 2));
            String fused = AccessCopies.plan(src, bf16, affine).explain().epilogue().orElseThrow().kernel();
            String evaluated = AccessCopies.plan(src, f64, affine).explain().epilogue().orElseThrow().kernel();
            assertTrue(fused.contains("the convert kernel runs its fma form in typed loops 512 elements at a time"), fused);
            assertTrue(evaluated.contains("the convert kernel runs the expression evaluator 2048 elements at a time"), evaluated);
        }
    }

    /** The evaluator's result: every element handed to a Runner by its logical index, into a packed destination. */
    private static MemorySegment evaluated(Arena arena, Access src, DType to, Case k, float[] scale, float[] bias) {
        StridedLayout l = ((Access.Strided) src.addressing()).layout();
        long[] dims = k.dims();
        long n = count(dims);
        MemorySegment out = arena.allocate(n * to.byteWidth());
        ChannelExpression.Runner runner = new ChannelExpression.Runner(src.segment(), ElementAccess.of(src.dtype()), out,
                ElementAccess.of(to), scale, bias);
        long[] idx = new long[dims.length];
        for (long i = 0; i < n; i++) {
            long rest = i;
            for (int d = dims.length - 1; d >= 0; d--) {
                idx[d] = rest % dims[d];
                rest /= dims[d];
            }
            runner.add(l.offsetOf(idx), i, (int) idx[k.channelDim()]);
        }
        runner.flush();
        return out;
    }

    private static Access source(Arena arena, DType type, Case k, Random random) {
        long n = count(k.dims());
        MemorySegment m = arena.allocate(n * type.byteWidth());
        ElementAccess a = ElementAccess.of(type);
        for (long i = 0; i < n; i++) {
            int width = type.bitWidth();
            long bits = random.nextLong() & (width == 64 ? -1L : (1L << width) - 1);
            if (type.kind() == DType.Kind.FLOAT && random.nextInt(4) == 0) {
                // Small values too, where the fma's single rounding shows.
                a.setFloat(m, i, (float) random.nextInt(512) - 256);
            } else {
                a.setBits(m, i, bits);
            }
        }
        return Access.strided(m, type, StridedLayout.of(k.dims(), k.srcStrides(), k.srcOffset()));
    }

    private static long count(long[] dims) {
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        return n;
    }

    private static List<Float> boxed(float[] values) {
        Float[] b = new Float[values.length];
        for (int i = 0; i < b.length; i++) {
            b[i] = values[i];
        }
        return List.of(b);
    }
}
