package dev.tensorbuf.bench;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.StridedLayout.TensorFormat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.util.List;
import java.util.function.Function;

/**
 * The copy-engine benchmark cases (issue 5's table), shared by the JMH benchmark and
 * {@code tensorbuf bench}. A case allocates its source and a preallocated, touched destination,
 * plans once, and counts bytes read plus bytes written; its baseline is a {@code MemorySegment.copy}
 * that moves the same number of bytes on the same number of threads ({@link ParallelCopy}).
 * {@snippet :
 * try (BenchMemory memory = BenchMemory.open();
 *      CopyCase.Prepared p = CopyCase.byName("nchw_to_nhwc_f32_32x64x112x112").prepare(memory, CopyEngine.of(2))) {
 *     p.run();
 *     p.baselineThreads(); // 2
 *     p.bytesMoved();   // 205520896
 * }
 * }
 *
 * @param name the case name, also the peers' name for it
 * @param build makes the source and destination with the memory it is given
 */
public record CopyCase(String name, Function<SegmentAllocator, Sides> build) {

    /** The two sides of a case and an optional per-channel scale and bias. */
    public record Sides(Access src, Access dst, ChannelAffine affine) {
    }

    /**
     * A case ready to run: planned, with a baseline copy of the same bytes on as many threads as
     * the engine runs this plan on. Close it to end the baseline's helper threads.
     */
    public record Prepared(CopyCase copyCase, CopyEngine engine, CopyPlan plan, ParallelCopy baseline)
            implements AutoCloseable {
        /** Runs the planned copy once. */
        public void run() {
            engine.execute(plan);
        }

        /**
         * Runs {@code MemorySegment.copy} of half the bytes moved (so the same bytes read plus
         * written), cut across {@link #baselineThreads()} threads.
         */
        public void runBaseline() {
            baseline.run();
        }

        /** {@return the threads of the baseline: the engine's parallelism if the plan is large enough to use it, else 1} */
        public int baselineThreads() {
            return baseline.threads();
        }

        /** {@return bytes read plus bytes written} */
        public long bytesMoved() {
            return plan.bytesMoved();
        }

        @Override
        public void close() {
            baseline.close();
        }
    }

    /** {@return the case ready to run: sides allocated and touched, plan made, baseline allocated} */
    public Prepared prepare(SegmentAllocator memory, CopyEngine engine) {
        Sides s = build.apply(memory);
        CopyPlan plan = AccessCopies.plan(s.src(), s.dst(), s.affine());
        long half = plan.bytesMoved() / 2;
        // The baseline's memory comes from the same allocator as the case's: the same kind of pages.
        MemorySegment a = memory.allocate(half, 64);
        MemorySegment b = memory.allocate(half, 64);
        fillPattern(a);
        b.fill((byte) 1);
        return new Prepared(this, engine, plan, new ParallelCopy(a, b, engine.threadsFor(plan.bytesMoved())));
    }

