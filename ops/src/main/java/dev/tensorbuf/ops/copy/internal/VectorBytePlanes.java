package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * {@link dev.tensorbuf.ops.copy.internal.Kernel#BYTE_PLANES} with the Vector API: u8 pixels with
 * {@code C} = 2, 3 or 4 interleaved channels to f32 planes, {@code fma(value, scale[c], bias[c])}
 * (image staging, reference/java-kernels.md: "byte permute (de-interleave) + convertShape to float
 * + fma"). A block is {@code B} pixels ({@code B} = bytes per vector): {@code C} byte vectors are
 * loaded, each channel's {@code B} bytes are gathered by {@code C - 1} chained two-vector byte
 * {@code selectFrom} shuffles, then widened to ints a quarter at a time, converted to float,
 * scaled and stored. One method per channel (each reloading the block's vectors from L1): one
 * method for all channels outgrew C2's inlining budget and ran 10x slower. A run that is not a multiple of {@code B} ends with one block overlapping
 * the previous one; runs shorter than {@code B} go pixel by pixel.
 */
final class VectorBytePlanes {
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Byte> BS = VectorSpecies.of(byte.class, VectorShape.forBitSize(I.vectorBitSize()));
    private static final int B = BS.length();
    /** Int lanes per vector: a quarter of the byte lanes, so a block widens in four parts. */
    private static final int Q = I.length();

    private static final ByteVector D2_0_0 = table(2, 0, 0);
    private static final ByteVector D2_1_0 = table(2, 1, 0);
    private static final ByteVector D3_0_0 = table(3, 0, 0);
    private static final ByteVector D3_0_1 = table(3, 0, 1);
    private static final ByteVector D3_1_0 = table(3, 1, 0);
    private static final ByteVector D3_1_1 = table(3, 1, 1);
    private static final ByteVector D3_2_0 = table(3, 2, 0);
    private static final ByteVector D3_2_1 = table(3, 2, 1);
    private static final ByteVector D4_0_0 = table(4, 0, 0);
    private static final ByteVector D4_0_1 = table(4, 0, 1);
    private static final ByteVector D4_0_2 = table(4, 0, 2);
    private static final ByteVector D4_1_0 = table(4, 1, 0);
    private static final ByteVector D4_1_1 = table(4, 1, 1);
    private static final ByteVector D4_1_2 = table(4, 1, 2);
    private static final ByteVector D4_2_0 = table(4, 2, 0);
    private static final ByteVector D4_2_1 = table(4, 2, 1);
    private static final ByteVector D4_2_2 = table(4, 2, 2);
    private static final ByteVector D4_3_0 = table(4, 3, 0);
    private static final ByteVector D4_3_1 = table(4, 3, 1);
    private static final ByteVector D4_3_2 = table(4, 3, 2);

    private VectorBytePlanes() {
    }

    /**
     * Shuffle indices: channel {@code k} lane {@code p} is byte {@code pC + k} of the block, lane
     * {@code (pC + k) % B} of input {@code (pC + k) / B}. Step 0 picks from inputs 0 and 1; step
     * {@code s > 0} keeps its first operand's lane or takes input {@code s + 1}'s.
     */
    static ByteVector table(int c, int k, int step) {
        byte[] idx = new byte[B];
        for (int j = 0; j < B; j++) {
            int g = j * c + k;
            int input = g / B;
            int lane = g % B;
            if (step == 0) {
                idx[j] = (byte) (input == 0 ? lane : input == 1 ? B + lane : 0);
            } else {
                idx[j] = (byte) (input == step + 1 ? B + lane : j);
            }
        }
        return ByteVector.fromArray(BS, idx, 0);
    }

    /**
     * Loops {@code [.., channels (count C, src 1 byte, dst plane stride), pixels (src C bytes, dst 4)]};
     * {@code scale} and {@code bias} are indexed by channel when the channel loop is the plane loop.
     */
    static void run(Task t, float[] scale, float[] bias) {
        int r = t.rank();
        int c = (int) t.count()[r - 2];
        if (c != t.srcStride()[r - 1] || (t.channelLoop() != -1 && t.channelLoop() != r - 2)) {
            ConvertKernel.run(t, ElementAccess.of(DType.U8), ElementAccess.of(DType.F32), scale, bias, false);
            return;
        }
        float[] sc = new float[c];
        float[] bi = new float[c];
        for (int k = 0; k < c; k++) {
            boolean affine = scale != null && t.channelLoop() == r - 2;
            sc[k] = affine ? scale[(int) t.channelBase() + k] : 1f;
            bi[k] = affine ? bias[(int) t.channelBase() + k] : 0f;
        }
        switch (c) {
            case 2 -> planes2(t, sc, bi);
            case 3 -> planes3(t, sc, bi);
            case 4 -> planes4(t, sc, bi);
            default -> throw new AssertionError("planned with " + c + " channels");
        }
    }

    private static void planes2(Task t, float[] sc, float[] bi) {
        int r = t.rank();
        long n = t.count()[r - 1];
        long plane = t.dstStride()[r - 2];
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 2);
        do {
            long s = o.src;
            long d = o.dst;
            if (n < B) {
                scalar(src, s, dst, d, plane, n, 2, sc, bi);
                continue;
            }
            for (long p = 0; ; p += B) {
                if (p > n - B) {
                    if (p == n) {
                        break;
                    }
                    p = n - B;
                }
                long q = s + p * 2;
                channel2of0(src, q, dst, d + p * 4, sc[0], bi[0]);
                channel2of1(src, q, dst, d + plane + p * 4, sc[1], bi[1]);
            }
        } while (o.next());
    }

    private static void channel2of0(MemorySegment src, long q, MemorySegment dst, long d, float scale, float bias) {
        ByteVector v0 = ByteVector.fromMemorySegment(BS, src, q, ORDER);
        ByteVector v1 = ByteVector.fromMemorySegment(BS, src, q + 1L * B, ORDER);
        store(D2_0_0.selectFrom(v0, v1), FloatVector.broadcast(F, scale), FloatVector.broadcast(F, bias), dst, d);
    }

    private static void channel2of1(MemorySegment src, long q, MemorySegment dst, long d, float scale, float bias) {
        ByteVector v0 = ByteVector.fromMemorySegment(BS, src, q, ORDER);
        ByteVector v1 = ByteVector.fromMemorySegment(BS, src, q + 1L * B, ORDER);
        store(D2_1_0.selectFrom(v0, v1), FloatVector.broadcast(F, scale), FloatVector.broadcast(F, bias), dst, d);
    }

    private static void planes3(Task t, float[] sc, float[] bi) {
        int r = t.rank();
        long n = t.count()[r - 1];
        long plane = t.dstStride()[r - 2];
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 2);
        do {
            long s = o.src;
            long d = o.dst;
            if (n < B) {
                scalar(src, s, dst, d, plane, n, 3, sc, bi);
                continue;
            }
            for (long p = 0; ; p += B) {
                if (p > n - B) {
                    if (p == n) {
                        break;
                    }
                    p = n - B;
                }
                long q = s + p * 3;
                channel3of0(src, q, dst, d + p * 4, sc[0], bi[0]);
                channel3of1(src, q, dst, d + plane + p * 4, sc[1], bi[1]);
                channel3of2(src, q, dst, d + 2 * plane + p * 4, sc[2], bi[2]);
            }
        } while (o.next());
    }

    private static void channel3of0(MemorySegment src, long q, MemorySegment dst, long d, float scale, float bias) {
        ByteVector v0 = ByteVector.fromMemorySegment(BS, src, q, ORDER);
        ByteVector v1 = ByteVector.fromMemorySegment(BS, src, q + 1L * B, ORDER);
        ByteVector v2 = ByteVector.fromMemorySegment(BS, src, q + 2L * B, ORDER);
        store(D3_0_1.selectFrom(D3_0_0.selectFrom(v0, v1), v2), FloatVector.broadcast(F, scale), FloatVector.broadcast(F, bias), dst, d);
    }

    private static void channel3of1(MemorySegment src, long q, MemorySegment dst, long d, float scale, float bias) {
        ByteVector v0 = ByteVector.fromMemorySegment(BS, src, q, ORDER);
        ByteVector v1 = ByteVector.fromMemorySegment(BS, src, q + 1L * B, ORDER);
        ByteVector v2 = ByteVector.fromMemorySegment(BS, src, q + 2L * B, ORDER);
        store(D3_1_1.selectFrom(D3_1_0.selectFrom(v0, v1), v2), FloatVector.broadcast(F, scale), FloatVector.broadcast(F, bias), dst, d);
    }

    private static void channel3of2(MemorySegment src, long q, MemorySegment dst, long d, float scale, float bias) {
        ByteVector v0 = ByteVector.fromMemorySegment(BS, src, q, ORDER);
        ByteVector v1 = ByteVector.fromMemorySegment(BS, src, q + 1L * B, ORDER);
        ByteVector v2 = ByteVector.fromMemorySegment(BS, src, q + 2L * B, ORDER);
        store(D3_2_1.selectFrom(D3_2_0.selectFrom(v0, v1), v2), FloatVector.broadcast(F, scale), FloatVector.broadcast(F, bias), dst, d);
    }

    private static void planes4(Task t, float[] sc, float[] bi) {
        int r = t.rank();
        long n = t.count()[r - 1];
        long plane = t.dstStride()[r - 2];
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 2);
        do {
            long s = o.src;
            long d = o.dst;
            if (n < B) {
                scalar(src, s, dst, d, plane, n, 4, sc, bi);
                continue;
            }
            for (long p = 0; ; p += B) {
                if (p > n - B) {
                    if (p == n) {
                        break;
                    }
                    p = n - B;
                }
                long q = s + p * 4;
                channel4of0(src, q, dst, d + p * 4, sc[0], bi[0]);
                channel4of1(src, q, dst, d + plane + p * 4, sc[1], bi[1]);
                channel4of2(src, q, dst, d + 2 * plane + p * 4, sc[2], bi[2]);
                channel4of3(src, q, dst, d + 3 * plane + p * 4, sc[3], bi[3]);
            }
        } while (o.next());
    }

    private static void channel4of0(MemorySegment src, long q, MemorySegment dst, long d, float scale, float bias) {
        ByteVector v0 = ByteVector.fromMemorySegment(BS, src, q, ORDER);
        ByteVector v1 = ByteVector.fromMemorySegment(BS, src, q + 1L * B, ORDER);
        ByteVector v2 = ByteVector.fromMemorySegment(BS, src, q + 2L * B, ORDER);
        ByteVector v3 = ByteVector.fromMemorySegment(BS, src, q + 3L * B, ORDER);
        store(D4_0_2.selectFrom(D4_0_1.selectFrom(D4_0_0.selectFrom(v0, v1), v2), v3), FloatVector.broadcast(F, scale), FloatVector.broadcast(F, bias), dst, d);
    }

    private static void channel4of1(MemorySegment src, long q, MemorySegment dst, long d, float scale, float bias) {
        ByteVector v0 = ByteVector.fromMemorySegment(BS, src, q, ORDER);
        ByteVector v1 = ByteVector.fromMemorySegment(BS, src, q + 1L * B, ORDER);
        ByteVector v2 = ByteVector.fromMemorySegment(BS, src, q + 2L * B, ORDER);
        ByteVector v3 = ByteVector.fromMemorySegment(BS, src, q + 3L * B, ORDER);
        store(D4_1_2.selectFrom(D4_1_1.selectFrom(D4_1_0.selectFrom(v0, v1), v2), v3), FloatVector.broadcast(F, scale), FloatVector.broadcast(F, bias), dst, d);
    }

    private static void channel4of2(MemorySegment src, long q, MemorySegment dst, long d, float scale, float bias) {
        ByteVector v0 = ByteVector.fromMemorySegment(BS, src, q, ORDER);
        ByteVector v1 = ByteVector.fromMemorySegment(BS, src, q + 1L * B, ORDER);
        ByteVector v2 = ByteVector.fromMemorySegment(BS, src, q + 2L * B, ORDER);
        ByteVector v3 = ByteVector.fromMemorySegment(BS, src, q + 3L * B, ORDER);
        store(D4_2_2.selectFrom(D4_2_1.selectFrom(D4_2_0.selectFrom(v0, v1), v2), v3), FloatVector.broadcast(F, scale), FloatVector.broadcast(F, bias), dst, d);
    }

    private static void channel4of3(MemorySegment src, long q, MemorySegment dst, long d, float scale, float bias) {
        ByteVector v0 = ByteVector.fromMemorySegment(BS, src, q, ORDER);
        ByteVector v1 = ByteVector.fromMemorySegment(BS, src, q + 1L * B, ORDER);
        ByteVector v2 = ByteVector.fromMemorySegment(BS, src, q + 2L * B, ORDER);
        ByteVector v3 = ByteVector.fromMemorySegment(BS, src, q + 3L * B, ORDER);
        store(D4_3_2.selectFrom(D4_3_1.selectFrom(D4_3_0.selectFrom(v0, v1), v2), v3), FloatVector.broadcast(F, scale), FloatVector.broadcast(F, bias), dst, d);
    }

    /**
     * Widens {@code B} bytes to floats a quarter (one int vector) at a time, scales and stores
     * them. Written out: the part index of {@code convertShape} must be a constant for C2 to
     * intrinsify it, and a loop over the parts was not always unrolled (4x slower when not).
     */
    private static void store(ByteVector bytes, FloatVector scale, FloatVector bias, MemorySegment dst, long d) {
        widen(bytes, 0).fma(scale, bias).intoMemorySegment(dst, d, ORDER);
        widen(bytes, 1).fma(scale, bias).intoMemorySegment(dst, d + 4L * Q, ORDER);
        widen(bytes, 2).fma(scale, bias).intoMemorySegment(dst, d + 8L * Q, ORDER);
        widen(bytes, 3).fma(scale, bias).intoMemorySegment(dst, d + 12L * Q, ORDER);
    }

    /** Quarter {@code part} of the bytes, zero-extended and converted to floats. */
    private static FloatVector widen(ByteVector bytes, int part) {
        return (FloatVector) bytes.convertShape(VectorOperators.ZERO_EXTEND_B2I, I, part)
                .convert(VectorOperators.I2F, 0);
    }

    private static void scalar(MemorySegment src, long s, MemorySegment dst, long d, long plane, long n, int c,
                               float[] sc, float[] bi) {
        for (long p = 0; p < n; p++) {
            for (int k = 0; k < c; k++) {
                float v = src.get(Layouts.I8, s + p * c + k) & 0xff;
                dst.set(Layouts.F32, d + k * plane + p * 4, Math.fma(v, sc[k], bi[k]));
            }
        }
    }
}
