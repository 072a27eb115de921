package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.DType;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * The lanes' expression over u8 pixels of 3 interleaved channels, fused with their
 * de-interleaving: image staging's {@code (convert(x) - mean[c]) / std[c]} (or XLA's
 * {@code (x + -mean[c]) * (1 / std[c])}) from u8 NHWC into f32 or bf16 NCHW in one pass over
 * registers. A group of {@code B} pixels ({@code B} = bytes per vector) is loaded as 3 byte
 * vectors, each channel's bytes gathered by two byte shuffles ({@link VectorBytePlanes}' tables),
 * widened to floats a quarter at a time, run through the chain of at most two ops with that
 * channel's constants, and stored into its plane. The lanes' block path copies the pixels into
 * a float scratch with {@link VectorBytePlanes}, then sweeps and stores the block: five passes
 * over it in cache where this makes none.
 *
 * <p>It computes what {@link PointwiseLanes} computes, op for op (constants flushed as they
 * are there), and {@link #agrees} runs it on every pixel value in every channel against the
 * evaluator's own lookup table: a u8 operand has 256 values, so that is every input the pass will
 * see, and a pass uses the kernel only where it gives the table's bits. One method per channel, as in {@link VectorBytePlanes}:
 * C2's inlining budget.
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

    private final int op0;
    private final int op1;
    /** Per op, per channel: the constant operand, flushed as {@link VectorPointwise} reads it. */
    private final float[][] constants;
    private final boolean bf16;

    private PixelPlanes(int op0, int op1, float[][] constants, boolean bf16) {
        this.op0 = op0;
        this.op1 = op1;
        this.constants = constants;
        this.bf16 = bf16;
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
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment src = arena.allocate(3L * 256);
            for (int p = 0; p < 256; p++) {
                for (int c = 0; c < 3; c++) {
                    src.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 3L * p + c, (byte) p);
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
        int width = bf16 ? 2 : 4;
        for (long p = 0; ; p += B) {
            if (p > pixels - B) {
                if (p == pixels) {
                    break;
                }
                p = pixels - B;
            }
            long q = s + p * 3;
            long at = d + p * width;
            // One load of the group's three vectors; each channel is two shuffles of them.
            ByteVector v0 = ByteVector.fromMemorySegment(BS, src, q, ORDER);
            ByteVector v1 = ByteVector.fromMemorySegment(BS, src, q + B, ORDER);
            ByteVector v2 = ByteVector.fromMemorySegment(BS, src, q + 2L * B, ORDER);
            store(C0_1.selectFrom(C0_0.selectFrom(v0, v1), v2), 0, dst, at);
            store(C1_1.selectFrom(C1_0.selectFrom(v0, v1), v2), 1, dst, at + plane);
            store(C2_1.selectFrom(C2_0.selectFrom(v0, v1), v2), 2, dst, at + 2 * plane);
        }
    }

    /** Widens a channel's {@code B} bytes a quarter at a time (constant parts, for C2), computes and stores them. */
    private void store(ByteVector bytes, int c, MemorySegment dst, long d) {
        FloatVector a = FloatVector.broadcast(F, constants[0][c]);
        FloatVector b = op1 == NONE ? a : FloatVector.broadcast(F, constants[1][c]);
        int w = bf16 ? 2 : 4;
        put(chain(widen(bytes, 0), a, b), dst, d);
        put(chain(widen(bytes, 1), a, b), dst, d + (long) w * Q);
        put(chain(widen(bytes, 2), a, b), dst, d + 2L * w * Q);
        put(chain(widen(bytes, 3), a, b), dst, d + 3L * w * Q);
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
            ((ShortVector) VectorMiniFloat.bf16(v.reinterpretAsInts()).convertShape(VectorOperators.I2S, SS, 0))
                    .intoMemorySegment(dst, d, ORDER);
        } else {
            v.intoMemorySegment(dst, d, ORDER);
        }
    }

    private static FloatVector widen(ByteVector bytes, int part) {
        return (FloatVector) bytes.convertShape(VectorOperators.ZERO_EXTEND_B2I, I, part).convert(VectorOperators.I2F, 0);
    }

    /** {@return the kernel's name, for the report} */
    String kernel() {
        return "de-interleaving 3 u8 channels into " + (bf16 ? "bf16" : "f32") + " planes, "
                + (op1 == NONE ? "1 op" : "2 ops") + " per vector in registers";
    }
}
