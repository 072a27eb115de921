package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.copy.internal.ChunkConvert.Chunks;
import dev.tensorbuf.views.DType;
import java.lang.foreign.MemorySegment;

/**
 * The first step of {@link ChunkConvert}: a run of source elements read, exactly, into the chunk
 * array of its form ({@code int[]}, {@code long[]}, {@code double[]} or {@code float[]}). A dense
 * run is read with one bulk {@code MemorySegment.copy} into the array of its width, a strided one
 * element by element; widening then goes through {@link VectorChunks} when the Vector API runs,
 * since C2 leaves loops whose element widths differ scalar.
 */
final class ChunkReads {
    private ChunkReads() {
    }

    /** Into {@code c.words}: pred as 0 or 1, s8-s32 sign-extended, u8 and u16 zero-extended, u32 as its bits. */
    static void readWords(MemorySegment s, long so, long ss, boolean dense, DType t, Chunks c, int m) {
        int[] out = c.words;
        switch (t.byteWidth()) {
            case 1 -> {
                byte[] b = c.bytes;
                if (dense) {
                    MemorySegment.copy(s, Layouts.I8, so, b, 0, m);
                } else {
                    for (int i = 0; i < m; i++) {
                        b[i] = s.get(Layouts.I8, so + i * ss);
                    }
                }
                if (c.vector) {
                    VectorChunks.widen(b, out, m, t == DType.U8 ? VectorChunks.Extend.UNSIGNED
                            : t == DType.PRED ? VectorChunks.Extend.PRED : VectorChunks.Extend.SIGNED);
                } else if (t == DType.U8) {
                    for (int i = 0; i < m; i++) {
                        out[i] = b[i] & 0xff;
                    }
                } else if (t == DType.PRED) {
                    for (int i = 0; i < m; i++) {
                        int v = b[i];
                        out[i] = (v | -v) >>> 31; // any non-zero byte reads as 1
                    }
                } else {
                    for (int i = 0; i < m; i++) {
                        out[i] = b[i];
                    }
                }
            }
            case 2 -> {
                short[] h = c.shorts;
                if (dense) {
                    MemorySegment.copy(s, Layouts.I16, so, h, 0, m);
                } else {
                    for (int i = 0; i < m; i++) {
                        h[i] = s.get(Layouts.I16, so + i * ss);
                    }
                }
                if (c.vector) {
                    VectorChunks.widen(h, out, m, t == DType.U16);
                } else if (t == DType.U16) {
                    for (int i = 0; i < m; i++) {
                        out[i] = h[i] & 0xffff;
                    }
                } else {
                    for (int i = 0; i < m; i++) {
                        out[i] = h[i];
                    }
                }
            }
            default -> {
                if (dense) {
                    MemorySegment.copy(s, Layouts.I32, so, out, 0, m);
                } else {
                    for (int i = 0; i < m; i++) {
                        out[i] = s.get(Layouts.I32, so + i * ss);
                    }
                }
            }
        }
    }

    /** Into {@code c.ints}: any integer or pred; u64 as its bits, read unsigned where it is used. */
    static void readLongs(MemorySegment s, long so, long ss, boolean dense, DType t, Chunks c, int m) {
        long[] out = c.ints;
        if (t.byteWidth() == 8) {
            if (dense) {
                MemorySegment.copy(s, Layouts.I64, so, out, 0, m);
            } else {
                for (int i = 0; i < m; i++) {
                    out[i] = s.get(Layouts.I64, so + i * ss);
                }
            }
            return;
        }
        readWords(s, so, ss, dense, t, c, m);
        if (c.vector) {
            VectorChunks.toLongs(c.words, out, m, t == DType.U32);
        } else if (t == DType.U32) {
            for (int i = 0; i < m; i++) {
                out[i] = c.words[i] & 0xffff_ffffL;
            }
        } else {
            for (int i = 0; i < m; i++) {
                out[i] = c.words[i];
            }
        }
    }

    /** Into {@code c.floats}: f64, or f32 widened exactly. */
    static void readDoubles(MemorySegment s, long so, long ss, boolean dense, DType t, Chunks c, int m) {
        double[] out = c.floats;
        if (t == DType.F64) {
            if (dense) {
                MemorySegment.copy(s, Layouts.F64, so, out, 0, m);
            } else {
                for (int i = 0; i < m; i++) {
                    out[i] = s.get(Layouts.F64, so + i * ss);
                }
            }
            return;
        }
        readSingles(s, so, ss, dense, t, c, m);
        widen(c, m);
    }

    /** Into {@code c.singles}: f32, or f16 and bf16 decoded exactly (NaN payloads kept, as their codecs decode). */
    static void readSingles(MemorySegment s, long so, long ss, boolean dense, DType t, Chunks c, int m) {
        float[] out = c.singles;
        if (t == DType.F32) {
            if (dense) {
                MemorySegment.copy(s, Layouts.F32, so, out, 0, m);
            } else {
                for (int i = 0; i < m; i++) {
                    out[i] = s.get(Layouts.F32, so + i * ss);
                }
            }
            return;
        }
        short[] h = c.shorts;
        if (dense) {
            MemorySegment.copy(s, Layouts.I16, so, h, 0, m);
        } else {
            for (int i = 0; i < m; i++) {
                h[i] = s.get(Layouts.I16, so + i * ss);
            }
        }
        if (t == DType.F16) {
            for (int i = 0; i < m; i++) {
                out[i] = Float.float16ToFloat(h[i]);
            }
        } else if (c.vector) {
            VectorChunks.bf16ToFloats(h, out, m);
        } else {
            for (int i = 0; i < m; i++) {
                out[i] = Float.intBitsToFloat((h[i] & 0xffff) << 16);
            }
        }
    }

    /** {@code c.singles} into {@code c.floats}, exactly. */
    static void widen(Chunks c, int m) {
        for (int i = 0; i < m; i++) {
            c.floats[i] = c.singles[i];
        }
    }
}
