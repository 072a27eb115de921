package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.quant.internal.BlockKernels;
import dev.tensorbuf.views.BlockType;
import dev.tensorbuf.views.DType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs one part of a {@link Step.Dequantize}: a {@link Task} over the source's f32 rows
 * ({@link BlockSource#virtual()}), whose source offsets say which rows and values it reads. Direct
 * parts dequantize whole blocks straight into the destination (into bf16 and f16 through
 * {@link #CHUNK_VALUES} floats at a time, which stay in the first-level cache, unless the block
 * kernels write that type's bf16 themselves); the others
 * dequantize the rows they touch into a per-thread tile of at most {@link #TILE_VALUES} values (a
 * part touching more rows is cut first), then run the step's kernel from the tile. Each value is
 * the block kernels' f32, converted as the engine converts f32, so the bits are the same either way.
 */
final class DequantizeKernel {
    /** Values of the per-thread tile of f32 rows: 256 KiB, within a core's second-level cache. */
    static final long TILE_VALUES = 1 << 16;
    /** Values dequantized at once on the way into bf16 or f16: 16 KiB of floats. */
    static final int CHUNK_VALUES = 4096;

    private static final BlockKernels VECTOR = BlockKernels.of(true);
    private static final BlockKernels SCALAR = BlockKernels.of(false);
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    /** A thread's chunk and tile, native (the kernels' vector loads and stores), freed with the thread. */
    private static final class Scratch {
        final MemorySegment chunk = Arena.ofAuto().allocate(4L * CHUNK_VALUES, 64);
        MemorySegment tile = MemorySegment.NULL;

        MemorySegment tile(long bytes) {
            if (tile.byteSize() < bytes) {
                tile = Arena.ofAuto().allocate(bytes, 64);
            }
            return tile;
        }
    }

    private DequantizeKernel() {
    }

    static void run(CopyExecutor executor, Step.Dequantize step, Kernel kernel, boolean vector, Task t,
                    CopyExecutor.Values values) {
        BlockKernels kernels = vector && VectorSupport.AVAILABLE ? VECTOR : SCALAR;
        if (step.direct()) {
            direct(step, kernels, vector && VectorSupport.AVAILABLE, t);
        } else {
            staged(executor, step, kernel, kernels, vector, t, values);
        }
    }

    private static void direct(Step.Dequantize step, BlockKernels kernels, boolean vector, Task t) {
        int r = t.rank();
        long n = t.count()[r - 1];
        long[] idx = new long[r - 1];
        Scratch scratch = SCRATCH.get();
        do {
            long so = t.srcOff();
            long dO = t.dstOff();
            for (int i = 0; i < r - 1; i++) {
                so += idx[i] * t.srcStride()[i];
                dO += idx[i] * t.dstStride()[i];
            }
            range(step, kernels, vector, scratch.chunk, so / 4, n, t.dst(), dO);
        } while (next(idx, t.count()));
    }

    /** Writes the {@code n} values from value {@code v} of the source's rows (a run may cross rows) at {@code dO}. */
    private static void range(Step.Dequantize step, BlockKernels kernels, boolean vector, MemorySegment chunk, long v,
                              long n, MemorySegment dst, long dO) {
        BlockSource src = step.source();
        BlockType type = src.type();
        DType into = step.into();
        int w = into.byteWidth();
        long cover = src.cover();
        int bv = type.blockValues();
        int bb = type.blockBytes();
        while (n > 0) {
            long row = v / cover;
            long col = v - row * cover;
            long end = col + Math.min(n, cover - col);
            long rowAt = src.rowByteOffset(row);
            n -= end - col;
            v += end - col;
            while (col < end) {
                long block = col / bv;
                long in = col - block * bv;
                long at = rowAt + block * bb;
                long m;
                if (in != 0 || end - col < bv) {
                    // Part of a block: the slice's first or last.
                    m = Math.min(bv - in, end - col);
                    kernels.dequantize(type, src.segment(), at, chunk, 0, 1);
                    write(chunk, in, m, dst, dO, into, vector);
                } else if (into == DType.F32) {
                    long blocks = (end - col) / bv;
                    m = blocks * bv;
                    kernels.dequantize(type, src.segment(), at, dst, dO, blocks);
                } else if (into == DType.BF16 && kernels.dequantizesToBf16(type)) {
                    long blocks = (end - col) / bv;
                    m = blocks * bv;
                    kernels.dequantizeBf16(type, src.segment(), at, dst, dO, blocks);
                } else {
                    long blocks = Math.min((end - col) / bv, CHUNK_VALUES / bv);
                    m = blocks * bv;
                    kernels.dequantize(type, src.segment(), at, chunk, 0, blocks);
                    write(chunk, 0, m, dst, dO, into, vector);
                }
                col += m;
                dO += m * w;
            }
        }
    }

    /** Converts floats {@code [from, from + m)} of {@code chunk} into {@code dst} at {@code dO}, as the engine converts f32. */
    private static void write(MemorySegment chunk, long from, long m, MemorySegment dst, long dO, DType into, boolean vector) {
        if (into == DType.F32) {
            MemorySegment.copy(chunk, 4 * from, dst, dO, 4 * m);
            return;
        }
        long done = 0;
        if (into == DType.BF16) {
            if (vector) {
                done = VectorDenseConvert.f32ToBf16(chunk, 4 * from, dst, dO, m);
            }
            for (long i = done; i < m; i++) {
                dst.set(Layouts.I16, dO + 2 * i, ConvertKernel.bf16(chunk.get(Layouts.F32, 4 * (from + i))));
            }
            return;
        }
        // Float.floatToFloat16 gives MiniFloat.F16.encode's bits (x86's conversion, NaNs included) and is an intrinsic.
        for (long i = 0; i < m; i++) {
            dst.set(Layouts.I16, dO + 2 * i, Float.floatToFloat16(chunk.get(Layouts.F32, 4 * (from + i))));
        }
    }

    private static void staged(CopyExecutor executor, Step.Dequantize step, Kernel kernel, BlockKernels kernels,
                               boolean vector, Task t, CopyExecutor.Values values) {
        BlockSource src = step.source();
        long cover = src.cover();
        long blocks = cover / src.type().blockValues();
        List<Task> parts = new ArrayList<>();
        cut(t, cover, Math.max(1, TILE_VALUES / cover), CopyExecutor.reserved(kernel), parts);
        Scratch scratch = SCRATCH.get();
        for (Task p : parts) {
            long[] span = span(p);
            long first = span[0] / 4 / cover;
            long rows = span[1] / 4 / cover - first + 1;
            MemorySegment tile = scratch.tile(4 * rows * cover);
            for (long k = 0; k < rows; k++) {
                kernels.dequantize(src.type(), src.segment(), src.rowByteOffset(first + k), tile, 4 * k * cover, blocks);
            }
            executor.run(kernel, vector, new Task(tile, p.dst(), p.srcOff() - 4 * first * cover, p.dstOff(), p.count(),
                    p.srcStride(), p.dstStride(), 4, p.dstWidth(), -1, 0), values);
        }
    }

    /** {@return the lowest and highest source byte offset {@code t} reads} */
    private static long[] span(Task t) {
        long lo = t.srcOff();
        long hi = t.srcOff();
        for (int i = 0; i < t.rank(); i++) {
            long reach = t.srcStride()[i] * (t.count()[i] - 1);
            if (reach < 0) {
                lo += reach;
            } else {
                hi += reach;
            }
        }
        return new long[] {lo, hi};
    }

    /**
     * Cuts {@code t} until each part reads at most {@code maxRows} rows (or cannot be cut): along
     * the loop reaching furthest in the source, in multiples of 16 in the loops a kernel keeps in
     * blocks where that still cuts.
     */
    private static void cut(Task t, long cover, long maxRows, int reserved, List<Task> out) {
        long[] span = span(t);
        long rows = span[1] / 4 / cover - span[0] / 4 / cover + 1;
        int best = -1;
        long reach = 0;
        for (int i = 0; i < t.rank(); i++) {
            long r = Math.abs(t.srcStride()[i]) * (t.count()[i] - 1);
            if (t.count()[i] > 1 && r > reach) {
                best = i;
                reach = r;
            }
        }
        if (rows <= maxRows || best < 0) {
            out.add(t);
            return;
        }
        long c = t.count()[best];
        long pieces = Math.min(c, Math.ceilDiv(rows, maxRows));
        long chunk = Math.ceilDiv(c, pieces);
        if (best >= t.rank() - reserved) {
            long aligned = Math.ceilDiv(chunk, 16) * 16;
            chunk = aligned < c ? aligned : chunk;
        }
        for (long from = 0; from < c; from += chunk) {
            cut(t.slice(best, from, Math.min(chunk, c - from)), cover, maxRows, reserved, out);
        }
    }

    private static boolean next(long[] idx, long[] count) {
        for (int d = idx.length - 1; d >= 0; d--) {
            if (++idx[d] < count[d]) {
                return true;
            }
            idx[d] = 0;
        }
        return false;
    }
}
