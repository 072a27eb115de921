package dev.tensorbuf.ops.quant.internal;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Vector API dequantization of the types most GGUF weights use (Q8_0, Q4_0, Q4_K, Q6_K): the
 * codes of 16 bytes at a time unpacked in byte lanes, widened to two 8-lane f32 vectors, then a
 * product and (K-quants with mins) a separate difference, as {@link ScalarBlocks} does per value,
 * so both give the same bits. Loaded only when {@code jdk.incubator.vector} is in the boot layer.
 */
public final class VectorBlocks {
    private static final VectorSpecies<Byte> B64 = ByteVector.SPECIES_64;
    private static final VectorSpecies<Byte> B128 = ByteVector.SPECIES_128;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_256;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_256;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final float INT_RANGE = 0x1p31f;

    private VectorBlocks() {
    }

    public static void q8_0(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        for (long b = 0; b < blocks; b++, so += 34, dOff += 128) {
            float scale = ScalarBlocks.f16(s, so);
            for (int k = 0; k < 4; k++) {
                ((FloatVector) ByteVector.fromMemorySegment(B64, s, so + 2 + 8 * k, LE).convertShape(VectorOperators.B2F, F, 0))
                        .mul(scale).intoMemorySegment(d, dOff + 32L * k, LE);
            }
        }
    }

    /** Stores 16 byte codes as floats {@code code * scale}. */
    private static void store16(ByteVector codes, float scale, MemorySegment d, long at) {
        ((FloatVector) codes.convertShape(VectorOperators.B2F, F, 0)).mul(scale).intoMemorySegment(d, at, LE);
        ((FloatVector) codes.convertShape(VectorOperators.B2F, F, 1)).mul(scale).intoMemorySegment(d, at + 32, LE);
    }

    /** Stores 16 byte codes as floats {@code code * scale - min}. */
    private static void store16(ByteVector codes, float scale, float min, MemorySegment d, long at) {
        ((FloatVector) codes.convertShape(VectorOperators.B2F, F, 0)).mul(scale).sub(min).intoMemorySegment(d, at, LE);
        ((FloatVector) codes.convertShape(VectorOperators.B2F, F, 1)).mul(scale).sub(min).intoMemorySegment(d, at + 32, LE);
    }

    public static void q4_0(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        for (long b = 0; b < blocks; b++, so += 18, dOff += 128) {
            float scale = ScalarBlocks.f16(s, so);
            ByteVector v = ByteVector.fromMemorySegment(B128, s, so + 2, LE);
            store16(v.and((byte) 0xF).sub((byte) 8), scale, d, dOff);
            store16(v.lanewise(VectorOperators.LSHR, 4).sub((byte) 8), scale, d, dOff + 64);
        }
    }

    public static void q4_K(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        float[] sc = new float[8];
        float[] mn = new float[8];
        for (long b = 0; b < blocks; b++, so += 144, dOff += 1024) {
            ScalarBlocks.scaleMin(s, so + 4, ScalarBlocks.f16(s, so), ScalarBlocks.f16(s, so + 2), sc, mn);
            for (int c = 0; c < 4; c++) {
                for (int half = 0; half < 2; half++) {
                    ByteVector v = ByteVector.fromMemorySegment(B128, s, so + 16 + 32 * c + 16 * half, LE);
                    long at = dOff + 4L * (64 * c + 16 * half);
                    store16(v.and((byte) 0xF), sc[2 * c], mn[2 * c], d, at);
                    store16(v.lanewise(VectorOperators.LSHR, 4), sc[2 * c + 1], mn[2 * c + 1], d, at + 128);
                }
            }
        }
    }

