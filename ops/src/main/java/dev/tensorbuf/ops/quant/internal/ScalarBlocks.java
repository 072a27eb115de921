package dev.tensorbuf.ops.quant.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Dequantization of ggml blocks to f32, one scalar loop per type, each a transcription of
 * gguf-py's {@code gguf.quants} {@code dequantize_blocks}: the same f32 products and sums in the
 * same order (a product, then a separate sum: never a fused multiply-add, which NumPy does not
 * do), so that every value equals gguf-py's bit for bit, NaNs and infinities included. Output
 * order within a block is gguf-py's reshape order, spelled out per type as index arithmetic.
 * Callers check bounds once; every method takes {@code blocks} whole blocks from {@code so} and
 * writes {@code blocks * blockValues} little-endian floats from {@code dOff}.
 */
public final class ScalarBlocks {
    static final ValueLayout.OfShort F16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int QK_K = 256;
    private static final int[] MXFP4_VALUES = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

    private ScalarBlocks() {
    }

    static float f16(MemorySegment s, long at) {
        return Float.float16ToFloat(s.get(F16, at));
    }

    private static int u8(MemorySegment s, long at) {
        return Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, at));
    }

    private static void put(MemorySegment d, long dOff, int i, float v) {
        d.set(F32, dOff + 4L * i, v);
    }

    public static void q4_0(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        for (long b = 0; b < blocks; b++, so += 18, dOff += 128) {
            float scale = f16(s, so);
            for (int j = 0; j < 16; j++) {
                int q = u8(s, so + 2 + j);
                put(d, dOff, j, scale * (float) ((q & 0xF) - 8));
                put(d, dOff, j + 16, scale * (float) ((q >> 4) - 8));
            }
        }
    }

    /**
     * {@return the bits every value of a Q4_1 or Q5_1 block whose min is NaN has: that NaN, quiet}
     * gguf-py's {@code d * q + m} gives m's NaN when both are NaN (NumPy adds the broadcast min
     * first); Java leaves which NaN a sum of two is to the JIT (C2 may swap a sum's operands), so
     * both kernels write it themselves.
     */
    static int nanMin(float min) {
        return Float.floatToRawIntBits(min) | 0x0040_0000;
    }

    private static boolean nanMinBlock(float min, MemorySegment d, long dOff) {
        if (!Float.isNaN(min)) {
            return false;
        }
        int bits = nanMin(min);
        for (int j = 0; j < 32; j++) {
            d.set(U32, dOff + 4L * j, bits);
        }
        return true;
    }

    public static void q4_1(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        for (long b = 0; b < blocks; b++, so += 20, dOff += 128) {
            float scale = f16(s, so);
            float min = f16(s, so + 2);
            if (nanMinBlock(min, d, dOff)) {
                continue;
            }
            for (int j = 0; j < 16; j++) {
                int q = u8(s, so + 4 + j);
                put(d, dOff, j, scale * (float) (q & 0xF) + min);
                put(d, dOff, j + 16, scale * (float) (q >> 4) + min);
            }
        }
    }

    public static void q5_0(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        for (long b = 0; b < blocks; b++, so += 22, dOff += 128) {
            float scale = f16(s, so);
            int qh = s.get(U32, so + 2);
            for (int j = 0; j < 16; j++) {
                int q = u8(s, so + 6 + j);
                put(d, dOff, j, scale * (float) (((q & 0xF) | ((qh >>> j) & 1) << 4) - 16));
                put(d, dOff, j + 16, scale * (float) (((q >> 4) | ((qh >>> (j + 16)) & 1) << 4) - 16));
            }
        }
    }

    public static void q5_1(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        for (long b = 0; b < blocks; b++, so += 24, dOff += 128) {
            float scale = f16(s, so);
            float min = f16(s, so + 2);
            if (nanMinBlock(min, d, dOff)) {
                continue;
            }
            int qh = s.get(U32, so + 4);
            for (int j = 0; j < 16; j++) {
                int q = u8(s, so + 8 + j);
                put(d, dOff, j, scale * (float) ((q & 0xF) | ((qh >>> j) & 1) << 4) + min);
                put(d, dOff, j + 16, scale * (float) ((q >> 4) | ((qh >>> (j + 16)) & 1) << 4) + min);
            }
        }
    }

    public static void q8_0(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        for (long b = 0; b < blocks; b++, so += 34, dOff += 128) {
            float scale = f16(s, so);
            for (int j = 0; j < 32; j++) {
                put(d, dOff, j, (float) s.get(ValueLayout.JAVA_BYTE, so + 2 + j) * scale);
            }
        }
    }

    /*
     * The K-quant loops below go a sub-block at a time, its scale in a local: no array per call,
     * whose heap allocation C2 does not always remove (an array per call made Q6_K's time jump).
     */
    public static void q2_K(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        for (long b = 0; b < blocks; b++, so += 84, dOff += 4 * QK_K) {
            float scale = f16(s, so + 80);
            float dmin = f16(s, so + 82);
            for (int g = 0; g < 16; g++) {
                int sc = u8(s, so + g);
                float dl = scale * (float) (sc & 0xF);
                float ml = dmin * (float) (sc >> 4);
                for (int i = 16 * g; i < 16 * g + 16; i++) {
                    int h = i >> 7;
                    int shift = 2 * ((i >> 5) & 3);
                    int q = (u8(s, so + 16 + h * 32 + (i & 31)) >> shift) & 3;
                    put(d, dOff, i, dl * (float) q - ml);
                }
            }
        }
    }

    public static void q3_K(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        for (long b = 0; b < blocks; b++, so += 110, dOff += 4 * QK_K) {
            float scale = f16(s, so + 108);
            for (int k = 0; k < 16; k++) {
                int low = (u8(s, so + 96 + (k & 7)) >> (4 * (k >> 3))) & 0xF;
                int high = (u8(s, so + 104 + (k & 3)) >> (2 * (k >> 2))) & 3;
                float dl = scale * (float) ((byte) (low | high << 4) - 32);
                for (int i = 16 * k; i < 16 * k + 16; i++) {
                    int h = i >> 7;
                    int shift = 2 * ((i >> 5) & 3);
                    int ql = (u8(s, so + 32 + h * 32 + (i & 31)) >> shift) & 3;
                    int qh = ((u8(s, so + (i & 31)) >> (i >> 5)) & 1) ^ 1;
                    put(d, dOff, i, dl * (float) (ql - (qh << 2)));
                }
            }
        }
    }

    /**
     * {@return {@code d} times the six-bit scale of group {@code j} (of 8 groups of 32) of a Q4_K or
     * Q5_K block, whose scales and mins are packed in the 12 bytes at {@code at}}
     */
    static float groupScale(MemorySegment s, long at, float d, int j) {
        int sc = j < 4 ? u8(s, at + j) & 0x3F : (u8(s, at + 4 + j) & 0xF) | ((u8(s, at + j - 4) >> 2) & 0x30);
        return d * (float) sc;
    }

    /** {@return {@code dmin} times the six-bit min of group {@code j}, as {@link #groupScale}} */
    static float groupMin(MemorySegment s, long at, float dmin, int j) {
        int m = j < 4 ? u8(s, at + 4 + j) & 0x3F : (u8(s, at + 4 + j) >> 4) | ((u8(s, at + j) >> 2) & 0x30);
        return dmin * (float) m;
    }

    public static void q4_K(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        q4Or5_K(s, so, d, dOff, blocks, false);
    }

    public static void q5_K(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        q4Or5_K(s, so, d, dOff, blocks, true);
    }

    /**
     * Q4_K and Q5_K, one group loop: both are 8 groups of 32 values under six-bit scales and mins
     * ({@link #groupScale}), value {@code l} of group g the low (g even) or high nibble of qs byte
     * {@code 32 (g / 2) + l}; Q5_K adds bit g of qh byte {@code l} above the nibble and so keeps
     * its qs 32 bytes further on. {@code fifth} is the same for a whole call, so the JIT takes its
     * test out of the loop.
     */
    private static void q4Or5_K(MemorySegment s, long so, MemorySegment d, long dOff, long blocks, boolean fifth) {
        int size = fifth ? 176 : 144;
        int qs = fifth ? 48 : 16;
        for (long b = 0; b < blocks; b++, so += size, dOff += 4 * QK_K) {
            float scale = f16(s, so);
            float dmin = f16(s, so + 2);
            for (int g = 0; g < 8; g++) {
                float sc = groupScale(s, so + 4, scale, g);
                float mn = groupMin(s, so + 4, dmin, g);
                for (int i = 32 * g; i < 32 * g + 32; i++) {
                    int q = (u8(s, so + qs + (g >> 1) * 32 + (i & 31)) >> (4 * (g & 1))) & 0xF;
                    if (fifth) {
                        q |= ((u8(s, so + 16 + (i & 31)) >> g) & 1) << 4;
                    }
                    put(d, dOff, i, sc * (float) q - mn);
                }
            }
        }
    }

    public static void q6_K(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        for (long b = 0; b < blocks; b++, so += 210, dOff += 4 * QK_K) {
            float scale = f16(s, so + 208);
            for (int g = 0; g < 16; g++) {
                float dl = scale * (float) s.get(ValueLayout.JAVA_BYTE, so + 192 + g);
                for (int i = 16 * g; i < 16 * g + 16; i++) {
                    int h = i >> 7;
                    int r = i & 127;
                    int ql = (u8(s, so + h * 64 + (r & 63)) >> (4 * (r >> 6))) & 0xF;
                    int qh = (u8(s, so + 128 + h * 32 + (r & 31)) >> (2 * (r >> 5))) & 3;
                    put(d, dOff, i, dl * (float) ((byte) (ql | qh << 4) - 32));
                }
            }
        }
    }

    private static final int[] POW3 = {1, 3, 9, 27, 81};

    public static void tq1_0(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        for (long b = 0; b < blocks; b++, so += 54, dOff += 4 * QK_K) {
            float scale = f16(s, so + 52);
            int i = 0;
            for (int j = 0; j < 5; j++) {
                for (int k = 0; k < 32; k++) {
                    put(d, dOff, i++, scale * (float) trit(u8(s, so + k) * POW3[j]));
                }
            }
            for (int j = 0; j < 5; j++) {
                for (int k = 0; k < 16; k++) {
                    put(d, dOff, i++, scale * (float) trit(u8(s, so + 32 + k) * POW3[j]));
                }
            }
            for (int j = 0; j < 4; j++) {
                for (int k = 0; k < 4; k++) {
                    put(d, dOff, i++, scale * (float) trit(u8(s, so + 48 + k) * POW3[j]));
                }
            }
        }
    }

    /** A base-3 digit from the top of a byte, as gguf-py takes it: the product wraps to a byte first. */
    private static int trit(int product) {
        return (((product & 0xFF) * 3) >> 8) - 1;
    }

    public static void tq2_0(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        for (long b = 0; b < blocks; b++, so += 66, dOff += 4 * QK_K) {
            float scale = f16(s, so + 64);
            for (int i = 0; i < QK_K; i++) {
                int q = (u8(s, so + (i >> 7) * 32 + (i & 31)) >> (2 * ((i >> 5) & 3))) & 3;
                put(d, dOff, i, scale * (float) (q - 1));
            }
        }
    }

    public static void mxfp4(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        for (long b = 0; b < blocks; b++, so += 17, dOff += 128) {
            int e = u8(s, so);
            float scale = Float.intBitsToFloat(e < 2 ? 0x00200000 << e : (e - 1) << 23);
            for (int j = 0; j < 16; j++) {
                int q = u8(s, so + 1 + j);
                put(d, dOff, j, scale * (float) MXFP4_VALUES[q & 0xF]);
                put(d, dOff, j + 16, scale * (float) MXFP4_VALUES[q >> 4]);
            }
        }
    }

    /** IQ4_NL's and IQ4_XS's 16 non-linear code values (gguf-py's {@code IQ4_NL.kvalues}). */
    private static final int[] IQ4_VALUES = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

    public static void iq4_nl(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        for (long b = 0; b < blocks; b++, so += 18, dOff += 128) {
            float scale = f16(s, so);
            for (int j = 0; j < 16; j++) {
                int q = u8(s, so + 2 + j);
                put(d, dOff, j, scale * (float) IQ4_VALUES[q & 0xF]);
                put(d, dOff, j + 16, scale * (float) IQ4_VALUES[q >> 4]);
            }
        }
    }

    public static void iq4_xs(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        for (long b = 0; b < blocks; b++, so += 136, dOff += 4 * QK_K) {
            float scale = f16(s, so);
            int high = Short.toUnsignedInt(s.get(F16, so + 2));
            for (int g = 0; g < 8; g++) {
                int low = (u8(s, so + 4 + g / 2) >> (4 * (g % 2))) & 0xF;
                float dl = scale * (float) ((byte) (low | ((high >> (2 * g)) & 3) << 4) - 32);
                for (int k = 0; k < 16; k++) {
                    int q = u8(s, so + 8 + g * 16 + k);
                    put(d, dOff, g * 32 + k, dl * (float) IQ4_VALUES[q & 0xF]);
                    put(d, dOff, g * 32 + 16 + k, dl * (float) IQ4_VALUES[q >> 4]);
                }
            }
        }
    }

    /**
     * f32 -> Q8_0 as gguf-py's {@code Q8_0.quantize_blocks} (ggml's reference): the scale is the
     * block's largest magnitude over 127, codes round half away from zero, and the scale is stored
     * rounded to f16 (nearest even) after the codes were taken with its f32 value.
     */
    public static void quantizeQ8_0(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        // Through arrays: C2 keeps these loops tight, where per-value segment reads are checked one by one.
        float[] x = new float[32];
        byte[] out = new byte[34];
        for (long b = 0; b < blocks; b++, so += 128, dOff += 34) {
            MemorySegment.copy(s, F32, so, x, 0, 32);
            float amax = 0;
            for (int j = 0; j < 32; j++) {
                amax = Math.max(amax, Math.abs(x[j]));
            }
            float scale = amax / 127f;
            float inverse = scale == 0 ? 0 : 1f / scale;
            short h = Float.floatToFloat16(scale);
            out[0] = (byte) h;
            out[1] = (byte) (h >> 8);
            for (int j = 0; j < 32; j++) {
                out[2 + j] = (byte) roundHalfAway(x[j] * inverse);
            }
            MemorySegment.copy(out, 0, d, ValueLayout.JAVA_BYTE, dOff, 34);
        }
    }

    /** gguf-py's {@code np_roundf}: {@code sign(n) * (floor(|n|) + floor(2 (|n| - floor(|n|))))}, exact in f32. */
    static int roundHalfAway(float n) {
        float a = Math.abs(n);
        float floored = (float) Math.floor(a);
        float r = floored + (float) Math.floor(2 * (a - floored));
        return x86Cast(Math.copySign(r, n));
    }

    /**
     * A float to int cast as NumPy's {@code astype} compiles on x86 ({@code cvttss2si}): NaN and
     * values outside the int range give the "integer indefinite" 0x80000000, whose low byte is 0,
     * where Java's cast would saturate. gguf-py casts to a byte type after that, so a block whose
     * inverse scale overflows to infinity (subnormal inputs) gets codes 0, as the reference does.
     */
    static int x86Cast(float t) {
        return t >= -0x1p31f && t < 0x1p31f ? (int) t : Integer.MIN_VALUE;
    }

    /**
     * f32 -> Q4_0 as gguf-py's {@code Q4_0.quantize_blocks}: the scale is the value of largest
     * magnitude (the first, on a tie) over -8, codes are {@code trunc(x / scale + 8.5)} cast to a
     * byte and clipped to [0, 15], two to a byte (value j low, j + 16 high).
     */
    public static void quantizeQ4_0(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        float[] x = new float[32];
        int[] q = new int[32];
        byte[] out = new byte[18];
        for (long b = 0; b < blocks; b++, so += 128, dOff += 18) {
            MemorySegment.copy(s, F32, so, x, 0, 32);
            // NumPy's argmax of the magnitudes: the first largest, or the first NaN if there is one.
            float amax = -1;
            float max = 0;
            for (int j = 0; j < 32; j++) {
                if (Float.isNaN(x[j])) {
                    max = x[j];
                    break;
                }
                if (Math.abs(x[j]) > amax) {
                    amax = Math.abs(x[j]);
                    max = x[j];
                }
            }
            float scale = max / -8f;
            float inverse = scale == 0 ? 0 : 1f / scale;
            for (int j = 0; j < 32; j++) {
                // astype(uint8) then clip(0, 15), as the reference: the byte wraps before the clip.
                q[j] = Math.min(15, x86Cast(x[j] * inverse + 8.5f) & 0xFF);
            }
            short h = Float.floatToFloat16(scale);
            out[0] = (byte) h;
            out[1] = (byte) (h >> 8);
            for (int j = 0; j < 16; j++) {
                out[2 + j] = (byte) (q[j] | q[j + 16] << 4);
            }
            MemorySegment.copy(out, 0, d, ValueLayout.JAVA_BYTE, dOff, 18);
        }
    }
}
