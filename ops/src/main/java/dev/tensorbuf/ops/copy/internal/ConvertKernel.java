package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;

import java.lang.foreign.MemorySegment;

/**
 * {@link dev.tensorbuf.ops.copy.internal.Kernel#CONVERT}: element type conversion, optionally with a
 * per-channel {@code fma(value, scale, bias)}, in f64 into f64 and in f32 into every other
 * type ({@link dev.tensorbuf.ops.copy.ChannelAffine}). Pairs from pred, s8-s64, u8-u64, f16, bf16,
 * f32 and f64 go through {@link ChunkConvert}, which runs the commonest pairs' own loops on dense
 * runs ({@link DenseConvert}) and converts the rest a chunk at a time; those from the other
 * one-byte types (f8, f6, f4, unpacked sub-byte) go through a table ({@link ByteTable}), and the
 * rest (reals to complex, for one) through {@link ValueMover}. With scale and bias, u8 -> f32 has
 * a loop of its own (image staging); other pairs, or a channel loop innermost, run the affine's
 * expression ({@link ChannelExpression}): its recognised fma form in {@link AffineChunks}' typed
 * chunk loops, any other in the evaluator. The channel is constant per run unless the channel
 * loop is innermost.
 */
final class ConvertKernel {
    private ConvertKernel() {
    }

    /** @param vector whether the Vector API loops ({@link VectorDenseConvert}, {@link VectorChunks}, {@link VectorMiniFloat}) may run */
    static void run(Task t, ElementAccess sa, ElementAccess da, float[] scale, float[] bias, boolean vector) {
        int r = t.rank();
        long n = t.count()[r - 1];
        long ss = t.srcStride()[r - 1];
        long ds = t.dstStride()[r - 1];
        int ch = t.channelLoop();
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        DType from = sa.type();
        DType to = da.type();
        Path path = scale != null ? Path.AFFINE : Path.of(from, to);
        AffineChunks.Form fused = path == Path.AFFINE && (ch == r - 1 || from != DType.U8 || to != DType.F32)
                ? ChannelExpression.recognised(from, to) : null;
        if (fused != null) {
            AffineChunks.run(t, fused, scale, bias, vector);
            return;
        }
        // Tables and chunk arrays only for the paths that use them: with a table built first
        // (unused), the u8 -> f32 loop ran at half its speed (0.97 against 0.46 ns an element).
        ByteTable table = path == Path.TABLE ? ByteTable.of(from, to) : null;
        ChunkConvert.Chunks chunks = path == Path.TABLE || path == Path.CHUNKS ? new ChunkConvert.Chunks(vector, n) : null;
        ChannelExpression.Runner affine = path == Path.AFFINE && (ch == r - 1 || from != DType.U8 || to != DType.F32)
                ? new ChannelExpression.Runner(src, sa, dst, da, scale, bias) : null;
        int sw = sa.type().byteWidth();
        int dw = da.type().byteWidth();
        Odometer o = new Odometer(t, 1);
        do {
            switch (path) {
                case AFFINE -> {
                    int c = (int) (t.channelBase() + (ch >= 0 && ch < r - 1 ? o.index(ch) : 0));
                    if (affine == null) {
                        u8ToF32(src, o.src, ss, dst, o.dst, ds, n, scale[c], bias[c], vector);
                    } else if (o.src % sw == 0 && ss % sw == 0 && o.dst % dw == 0 && ds % dw == 0) {
                        affine.addRun(o.src / sw, ss / sw, o.dst / dw, ds / dw, n, c, ch == r - 1);
                    } else {
                        for (long i = 0; i < n; i++) {
                            affine.add((o.src + i * ss) / sw, (o.dst + i * ds) / dw, ch == r - 1 ? (int) (c + i) : c);
                        }
                    }
                }
                case TABLE -> table.run(src, o.src, ss, sa, dst, o.dst, ds, da, n, chunks);
                case CHUNKS -> ChunkConvert.run(src, o.src, ss, sa, dst, o.dst, ds, da, n, chunks);
                case VALUE_MOVER -> ValueMover.run(src, o.src, ss, sa, dst, o.dst, ds, da, n);
            }
        } while (o.next());
        if (affine != null) {
            affine.flush();
        }
    }

    /** The loop a pair of types takes, chosen once per task. */
    private enum Path {
        AFFINE, CHUNKS, TABLE, VALUE_MOVER;

        /** ChunkConvert if it takes the pair, else a ByteTable, else ValueMover. */
        static Path of(DType from, DType to) {
            if (ChunkConvert.handles(from, to)) {
                return CHUNKS;
            }
            return ByteTable.handles(from, to) ? TABLE : VALUE_MOVER;
        }
    }

    /** bf16 of an f32, rounded to nearest even; NaN becomes the quiet NaN 0x7fc0 with its sign, as ml_dtypes. */
    static short bf16(float f) {
        int bits = Float.floatToRawIntBits(f);
        if (Float.isNaN(f)) {
            return (short) (((bits >>> 16) & 0x8000) | 0x7fc0);
        }
        return (short) ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16);
    }

    /** u8 -> f32 as {@code fma(byte, scale, bias)}: image staging, dense or with the source strided (NHWC -> NCHW). */
    private static void u8ToF32(MemorySegment s, long so, long ss, MemorySegment d, long dO, long ds, long n, float scale,
                                float bias, boolean vector) {
        if (ss == 1 && ds == 4) {
            DenseConvert.bytesToF32(s, so, d, dO, n, 0xff, Integer.MAX_VALUE, scale, bias, vector);
            return;
        }
        for (long i = 0; i < n; i++) {
            d.set(Layouts.F32, dO + i * ds, Math.fma(s.get(Layouts.I8, so + i * ss) & 0xff, scale, bias));
        }
    }
}