    public static void q6_K(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        float[] dl = new float[16];
        for (long b = 0; b < blocks; b++, so += 210, dOff += 1024) {
            float scale = ScalarBlocks.f16(s, so + 208);
            for (int g = 0; g < 16; g++) {
                dl[g] = scale * (float) s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, so + 192 + g);
            }
            for (int t = 0; t < 8; t++) {
                int h = t >> 2;
                int lowShift = 4 * ((t & 3) >> 1);
                int highShift = 2 * (t & 3);
                for (int half = 0; half < 2; half++) {
                    ByteVector ql = ByteVector.fromMemorySegment(B128, s, so + 64 * h + 32 * (t & 1) + 16 * half, LE)
                            .lanewise(VectorOperators.LSHR, lowShift).and((byte) 0xF);
                    ByteVector qh = ByteVector.fromMemorySegment(B128, s, so + 128 + 32 * h + 16 * half, LE)
                            .lanewise(VectorOperators.LSHR, highShift).and((byte) 3).lanewise(VectorOperators.LSHL, 4);
                    store16(ql.or(qh).sub((byte) 32), dl[2 * t + half], d, dOff + 4L * (32 * t + 16 * half));
                }
            }
        }
    }

    /**
     * f32 -> Q8_0 as {@link ScalarBlocks#quantizeQ8_0}: the largest magnitude by a lane-wise then
     * a cross-lane max (both {@code Math.max}, so a NaN wins as NumPy's {@code max} lets it), and
     * {@code np_roundf} as {@code floor(|v|) + (|v| - floor(|v|) >= 0.5)}, exact because
     * {@code floor(2 f)} of a fraction {@code f} in [0, 1) is 1 exactly when {@code f >= 0.5}.
     */
    public static void quantizeQ8_0(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        for (long b = 0; b < blocks; b++, so += 128, dOff += 34) {
            FloatVector x0 = FloatVector.fromMemorySegment(F, s, so, LE);
            FloatVector x1 = FloatVector.fromMemorySegment(F, s, so + 32, LE);
            FloatVector x2 = FloatVector.fromMemorySegment(F, s, so + 64, LE);
            FloatVector x3 = FloatVector.fromMemorySegment(F, s, so + 96, LE);
            float amax = x0.abs().max(x1.abs()).max(x2.abs().max(x3.abs())).reduceLanes(VectorOperators.MAX);
            float scale = amax / 127f;
            float inverse = scale == 0 ? 0 : 1f / scale;
            d.set(ScalarBlocks.F16, dOff, Float.floatToFloat16(scale));
            roundToBytes(x0.mul(inverse), d, dOff + 2);
            roundToBytes(x1.mul(inverse), d, dOff + 10);
            roundToBytes(x2.mul(inverse), d, dOff + 18);
            roundToBytes(x3.mul(inverse), d, dOff + 26);
        }
    }

    /** Stores {@code np_roundf(v)} cast as x86 casts (out of the int range or NaN: code 0) to 8 int8 codes. */
    private static void roundToBytes(FloatVector v, MemorySegment d, long at) {
        FloatVector a = v.abs();
        // a below 2^31 (NaN is not): the truncating cast is floor, and the rounded value fits an int.
        VectorMask<Float> inRange = a.lt(INT_RANGE);
        FloatVector floored = (FloatVector) a.convert(VectorOperators.F2I, 0).convert(VectorOperators.I2F, 0);
        FloatVector rounded = floored.add(1f, a.sub(floored).compare(VectorOperators.GE, 0.5f));
        rounded = rounded.lanewise(VectorOperators.NEG, v.lt(0f));
        IntVector codes = ((IntVector) rounded.convert(VectorOperators.F2I, 0)).blend(0, inRange.not().cast(I));
        codes.convertShape(VectorOperators.I2B, B64, 0).intoMemorySegment(d, at, LE);
    }

    /**
     * f32 -> Q4_0 as {@link ScalarBlocks#quantizeQ4_0}: the scale is the first value whose
     * magnitude is the block's largest (or its first NaN, as NumPy's {@code argmax} picks), over -8.
     */
    public static void quantizeQ4_0(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        for (long b = 0; b < blocks; b++, so += 128, dOff += 18) {
            FloatVector x0 = FloatVector.fromMemorySegment(F, s, so, LE);
            FloatVector x1 = FloatVector.fromMemorySegment(F, s, so + 32, LE);
            FloatVector x2 = FloatVector.fromMemorySegment(F, s, so + 64, LE);
            FloatVector x3 = FloatVector.fromMemorySegment(F, s, so + 96, LE);
            float amax = x0.abs().max(x1.abs()).max(x2.abs().max(x3.abs())).reduceLanes(VectorOperators.MAX);
            int first = first(amax, x0, x1, x2, x3);
            float max = s.get(ScalarBlocks.F32, so + 4L * first);
            float scale = max / -8f;
            float inverse = scale == 0 ? 0 : 1f / scale;
            d.set(ScalarBlocks.F16, dOff, Float.floatToFloat16(scale));
            IntVector c0 = nibbles(x0, inverse);
            IntVector c1 = nibbles(x1, inverse);
            IntVector c2 = nibbles(x2, inverse);
            IntVector c3 = nibbles(x3, inverse);
            c0.or(c2.lanewise(VectorOperators.LSHL, 4)).convertShape(VectorOperators.I2B, B64, 0)
                    .intoMemorySegment(d, dOff + 2, LE);
            c1.or(c3.lanewise(VectorOperators.LSHL, 4)).convertShape(VectorOperators.I2B, B64, 0)
                    .intoMemorySegment(d, dOff + 10, LE);
        }
    }

    /** {@code trunc(x * inverse + 8.5)} cast to a byte as x86 casts, then clipped to 15. */
    private static IntVector nibbles(FloatVector x, float inverse) {
        FloatVector t = x.mul(inverse).add(8.5f);
        VectorMask<Integer> outOfRange = t.abs().lt(INT_RANGE).not().cast(I);
        return ((IntVector) t.convert(VectorOperators.F2I, 0)).and(0xFF).min(15).blend(0, outOfRange);
    }

    /** {@return the first lane, counting across the four vectors, whose magnitude is {@code amax}, or that is NaN when it is} */
    private static int first(float amax, FloatVector x0, FloatVector x1, FloatVector x2, FloatVector x3) {
        boolean nan = Float.isNaN(amax);
        VectorMask<Float> m = nan ? x0.test(VectorOperators.IS_NAN) : x0.abs().eq(amax);
        if (m.anyTrue()) {
            return m.firstTrue();
        }
        m = nan ? x1.test(VectorOperators.IS_NAN) : x1.abs().eq(amax);
        if (m.anyTrue()) {
            return 8 + m.firstTrue();
        }
        m = nan ? x2.test(VectorOperators.IS_NAN) : x2.abs().eq(amax);
        if (m.anyTrue()) {
            return 16 + m.firstTrue();
        }
        m = nan ? x3.test(VectorOperators.IS_NAN) : x3.abs().eq(amax);
        return 24 + m.firstTrue();
    }
}
