package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;

/**
 * Conversions between the types Java has primitives for (s8-s64, u8-u64, f32, f64), and between
 * c64 and c128 part by part, a chunk at a time: the source run is read into a {@code long[]} (integers) or {@code double[]} (floats),
 * converted, and written. Dense runs move between memory and arrays with bulk
 * {@code MemorySegment.copy} and convert in plain array loops, which C2 vectorises; strided runs
 * use element loops. {@link ValueMover} spends 8-20 ns an element dispatching on both types per
 * element. The rules are {@link ValueMover}'s: a chunk holding a value the fast loops are not sure
 * of (NaN, out of range) goes through {@link ValueMover#move} instead, which writes the values
 * before it and throws the message the slow path throws.
 */
final class PrimitiveConvert {
    private static final Set<DType> TYPES = EnumSet.of(DType.S8, DType.S16, DType.S32, DType.S64, DType.U8, DType.U16,
            DType.U32, DType.U64, DType.F32, DType.F64);
    /** Elements a chunk holds: its arrays stay in the L1 cache. */
    static final int CHUNK = 512;

    private PrimitiveConvert() {
    }

    /** {@return whether this class converts {@code from} to {@code to}: c64 <-> c128 too, part by part} */
    static boolean handles(DType from, DType to) {
        return from != to && (TYPES.contains(from) && TYPES.contains(to)
                || from.kind() == DType.Kind.COMPLEX && to.kind() == DType.Kind.COMPLEX);
    }


    /** Per-task arrays: the canonical chunk (long or double) and one array per width for bulk moves. */
    static final class Chunks {
        final long[] ints = new long[CHUNK];
        final double[] floats = new double[CHUNK];
        final byte[] bytes = new byte[CHUNK];
        final short[] shorts = new short[CHUNK];
        final int[] words = new int[CHUNK];
        final float[] singles = new float[CHUNK];
    }

    /** Converts {@code n} elements, strides and offsets in bytes, as {@link ValueMover#run} does. */
    static void run(MemorySegment s, long so, long ss, ElementAccess sa, MemorySegment d, long dO, long ds,
                    ElementAccess da, long n, Chunks c) {
        if (sa.type().kind() == DType.Kind.COMPLEX) {
            // Real parts, then imaginary parts: f32 <-> f64 conversions, which never fail.
            ElementAccess sp = ElementAccess.of(sa.type().componentType());
            ElementAccess dp = ElementAccess.of(da.type().componentType());
            convert(s, so, ss, sp, d, dO, ds, dp, n, c);
            convert(s, so + sp.type().byteWidth(), ss, sp, d, dO + dp.type().byteWidth(), ds, dp, n, c);
        } else {
            convert(s, so, ss, sa, d, dO, ds, da, n, c);
        }
    }

    private static void convert(MemorySegment s, long so, long ss, ElementAccess sa, MemorySegment d, long dO, long ds,
                                ElementAccess da, long n, Chunks c) {
        DType from = sa.type();
        DType to = da.type();
        boolean fromFloat = from.kind() == DType.Kind.FLOAT;
        boolean denseIn = ss == from.byteWidth();
        boolean denseOut = ds == to.byteWidth();
        if (denseIn && denseOut && dense(s, so, from, d, dO, to, n)) {
            return;
        }
        for (long done = 0; done < n; done += CHUNK) {
            int m = (int) Math.min(CHUNK, n - done);
            long sOff = so + done * ss;
            long dOff = dO + done * ds;
            if (fromFloat) {
                readFloats(s, sOff, ss, denseIn, from, c, m);
            } else {
                readInts(s, sOff, ss, denseIn, from, c, m);
            }
            boolean ok = true; // floats hold any value of these types; integers may be out of range
            switch (to) {
                case F32 -> toSingles(c, m, fromFloat, from == DType.U64);
                case F64 -> toDoubles(c, m, fromFloat, from == DType.U64);
                default -> ok = fromFloat ? floatsToIntegers(c, m, to) : intsInRange(c, m, to, from == DType.U64);
            }
            if (!ok) {
                for (int i = 0; i < m; i++) {
                    ValueMover.move(s, (sOff + i * ss) / from.byteWidth(), sa, d, (dOff + i * ds) / to.byteWidth(), da);
                }
            } else {
                write(d, dOff, ds, denseOut, to, c, m);
            }
        }
    }

