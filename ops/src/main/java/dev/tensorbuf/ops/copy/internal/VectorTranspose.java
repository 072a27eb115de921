package dev.tensorbuf.ops.copy.internal;

import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * {@link dev.tensorbuf.ops.copy.internal.Kernel#TRANSPOSE} with the Vector API: 16x16 (512-bit) or 8x8
 * (256-bit) blocks of 4-byte elements are loaded as rows, transposed in registers by
 * {@code log2(L)} rounds of two-vector {@code selectFrom} interleaves (row {@code i} zipped with
 * row {@code i + L/2}; after {@code log2(L)} rounds row {@code k} holds column {@code k}), and
 * stored as rows of the destination. Edges that do not fill a block go through the scalar loop.
 * The only class besides the other {@code Vector*} kernels that loads {@code jdk.incubator.vector}.
 *
 * <p>Block order: the inner block loop runs over the shorter of the two dimensions, so both the
 * rows being read and the rows being written stay in cache between neighbouring blocks
 * (traversal order alone changed a large transpose 2x, reference/java-kernels.md).
 * The blocks are written out unrolled because vectors kept in arrays are not register-allocated.
 */
final class VectorTranspose {
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final VectorSpecies<Integer> S16 = IntVector.SPECIES_512;
    private static final VectorSpecies<Integer> S8 = IntVector.SPECIES_256;
    private static final IntVector LO16 = IntVector.fromArray(S16, zip(16, 0), 0);
    private static final IntVector HI16 = IntVector.fromArray(S16, zip(16, 8), 0);
    private static final IntVector LO8 = IntVector.fromArray(S8, zip(8, 0), 0);
    private static final IntVector HI8 = IntVector.fromArray(S8, zip(8, 4), 0);
    /**
     * Bytes of one band of a blocked transpose (the band's rows times the shorter dimension): a
     * quarter of a 1 MiB L2, the best of 64 to 2048-element bands measured on NCHW <-> NHWC
     * [32,64,112,112] (2.5-3x the unbanded order). 0 turns banding off. An engine's
     * {@code CopyEngine.Config.transposeBandBytes}; this is its default.
     */
    public static final long BAND_BYTES = 256 << 10;
    /** 16 when 512-bit vectors are native, else 8. */
    static final int LANES = IntVector.SPECIES_PREFERRED.length() >= 16 ? 16 : 8;

    private VectorTranspose() {
    }

    /** Indices for {@code selectFrom(a, b)} interleaving lanes {@code from..} of a and b: a[f], b[f], a[f+1], ... */
    private static int[] zip(int lanes, int from) {
        int[] idx = new int[lanes];
        for (int j = 0; j < lanes; j++) {
            idx[j] = (j % 2 == 0 ? 0 : lanes) + from + j / 2;
        }
        return idx;
    }

    /**
     * Whether {@link #run} writes the destination of {@code t} in strided passes: banded, with the
     * destination's contiguous dimension the shorter one and more than one block across, so each
     * pass over a band writes one 64-byte line in every {@code 4 * na} bytes (NCHW -> NHWC). Such
     * writes gain from {@link StagedDestination}; long sequential runs do not.
     */
    static boolean writesInPasses(Task t) {
        return writesInPasses(t, BAND_BYTES);
    }

    /** As {@link #writesInPasses(Task)} with bands of {@code bandBytes} (0: unbanded). */
    static boolean writesInPasses(Task t, long bandBytes) {
        int r = t.rank();
        long na = t.count()[r - 1];
        long nb = t.count()[r - 2];
        long fa = na - na % LANES;
        long fb = nb - nb % LANES;
        // blocks16's banded branch with the passes over a: more than one block across is strided.
        return LANES == 16 && bandBytes > 0 && fa > LANES && fa <= fb;
    }

    static void run(Task t) {
        run(t, BAND_BYTES);
    }

    /** Transposes {@code t} in bands of {@code bandBytes} (0: unbanded). */
    static void run(Task t, long bandBytes) {
        if (IntVector.SPECIES_PREFERRED.length() < 8) {
            ScalarTranspose.run(t);
            return;
        }
        int lanes = LANES;
        int r = t.rank();
        long nb = t.count()[r - 2];
        long na = t.count()[r - 1];
        long db = t.dstStride()[r - 2];
        long sa = t.srcStride()[r - 1];
        long fa = na - na % lanes;
        long fb = nb - nb % lanes;
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 2);
        do {
            long s0 = o.src;
            long d0 = o.dst;
            if (lanes == 16) {
                blocks16(src, s0, sa, dst, d0, db, fa, fb, bandBytes);
            } else {
                blocks8(src, s0, sa, dst, d0, db, fa, fb);
            }
            for (long j = 0; j < nb; j++) {
                long from = j < fb ? fa : 0;
                for (long i = from; i < na; i++) {
                    dst.set(Layouts.I32, d0 + j * db + i * 4, src.get(Layouts.I32, s0 + i * sa + j * 4));
                }
            }
        } while (o.next());
    }

    /**
     * The blocks of one 2-D transpose, {@code fa} by {@code fb} elements (full blocks only), as
     * rows of blocks ({@link #run16}). The longer dimension is cut into bands of {@code bandBytes}
     * (at least 16 elements); within a band the blocks of the shorter dimension are the outer loop,
     * so each pass reads (or writes) 16 sequential rows and the band's other side stays in L2
     * across the passes. With banding off the rows of blocks run over the shorter dimension whole,
     * which is the same walk with one band as long as that dimension.
     */
    private static void blocks16(MemorySegment src, long s0, long sa, MemorySegment dst, long d0, long db, long fa,
                                 long fb, long bandBytes) {
        long band = Math.max(16, bandBytes / (4 * Math.max(1, Math.min(fa, fb))) / 16 * 16);
        // Unbanded, the rows of blocks run along the shorter side; banded, along the longer one.
        boolean rowsAlongA = (bandBytes == 0) == (fa <= fb);
        if (rowsAlongA) {
            long width = bandBytes == 0 ? fa : band;
            for (long it = 0; it < fa; it += width) {
                long ie = Math.min(it + width, fa);
                for (long jb = 0; jb < fb; jb += 16) {
                    run16(src, s0 + it * sa + jb * 4, 16 * sa, sa, dst, d0 + jb * db + it * 4, 64, db, (ie - it) / 16);
                }
            }
        } else {
            long width = bandBytes == 0 ? fb : band;
            for (long jt = 0; jt < fb; jt += width) {
                long je = Math.min(jt + width, fb);
                for (long ib = 0; ib < fa; ib += 16) {
                    run16(src, s0 + ib * sa + jt * 4, 64, sa, dst, d0 + jt * db + ib * 4, 16 * db, db, (je - jt) / 16);
                }
            }
        }
    }

    private static void blocks8(MemorySegment src, long s0, long sa, MemorySegment dst, long d0, long db, long fa,
                                 long fb) {
        if (fa <= fb) {
            for (long jb = 0; jb < fb; jb += 8) {
                for (long ib = 0; ib < fa; ib += 8) {
                    block8(src, s0 + ib * sa + jb * 4, sa, dst, d0 + jb * db + ib * 4, db);
                }
            }
        } else {
            for (long ib = 0; ib < fa; ib += 8) {
                for (long jb = 0; jb < fb; jb += 8) {
                    block8(src, s0 + ib * sa + jb * 4, sa, dst, d0 + jb * db + ib * 4, db);
                }
            }
        }
    }

    /**
     * A row of {@code n} 16x16 blocks, the {@code k}th read from {@code s + k * sStep} and written
     * to {@code d + k * dStep}, as two passes of half blocks. After the first zip round a block's
     * network falls apart in two: the low zips of each row pair feed output rows 0 to 7 only, the
     * high zips rows 8 to 15, each through three more rounds of eight vectors (pairs {@code m},
     * {@code m + 4}). Each half loads the block's rows itself, so no vector crosses a call: as one
     * method (1,360 bytecodes, 96 vector operations) C1's tier-3 compile gives up on a block ("out
     * of virtual registers in linear scan": the Vector API's calls are inlined there), and a JVM
     * that had compiled it at tier 2 first stayed in that code, at a few percent of its speed.
     * Helpers passing vectors lost C2's inlining past its node cutoff, and a vector passed to a
     * call that is not inlined is boxed. The halves are too big for C2 to inline, so each loops
     * over the row itself: one call a block per half (and the shuffle passed in as an argument)
     * ran NHWC -> NCHW at about 0.8x of the one-method block. In a band the second pass's loads
     * hit L2; unbanded, a long row may read its source twice from memory.
     */
    private static void run16(MemorySegment src, long s, long sStep, long sa, MemorySegment dst, long d, long dStep,
                              long db, long n) {
        half16(false, src, s, sStep, sa, dst, d, dStep, db, n);
        half16(true, src, s, sStep, sa, dst, d + 8 * db, dStep, db, n);
    }

    /** Output rows 0 to 7 of each block of a row (the low zip first) or 8 to 15 ({@code high}), written from {@code d}. */
    private static void half16(boolean high, MemorySegment src, long s, long sStep, long sa, MemorySegment dst, long d,
                               long dStep, long db, long n) {
        IntVector first = high ? HI16 : LO16;
        for (long k = 0; k < n; k++, s += sStep, d += dStep) {
            IntVector r0 = IntVector.fromMemorySegment(S16, src, s, ORDER);
            IntVector r1 = IntVector.fromMemorySegment(S16, src, s + 1 * sa, ORDER);
            IntVector r2 = IntVector.fromMemorySegment(S16, src, s + 2 * sa, ORDER);
            IntVector r3 = IntVector.fromMemorySegment(S16, src, s + 3 * sa, ORDER);
            IntVector r4 = IntVector.fromMemorySegment(S16, src, s + 4 * sa, ORDER);
            IntVector r5 = IntVector.fromMemorySegment(S16, src, s + 5 * sa, ORDER);
            IntVector r6 = IntVector.fromMemorySegment(S16, src, s + 6 * sa, ORDER);
            IntVector r7 = IntVector.fromMemorySegment(S16, src, s + 7 * sa, ORDER);
            IntVector r8 = IntVector.fromMemorySegment(S16, src, s + 8 * sa, ORDER);
            IntVector r9 = IntVector.fromMemorySegment(S16, src, s + 9 * sa, ORDER);
            IntVector r10 = IntVector.fromMemorySegment(S16, src, s + 10 * sa, ORDER);
            IntVector r11 = IntVector.fromMemorySegment(S16, src, s + 11 * sa, ORDER);
            IntVector r12 = IntVector.fromMemorySegment(S16, src, s + 12 * sa, ORDER);
            IntVector r13 = IntVector.fromMemorySegment(S16, src, s + 13 * sa, ORDER);
            IntVector r14 = IntVector.fromMemorySegment(S16, src, s + 14 * sa, ORDER);
            IntVector r15 = IntVector.fromMemorySegment(S16, src, s + 15 * sa, ORDER);
            IntVector a0 = first.selectFrom(r0, r8);
            IntVector a1 = first.selectFrom(r1, r9);
            IntVector a2 = first.selectFrom(r2, r10);
            IntVector a3 = first.selectFrom(r3, r11);
            IntVector a4 = first.selectFrom(r4, r12);
            IntVector a5 = first.selectFrom(r5, r13);
            IntVector a6 = first.selectFrom(r6, r14);
            IntVector a7 = first.selectFrom(r7, r15);
            IntVector b0 = LO16.selectFrom(a0, a4);
            IntVector b1 = HI16.selectFrom(a0, a4);
            IntVector b2 = LO16.selectFrom(a1, a5);
            IntVector b3 = HI16.selectFrom(a1, a5);
            IntVector b4 = LO16.selectFrom(a2, a6);
            IntVector b5 = HI16.selectFrom(a2, a6);
            IntVector b6 = LO16.selectFrom(a3, a7);
            IntVector b7 = HI16.selectFrom(a3, a7);
            IntVector c0 = LO16.selectFrom(b0, b4);
            IntVector c1 = HI16.selectFrom(b0, b4);
            IntVector c2 = LO16.selectFrom(b1, b5);
            IntVector c3 = HI16.selectFrom(b1, b5);
            IntVector c4 = LO16.selectFrom(b2, b6);
            IntVector c5 = HI16.selectFrom(b2, b6);
            IntVector c6 = LO16.selectFrom(b3, b7);
            IntVector c7 = HI16.selectFrom(b3, b7);
            IntVector x0 = LO16.selectFrom(c0, c4);
            IntVector x1 = HI16.selectFrom(c0, c4);
            IntVector x2 = LO16.selectFrom(c1, c5);
            IntVector x3 = HI16.selectFrom(c1, c5);
            IntVector x4 = LO16.selectFrom(c2, c6);
            IntVector x5 = HI16.selectFrom(c2, c6);
            IntVector x6 = LO16.selectFrom(c3, c7);
            IntVector x7 = HI16.selectFrom(c3, c7);
            x0.intoMemorySegment(dst, d, ORDER);
            x1.intoMemorySegment(dst, d + 1 * db, ORDER);
            x2.intoMemorySegment(dst, d + 2 * db, ORDER);
            x3.intoMemorySegment(dst, d + 3 * db, ORDER);
            x4.intoMemorySegment(dst, d + 4 * db, ORDER);
            x5.intoMemorySegment(dst, d + 5 * db, ORDER);
            x6.intoMemorySegment(dst, d + 6 * db, ORDER);
            x7.intoMemorySegment(dst, d + 7 * db, ORDER);
        }
    }

    private static void block8(MemorySegment src, long s, long sa, MemorySegment dst, long d, long db) {
        IntVector r0 = IntVector.fromMemorySegment(S8, src, s, ORDER);
        IntVector r1 = IntVector.fromMemorySegment(S8, src, s + 1 * sa, ORDER);
        IntVector r2 = IntVector.fromMemorySegment(S8, src, s + 2 * sa, ORDER);
        IntVector r3 = IntVector.fromMemorySegment(S8, src, s + 3 * sa, ORDER);
        IntVector r4 = IntVector.fromMemorySegment(S8, src, s + 4 * sa, ORDER);
        IntVector r5 = IntVector.fromMemorySegment(S8, src, s + 5 * sa, ORDER);
        IntVector r6 = IntVector.fromMemorySegment(S8, src, s + 6 * sa, ORDER);
        IntVector r7 = IntVector.fromMemorySegment(S8, src, s + 7 * sa, ORDER);
        IntVector a0 = LO8.selectFrom(r0, r4);
        IntVector a1 = HI8.selectFrom(r0, r4);
        IntVector a2 = LO8.selectFrom(r1, r5);
        IntVector a3 = HI8.selectFrom(r1, r5);
        IntVector a4 = LO8.selectFrom(r2, r6);
        IntVector a5 = HI8.selectFrom(r2, r6);
        IntVector a6 = LO8.selectFrom(r3, r7);
        IntVector a7 = HI8.selectFrom(r3, r7);
        IntVector b0 = LO8.selectFrom(a0, a4);
        IntVector b1 = HI8.selectFrom(a0, a4);
        IntVector b2 = LO8.selectFrom(a1, a5);
        IntVector b3 = HI8.selectFrom(a1, a5);
        IntVector b4 = LO8.selectFrom(a2, a6);
        IntVector b5 = HI8.selectFrom(a2, a6);
        IntVector b6 = LO8.selectFrom(a3, a7);
        IntVector b7 = HI8.selectFrom(a3, a7);
        IntVector c0 = LO8.selectFrom(b0, b4);
        IntVector c1 = HI8.selectFrom(b0, b4);
        IntVector c2 = LO8.selectFrom(b1, b5);
        IntVector c3 = HI8.selectFrom(b1, b5);
        IntVector c4 = LO8.selectFrom(b2, b6);
        IntVector c5 = HI8.selectFrom(b2, b6);
        IntVector c6 = LO8.selectFrom(b3, b7);
        IntVector c7 = HI8.selectFrom(b3, b7);
        c0.intoMemorySegment(dst, d, ORDER);
        c1.intoMemorySegment(dst, d + 1 * db, ORDER);
        c2.intoMemorySegment(dst, d + 2 * db, ORDER);
        c3.intoMemorySegment(dst, d + 3 * db, ORDER);
        c4.intoMemorySegment(dst, d + 4 * db, ORDER);
        c5.intoMemorySegment(dst, d + 5 * db, ORDER);
        c6.intoMemorySegment(dst, d + 6 * db, ORDER);
        c7.intoMemorySegment(dst, d + 7 * db, ORDER);
    }
}
