package dev.tensorbuf.ops.quant.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * Vector API dequantization of the types GGUF weights use (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 and the
 * K-quants Q2_K to Q6_K): the 32-value types' codes 8 bytes at a time unpacked in byte lanes, each
 * widened to an 8-lane f32 vector; the K-quants but Q4_K gather a block's codes into bytes first
 * with constant shifts in int lanes, then widen a vector at a time. Then a product and (types with
 * mins) a separate sum or difference, as {@link ScalarBlocks} does per value, so both give the
 * same bits (Q6_K also writes bf16 itself: {@link #q6_KBf16}). Loaded only when
 * {@code jdk.incubator.vector} is in the boot layer.
 */
public final class VectorBlocks {
    private static final VectorSpecies<Byte> B64 = ByteVector.SPECIES_64;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_256;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_256;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final float INT_RANGE = 0x1p31f;
    /**
     * The widest floats of 8 or 16 lanes (a Q6_K sub-block is 16 values under one scale), with
     * bytes and shorts of as many lanes.
     */
    private static final VectorSpecies<Float> FW = FloatVector.SPECIES_PREFERRED.length() == 16
            ? FloatVector.SPECIES_PREFERRED : FloatVector.SPECIES_256;
    private static final VectorSpecies<Byte> BW = VectorSpecies.of(byte.class, VectorShape.forBitSize(FW.length() * 8));
    private static final VectorSpecies<Short> SW = VectorSpecies.of(short.class, VectorShape.forBitSize(FW.length() * 16));
    /** Shorts of two {@link #FW} vectors of ints, and the indexes of their high halves (1, 3, 5, ...). */
    private static final VectorSpecies<Short> SW2 = VectorSpecies.of(short.class, VectorShape.forBitSize(FW.length() * 32));
    private static final ShortVector HIGH_HALVES = ShortVector.fromArray(SW2, highHalves(SW2.length()), 0);
    private static final boolean PAIRS = FW.length() == 16;
    /** MXFP4's 16 code values in {@link #BW}'s lanes (the first 16 where it has more), for {@link #mxfp4}. */
    private static final ByteVector MXFP4_VALUES = ByteVector.fromArray(BW, java.util.Arrays.copyOf(
            new byte[] {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12}, Math.max(16, BW.length())), 0);

    /**
     * The class of native segments, mapped ones included (a subclass that inherits how they are
     * read). Every kernel casts its segments to it first, so C2 knows them native from our code
     * and not from the type profile of the JDK methods all Vector API segment loads and stores go
     * through: that profile is the JVM's, and the JDK's own fallback for a vector reinterpret
     * ({@code AbstractVector.defaultReinterpret}, run before C2 compiles a kernel that uses one)
     * stores into a heap segment through it. With a heap segment in that profile, a kernel C2
     * compiled afterwards ran at half speed (Q8_0 -> f32 at 0.5 of {@code MemorySegment.copy}
     * after Q6_K -> bf16 had run, 1.2 before). {@link BlockKernels} gives these kernels native
     * segments only.
     */
    static final Class<? extends MemorySegment> NATIVE = MemorySegment.NULL.getClass();

    /**
     * A thread's Q6_K block codes ({@link #q6Codes}), in native memory on a 64-byte boundary, where
     * a heap {@code byte[256]} (one per call) started wherever the allocator put it, so its 32-byte
     * stores and 16-byte loads crossed cache lines or not. Measured in turns with the heap array
     * (pairs of JVMs, one engine thread, {@code GgufSideBySide Q6_K:bf16}, load 18-24 on 2 cores):
     * 40-66 ms of CPU per 128 Mi values against 83-110 in all 10 pairs, either build first. The heap array's
     * times also jumped between about 40 and 90 ms inside one JVM with no compilation in between,
     * which the JIT's order cannot explain; where each block's codes sit can.
     */
    private static final ThreadLocal<MemorySegment> CODES = ThreadLocal.withInitial(() -> java.lang.foreign.Arena.ofAuto()
            .allocate(256, 64));

    /** For each byte, 8 lanes holding its bits one a lane (bit l in lane l) as 0 or 16: Q5_0's and Q5_1's fifth bits. */
    private static final byte[] FIFTH_BITS = new byte[256 * 8];

    static {
        for (int e = 0; e < 256; e++) {
            for (int l = 0; l < 8; l++) {
                FIFTH_BITS[8 * e + l] = (byte) (((e >> l) & 1) << 4);
            }
        }
    }

    private VectorBlocks() {
    }

    private static short[] highHalves(int n) {
        short[] idx = new short[n];
        for (int i = 0; i < n; i++) {
            idx[i] = (short) (2 * i + 1);
        }
        return idx;
    }

    public static void q8_0(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        s = NATIVE.cast(s);
        d = NATIVE.cast(d);
        for (long b = 0; b < blocks; b++, so += 34, dOff += 128) {
            float scale = ScalarBlocks.f16(s, so);
            for (int k = 0; k < 4; k++) {
                ((FloatVector) ByteVector.fromMemorySegment(B64, s, so + 2 + 8 * k, LE).convertShape(VectorOperators.B2F, F, 0))
                        .mul(scale).intoMemorySegment(d, dOff + 32L * k, LE);
            }
        }
    }

    /*
     * Q4_0 and Q4_K read 8 bytes at a time, each widened in one part-0 convert as Q8_0's are: a
     * part-1 convert of 16 bytes is a slice (an iota shuffle, a compare, a blend) before the cast,
     * whose compiled code varied with the JIT's order (Q4_K at 0.5-1.0 of MemorySegment.copy
     * after Q4_0, from run to run of the same order). No helper takes a vector, so none is boxed
     * where C2 does not inline it.
     */
    public static void q4_0(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        s = NATIVE.cast(s);
        d = NATIVE.cast(d);
        for (long b = 0; b < blocks; b++, so += 18, dOff += 128) {
            float scale = ScalarBlocks.f16(s, so);
            for (int k = 0; k < 2; k++) {
                ByteVector v = ByteVector.fromMemorySegment(B64, s, so + 2 + 8 * k, LE);
                ((FloatVector) v.and((byte) 0xF).sub((byte) 8).convertShape(VectorOperators.B2F, F, 0)).mul(scale)
                        .intoMemorySegment(d, dOff + 32L * k, LE);
                ((FloatVector) v.lanewise(VectorOperators.LSHR, 4).sub((byte) 8).convertShape(VectorOperators.B2F, F, 0))
                        .mul(scale).intoMemorySegment(d, dOff + 64 + 32L * k, LE);
            }
        }
    }

    public static void q4_K(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        s = NATIVE.cast(s);
        d = NATIVE.cast(d);
        for (long b = 0; b < blocks; b++, so += 144, dOff += 1024) {
            float scale = ScalarBlocks.f16(s, so);
            float dmin = ScalarBlocks.f16(s, so + 2);
            for (int c = 0; c < 4; c++) {
                float lowScale = ScalarBlocks.groupScale(s, so + 4, scale, 2 * c);
                float lowMin = ScalarBlocks.groupMin(s, so + 4, dmin, 2 * c);
                float highScale = ScalarBlocks.groupScale(s, so + 4, scale, 2 * c + 1);
                float highMin = ScalarBlocks.groupMin(s, so + 4, dmin, 2 * c + 1);
                for (int k = 0; k < 4; k++) {
                    ByteVector v = ByteVector.fromMemorySegment(B64, s, so + 16 + 32 * c + 8 * k, LE);
                    long at = dOff + 4L * (64 * c + 8 * k);
                    ((FloatVector) v.and((byte) 0xF).convertShape(VectorOperators.B2F, F, 0)).mul(lowScale).sub(lowMin)
                            .intoMemorySegment(d, at, LE);
                    ((FloatVector) v.lanewise(VectorOperators.LSHR, 4).convertShape(VectorOperators.B2F, F, 0))
                            .mul(highScale).sub(highMin).intoMemorySegment(d, at + 128, LE);
                }
            }
        }
    }

    /** Q4_1: Q4_0's nibbles, unsigned, times the scale plus the block's min. */
    public static void q4_1(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        s = NATIVE.cast(s);
        d = NATIVE.cast(d);
        for (long b = 0; b < blocks; b++, so += 20, dOff += 128) {
            float scale = ScalarBlocks.f16(s, so);
            float min = ScalarBlocks.f16(s, so + 2);
            if (Float.isNaN(min)) {
                nanBlock(min, d, dOff);
                continue;
            }
            for (int k = 0; k < 2; k++) {
                ByteVector v = ByteVector.fromMemorySegment(B64, s, so + 4 + 8 * k, LE);
                ((FloatVector) v.and((byte) 0xF).convertShape(VectorOperators.B2F, F, 0)).mul(scale).add(min)
                        .intoMemorySegment(d, dOff + 32L * k, LE);
                ((FloatVector) v.lanewise(VectorOperators.LSHR, 4).convertShape(VectorOperators.B2F, F, 0)).mul(scale)
                        .add(min).intoMemorySegment(d, dOff + 64 + 32L * k, LE);
            }
        }
    }

    /** Fills a 32-value block with {@link ScalarBlocks#nanMin}'s NaN. */
    private static void nanBlock(float min, MemorySegment d, long dOff) {
        d = NATIVE.cast(d);
        IntVector v = IntVector.broadcast(I, ScalarBlocks.nanMin(min));
        for (int k = 0; k < 4; k++) {
            v.intoMemorySegment(d, dOff + 32L * k, LE);
        }
    }

    /**
     * Q5_0: Q4_0's nibbles with a fifth bit from the block's 32-bit qh, one bit a value, spread
     * into 8 byte lanes by a table ({@link #FIFTH_BITS}): a byte's bits land one a lane with no
     * byte shift by a count that varies with the lane, which C2 does not compile on x86.
     */
    public static void q5_0(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        s = NATIVE.cast(s);
        d = NATIVE.cast(d);
        for (long b = 0; b < blocks; b++, so += 22, dOff += 128) {
            float scale = ScalarBlocks.f16(s, so);
            int qh = s.get(ScalarBlocks.U32, so + 2);
            for (int k = 0; k < 2; k++) {
                ByteVector v = ByteVector.fromMemorySegment(B64, s, so + 6 + 8 * k, LE);
                ByteVector low = ByteVector.fromArray(B64, FIFTH_BITS, 8 * ((qh >>> (8 * k)) & 0xFF));
                ByteVector high = ByteVector.fromArray(B64, FIFTH_BITS, 8 * ((qh >>> (8 * k + 16)) & 0xFF));
                ((FloatVector) v.and((byte) 0xF).or(low).sub((byte) 16).convertShape(VectorOperators.B2F, F, 0)).mul(scale)
                        .intoMemorySegment(d, dOff + 32L * k, LE);
                ((FloatVector) v.lanewise(VectorOperators.LSHR, 4).or(high).sub((byte) 16).convertShape(VectorOperators.B2F, F, 0))
                        .mul(scale).intoMemorySegment(d, dOff + 64 + 32L * k, LE);
            }
        }
    }

    /** Q5_1: {@link #q5_0}'s codes, unsigned, times the scale plus the block's min. */
    public static void q5_1(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        s = NATIVE.cast(s);
        d = NATIVE.cast(d);
        for (long b = 0; b < blocks; b++, so += 24, dOff += 128) {
            float scale = ScalarBlocks.f16(s, so);
            float min = ScalarBlocks.f16(s, so + 2);
            if (Float.isNaN(min)) {
                nanBlock(min, d, dOff);
                continue;
            }
            int qh = s.get(ScalarBlocks.U32, so + 4);
            for (int k = 0; k < 2; k++) {
                ByteVector v = ByteVector.fromMemorySegment(B64, s, so + 8 + 8 * k, LE);
                ByteVector low = ByteVector.fromArray(B64, FIFTH_BITS, 8 * ((qh >>> (8 * k)) & 0xFF));
                ByteVector high = ByteVector.fromArray(B64, FIFTH_BITS, 8 * ((qh >>> (8 * k + 16)) & 0xFF));
                ((FloatVector) v.and((byte) 0xF).or(low).convertShape(VectorOperators.B2F, F, 0)).mul(scale).add(min)
                        .intoMemorySegment(d, dOff + 32L * k, LE);
                ((FloatVector) v.lanewise(VectorOperators.LSHR, 4).or(high).convertShape(VectorOperators.B2F, F, 0))
                        .mul(scale).add(min).intoMemorySegment(d, dOff + 64 + 32L * k, LE);
            }
        }
    }

    /**
     * MXFP4: each nibble's value (twice E2M1's, as gguf-py's table) looked up 16 lanes at a time
     * with one {@code selectFrom} (a byte shuffle), times the block's power-of-two scale. Only
     * where {@link #FW} has 16 lanes ({@link #hasMxfp4}): the table is 16 bytes.
     */
    public static void mxfp4(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        s = NATIVE.cast(s);
        d = NATIVE.cast(d);
        for (long b = 0; b < blocks; b++, so += 17, dOff += 128) {
            int e = s.get(ValueLayout.JAVA_BYTE, so) & 0xFF;
            float scale = Float.intBitsToFloat(e < 2 ? 0x00200000 << e : (e - 1) << 23);
            ByteVector v = ByteVector.fromMemorySegment(BW, s, so + 1, LE);
            ((FloatVector) v.and((byte) 0xF).selectFrom(MXFP4_VALUES).convertShape(VectorOperators.B2F, FW, 0)).mul(scale)
                    .intoMemorySegment(d, dOff, LE);
            ((FloatVector) v.lanewise(VectorOperators.LSHR, 4).selectFrom(MXFP4_VALUES).convertShape(VectorOperators.B2F, FW, 0))
                    .mul(scale).intoMemorySegment(d, dOff + 64, LE);
        }
    }

    /** {@return whether {@link #mxfp4} runs here: 16-lane floats} */
    public static boolean hasMxfp4() {
        return FW.length() == 16;
    }

    /**
     * Q2_K: the block's 256 two-bit codes gathered into bytes first (as {@link #q6_K}'s), then
     * widened a vector at a time, each 16 values times their sub-block's scale minus its min.
     */
    public static void q2_K(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        s = NATIVE.cast(s);
        d = NATIVE.cast(d);
        MemorySegment q = NATIVE.cast(CODES.get());
        for (long b = 0; b < blocks; b++, so += 84, dOff += 1024) {
            float scale = ScalarBlocks.f16(s, so + 80);
            float dmin = ScalarBlocks.f16(s, so + 82);
            q2Codes(s, so, 0, q);
            q2Codes(s, so, 1, q);
            for (int i = 0; i < 256; i += FW.length()) {
                int sc = s.get(ValueLayout.JAVA_BYTE, so + (i >> 4)) & 0xFF;
                float dl = scale * (float) (sc & 0xF);
                float ml = dmin * (float) (sc >> 4);
                ((FloatVector) ByteVector.fromMemorySegment(BW, q, i, LE).convertShape(VectorOperators.B2F, FW, 0)).mul(dl)
                        .sub(ml).intoMemorySegment(d, dOff + 4L * i, LE);
            }
        }
    }

    /** The 128 codes of Q2_K half {@code h}: value {@code 32 t + l} is bits {@code 2 t, 2 t + 1} of qs byte {@code 32 h + l}. */
    private static void q2Codes(MemorySegment s, long so, int h, MemorySegment q) {
        s = NATIVE.cast(s);
        q = NATIVE.cast(q);
        IntVector x = IntVector.fromMemorySegment(I, s, so + 16 + 32 * h, LE);
        x.and(0x03030303).reinterpretAsBytes().intoMemorySegment(q, 128 * h, LE);
        x.lanewise(VectorOperators.LSHR, 2).and(0x03030303).reinterpretAsBytes().intoMemorySegment(q, 128 * h + 32, LE);
        x.lanewise(VectorOperators.LSHR, 4).and(0x03030303).reinterpretAsBytes().intoMemorySegment(q, 128 * h + 64, LE);
        x.lanewise(VectorOperators.LSHR, 6).and(0x03030303).reinterpretAsBytes().intoMemorySegment(q, 128 * h + 96, LE);
    }

    /** Q3_K: codes gathered as {@link #q2_K}'s, then each 16 values times their sub-block's six-bit signed scale. */
    public static void q3_K(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        s = NATIVE.cast(s);
        d = NATIVE.cast(d);
        MemorySegment q = NATIVE.cast(CODES.get());
        for (long b = 0; b < blocks; b++, so += 110, dOff += 1024) {
            float scale = ScalarBlocks.f16(s, so + 108);
            q3Codes(s, so, 0, q);
            q3Codes(s, so, 1, q);
            for (int i = 0; i < 256; i += FW.length()) {
                int k = i >> 4;
                int low = (s.get(ValueLayout.JAVA_BYTE, so + 96 + (k & 7)) >> (4 * (k >> 3))) & 0xF;
                int high = (s.get(ValueLayout.JAVA_BYTE, so + 104 + (k & 3)) >> (2 * (k >> 2))) & 3;
                float dl = scale * (float) ((low | high << 4) - 32);
                ((FloatVector) ByteVector.fromMemorySegment(BW, q, i, LE).convertShape(VectorOperators.B2F, FW, 0)).mul(dl)
                        .intoMemorySegment(d, dOff + 4L * i, LE);
            }
        }
    }

    /**
     * The 128 codes of Q3_K half {@code h}: value {@code 32 t + l} is bits {@code 2 t, 2 t + 1} of qs
     * byte {@code 32 h + l}, less 4 unless bit {@code 4 h + t} of hmask byte {@code l} is set.
     */
    private static void q3Codes(MemorySegment s, long so, int h, MemorySegment q) {
        s = NATIVE.cast(s);
        q = NATIVE.cast(q);
        IntVector x = IntVector.fromMemorySegment(I, s, so + 32 + 32 * h, LE);
        IntVector m = IntVector.fromMemorySegment(I, s, so, LE).lanewise(VectorOperators.LSHR, 4 * h);
        int at = 128 * h;
        x.and(0x03030303).or(m.lanewise(VectorOperators.LSHL, 2).and(0x04040404)).reinterpretAsBytes().sub((byte) 4)
                .intoMemorySegment(q, at, LE);
        x.lanewise(VectorOperators.LSHR, 2).and(0x03030303).or(m.lanewise(VectorOperators.LSHL, 1).and(0x04040404))
                .reinterpretAsBytes().sub((byte) 4).intoMemorySegment(q, at + 32, LE);
        x.lanewise(VectorOperators.LSHR, 4).and(0x03030303).or(m.and(0x04040404)).reinterpretAsBytes().sub((byte) 4)
                .intoMemorySegment(q, at + 64, LE);
        x.lanewise(VectorOperators.LSHR, 6).and(0x03030303).or(m.lanewise(VectorOperators.LSHR, 1).and(0x04040404))
                .reinterpretAsBytes().sub((byte) 4).intoMemorySegment(q, at + 96, LE);
    }

    /** Q5_K: Q4_K's nibbles with a fifth bit, gathered into bytes first as {@link #q2_K}'s, each 32 values times their scale minus their min. */
    public static void q5_K(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        s = NATIVE.cast(s);
        d = NATIVE.cast(d);
        MemorySegment q = NATIVE.cast(CODES.get());
        for (long b = 0; b < blocks; b++, so += 176, dOff += 1024) {
            float scale = ScalarBlocks.f16(s, so);
            float dmin = ScalarBlocks.f16(s, so + 2);
            q5Codes(s, so, q);
            for (int i = 0; i < 256; i += FW.length()) {
                float sc = ScalarBlocks.groupScale(s, so + 4, scale, i >> 5);
                float mn = ScalarBlocks.groupMin(s, so + 4, dmin, i >> 5);
                ((FloatVector) ByteVector.fromMemorySegment(BW, q, i, LE).convertShape(VectorOperators.B2F, FW, 0))
                        .mul(sc).sub(mn).intoMemorySegment(d, dOff + 4L * i, LE);
            }
        }
    }

    /**
     * The 256 codes of a Q5_K block: value {@code l} of group g is the low (g even) or high nibble
     * of qs byte {@code 32 (g / 2) + l}, with bit g of qh byte {@code l} above it; every shift a
     * constant (a count that varies with the group cost half again the kernel's time).
     */
    private static void q5Codes(MemorySegment s, long so, MemorySegment q) {
        s = NATIVE.cast(s);
        q = NATIVE.cast(q);
        IntVector m = IntVector.fromMemorySegment(I, s, so + 16, LE);
        IntVector x = IntVector.fromMemorySegment(I, s, so + 48, LE);
        x.and(0x0F0F0F0F).or(m.lanewise(VectorOperators.LSHL, 4).and(0x10101010)).reinterpretAsBytes().intoMemorySegment(q, 0, LE);
        x.lanewise(VectorOperators.LSHR, 4).and(0x0F0F0F0F).or(m.lanewise(VectorOperators.LSHL, 3).and(0x10101010))
                .reinterpretAsBytes().intoMemorySegment(q, 32, LE);
        x = IntVector.fromMemorySegment(I, s, so + 80, LE);
        x.and(0x0F0F0F0F).or(m.lanewise(VectorOperators.LSHL, 2).and(0x10101010)).reinterpretAsBytes().intoMemorySegment(q, 64, LE);
        x.lanewise(VectorOperators.LSHR, 4).and(0x0F0F0F0F).or(m.lanewise(VectorOperators.LSHL, 1).and(0x10101010))
                .reinterpretAsBytes().intoMemorySegment(q, 96, LE);
        x = IntVector.fromMemorySegment(I, s, so + 112, LE);
        x.and(0x0F0F0F0F).or(m.and(0x10101010)).reinterpretAsBytes().intoMemorySegment(q, 128, LE);
        x.lanewise(VectorOperators.LSHR, 4).and(0x0F0F0F0F).or(m.lanewise(VectorOperators.LSHR, 1).and(0x10101010))
                .reinterpretAsBytes().intoMemorySegment(q, 160, LE);
        x = IntVector.fromMemorySegment(I, s, so + 144, LE);
        x.and(0x0F0F0F0F).or(m.lanewise(VectorOperators.LSHR, 2).and(0x10101010)).reinterpretAsBytes().intoMemorySegment(q, 192, LE);
        x.lanewise(VectorOperators.LSHR, 4).and(0x0F0F0F0F).or(m.lanewise(VectorOperators.LSHR, 3).and(0x10101010))
                .reinterpretAsBytes().intoMemorySegment(q, 224, LE);
    }

    /**
     * Q6_K -> f32. The 256 codes of a block are first gathered into bytes ({@link #q6Codes}), then
     * widened a whole vector at a time; see {@link #q6_KBf16} for why.
     */
    public static void q6_K(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        s = NATIVE.cast(s);
        d = NATIVE.cast(d);
        MemorySegment q = NATIVE.cast(CODES.get());
        for (long b = 0; b < blocks; b++, so += 210, dOff += 1024) {
            float scale = q6Block(s, so, q);
            for (int i = 0; i < 256; i += FW.length()) {
                float dl = scale * (float) s.get(ValueLayout.JAVA_BYTE, so + 192 + (i >> 4));
                ((FloatVector) ByteVector.fromMemorySegment(BW, q, i, LE).convertShape(VectorOperators.B2F, FW, 0)).mul(dl)
                        .intoMemorySegment(d, dOff + 4L * i, LE);
            }
        }
    }

    /**
     * Q6_K -> bf16 with no f32 in memory: each product {@code dl * q} (the f32 gguf-py computes)
     * rounded to nearest even in the register, NaN to the quiet NaN with its sign as the engine's
     * f32 -> bf16 conversion gives. A block whose f16 scale is finite has finite products only
     * (at most 65504 * 128 * 32), so its loop skips the NaN test.
     *
     * <p>Why it is shaped so, in CPU time per value on one thread of an AVX-512 host whose 2 cores
     * ran 10-20 busy threads ({@code bench/experiments/Q6kShapes.java}, 128 Mi values, ranges over
     * runs): the first kernel shifted ql and qh in byte lanes by counts that vary with the sub-block,
     * which C2 does not compile to vector instructions on x86 (it has no byte shift), and took
     * 0.6-0.9 ns to f32, 0.56-0.74 with its bf16 rounded in the register (so an in-register bf16
     * kernel of that shape gains little); the same shifts in int lanes with a byte mask after, 0.5-0.75;
     * the block's 256 codes gathered first (constant int-lane shifts of 32 bytes) and widened 16 at a
     * time, 0.19-0.34 to f32 and 0.14-0.36 to bf16, against 0.13-0.15 for {@code MemorySegment.copy}
     * of the bf16 bytes.
     *
     * <p>Each sub-block's scale is read where it is used, in this loop's body: a {@code float[16]}
     * of them per call is indexed by {@code i >> 4}, so C2 cannot scalar-replace it unless it fully
     * unrolls the loop, and whether it did changed from JVM to JVM: where not, a heap array a call
     * (a row of 16 blocks) and page faults as allocation moved on (645 a run of 128 Mi values). A helper
     * method for the read is not inlined here (the loop is at C2's node cutoff), and a call in the
     * loop spills the vectors: twice the time.
     *
     * <p>With 16-lane floats ({@link #PAIRS}) two vectors of rounded bits become one 32-lane short
     * vector of their high halves by one two-vector {@code selectFrom} (AVX-512's {@code vpermi2w}),
     * where {@code convertShape(I2S)} took a shift and a narrowing per vector and stored half as
     * wide ({@code bench/experiments/Q6kBf16Store.java}, load 17 on 2 cores: 0.17-0.20 ns a value in
     * cache against 0.20-0.21, 0.25-0.33 over 256 MiB against 0.28-0.31; the rounding itself
     * 0.02-0.05). Past the cache the gain mostly goes: the same values stored as f32 (twice the
     * bytes) took 0.25-0.45 there, so the destination's misses, not the conversion, set the time.
     */
    public static void q6_KBf16(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        s = NATIVE.cast(s);
        d = NATIVE.cast(d);
        MemorySegment q = NATIVE.cast(CODES.get());
        for (long b = 0; b < blocks; b++, so += 210, dOff += 512) {
            float scale = q6Block(s, so, q);
            if (!Float.isFinite(scale)) {
                q6Bf16WithNaN(s, so, scale, q, d, dOff);
                continue;
            }
            if (PAIRS) {
                for (int i = 0; i < 256; i += 2 * FW.length()) {
                    float dl0 = scale * (float) s.get(ValueLayout.JAVA_BYTE, so + 192 + (i >> 4));
                    float dl1 = scale * (float) s.get(ValueLayout.JAVA_BYTE, so + 192 + ((i + FW.length()) >> 4));
                    IntVector lo = ((FloatVector) ByteVector.fromMemorySegment(BW, q, i, LE)
                            .convertShape(VectorOperators.B2F, FW, 0)).mul(dl0).reinterpretAsInts();
                    IntVector hi = ((FloatVector) ByteVector.fromMemorySegment(BW, q, i + FW.length(), LE)
                            .convertShape(VectorOperators.B2F, FW, 0)).mul(dl1).reinterpretAsInts();
                    lo = lo.add(0x7fff).add(lo.lanewise(VectorOperators.LSHR, 16).and(1));
                    hi = hi.add(0x7fff).add(hi.lanewise(VectorOperators.LSHR, 16).and(1));
                    HIGH_HALVES.selectFrom(lo.reinterpretAsShorts(), hi.reinterpretAsShorts()).intoMemorySegment(d, dOff + 2L * i, LE);
                }
                continue;
            }
            for (int i = 0; i < 256; i += FW.length()) {
                float dl = scale * (float) s.get(ValueLayout.JAVA_BYTE, so + 192 + (i >> 4));
                IntVector bits = ((FloatVector) ByteVector.fromMemorySegment(BW, q, i, LE).convertShape(VectorOperators.B2F, FW, 0))
                        .mul(dl).reinterpretAsInts();
                bits.add(0x7fff).add(bits.lanewise(VectorOperators.LSHR, 16).and(1)).lanewise(VectorOperators.LSHR, 16)
                        .convertShape(VectorOperators.I2S, SW, 0).intoMemorySegment(d, dOff + 2L * i, LE);
            }
        }
    }

    /** {@link #q6_KBf16}'s loop for a block whose scale is infinite or NaN, so products may be NaN. */
    private static void q6Bf16WithNaN(MemorySegment s, long so, float scale, MemorySegment q, MemorySegment d, long dOff) {
        s = NATIVE.cast(s);
        q = NATIVE.cast(q);
        d = NATIVE.cast(d);
        for (int i = 0; i < 256; i += FW.length()) {
            float dl = scale * (float) s.get(ValueLayout.JAVA_BYTE, so + 192 + (i >> 4));
            IntVector bits = ((FloatVector) ByteVector.fromMemorySegment(BW, q, i, LE).convertShape(VectorOperators.B2F, FW, 0))
                    .mul(dl).reinterpretAsInts();
            IntVector high = bits.lanewise(VectorOperators.LSHR, 16);
            bits.add(0x7fff).add(high.and(1)).lanewise(VectorOperators.LSHR, 16)
                    .blend(high.and(0x8000).or(0x7fc0), bits.and(0x7fff_ffff).compare(VectorOperators.GT, 0x7f80_0000))
                    .convertShape(VectorOperators.I2S, SW, 0).intoMemorySegment(d, dOff + 2L * i, LE);
        }
    }

    /**
     * Reads the Q6_K block at {@code so}: its 256 codes minus 32 into {@code q}, in value order.
     * {@return the block's f16 scale d}
     */
    private static float q6Block(MemorySegment s, long so, MemorySegment q) {
        s = NATIVE.cast(s);
        q = NATIVE.cast(q);
        float scale = ScalarBlocks.f16(s, so + 208);
        q6Codes(s, so, 0, q);
        q6Codes(s, so, 1, q);
        return scale;
    }

    /**
     * The 128 codes of half {@code h}: value {@code 32 t + l} has the low or high nibble (t / 2) of
     * ql byte {@code 64 h + 32 (t % 2) + l} and bits {@code 2 t, 2 t + 1} of qh byte
     * {@code 32 h + l}. Shifted in int lanes with constant counts, then masked per byte, so bits
     * that cross into a neighbour byte are dropped.
     */
    private static void q6Codes(MemorySegment s, long so, int h, MemorySegment q) {
        s = NATIVE.cast(s);
        q = NATIVE.cast(q);
        int at = 128 * h;
        IntVector a = IntVector.fromMemorySegment(I, s, so + 64 * h, LE);
        IntVector b = IntVector.fromMemorySegment(I, s, so + 64 * h + 32, LE);
        IntVector hb = IntVector.fromMemorySegment(I, s, so + 128 + 32 * h, LE);
        // No helper taking a vector: one C2 does not inline would box it.
        a.and(0x0F0F0F0F).or(hb.lanewise(VectorOperators.LSHL, 4).and(0x30303030)).reinterpretAsBytes().sub((byte) 32)
                .intoMemorySegment(q, at, LE);
        b.and(0x0F0F0F0F).or(hb.lanewise(VectorOperators.LSHL, 2).and(0x30303030)).reinterpretAsBytes().sub((byte) 32)
                .intoMemorySegment(q, at + 32, LE);
        a.lanewise(VectorOperators.LSHR, 4).and(0x0F0F0F0F).or(hb.and(0x30303030)).reinterpretAsBytes().sub((byte) 32)
                .intoMemorySegment(q, at + 64, LE);
        b.lanewise(VectorOperators.LSHR, 4).and(0x0F0F0F0F).or(hb.lanewise(VectorOperators.LSHR, 2).and(0x30303030))
                .reinterpretAsBytes().sub((byte) 32).intoMemorySegment(q, at + 96, LE);
    }

    /**
     * f32 -> Q8_0 as {@link ScalarBlocks#quantizeQ8_0}: the largest magnitude by a lane-wise then
     * a cross-lane max (both {@code Math.max}, so a NaN wins as NumPy's {@code max} lets it), and
     * {@code np_roundf} as {@code floor(|v|) + (|v| - floor(|v|) >= 0.5)}, exact because
     * {@code floor(2 f)} of a fraction {@code f} in [0, 1) is 1 exactly when {@code f >= 0.5}.
     */
    public static void quantizeQ8_0(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        s = NATIVE.cast(s);
        d = NATIVE.cast(d);
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
        s = NATIVE.cast(s);
        d = NATIVE.cast(d);
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