    /**
     * The commonest pairs on dense runs, one loop each with constant strides, which C2 vectorises:
     * 0.5 ns an element against 1.1 through the chunk arrays. {@return false for other pairs}
     */
    private static boolean dense(MemorySegment s, long so, DType from, MemorySegment d, long dO, DType to, long n) {
        if (from == DType.F64 && to == DType.F32) {
            for (long i = 0; i < n; i++) {
                d.set(Layouts.F32, dO + 4 * i, (float) s.get(Layouts.F64, so + 8 * i));
            }
        } else if (from == DType.F32 && to == DType.F64) {
            for (long i = 0; i < n; i++) {
                d.set(Layouts.F64, dO + 8 * i, s.get(Layouts.F32, so + 4 * i));
            }
        } else if (from == DType.S32 && to == DType.F32) {
            for (long i = 0; i < n; i++) {
                d.set(Layouts.F32, dO + 4 * i, (float) s.get(Layouts.I32, so + 4 * i));
            }
        } else {
            return false;
        }
        return true;
    }

    private static void readInts(MemorySegment s, long so, long ss, boolean dense, DType t, Chunks c, int m) {
        long[] out = c.ints;
        switch (t) {
            case S8, U8 -> {
                byte[] b = c.bytes;
                if (dense) {
                    MemorySegment.copy(s, Layouts.I8, so, b, 0, m);
                } else {
                    for (int i = 0; i < m; i++) {
                        b[i] = s.get(Layouts.I8, so + i * ss);
                    }
                }
                long mask = t == DType.U8 ? 0xffL : -1L;
                for (int i = 0; i < m; i++) {
                    out[i] = b[i] & mask;
                }
            }
            case S16, U16 -> {
                short[] h = c.shorts;
                if (dense) {
                    MemorySegment.copy(s, Layouts.I16, so, h, 0, m);
                } else {
                    for (int i = 0; i < m; i++) {
                        h[i] = s.get(Layouts.I16, so + i * ss);
                    }
                }
                long mask = t == DType.U16 ? 0xffffL : -1L;
                for (int i = 0; i < m; i++) {
                    out[i] = h[i] & mask;
                }
            }
            case S32, U32 -> {
                int[] w = c.words;
                if (dense) {
                    MemorySegment.copy(s, Layouts.I32, so, w, 0, m);
                } else {
                    for (int i = 0; i < m; i++) {
                        w[i] = s.get(Layouts.I32, so + i * ss);
                    }
                }
                long mask = t == DType.U32 ? 0xffff_ffffL : -1L;
                for (int i = 0; i < m; i++) {
                    out[i] = w[i] & mask;
                }
            }
            default -> { // S64, U64: the bits; u64 ones are read unsigned where they are used
                if (dense) {
                    MemorySegment.copy(s, Layouts.I64, so, out, 0, m);
                } else {
                    for (int i = 0; i < m; i++) {
                        out[i] = s.get(Layouts.I64, so + i * ss);
                    }
                }
            }
        }
    }

    private static void readFloats(MemorySegment s, long so, long ss, boolean dense, DType t, Chunks c, int m) {
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
        float[] f = c.singles;
        if (dense) {
            MemorySegment.copy(s, Layouts.F32, so, f, 0, m);
        } else {
            for (int i = 0; i < m; i++) {
                f[i] = s.get(Layouts.F32, so + i * ss);
            }
        }
        for (int i = 0; i < m; i++) {
            out[i] = f[i];
        }
    }

    /** Into {@code c.singles}: floats rounded once to nearest even, integers too (u64 read unsigned). */
    private static void toSingles(Chunks c, int m, boolean fromFloat, boolean unsigned64) {
        float[] out = c.singles;
        if (fromFloat) {
            for (int i = 0; i < m; i++) {
                out[i] = (float) c.floats[i];
            }
        } else if (!unsigned64) {
            for (int i = 0; i < m; i++) {
                out[i] = (float) c.ints[i];
            }
        } else {
            for (int i = 0; i < m; i++) {
                long v = c.ints[i];
                // From 2^63: halved with the lost bit kept as a sticky bit, so it rounds once.
                out[i] = v >= 0 ? (float) v : (float) ((v >>> 1) | (v & 1)) * 2f;
            }
        }
    }

    /** Into {@code c.floats}: exact for floats and integers to 2^53, rounded once beyond. */
    private static void toDoubles(Chunks c, int m, boolean fromFloat, boolean unsigned64) {
        if (fromFloat) {
            return; // f32 widened exactly when read
        }
        double[] out = c.floats;
        for (int i = 0; i < m; i++) {
            long v = c.ints[i];
            out[i] = !unsigned64 || v >= 0 ? (double) v : (double) ((v >>> 1) | (v & 1)) * 2.0;
        }
    }

