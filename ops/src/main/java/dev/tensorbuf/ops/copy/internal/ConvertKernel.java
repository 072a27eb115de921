package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;

import java.lang.foreign.MemorySegment;

/**
 * {@link dev.tensorbuf.ops.copy.Kernel#CONVERT}: element type conversion, optionally with a
 * per-channel {@code fma(value, scale, bias)} in f32. The common pairs have their own loops
 * (bit tricks for bf16, the JDK's f16 intrinsics; on dense runs with constant strides, which C2
 * vectorises, or {@link VectorChunks}' loops where it does not). Other pairs from pred, s8-s64,
 * u8-u64, f16, bf16, f32 and f64 go a chunk at a time ({@link ChunkConvert}), those from the other
 * one-byte types (f8, f6, f4, unpacked sub-byte) through a table ({@link ByteTable}), and the rest
 * (reals to complex, for one) through {@link ValueMover}. The channel is constant per run unless
 * the channel loop is innermost.
 */
final class ConvertKernel {
    private ConvertKernel() {
    }

    /** @param vector whether the Vector API loops ({@link VectorChunks}, {@link VectorMiniFloat}) may run */
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
        boolean affine = scale != null;
        Path path = affine ? Path.AFFINE : Path.of(from, to);
        // Tables and chunk arrays only for the paths that use them: with a table built first
        // (unused), the u8 -> f32 loop ran at half its speed (0.97 against 0.46 ns an element).
        ByteTable table = path == Path.TABLE ? ByteTable.of(from, to) : null;
        ChunkConvert.Chunks chunks = path == Path.TABLE || path == Path.CHUNKS ? new ChunkConvert.Chunks(vector) : null;
        // s8, u8 and pred as fma(min(byte & mask, cap), 1, 0): see VectorChunks.bytesToF32.
        int mask = from == DType.S8 ? -1 : 0xff;
        int cap = from == DType.PRED ? 1 : Integer.MAX_VALUE;
        Odometer o = new Odometer(t, 1);
        do {
            switch (path) {
                case AFFINE -> {
                    if (ch == r - 1) {
                        ValueMover.perChannelRun(src, o.src, ss, sa, dst, o.dst, ds, da, n, scale, bias, t.channelBase());
                    } else {
                        int c = (int) (t.channelBase() + (ch >= 0 ? o.index(ch) : 0));
                        if (from == DType.U8 && to == DType.F32) {
                            bytesToF32(src, o.src, ss, dst, o.dst, ds, n, mask, cap, scale[c], bias[c], vector);
                        } else {
                            ValueMover.affineRun(src, o.src, ss, sa, dst, o.dst, ds, da, n, scale[c], bias[c]);
                        }
                    }
                }
                case F32_TO_BF16 -> f32ToBf16(src, o.src, ss, dst, o.dst, ds, n, vector);
                case BF16_TO_F32 -> bf16ToF32(src, o.src, ss, dst, o.dst, ds, n);
                case F32_TO_F16 -> f32ToF16(src, o.src, ss, dst, o.dst, ds, n);
                case F16_TO_F32 -> f16ToF32(src, o.src, ss, dst, o.dst, ds, n);
                case BYTES_TO_F32 -> bytesToF32(src, o.src, ss, dst, o.dst, ds, n, mask, cap, 1f, 0f, vector);
                case TABLE -> table.run(src, o.src, ss, sa, dst, o.dst, ds, da, n, chunks);
                case CHUNKS -> ChunkConvert.run(src, o.src, ss, sa, dst, o.dst, ds, da, n, chunks);
                case VALUE_MOVER -> ValueMover.run(src, o.src, ss, sa, dst, o.dst, ds, da, n);
            }
        } while (o.next());
    }

    /** The loop a pair of types takes, chosen once per task. */
    private enum Path {
        AFFINE, F32_TO_BF16, BF16_TO_F32, F32_TO_F16, F16_TO_F32, BYTES_TO_F32, CHUNKS, TABLE, VALUE_MOVER;

        /** The pair's own loop if it has one, else ChunkConvert, a ByteTable, or ValueMover, in that order. */
        static Path of(DType from, DType to) {
            if (from == DType.F32 && to == DType.BF16) {
                return F32_TO_BF16;
            } else if (from == DType.BF16 && to == DType.F32) {
                return BF16_TO_F32;
            } else if (from == DType.F32 && to == DType.F16) {
                return F32_TO_F16;
            } else if (from == DType.F16 && to == DType.F32) {
                return F16_TO_F32;
            } else if ((from == DType.U8 || from == DType.S8 || from == DType.PRED) && to == DType.F32) {
                return BYTES_TO_F32;
            } else if (ChunkConvert.handles(from, to)) {
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

    private static void f32ToBf16(MemorySegment s, long so, long ss, MemorySegment d, long dO, long ds, long n,
                                  boolean vector) {
        if (ss == 4 && ds == 2) {
            // Constant strides, and the NaN case as a select: C2 vectorises this one (0.75 ns an element against 1.6),
            // the Vector API loop more tightly (0.4).
            for (long i = vector ? VectorChunks.f32ToBf16(s, so, d, dO, n) : 0; i < n; i++) {
                int bits = s.get(Layouts.I32, so + 4 * i);
                int nan = ((bits >>> 16) & 0x8000) | 0x7fc0;
                int rounded = (bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16;
                d.set(Layouts.I16, dO + 2 * i, (short) ((bits & 0x7fff_ffff) > 0x7f80_0000 ? nan : rounded));
            }
            return;
        }
        for (long i = 0; i < n; i++) {
            d.set(Layouts.I16, dO + i * ds, bf16(s.get(Layouts.F32, so + i * ss)));
        }
    }

    private static void bf16ToF32(MemorySegment s, long so, long ss, MemorySegment d, long dO, long ds, long n) {
        if (ss == 2 && ds == 4) {
            for (long i = 0; i < n; i++) {
                d.set(Layouts.I32, dO + 4 * i, (s.get(Layouts.I16, so + 2 * i) & 0xffff) << 16);
            }
            return;
        }
        for (long i = 0; i < n; i++) {
            d.set(Layouts.I32, dO + i * ds, (s.get(Layouts.I16, so + i * ss) & 0xffff) << 16);
        }
    }

    private static void f32ToF16(MemorySegment s, long so, long ss, MemorySegment d, long dO, long ds, long n) {
        if (ss == 4 && ds == 2) {
            for (long i = 0; i < n; i++) {
                d.set(Layouts.I16, dO + 2 * i, Float.floatToFloat16(s.get(Layouts.F32, so + 4 * i)));
            }
            return;
        }
        for (long i = 0; i < n; i++) {
            d.set(Layouts.I16, dO + i * ds, Float.floatToFloat16(s.get(Layouts.F32, so + i * ss)));
        }
    }

    private static void f16ToF32(MemorySegment s, long so, long ss, MemorySegment d, long dO, long ds, long n) {
        if (ss == 2 && ds == 4) {
            for (long i = 0; i < n; i++) {
                d.set(Layouts.F32, dO + 4 * i, Float.float16ToFloat(s.get(Layouts.I16, so + 2 * i)));
            }
            return;
        }
        for (long i = 0; i < n; i++) {
            d.set(Layouts.F32, dO + i * ds, Float.float16ToFloat(s.get(Layouts.I16, so + i * ss)));
        }
    }

    /** s8, u8 or pred -> f32 with {@code fma(min(byte & mask, cap), scale, bias)}; see {@link VectorChunks#bytesToF32}. */
    private static void bytesToF32(MemorySegment s, long so, long ss, MemorySegment d, long dO, long ds, long n, int mask,
                                   int cap, float scale, float bias, boolean vector) {
        if (ss == 1 && ds == 4) {
            // C2 leaves this loop scalar (it does not widen bytes): 0.43 ns an element, the Vector API loop 0.25.
            for (long i = vector ? VectorChunks.bytesToF32(s, so, d, dO, n, mask, cap, scale, bias) : 0; i < n; i++) {
                d.set(Layouts.F32, dO + 4 * i, Math.fma(Math.min(s.get(Layouts.I8, so + i) & mask, cap), scale, bias));
            }
            return;
        }
        for (long i = 0; i < n; i++) {
            d.set(Layouts.F32, dO + i * ds, Math.fma(Math.min(s.get(Layouts.I8, so + i * ss) & mask, cap), scale, bias));
        }
    }
}
