package dev.tensorbuf.ops.quant.internal;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
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
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

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
}
