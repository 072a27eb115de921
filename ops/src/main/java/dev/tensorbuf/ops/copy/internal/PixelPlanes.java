package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.MiniFloat;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * The lanes' expression over u8 pixels of 3 interleaved channels, fused with their
 * de-interleaving: image staging's {@code (convert(x) - mean[c]) / std[c]} (or XLA's
 * {@code (x + -mean[c]) * (1 / std[c])}) from u8 NHWC into f32 or bf16 NCHW in one pass over
 * registers. A group of {@code B} pixels ({@code B} = bytes per vector) is loaded as 3 byte
 * vectors and each channel's bytes gathered by two byte shuffles, a channel at a time. Into f32
 * they are widened to floats a quarter at a time (the shuffle orders them so that a quarter is a
 * shift and a mask of int lanes), run through the chain of at most two ops with that channel's
 * constants, and stored into its plane. Into bf16 on 64-byte vectors, each byte instead looks up
 * its value's two bytes among the chain's 256 results for that channel, computed once per plan
 * and rounded once: 13 vector ops per 64 values, where widening, computing and rounding took
 * about 40 and the pass was bound by them (8 cycles a value; now by its stores). The lanes'
 * block path copies the pixels into a float scratch with {@link VectorBytePlanes}, then sweeps
 * and stores the block: five passes over it in cache where this makes none.
 *
 * <p>It computes what {@link PointwiseLanes} computes, op for op (constants flushed as they
 * are there), and {@link #agrees} runs it on every pixel value in every channel against the
 * evaluator's own lookup table: a u8 operand has 256 values, so that is every input the pass will
 * see, and a pass uses the kernel only where it gives the table's bits. One loop per channel,
 * each a method: C2's inlining budget, as in {@link VectorBytePlanes}.
 */
final class PixelPlanes {
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Byte> BS = VectorSpecies.of(byte.class, VectorShape.forBitSize(I.vectorBitSize()));
    private static final VectorSpecies<Short> SS = VectorSpecies.of(short.class, VectorShape.forBitSize(I.vectorBitSize() / 2));
    /** Pixels per group: one byte per vector lane. */
    static final int B = BS.length();
    private static final int Q = I.length();
    private static final float MIN_NORMAL = 0x1p-126f;
    /** No second op. */
    private static final int NONE = -1;
    private static final ByteVector C0_0 = VectorBytePlanes.table(3, 0, 0);
    private static final ByteVector C0_1 = VectorBytePlanes.table(3, 0, 1);
    private static final ByteVector C1_0 = VectorBytePlanes.table(3, 1, 0);
    private static final ByteVector C1_1 = VectorBytePlanes.table(3, 1, 1);
    private static final ByteVector C2_0 = VectorBytePlanes.table(3, 2, 0);
    private static final ByteVector C2_1 = VectorBytePlanes.table(3, 2, 1);
    /** The same channels' bytes in widening order: see {@link #pick}. */
    private static final ByteVector W0_0 = pick(0, 0);
    private static final ByteVector W0_1 = pick(0, 1);
    private static final ByteVector W1_0 = pick(1, 0);
    private static final ByteVector W1_1 = pick(1, 1);
    private static final ByteVector W2_0 = pick(2, 0);
    private static final ByteVector W2_1 = pick(2, 1);
    /** Interleaving shuffles: the low and high bytes of values 0 to B/2 - 1, then of B/2 to B - 1, as little-endian shorts. */
    private static final ByteVector LOW_HALF = interleave(0);
    private static final ByteVector HIGH_HALF = interleave(B / 2);

    private final int op0;
    private final int op1;
    /** Per op, per channel: the constant operand, flushed as {@link VectorPointwise} reads it. */
    private final float[][] constants;
    private final boolean bf16;
    /**
     * Into bf16 with 64-byte vectors: per channel, {@link #lookUp}'s table of the bf16 result of
     * each pixel value (the f32 chain's, rounded once); else null, and the kernel computes.
     */
    private final ByteVector[][] lookup;

    private PixelPlanes(int op0, int op1, float[][] constants, boolean bf16) {
        this.op0 = op0;
        this.op1 = op1;
        this.constants = constants;
        this.bf16 = bf16;
        this.lookup = bf16 && B == 64 ? lookup(new PixelPlanes(op0, op1, constants, false)) : null;
    }

    /** {@return the bf16 lookup vectors of the f32 kernel's results for every pixel value} */
    private static ByteVector[][] lookup(PixelPlanes f32) {
        float[] values = new float[3 * 256];
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(3L * 256);
            for (int p = 0; p < 256; p++) {
                src.asSlice(3L * p, 3).fill((byte) p);
            }
            MemorySegment got = arena.allocate(3L * 256 * 4);
            f32.run(src, 0, got, 0, 256L * 4, 256);
            MemorySegment.copy(got, ValueLayout.JAVA_FLOAT_UNALIGNED, 0, values, 0, values.length);
        }
        ByteVector[][] lookup = new ByteVector[3][8];
        byte[] bytes = new byte[256];
        for (int c = 0; c < 3; c++) {
            for (int half = 0; half < 2; half++) {
                for (int v = 0; v < 256; v++) {
                    bytes[v] = (byte) (MiniFloat.BF16.encode(values[c * 256 + v]) >>> 8 * half);
                }
                for (int k = 0; k < 4; k++) {
                    lookup[c][4 * half + k] = ByteVector.fromArray(BS, bytes, k * B);
                }
            }
        }
        return lookup;
    }

    /**
     * {@return the de-interleaving shuffle of {@code step} (as {@link VectorBytePlanes#table}'s)
     * that puts channel {@code c} of pixel {@code Q k + i} in byte {@code k} of int lane {@code i}}
     * Quarter {@code k} of the group is then a shift and a mask of the ints: with
     * {@code convertShape} of parts the f32 kernel took 0.9 ns a value against 0.4 (one thread, in cache).
     */
    private static ByteVector pick(int c, int step) {
        byte[] idx = new byte[B];
        for (int j = 0; j < B; j++) {
            int g = 3 * (Q * (j % 4) + j / 4) + c;
            int input = g / B;
            int lane = g % B;
            if (step == 0) {
                idx[j] = (byte) (input == 0 ? lane : input == 1 ? B + lane : 0);
            } else {
                idx[j] = (byte) (input == 2 ? B + lane : j);
            }
        }
        return ByteVector.fromArray(BS, idx, 0);
    }

    /** {@return the shuffle taking lanes {@code from} to {@code from + B/2 - 1} of two vectors, alternately} */
    private static ByteVector interleave(int from) {
        byte[] idx = new byte[B];
        for (int j = 0; j < B; j++) {
            idx[j] = (byte) (from + j / 2 + (j % 2) * B);
        }
        return ByteVector.fromArray(BS, idx, 0);
    }

    /**
     * {@return the fused kernel for a chain of ops, each {@code value = ops[k](value, constants[k][c])},
     * the first over the pixel; null when it is not of this form (more than two ops, an op other
     * than add, subtract, multiply, divide, a result other than f32 or bf16)}
     */
    static PixelPlanes of(int[] ops, float[][] constants, DType out) {
        if (ops.length < 1 || ops.length > 2 || (out != DType.F32 && out != DType.BF16)) {
            return null;
        }
        for (int op : ops) {
            if (op != VectorPointwise.ADD && op != VectorPointwise.SUBTRACT && op != VectorPointwise.MULTIPLY
                    && op != VectorPointwise.DIVIDE) {
                return null;
            }
        }
        float[][] flushed = new float[ops.length][];
        for (int k = 0; k < ops.length; k++) {
            if (constants[k].length != 3) {
                return null;
            }
            flushed[k] = new float[3];
            for (int c = 0; c < 3; c++) {
                float v = constants[k][c];
                flushed[k][c] = Math.abs(v) < MIN_NORMAL ? Math.copySign(0f, v) : v;
            }
        }
        return new PixelPlanes(ops[0], ops.length > 1 ? ops[1] : NONE, flushed, out == DType.BF16);
    }

    /**
     * {@return whether this kernel gives {@code table}'s bits (channel {@code c}, value {@code v}
     * at {@code c * 256 + v}) for every pixel value: run on 256 pixels whose channels all hold
     * the pixel's index}
     */
    boolean agrees(PointwiseTable table) {
        if (table.channels() != 3) {
            return false;
        }
        MemorySegment want = switch (table.table()) {
            case int[] t -> MemorySegment.ofArray(t);
            case short[] t -> MemorySegment.ofArray(t);
            default -> null;
        };
        int width = bf16 ? 2 : 4;
        if (want == null || want.byteSize() != 3L * 256 * width) {
            return false;
        }
        // Native memory, as the passes': a profile of heap segments would compile the wrong accesses.
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(3L * 256);
            for (int p = 0; p < 256; p++) {
                for (int c = 0; c < 3; c++) {
                    src.set(ValueLayout.JAVA_BYTE, 3L * p + c, (byte) p);
                }
            }
            MemorySegment got = arena.allocate(3L * 256 * width);
            run(src, 0, got, 0, 256L * width, 256);
            return got.mismatch(want) < 0;
        }
    }

    /**
     * Writes {@code pixels} pixels of 3 u8 channels at byte {@code s} of {@code src} into 3 planes
     * of {@code dst}: channel {@code c}'s first value at byte {@code d + c * plane}.
     *
     * @param pixels at least {@link #B}: a run that is not a multiple of it ends with one group
     *     overlapping the previous one
     */
    void run(MemorySegment src, long s, MemorySegment dst, long d, long plane, long pixels) {
        // A channel at a time, each a loop of its own (the run's pixels, a block's, are re-read
        // from L1/L2): one loop for all three outgrew C2's inlining budget, and every call it
        // left out boxed its vectors on the heap.
        if (lookup != null) {
            lookUp(src, s, dst, d, pixels, C0_0, C0_1, lookup[0]);
            lookUp(src, s, dst, d + plane, pixels, C1_0, C1_1, lookup[1]);
            lookUp(src, s, dst, d + 2 * plane, pixels, C2_0, C2_1, lookup[2]);
        } else {
            compute(src, s, dst, d, pixels, W0_0, W0_1, 0);
            compute(src, s, dst, d + plane, pixels, W1_0, W1_1, 1);
            compute(src, s, dst, d + 2 * plane, pixels, W2_0, W2_1, 2);
        }
    }

    /**
     * One channel's plane by {@link #chain}: its {@code B} bytes widened a quarter at a time
     * (constant parts, for C2), computed and stored.
     */
    private void compute(MemorySegment src, long s, MemorySegment dst, long d, long pixels, ByteVector pick0,
                         ByteVector pick1, int c) {
        FloatVector a = FloatVector.broadcast(F, constants[0][c]);
        FloatVector b = op1 == NONE ? a : FloatVector.broadcast(F, constants[1][c]);
        int w = bf16 ? 2 : 4;
        for (long p = 0; ; p += B) {
            if (p > pixels - B) {
                if (p == pixels) {
                    break;
                }
                p = pixels - B;
            }
            long q = s + p * 3;
            long at = d + p * w;
            IntVector bytes = pick1.selectFrom(pick0.selectFrom(ByteVector.fromMemorySegment(BS, src, q, ORDER),
                    ByteVector.fromMemorySegment(BS, src, q + B, ORDER)), ByteVector.fromMemorySegment(BS, src, q + 2L * B, ORDER))
                    .reinterpretAsInts();
            put(chain(widen(bytes, 0), a, b), dst, at);
            put(chain(widen(bytes, 1), a, b), dst, at + (long) w * Q);
            put(chain(widen(bytes, 2), a, b), dst, at + 2L * w * Q);
            put(chain(widen(bytes, 3), a, b), dst, at + 3L * w * Q);
        }
    }

    /**
     * One channel's bf16 plane by lookup: each pixel byte picks its value's low and high byte
     * from {@code table} (low bytes of values 0-127, 128-255, high bytes of 0-127, 128-255, two
     * vectors each: a two-vector {@code selectFrom} reads 7 bits of its index), and two more
     * shuffles interleave them into shorts. 13 vector ops per {@code B} values where widening and
     * computing takes about 40.
     */
    private static void lookUp(MemorySegment src, long s, MemorySegment dst, long d, long pixels, ByteVector pick0,
                               ByteVector pick1, ByteVector[] table) {
        ByteVector lo0 = table[0];
        ByteVector lo1 = table[1];
        ByteVector lo2 = table[2];
        ByteVector lo3 = table[3];
        ByteVector hi0 = table[4];
        ByteVector hi1 = table[5];
        ByteVector hi2 = table[6];
        ByteVector hi3 = table[7];
        for (long p = 0; ; p += B) {
            if (p > pixels - B) {
                if (p == pixels) {
                    break;
                }
                p = pixels - B;
            }
            long q = s + p * 3;
            long at = d + p * 2;
            ByteVector x = pick1.selectFrom(pick0.selectFrom(ByteVector.fromMemorySegment(BS, src, q, ORDER),
                    ByteVector.fromMemorySegment(BS, src, q + B, ORDER)), ByteVector.fromMemorySegment(BS, src, q + 2L * B, ORDER));
            VectorMask<Byte> upper = x.compare(VectorOperators.LT, (byte) 0);
            ByteVector lo = x.selectFrom(lo0, lo1).blend(x.selectFrom(lo2, lo3), upper);
            ByteVector hi = x.selectFrom(hi0, hi1).blend(x.selectFrom(hi2, hi3), upper);
            LOW_HALF.selectFrom(lo, hi).intoMemorySegment(dst, at, ORDER);
            HIGH_HALF.selectFrom(lo, hi).intoMemorySegment(dst, at + B, ORDER);
        }
    }

    private FloatVector chain(FloatVector x, FloatVector a, FloatVector b) {
        FloatVector v = apply(op0, x, a);
        return op1 == NONE ? v : apply(op1, v, b);
    }

    /**
     * {@code op(x, y)} rounded once, without {@link VectorPointwise}'s flushing of denormals: over
     * u8 pixels and normal constants no value it sees or makes is one, and {@link #agrees} holds
     * the kernel to the evaluator's table on every input anyway (flushing cost half the pass).
     */
    private static FloatVector apply(int op, FloatVector x, FloatVector y) {
        return switch (op) {
            case VectorPointwise.ADD -> x.add(y);
            case VectorPointwise.SUBTRACT -> x.sub(y);
            case VectorPointwise.MULTIPLY -> x.mul(y);
            default -> x.div(y);
        };
    }

    private void put(FloatVector v, MemorySegment dst, long d) {
        if (bf16) {
            // Rounded to nearest even without VectorMiniFloat's NaN case: that came to more nodes
            // than C2 inlines, and agrees() would refuse a NaN this got wrong.
            IntVector bits = v.reinterpretAsInts();
            IntVector rounded = bits.add(bits.lanewise(VectorOperators.LSHR, 16).and(1)).add(0x7fff)
                    .lanewise(VectorOperators.LSHR, 16);
            ((ShortVector) rounded.convertShape(VectorOperators.I2S, SS, 0)).intoMemorySegment(dst, d, ORDER);
        } else {
            v.intoMemorySegment(dst, d, ORDER);
        }
    }

    /** {@return byte {@code part} of each int lane, as floats: quarter {@code part} of a group {@link #pick} ordered} */
    private static FloatVector widen(IntVector bytes, int part) {
        IntVector v = part == 3 ? bytes.lanewise(VectorOperators.LSHR, 24)
                : (part == 0 ? bytes : bytes.lanewise(VectorOperators.LSHR, 8 * part)).and(0xff);
        return (FloatVector) v.convert(VectorOperators.I2F, 0);
    }

    /** {@return the kernel's name, for the report} */
    String kernel() {
        return "de-interleaving 3 u8 channels into " + (bf16 ? "bf16" : "f32") + " planes, "
                + (op1 == NONE ? "1 op" : "2 ops") + (lookup != null ? ", looked up per pixel value" : " per vector in registers");
    }
}
