package dev.tensorbuf.ops.copy.internal;

import java.lang.foreign.MemorySegment;

/**
 * {@link dev.tensorbuf.ops.copy.internal.Kernel#TRANSPOSE} without the Vector API: the two innermost
 * loops in destination order, 4-byte elements, 2x2 at a time. {@link LoopNest} picks this kernel
 * only where the inner loop's destination stride and the outer loop's source stride are one
 * element, so two destination rows read side by side in the source and two columns lie side by
 * side in the destination: each 8-byte read serves both rows, each 8-byte write two columns.
 * Against one element a read and a write, the scalar NCHW -> NHWC and NHWC -> NCHW of f32[32,64,112,112]
 * ran 1.40x and 1.54x as fast on two threads (bench/RESULTS.md, "First copies (cold JVM)").
 */
final class ScalarTranspose {
    private ScalarTranspose() {
    }

    static void run(Task t) {
        int r = t.rank();
        long nb = t.count()[r - 2];
        long na = t.count()[r - 1];
        long sb = t.srcStride()[r - 2];
        long db = t.dstStride()[r - 2];
        long sa = t.srcStride()[r - 1];
        long da = t.dstStride()[r - 1];
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        // Other strides never come from LoopNest; should they, the rows go one at a time.
        long pairs = sb == 4 && da == 4 ? nb & ~1L : 0;
        Odometer o = new Odometer(t, 2);
        do {
            for (long j = 0; j < pairs; j += 2) {
                rowPair(src, o.src + 4 * j, sa, dst, o.dst + j * db, db, na);
            }
            for (long j = pairs; j < nb; j++) {
                row(src, o.src + j * sb, sa, dst, o.dst + j * db, da, na);
            }
        } while (o.next());
    }

    /**
     * Destination rows {@code d} and {@code d + db}, read as element pairs from {@code s}, a
     * method of its own so that the JIT compiles it whole, counted by its calls. As a loop inside
     * {@code run}, compiled on the stack (OSR) before the row loop had ever ended, C2's code
     * trapped back to the interpreter when it did: three times in a one-shot 200 MB convert, each
     * time reading elements through the interpreted segment accessors until it was compiled again
     * (-Xlog:deoptimization: unstable_if; bench/RESULTS.md, "Convert end to end").
     */
    private static void rowPair(MemorySegment src, long s, long sa, MemorySegment dst, long d, long db, long n) {
        long even = n & ~1L;
        for (long i = 0; i < even; i += 2) {
            long first = src.get(Layouts.I64, s + i * sa);
            long second = src.get(Layouts.I64, s + (i + 1) * sa);
            dst.set(Layouts.I64, d + 4 * i, (first & 0xFFFF_FFFFL) | (second << 32));
            dst.set(Layouts.I64, d + db + 4 * i, (first >>> 32) | (second & 0xFFFF_FFFF_0000_0000L));
        }
        if (even < n) {
            long last = src.get(Layouts.I64, s + even * sa);
            dst.set(Layouts.I32, d + 4 * even, (int) last);
            dst.set(Layouts.I32, d + db + 4 * even, (int) (last >>> 32));
        }
    }

    /**
     * One destination row an element at a time: the odd one left over, or each row where the
     * strides are not one element.
     */
    private static void row(MemorySegment src, long s, long sa, MemorySegment dst, long d, long da, long n) {
        for (long i = 0; i < n; i++) {
            dst.set(Layouts.I32, d + i * da, src.get(Layouts.I32, s + i * sa));
        }
    }
}
