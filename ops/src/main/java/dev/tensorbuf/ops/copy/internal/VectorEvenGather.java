package dev.tensorbuf.ops.copy.internal;

import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * {@link dev.tensorbuf.ops.copy.internal.Kernel#EVEN_GATHER} with the Vector API: a run of 4-byte
 * elements read at source stride 2 (a {@code ::2} slice) is two contiguous vector loads and one
 * two-vector {@code selectFrom} of the even lanes per output vector. A run that is not a multiple
 * of the lane count ends with one block overlapping the previous one. A run shorter than a vector,
 * or whose last load would reach past the source segment (it reads one element beyond the last
 * one used), goes element by element.
 */
final class VectorEvenGather {
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final VectorSpecies<Integer> S = IntVector.SPECIES_PREFERRED;
    private static final int L = S.length();
    private static final IntVector EVEN = IntVector.fromArray(S, even(), 0);

    private VectorEvenGather() {
    }

    private static int[] even() {
        int[] idx = new int[L];
        for (int j = 0; j < L; j++) {
            idx[j] = 2 * j;
        }
        return idx;
    }

    static void run(Task t) {
        int r = t.rank();
        long n = t.count()[r - 1];
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        long limit = src.byteSize();
        Odometer o = new Odometer(t, 1);
        do {
            long s = o.src;
            long d = o.dst;
            // The last block loads elements [2(n - L), 2n): one past the last element read.
            if (n < L || s + 8 * n > limit) {
                scalar(src, s, dst, d, n);
                continue;
            }
            long last = n - L;
            if (n <= 4L * L) {
                // Rows of up to four blocks as straight-line code: as a counted loop of one to three
                // trips (C2's pre- and post-loops, no unrolled main loop) the 56-element rows of an
                // f32[32,64,112,112] slice ran 2x slower on an Intel Xeon (Sapphire Rapids; Slice.java in
                // bench/experiments: "select clean" against "select fixed").
                block(src, s, dst, d);
                if (L < last) {
                    block(src, s + 8L * L, dst, d + 4L * L);
                    if (2L * L < last) {
                        block(src, s + 16L * L, dst, d + 8L * L);
                    }
                }
            } else {
                // A counted loop plus one last block: a loop that moves its own index back for the
                // last block ran 1.4x slower.
                for (long i = 0; i < last; i += L) {
                    block(src, s + 8 * i, dst, d + 4 * i);
                }
            }
            block(src, s + 8 * last, dst, d + 4 * last);
        } while (o.next());
    }

    private static void block(MemorySegment src, long s, MemorySegment dst, long d) {
        IntVector a = IntVector.fromMemorySegment(S, src, s, ORDER);
        IntVector b = IntVector.fromMemorySegment(S, src, s + 4L * L, ORDER);
        EVEN.selectFrom(a, b).intoMemorySegment(dst, d, ORDER);
    }

    private static void scalar(MemorySegment src, long s, MemorySegment dst, long d, long n) {
        for (long i = 0; i < n; i++) {
            dst.set(Layouts.I32, d + 4 * i, src.get(Layouts.I32, s + 8 * i));
        }
    }
}
