package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.DType;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Recognises f32 to bf16 conversions into XLA's {@code (2,1)} pair packing, and back, for
 * {@link LoopNest}, and runs them without the Vector API (one word per column pair, not one
 * 2-iteration {@link ConvertKernel} loop per column). In {@code {1,0:T(8,128)(2,1)}} each 32-bit destination word holds rows
 * {@code 2k} (low half) and {@code 2k+1} (high half) of one column, so a run of columns of two
 * f32 rows converts and packs with whole-int lane arithmetic ({@link VectorBf16Pairs}). This class
 * uses no Vector API type, so planning works without the module.
 * {@snippet :
 * // f32[16,256]{1,0} -> bf16[16,256]{1,0:T(8,128)(2,1)}, loops as LoopNest orders them:
 * List<Loop> loops = List.of(new Loop(2, 2048, 2048), new Loop(2, 128, 1024), new Loop(4, 512, 256),
 *         new Loop(128, 1, 2), new Loop(2, 256, 1));   // ..., 128 columns, the row pair
 * Bf16Pairs.plan(loops, 0, 0, DType.F32, DType.BF16).kernel();   // CONVERT_PAIR_INTERLEAVE
 * Bf16Pairs.plan(loops, 0, 0, DType.F32, DType.F16);             // null: CONVERT
 * }
 */
final class Bf16Pairs {
    private Bf16Pairs() {
    }

    /**
     * {@return the fused run for {@code loops} (ordered and fused by {@link LoopNest}), or null when
     * they are not a plain f32 -> bf16 pair packing or bf16 pair unpacking}
     */
    static Step.Run plan(List<Loop> loops, long so, long dO, DType from, DType to) {
        int r = loops.size();
        if (r < 2) {
            return null;
        }
        Loop inner = loops.get(r - 1);
        if (from == DType.F32 && to == DType.BF16) {
            // Columns one f32 apart land one word (two bf16) apart; the row pair fills each word.
            Loop columns = loops.get(r - 2);
            boolean pairs = inner.count() == 2 && inner.dstStride() == 1
                    && columns.srcStride() == 1 && columns.dstStride() == 2;
            return pairs ? new Step.Run(Kernel.CONVERT_PAIR_INTERLEAVE, so, dO, loops, -1) : null;
        }
        if (from == DType.BF16 && to == DType.F32 && inner.dstStride() == 1 && inner.srcStride() == 2) {
            for (int b = r - 2; b >= 0; b--) {
                Loop halves = loops.get(b);
                if (halves.srcStride() == 1 && halves.count() == 2) {
                    List<Loop> reordered = new ArrayList<>(loops);
                    reordered.remove(b);
                    reordered.add(r - 2, halves);
                    return new Step.Run(Kernel.CONVERT_PAIR_DEINTERLEAVE, so, dO, reordered, -1);
                }
            }
        }
        return null;
    }

    /** Loops {@code [..., columns (n, 4 bytes, 4 bytes), rows (2, row bytes, 2 bytes)]}: f32 rows to bf16 words. */
    static void pack(Task t) {
        int r = t.rank();
        long n = t.count()[r - 2];
        long odd = t.srcStride()[r - 1];
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 2);
        do {
            packColumns(src, o.src, odd, dst, o.dst, 0, n);
        } while (o.next());
    }

    /** Columns {@code [from, to)} of one row pair, the even row at {@code so}, the odd one {@code odd} bytes on. */
    static void packColumns(MemorySegment src, long so, long odd, MemorySegment dst, long dO, long from, long to) {
        for (long j = from; j < to; j++) {
            int lo = ConvertKernel.bf16(src.get(Layouts.F32, so + j * 4)) & 0xffff;
            int hi = ConvertKernel.bf16(src.get(Layouts.F32, so + odd + j * 4));
            dst.set(Layouts.I32, dO + j * 4, hi << 16 | lo);
        }
    }

    /** Loops {@code [..., rows (2, 2 bytes, row bytes), columns (n, 4 bytes, 4 bytes)]}: bf16 words to f32 rows. */
    static void unpack(Task t) {
        int r = t.rank();
        long n = t.count()[r - 1];
        long odd = t.dstStride()[r - 2];
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 2);
        do {
            unpackColumns(src, o.src, dst, o.dst, odd, 0, n);
        } while (o.next());
    }

    /** Columns {@code [from, to)} of one row pair, the even row at {@code dO}, the odd one {@code odd} bytes on. */
    static void unpackColumns(MemorySegment src, long so, MemorySegment dst, long dO, long odd, long from, long to) {
        for (long j = from; j < to; j++) {
            int w = src.get(Layouts.I32, so + j * 4);
            dst.set(Layouts.I32, dO + j * 4, w << 16);
            dst.set(Layouts.I32, dO + odd + j * 4, w & 0xffff_0000);
        }
    }
}
