package dev.tensorbuf.ops.copy;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.ops.copy.internal.Kernel;
import dev.tensorbuf.ops.copy.internal.Step;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Broadcasts planned as fills of runs (the source's stride is zero over the destination's innermost
 * dims: a per-channel value over H x W planes, a scalar, rows repeated), against a brute-force loop
 * over every index: random ranks, sizes (runs from a few bytes to past the vector fill's 1 KiB),
 * element widths 1 to 16 bytes, broadcast dims, destination dim orders and source offsets; every
 * engine setting the fill has a path for: scalar and vector, one thread and split across threads
 * from the first byte, and replication of filled blocks by bulk copies on or off. Bit for bit; the
 * destination is poisoned first, and bytes outside it must stay poisoned.
 */
class FillPlanPropertyTest {
    private static final DType[] TYPES = {DType.U8, DType.BF16, DType.F32, DType.F64, DType.C128};

    private static final List<CopyEngine> ENGINES = List.of(
            CopyEngine.of(1, false),
            CopyEngine.of(1, true),
            CopyEngine.of(CopyEngine.Config.of().withParallelism(2).withParallelThresholdBytes(0)),
            CopyEngine.of(CopyEngine.Config.of().withParallelism(3).withParallelThresholdBytes(0).withVectorKernels(false)),
            CopyEngine.of(CopyEngine.Config.of().withParallelism(2).withParallelThresholdBytes(0).withReplicateBytes(64)),
            CopyEngine.of(CopyEngine.Config.of().withParallelism(1).withReplicateBytes(64)),
            CopyEngine.of(CopyEngine.Config.of().withParallelism(2).withParallelThresholdBytes(0).withReplicateBytes(0)));

    @Test
    void broadcastFillsMatchBruteForce() {
        long seed = CopyFixture.SEED;
        Random rnd = new Random(seed);
        for (int c = 0; c < 250; c++) {
            DType t = TYPES[rnd.nextInt(TYPES.length)];
            int w = t.byteWidth();
            int rank = 1 + rnd.nextInt(4);
            long[] dims = new long[rank];
            for (int d = 0; d < rank; d++) {
                dims[d] = 1 + rnd.nextInt(d == rank - 1 && rnd.nextBoolean() ? 1100 / w : 9);
            }
            // The source: stride 0 over the last dims (at least the innermost), elsewhere either 0 or
            // compact over the dims it does not broadcast, at a random offset.
            int inner = 1 + rnd.nextInt(rank);
            long[] srcStrides = new long[rank];
            long stride = 1;
            for (int d = rank - 1; d >= 0; d--) {
                if (d >= rank - inner || rnd.nextInt(4) == 0) {
                    srcStrides[d] = 0;
                } else {
                    srcStrides[d] = stride;
                    stride *= dims[d];
                }
            }
            long srcOffset = rnd.nextInt(5);
            StridedLayout srcLayout = StridedLayout.of(dims, srcStrides, srcOffset);
            // The destination: packed, its dims in row-major order or, sometimes, another order
            // (the broadcast dims then need not be innermost in memory).
            Integer[] order = new Integer[rank];
            for (int d = 0; d < rank; d++) {
                order[d] = d;
            }
            if (rnd.nextInt(4) == 0) {
                java.util.Collections.shuffle(Arrays.asList(order), rnd);
            }
            long[] dstStrides = new long[rank];
            long s = 1;
            for (int k = rank - 1; k >= 0; k--) {
                dstStrides[order[k]] = s;
                s *= dims[order[k]];
            }
            StridedLayout dstLayout = StridedLayout.of(dims, dstStrides, 0);
            String what = "case " + c + ": " + t + Arrays.toString(dims) + " src strides " + Arrays.toString(srcStrides)
                    + " +" + srcOffset + " -> dst strides " + Arrays.toString(dstStrides) + "; seed " + seed;
            try (Arena arena = Arena.ofShared()) {
                MemorySegment srcBytes = arena.allocate((srcLayout.maxOffset() + 1) * w, 64);
                for (long i = 0; i < srcBytes.byteSize(); i++) {
                    srcBytes.set(ValueLayout.JAVA_BYTE, i, (byte) rnd.nextInt());
                }
                long dstBytes = s * w;
                MemorySegment dstSegment = arena.allocate(dstBytes + 16, 64);
                Access src = Access.strided(srcBytes, t, srcLayout);
                Access dst = Access.strided(dstSegment.asSlice(8, dstBytes), t, dstLayout);
                MemorySegment expected = arena.allocate(dstBytes + 16, 64);
                expected.fill((byte) 0x5a);
                bruteForce(srcBytes, srcLayout, expected.asSlice(8, dstBytes), dstLayout, w);
                CopyPlan plan = AccessCopies.plan(src, dst, null);
                boolean innerBroadcast = order[rank - 1] >= rank - inner && dims[order[rank - 1]] > 1;
                if (innerBroadcast) {
                    assertTrue(AccessCopies.steps(plan).stream().anyMatch(st -> st instanceof Step.Run r && r.kernel() == Kernel.FILL),
                            what + ": planned as a fill: " + AccessCopies.steps(plan));
                }
                for (CopyEngine engine : ENGINES) {
                    dstSegment.fill((byte) 0x5a);
                    engine.execute(plan);
                    long at = expected.mismatch(dstSegment);
                    if (at >= 0) {
                        fail(what + ": engine " + engine.config() + " differs at byte " + (at - 8) + " of the destination;"
                                + " plan " + AccessCopies.steps(plan));
                    }
                }
            }
        }
    }

    /**
     * Long runs over blocks of at least 2.5 MiB: the vector fill writes the first block and,
     * with {@code streamedFills}, the rest are streamed copies of it, on one thread and split
     * across threads (ten blocks, so each of the eight pieces copies whole ones), or the pieces
     * fill their own blocks (three blocks); without, the vector fill writes every block. Odd sizes, a source offset, a destination inside a larger segment, f32 and f64.
     */
    @Test
    void streamedBlockReplicasMatchBruteForce() {
        record Case(DType t, long[] dims, long srcOffset) {
        }
        for (Case k : List.of(new Case(DType.F32, new long[] {3, 37, 131, 139}, 3),
                new Case(DType.F64, new long[] {10, 7, 211, 229}, 1),
                new Case(DType.F32, new long[] {9, 1, 37, 131, 139}, 0))) {
            int w = k.t().byteWidth();
            int rank = k.dims().length;
            long[] srcStrides = new long[rank];
            srcStrides[rank - 3] = 1;
            StridedLayout srcLayout = StridedLayout.of(k.dims(), srcStrides, k.srcOffset());
            StridedLayout dstLayout = StridedLayout.packed(k.dims());
            String what = k.t() + Arrays.toString(k.dims()) + " src strides " + Arrays.toString(srcStrides) + " +" + k.srcOffset();
            try (Arena arena = Arena.ofShared()) {
                MemorySegment srcBytes = arena.allocate((srcLayout.maxOffset() + 1) * w, 64);
                Random rnd = new Random(CopyFixture.SEED);
                for (long i = 0; i < srcBytes.byteSize(); i++) {
                    srcBytes.set(ValueLayout.JAVA_BYTE, i, (byte) rnd.nextInt());
                }
                long dstBytes = dstLayout.elementCount() * w;
                MemorySegment dstSegment = arena.allocate(dstBytes + 16, 64);
                MemorySegment expected = arena.allocate(dstBytes + 16, 64);
                expected.fill((byte) 0x5a);
                bruteForce(srcBytes, srcLayout, expected.asSlice(8, dstBytes), dstLayout, w);
                CopyPlan plan = AccessCopies.plan(Access.strided(srcBytes, k.t(), srcLayout),
                        Access.strided(dstSegment.asSlice(8, dstBytes), k.t(), dstLayout), null);
                List<Step> steps = AccessCopies.steps(plan);
                assertTrue(steps.size() == 1 && steps.getFirst() instanceof Step.Run r && r.kernel() == Kernel.FILL
                        && r.loops().getFirst().srcStride() == 0, what + ": one fill whose outer loop broadcasts: " + steps);
                // Both settings on any CPU: the default streams only on Intel's.
                List<CopyEngine> engines = ENGINES.stream().flatMap(e -> java.util.stream.Stream.of(true, false)
                        .map(on -> CopyEngine.of(e.config().withStreamedFills(on)))).toList();
                for (CopyEngine engine : engines) {
                    dstSegment.fill((byte) 0x5a);
                    engine.execute(plan);
                    long at = expected.mismatch(dstSegment);
                    if (at >= 0) {
                        fail(what + ": engine " + engine.config() + " differs at byte " + (at - 8) + " of the destination");
                    }
                }
            }
        }
    }

    /** Every index, row-major: the element's bytes from the source's offset to the destination's. */
    private static void bruteForce(MemorySegment src, StridedLayout sl, MemorySegment dst, StridedLayout dl, int w) {
        int rank = sl.rank();
        long[] idx = new long[rank];
        List<Long> dims = new ArrayList<>(sl.sizes());
        if (sl.elementCount() == 0) {
            return;
        }
        while (true) {
            MemorySegment.copy(src, sl.offsetOf(idx) * w, dst, dl.offsetOf(idx) * w, w);
            int d = rank - 1;
            while (d >= 0 && ++idx[d] == dims.get(d)) {
                idx[d] = 0;
                d--;
            }
            if (d < 0) {
                return;
            }
        }
    }
}
