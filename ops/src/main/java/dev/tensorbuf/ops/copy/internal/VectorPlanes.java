package dev.tensorbuf.ops.copy.internal;

import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * {@link dev.tensorbuf.ops.copy.internal.Kernel#INTERLEAVE} and {@link dev.tensorbuf.ops.copy.internal.Kernel#DEINTERLEAVE}
 * with the Vector API, for {@code C} = 2, 3 or 4 planes of 4-byte elements (NCHW <-> NHWC with
 * few channels). A block is one vector per plane ({@code L} pixels) on one side and {@code C}
 * consecutive vectors on the other; each output vector is assembled by {@code C - 1} chained
 * two-vector {@code selectFrom} shuffles (the first picks lanes from two inputs, each later one
 * adds the lanes of one more input and keeps the rest). A run that is not a multiple of
 * {@code L} ends with one block overlapping the previous one, so no scalar tail runs unless the
 * run is shorter than {@code L}. One method per plane count keeps every shuffle table a constant.
 */
final class VectorPlanes {
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final VectorSpecies<Integer> S = IntVector.SPECIES_PREFERRED;
    private static final int L = S.length();

    private static final IntVector I2_0_0 = table(true, 2, 0, 0);
    private static final IntVector I2_1_0 = table(true, 2, 1, 0);
    private static final IntVector D2_0_0 = table(false, 2, 0, 0);
    private static final IntVector D2_1_0 = table(false, 2, 1, 0);
    private static final IntVector I3_0_0 = table(true, 3, 0, 0);
    private static final IntVector I3_0_1 = table(true, 3, 0, 1);
    private static final IntVector I3_1_0 = table(true, 3, 1, 0);
    private static final IntVector I3_1_1 = table(true, 3, 1, 1);
    private static final IntVector I3_2_0 = table(true, 3, 2, 0);
    private static final IntVector I3_2_1 = table(true, 3, 2, 1);
    private static final IntVector D3_0_0 = table(false, 3, 0, 0);
    private static final IntVector D3_0_1 = table(false, 3, 0, 1);
    private static final IntVector D3_1_0 = table(false, 3, 1, 0);
    private static final IntVector D3_1_1 = table(false, 3, 1, 1);
    private static final IntVector D3_2_0 = table(false, 3, 2, 0);
    private static final IntVector D3_2_1 = table(false, 3, 2, 1);
    private static final IntVector I4_0_0 = table(true, 4, 0, 0);
    private static final IntVector I4_0_1 = table(true, 4, 0, 1);
    private static final IntVector I4_0_2 = table(true, 4, 0, 2);
    private static final IntVector I4_1_0 = table(true, 4, 1, 0);
    private static final IntVector I4_1_1 = table(true, 4, 1, 1);
    private static final IntVector I4_1_2 = table(true, 4, 1, 2);
    private static final IntVector I4_2_0 = table(true, 4, 2, 0);
    private static final IntVector I4_2_1 = table(true, 4, 2, 1);
    private static final IntVector I4_2_2 = table(true, 4, 2, 2);
    private static final IntVector I4_3_0 = table(true, 4, 3, 0);
    private static final IntVector I4_3_1 = table(true, 4, 3, 1);
    private static final IntVector I4_3_2 = table(true, 4, 3, 2);
    private static final IntVector D4_0_0 = table(false, 4, 0, 0);
    private static final IntVector D4_0_1 = table(false, 4, 0, 1);
    private static final IntVector D4_0_2 = table(false, 4, 0, 2);
    private static final IntVector D4_1_0 = table(false, 4, 1, 0);
    private static final IntVector D4_1_1 = table(false, 4, 1, 1);
    private static final IntVector D4_1_2 = table(false, 4, 1, 2);
    private static final IntVector D4_2_0 = table(false, 4, 2, 0);
    private static final IntVector D4_2_1 = table(false, 4, 2, 1);
    private static final IntVector D4_2_2 = table(false, 4, 2, 2);
    private static final IntVector D4_3_0 = table(false, 4, 3, 0);
    private static final IntVector D4_3_1 = table(false, 4, 3, 1);
    private static final IntVector D4_3_2 = table(false, 4, 3, 2);

    private VectorPlanes() {
    }

    /**
     * The shuffle indices of one step. Interleave: output vector {@code k} lane {@code j} is
     * element {@code g = kL + j} of the interleaved block, pixel {@code g / C} of plane
     * {@code g % C}. De-interleave: output plane {@code k} lane {@code p} is element
     * {@code pC + k} of the interleaved block, lane {@code (pC + k) % L} of input
     * {@code (pC + k) / L}. Step 0 picks from inputs 0 and 1; step {@code s > 0} keeps its first
     * operand's lane or takes input {@code s + 1}'s.
     */
    private static IntVector table(boolean interleave, int c, int k, int step) {
        int[] idx = new int[L];
        for (int j = 0; j < L; j++) {
            int input;
            int lane;
            if (interleave) {
                int g = k * L + j;
                input = g % c;
                lane = g / c;
            } else {
                int g = j * c + k;
                input = g / L;
                lane = g % L;
            }
            if (step == 0) {
                idx[j] = input == 0 ? lane : input == 1 ? L + lane : 0;
            } else {
                idx[j] = input == step + 1 ? L + lane : j;
            }
        }
        return IntVector.fromArray(S, idx, 0);
    }

    /** Loops {@code [.., pixels (src 4 bytes, dst 4C), planes (count C, src plane stride, dst 4)]}. */
    static void interleave(Task t) {
        int r = t.rank();
        switch ((int) t.count()[r - 1]) {
            case 2 -> interleave2(t);
            case 3 -> interleave3(t);
            case 4 -> interleave4(t);
            default -> ElementKernel.run4(t);
        }
    }

    /** Loops {@code [.., planes (count C, src 4 bytes, dst plane stride), pixels (src 4C, dst 4)]}. */
    static void deinterleave(Task t) {
        int r = t.rank();
        switch ((int) t.count()[r - 2]) {
            case 2 -> deinterleave2(t);
            case 3 -> deinterleave3(t);
            case 4 -> deinterleave4(t);
            default -> ElementKernel.run4(t);
        }
    }

    private static void interleave2(Task t) {
        int r = t.rank();
        long n = t.count()[r - 2];
        long plane = t.srcStride()[r - 1];
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 2);
        do {
            long s = o.src;
            long d = o.dst;
            if (n < L) {
                scalarInterleave(src, s, plane, dst, d, 0, n, 2);
                continue;
            }
            for (long p = 0; ; p += L) {
                if (p > n - L) {
                    if (p == n) {
                        break;
                    }
                    p = n - L;
                }
                IntVector p0 = IntVector.fromMemorySegment(S, src, s + p * 4, ORDER);
                IntVector p1 = IntVector.fromMemorySegment(S, src, s + plane + p * 4, ORDER);
                long q = d + p * 8;
                I2_0_0.selectFrom(p0, p1).intoMemorySegment(dst, q, ORDER);
                I2_1_0.selectFrom(p0, p1).intoMemorySegment(dst, q + 4L * L, ORDER);
            }
        } while (o.next());
    }

    private static void interleave3(Task t) {
        int r = t.rank();
        long n = t.count()[r - 2];
        long plane = t.srcStride()[r - 1];
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 2);
        do {
            long s = o.src;
            long d = o.dst;
            if (n < L) {
                scalarInterleave(src, s, plane, dst, d, 0, n, 3);
                continue;
            }
            for (long p = 0; ; p += L) {
                if (p > n - L) {
                    if (p == n) {
                        break;
                    }
                    p = n - L;
                }
                IntVector p0 = IntVector.fromMemorySegment(S, src, s + p * 4, ORDER);
                IntVector p1 = IntVector.fromMemorySegment(S, src, s + plane + p * 4, ORDER);
                IntVector p2 = IntVector.fromMemorySegment(S, src, s + 2 * plane + p * 4, ORDER);
                long q = d + p * 12;
                I3_0_1.selectFrom(I3_0_0.selectFrom(p0, p1), p2).intoMemorySegment(dst, q, ORDER);
                I3_1_1.selectFrom(I3_1_0.selectFrom(p0, p1), p2).intoMemorySegment(dst, q + 4L * L, ORDER);
                I3_2_1.selectFrom(I3_2_0.selectFrom(p0, p1), p2).intoMemorySegment(dst, q + 8L * L, ORDER);
            }
        } while (o.next());
    }

    private static void interleave4(Task t) {
        int r = t.rank();
        long n = t.count()[r - 2];
        long plane = t.srcStride()[r - 1];
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 2);
        do {
            long s = o.src;
            long d = o.dst;
            if (n < L) {
                scalarInterleave(src, s, plane, dst, d, 0, n, 4);
                continue;
            }
            for (long p = 0; ; p += L) {
                if (p > n - L) {
                    if (p == n) {
                        break;
                    }
                    p = n - L;
                }
                IntVector p0 = IntVector.fromMemorySegment(S, src, s + p * 4, ORDER);
                IntVector p1 = IntVector.fromMemorySegment(S, src, s + plane + p * 4, ORDER);
                IntVector p2 = IntVector.fromMemorySegment(S, src, s + 2 * plane + p * 4, ORDER);
                IntVector p3 = IntVector.fromMemorySegment(S, src, s + 3 * plane + p * 4, ORDER);
                long q = d + p * 16;
                I4_0_2.selectFrom(I4_0_1.selectFrom(I4_0_0.selectFrom(p0, p1), p2), p3).intoMemorySegment(dst, q, ORDER);
                I4_1_2.selectFrom(I4_1_1.selectFrom(I4_1_0.selectFrom(p0, p1), p2), p3).intoMemorySegment(dst, q + 4L * L, ORDER);
                I4_2_2.selectFrom(I4_2_1.selectFrom(I4_2_0.selectFrom(p0, p1), p2), p3).intoMemorySegment(dst, q + 8L * L, ORDER);
                I4_3_2.selectFrom(I4_3_1.selectFrom(I4_3_0.selectFrom(p0, p1), p2), p3).intoMemorySegment(dst, q + 12L * L, ORDER);
            }
        } while (o.next());
    }

    private static void deinterleave2(Task t) {
        int r = t.rank();
        long n = t.count()[r - 1];
        long plane = t.dstStride()[r - 2];
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 2);
        do {
            long s = o.src;
            long d = o.dst;
            if (n < L) {
                scalarDeinterleave(src, s, dst, d, plane, 0, n, 2);
                continue;
            }
            for (long p = 0; ; p += L) {
                if (p > n - L) {
                    if (p == n) {
                        break;
                    }
                    p = n - L;
                }
                long q = s + p * 8;
                IntVector v0 = IntVector.fromMemorySegment(S, src, q, ORDER);
                IntVector v1 = IntVector.fromMemorySegment(S, src, q + 4L * L, ORDER);
                D2_0_0.selectFrom(v0, v1).intoMemorySegment(dst, d + p * 4, ORDER);
                D2_1_0.selectFrom(v0, v1).intoMemorySegment(dst, d + plane + p * 4, ORDER);
            }
        } while (o.next());
    }

    private static void deinterleave3(Task t) {
        int r = t.rank();
        long n = t.count()[r - 1];
        long plane = t.dstStride()[r - 2];
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 2);
        do {
            long s = o.src;
            long d = o.dst;
            if (n < L) {
                scalarDeinterleave(src, s, dst, d, plane, 0, n, 3);
                continue;
            }
            for (long p = 0; ; p += L) {
                if (p > n - L) {
                    if (p == n) {
                        break;
                    }
                    p = n - L;
                }
                long q = s + p * 12;
                IntVector v0 = IntVector.fromMemorySegment(S, src, q, ORDER);
                IntVector v1 = IntVector.fromMemorySegment(S, src, q + 4L * L, ORDER);
                IntVector v2 = IntVector.fromMemorySegment(S, src, q + 8L * L, ORDER);
                D3_0_1.selectFrom(D3_0_0.selectFrom(v0, v1), v2).intoMemorySegment(dst, d + p * 4, ORDER);
                D3_1_1.selectFrom(D3_1_0.selectFrom(v0, v1), v2).intoMemorySegment(dst, d + plane + p * 4, ORDER);
                D3_2_1.selectFrom(D3_2_0.selectFrom(v0, v1), v2).intoMemorySegment(dst, d + 2 * plane + p * 4, ORDER);
            }
        } while (o.next());
    }

    private static void deinterleave4(Task t) {
        int r = t.rank();
        long n = t.count()[r - 1];
        long plane = t.dstStride()[r - 2];
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 2);
        do {
            long s = o.src;
            long d = o.dst;
            if (n < L) {
                scalarDeinterleave(src, s, dst, d, plane, 0, n, 4);
                continue;
            }
            for (long p = 0; ; p += L) {
                if (p > n - L) {
                    if (p == n) {
                        break;
                    }
                    p = n - L;
                }
                long q = s + p * 16;
                IntVector v0 = IntVector.fromMemorySegment(S, src, q, ORDER);
                IntVector v1 = IntVector.fromMemorySegment(S, src, q + 4L * L, ORDER);
                IntVector v2 = IntVector.fromMemorySegment(S, src, q + 8L * L, ORDER);
                IntVector v3 = IntVector.fromMemorySegment(S, src, q + 12L * L, ORDER);
                D4_0_2.selectFrom(D4_0_1.selectFrom(D4_0_0.selectFrom(v0, v1), v2), v3).intoMemorySegment(dst, d + p * 4, ORDER);
                D4_1_2.selectFrom(D4_1_1.selectFrom(D4_1_0.selectFrom(v0, v1), v2), v3).intoMemorySegment(dst, d + plane + p * 4, ORDER);
                D4_2_2.selectFrom(D4_2_1.selectFrom(D4_2_0.selectFrom(v0, v1), v2), v3).intoMemorySegment(dst, d + 2 * plane + p * 4, ORDER);
                D4_3_2.selectFrom(D4_3_1.selectFrom(D4_3_0.selectFrom(v0, v1), v2), v3).intoMemorySegment(dst, d + 3 * plane + p * 4, ORDER);
            }
        } while (o.next());
    }

    private static void scalarInterleave(MemorySegment src, long s, long plane, MemorySegment dst, long d, long from,
                                         long to, int c) {
        for (long p = from; p < to; p++) {
            for (int k = 0; k < c; k++) {
                dst.set(Layouts.I32, d + (p * c + k) * 4, src.get(Layouts.I32, s + k * plane + p * 4));
            }
        }
    }

    private static void scalarDeinterleave(MemorySegment src, long s, MemorySegment dst, long d, long plane, long from,
                                           long to, int c) {
        for (long p = from; p < to; p++) {
            for (int k = 0; k < c; k++) {
                dst.set(Layouts.I32, d + k * plane + p * 4, src.get(Layouts.I32, s + (p * c + k) * 4));
            }
        }
    }
}