    private static void fillPattern(MemorySegment m) {
        for (long i = 0; i + 8 <= m.byteSize(); i += 8) {
            // Small integers as f32/bf16/u8 bits are all finite, so conversions never meet NaN.
            m.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, i, 0x3f80_3f80_3f80_3f80L + (i & 0x7f));
        }
    }

    private static Access strided(SegmentAllocator memory, DType t, StridedLayout l) {
        MemorySegment m = memory.allocate((l.maxOffset() + 1) * t.byteWidth(), 64);
        fillPattern(m);
        return Access.strided(m, t, l);
    }

    private static Access tiled(SegmentAllocator memory, String text) {
        ArrayShape s = ArrayShape.parse(text);
        MemorySegment m = memory.allocate(s.physicalElementCount() * s.dtype().byteWidth(), 64);
        fillPattern(m);
        return Access.tiled(m, s);
    }

    private static CopyCase layouts(String name, DType t, TensorFormat from, TensorFormat to, long... dims) {
        return new CopyCase(name, a -> new Sides(strided(a, t, StridedLayout.of(from, dims)),
                strided(a, t, StridedLayout.of(to, dims)), null));
    }

    private static CopyCase shapes(String name, String from, String to) {
        return new CopyCase(name, a -> new Sides(tiled(a, from), tiled(a, to), null));
    }

    /** The cases of issue 5's table, in its order, then the f64 -> f32 conversion. */
    public static final List<CopyCase> ALL = List.of(
            layouts("nchw_to_nhwc_f32_32x64x112x112", DType.F32, TensorFormat.NCHW, TensorFormat.NHWC, 32, 64, 112, 112),
            layouts("nhwc_to_nchw_f32_32x64x112x112", DType.F32, TensorFormat.NHWC, TensorFormat.NCHW, 32, 64, 112, 112),
            layouts("nchw_to_nhwc_f32_1x3x224x224", DType.F32, TensorFormat.NCHW, TensorFormat.NHWC, 1, 3, 224, 224),
            layouts("nhwc_to_nchw_f32_1x3x224x224", DType.F32, TensorFormat.NHWC, TensorFormat.NCHW, 1, 3, 224, 224),
            shapes("f32_4096x4096_to_T8x128", "f32[4096,4096]{1,0}", "f32[4096,4096]{1,0:T(8,128)}"),
            shapes("f32_T8x128_to_4096x4096", "f32[4096,4096]{1,0:T(8,128)}", "f32[4096,4096]{1,0}"),
            shapes("bf16_4096x4096_to_T8x128_2x1", "bf16[4096,4096]{1,0}", "bf16[4096,4096]{1,0:T(8,128)(2,1)}"),
            shapes("f32_4096x4096_to_bf16_T8x128_2x1", "f32[4096,4096]{1,0}", "bf16[4096,4096]{1,0:T(8,128)(2,1)}"),
            shapes("bf16_T8x128_2x1_to_f32_4096x4096", "bf16[4096,4096]{1,0:T(8,128)(2,1)}", "f32[4096,4096]{1,0}"),
            shapes("f32_1000x1000_to_T8x128_padded", "f32[1000,1000]{1,0}", "f32[1000,1000]{1,0:T(8,128)}"),
            new CopyCase("u8_nhwc_to_f32_nchw_scale_bias_32x224x224x3", a -> new Sides(
                    strided(a, DType.U8, StridedLayout.of(TensorFormat.NHWC, 32, 3, 224, 224)),
                    strided(a, DType.F32, StridedLayout.of(TensorFormat.NCHW, 32, 3, 224, 224)),
                    new ChannelAffine(1, List.of(1 / 58.395f, 1 / 57.12f, 1 / 57.375f),
                            List.of(-123.675f / 58.395f, -116.28f / 57.12f, -103.53f / 57.375f)))),
            new CopyCase("broadcast_f32_1x64x1x1_to_32x64x112x112", a -> {
                MemorySegment bias = a.allocate(64 * 4, 64);
                fillPattern(bias);
                return new Sides(Access.strided(bias, DType.F32, StridedLayout.of(new long[] {32, 64, 112, 112},
                        new long[] {0, 1, 0, 0})),
                        strided(a, DType.F32, StridedLayout.packed(32, 64, 112, 112)), null);
            }),
            new CopyCase("slice_step2_f32_32x64x112x112", a -> {
                Access whole = strided(a, DType.F32, StridedLayout.packed(32, 64, 112, 112));
                return new Sides(Access.strided(whole.segment(), DType.F32, StridedLayout.of(new long[] {32, 64, 56, 56},
                        new long[] {64 * 112 * 112, 112 * 112, 2 * 112, 2})),
                        strided(a, DType.F32, StridedLayout.packed(32, 64, 56, 56)), null);
            }),
            // Beyond the table: a plain type conversion, the commonest there is (NumPy float64 data).
            new CopyCase("f64_to_f32_4096x4096", a -> new Sides(strided(a, DType.F64, StridedLayout.packed(4096, 4096)),
                    strided(a, DType.F32, StridedLayout.packed(4096, 4096)), null)));

    /** {@return the case called {@code name}} @throws IllegalArgumentException naming the known cases */
    public static CopyCase byName(String name) {
        return ALL.stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow(() ->
                new IllegalArgumentException("no copy case " + name + "; known: "
                        + ALL.stream().map(CopyCase::name).toList()));
    }
}