    /** Checks {@code c.ints} against {@code to}'s range; a negative u64 is 2^63 or more, which only u64 holds. */
    private static boolean intsInRange(Chunks c, int m, DType to, boolean unsigned64) {
        long min = minOf(to);
        long max = maxOf(to);
        boolean toU64 = to == DType.U64;
        boolean ok = true;
        for (int i = 0; i < m; i++) {
            long v = c.ints[i];
            ok &= unsigned64 && v < 0 ? toU64 : v >= min && v <= max;
        }
        return ok;
    }

    /** Into {@code c.ints}: truncated toward zero; false if a value (NaN, infinite) truncates out of {@code to}'s range. */
    private static boolean floatsToIntegers(Chunks c, int m, DType to) {
        // Valid when above and below these, exclusive; NaN fails both comparisons.
        double above = to == DType.S64 ? Math.nextDown(-0x1p63) : to == DType.U64 ? -1.0 : minOf(to) - 1.0;
        double below = to == DType.S64 ? 0x1p63 : to == DType.U64 ? 0x1p64 : maxOf(to) + 1.0;
        boolean ok = true;
        for (int i = 0; i < m; i++) {
            double v = c.floats[i];
            ok &= v > above && v < below;
            c.ints[i] = v >= 0x1p63 ? (long) (v - 0x1p63) ^ Long.MIN_VALUE : (long) v;
        }
        return ok;
    }

    /** Writes the converted chunk: {@code c.singles} for f32, {@code c.floats} for f64, {@code c.ints} otherwise. */
    private static void write(MemorySegment d, long dO, long ds, boolean dense, DType to, Chunks c, int m) {
        switch (to) {
            case F32 -> {
                if (dense) {
                    MemorySegment.copy(c.singles, 0, d, Layouts.F32, dO, m);
                } else {
                    for (int i = 0; i < m; i++) {
                        d.set(Layouts.F32, dO + i * ds, c.singles[i]);
                    }
                }
            }
            case F64 -> {
                if (dense) {
                    MemorySegment.copy(c.floats, 0, d, Layouts.F64, dO, m);
                } else {
                    for (int i = 0; i < m; i++) {
                        d.set(Layouts.F64, dO + i * ds, c.floats[i]);
                    }
                }
            }
            default -> writeIntegers(d, dO, ds, dense, to.byteWidth(), c, m);
        }
    }

    private static void writeIntegers(MemorySegment d, long dO, long ds, boolean dense, int width, Chunks c, int m) {
        long[] v = c.ints;
        switch (width) {
            case 1 -> {
                for (int i = 0; i < m; i++) {
                    c.bytes[i] = (byte) v[i];
                }
                if (dense) {
                    MemorySegment.copy(c.bytes, 0, d, Layouts.I8, dO, m);
                } else {
                    for (int i = 0; i < m; i++) {
                        d.set(Layouts.I8, dO + i * ds, c.bytes[i]);
                    }
                }
            }
            case 2 -> {
                for (int i = 0; i < m; i++) {
                    c.shorts[i] = (short) v[i];
                }
                if (dense) {
                    MemorySegment.copy(c.shorts, 0, d, Layouts.I16, dO, m);
                } else {
                    for (int i = 0; i < m; i++) {
                        d.set(Layouts.I16, dO + i * ds, c.shorts[i]);
                    }
                }
            }
            case 4 -> {
                for (int i = 0; i < m; i++) {
                    c.words[i] = (int) v[i];
                }
                if (dense) {
                    MemorySegment.copy(c.words, 0, d, Layouts.I32, dO, m);
                } else {
                    for (int i = 0; i < m; i++) {
                        d.set(Layouts.I32, dO + i * ds, c.words[i]);
                    }
                }
            }
            default -> {
                if (dense) {
                    MemorySegment.copy(v, 0, d, Layouts.I64, dO, m);
                } else {
                    for (int i = 0; i < m; i++) {
                        d.set(Layouts.I64, dO + i * ds, v[i]);
                    }
                }
            }
        }
    }

    private static long minOf(DType t) {
        return t.kind() == DType.Kind.UNSIGNED ? 0 : -1L << (t.bitWidth() - 1);
    }

    private static long maxOf(DType t) {
        return t.kind() == DType.Kind.UNSIGNED ? (t.bitWidth() == 64 ? Long.MAX_VALUE : (1L << t.bitWidth()) - 1)
                : (1L << (t.bitWidth() - 1)) - 1;
    }
}
