package dev.tensorbuf.ops.copy.internal;

import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * {@link dev.tensorbuf.ops.copy.internal.Kernel#CONVERT_PAIR_INTERLEAVE} and
 * {@link dev.tensorbuf.ops.copy.internal.Kernel#CONVERT_PAIR_DEINTERLEAVE} with the Vector API. A
 * {@code (2,1)} word holds the even row's bf16 in its low half and the odd row's in its high half,
 * and a bf16 is the high half of its f32, so both directions work on int lanes with no shuffle:
 * one load per row per vector of columns, rounding as {@link ConvertKernel#bf16(float)} does (the
 * same integer sum, NaN replaced by the quiet NaN with its sign), then a mask and a shift.
 */
final class VectorBf16Pairs {
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final VectorSpecies<Integer> INTS = IntVector.SPECIES_PREFERRED;
    private static final int HIGH = 0xffff_0000;

    private VectorBf16Pairs() {
    }

    /** Loops {@code [..., columns (n, 4 bytes, 4 bytes), rows (2, row bytes, 2 bytes)]}: f32 rows to bf16 words. */
    static void pack(Task t) {
        int r = t.rank();
        long n = t.count()[r - 2];
        long odd = t.srcStride()[r - 1];
        int lanes = INTS.length();
        long whole = n - n % lanes;
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 2);
        do {
            long s0 = o.src;
            long d0 = o.dst;
            for (long j = 0; j < whole; j += lanes) {
                IntVector lo = rounded(IntVector.fromMemorySegment(INTS, src, s0 + j * 4, ORDER));
                IntVector hi = rounded(IntVector.fromMemorySegment(INTS, src, s0 + odd + j * 4, ORDER));
                hi.and(HIGH).or(lo.lanewise(VectorOperators.LSHR, 16)).intoMemorySegment(dst, d0 + j * 4, ORDER);
            }
            Bf16Pairs.packColumns(src, s0, odd, dst, d0, whole, n);
        } while (o.next());
    }

    /** Loops {@code [..., rows (2, 2 bytes, row bytes), columns (n, 4 bytes, 4 bytes)]}: bf16 words to f32 rows. */
    static void unpack(Task t) {
        int r = t.rank();
        long n = t.count()[r - 1];
        long odd = t.dstStride()[r - 2];
        int lanes = INTS.length();
        long whole = n - n % lanes;
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 2);
        do {
            long s0 = o.src;
            long d0 = o.dst;
            for (long j = 0; j < whole; j += lanes) {
                IntVector w = IntVector.fromMemorySegment(INTS, src, s0 + j * 4, ORDER);
                w.lanewise(VectorOperators.LSHL, 16).intoMemorySegment(dst, d0 + j * 4, ORDER);
                w.and(HIGH).intoMemorySegment(dst, d0 + odd + j * 4, ORDER);
            }
            Bf16Pairs.unpackColumns(src, s0, dst, d0, odd, whole, n);
        } while (o.next());
    }

    /** The f32 bits rounded to nearest even at bit 16 (the bf16 is the high half); NaN to sign | 0x7fc0. */
    private static IntVector rounded(IntVector bits) {
        IntVector sum = bits.add(bits.lanewise(VectorOperators.LSHR, 16).and(1)).add(0x7fff);
        VectorMask<Integer> nan = bits.and(0x7fff_ffff).compare(VectorOperators.GT, 0x7f80_0000);
        return sum.blend(bits.and(0x8000_0000).or(0x7fc0_0000), nan);
    }
}
