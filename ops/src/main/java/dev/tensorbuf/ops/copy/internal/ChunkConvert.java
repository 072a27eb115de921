package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.internal.FloatCodec;
import dev.tensorbuf.views.internal.MiniFloat;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;

/**
 * Conversions a chunk at a time, from s8-s64, u8-u64, f16, bf16, f32 and f64 to any real type
 * (and between c64 and c128, part by part). The source run is read into one of three forms: a
 * {@code long[]} for integers, a {@code double[]} for f64 (and f32 on its way to f64 or an integer)
 * and a {@code float[]} for f16, bf16 and f32 on their way to a narrow float. The chunk is then
 * converted to the destination's form in array loops, which C2 vectorises where it can, and written.
 * Dense runs move between memory and arrays with bulk {@code MemorySegment.copy}; strided runs use
 * element loops. {@link ValueMover} spends 8-20 ns an element dispatching on both types per
 * element; this takes 0.5-2.
 *
 * <p>The rules are {@link ValueMover}'s, step for step: a double meets a narrow float through
 * {@code float}, as {@link FloatCodec#encode(double)} does (f16 excepted, which rounds once from
 * the double). A chunk holding a value the fast loops are not sure of (NaN to an integer, out of
 * range) goes through {@link ValueMover#move} instead, which writes the values before it and
 * throws the message the slow path throws.
 */
final class ChunkConvert {
    private static final Set<DType> SOURCES = EnumSet.of(DType.S8, DType.S16, DType.S32, DType.S64, DType.U8,
            DType.U16, DType.U32, DType.U64, DType.F16, DType.BF16, DType.F32, DType.F64);
    /** Elements a chunk holds: its arrays stay in the L1 cache. */
    static final int CHUNK = 512;

    /** The array a chunk is read into. */
    private enum Form { LONG, DOUBLE, FLOAT }

    private ChunkConvert() {
    }

    /** {@return whether this class converts {@code from} to {@code to}: c64 <-> c128 too, part by part} */
    static boolean handles(DType from, DType to) {
        if (from == to) {
            return false;
        }
        if (from.kind() == DType.Kind.COMPLEX || to.kind() == DType.Kind.COMPLEX) {
            return from.kind() == to.kind();
        }
        return SOURCES.contains(from) && to.isArrayType();
    }

    /** Per-task arrays: one per form, and one per width for bulk moves; and whether the Vector API kernels run. */
    static final class Chunks {
        final boolean vector;
        final long[] ints = new long[CHUNK];
        final double[] floats = new double[CHUNK];
        final byte[] bytes = new byte[CHUNK];
        final short[] shorts = new short[CHUNK];
        final int[] words = new int[CHUNK];
        final float[] singles = new float[CHUNK];

        Chunks(boolean vector) {
            this.vector = vector;
        }
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
        boolean denseIn = ss == from.byteWidth();
        boolean denseOut = ds == to.byteWidth();
        if (denseIn && denseOut && dense(s, so, from, d, dO, to, n)) {
            return;
        }
        FloatCodec codec = FloatCodec.of(to);
        Form form = switch (from) {
            case F64 -> Form.DOUBLE;
            case F32 -> codec != null ? Form.FLOAT : Form.DOUBLE;
            case F16, BF16 -> Form.FLOAT;
            default -> Form.LONG;
        };
        for (long done = 0; done < n; done += CHUNK) {
            int m = (int) Math.min(CHUNK, n - done);
            long sOff = so + done * ss;
            long dOff = dO + done * ds;
            switch (form) {
                case LONG -> readInts(s, sOff, ss, denseIn, from, c, m);
                case DOUBLE -> readDoubles(s, sOff, ss, denseIn, from, c, m);
                case FLOAT -> readSingles(s, sOff, ss, denseIn, from, c, m);
            }
            if (toDestination(c, m, form, from, to, codec)) {
                write(d, dOff, ds, denseOut, to, c, m);
            } else {
                for (int i = 0; i < m; i++) {
                    ValueMover.move(s, (sOff + i * ss) / from.byteWidth(), sa, d, (dOff + i * ds) / to.byteWidth(), da);
                }
            }
        }
    }

    /**
     * Converts the chunk into the destination's form: {@code c.singles} for f32, {@code c.floats}
     * for f64, {@code c.words} for the patterns of a narrow float, {@code c.ints} for integers and
     * pred (as 0 or 1).
     * {@return false if a value (NaN, out of range) must go through ValueMover}
     */
    private static boolean toDestination(Chunks c, int m, Form form, DType from, DType to, FloatCodec codec) {
        boolean unsigned64 = from == DType.U64;
        if (to == DType.PRED) {
            toPred(c, m, form);
            return true;
        }
        if (to.kind() != DType.Kind.FLOAT) {
            return switch (form) {
                case LONG -> intsInRange(c, m, to, unsigned64);
                case DOUBLE -> floatsToIntegers(c, m, to);
                case FLOAT -> {
                    widen(c, m);
                    yield floatsToIntegers(c, m, to);
                }
            };
        }
        if (form == Form.LONG) {
            if (to == DType.F32) {
                toSingles(c, m, false, unsigned64);
                return true;
            }
            toDoubles(c, m, unsigned64);
            form = Form.DOUBLE;
        }
        if (to == DType.F64) {
            if (form == Form.FLOAT) {
                widen(c, m);
            }
        } else if (to == DType.F32) {
            if (form == Form.DOUBLE) {
                toSingles(c, m, true, false);
            }
        } else {
            if (form == Form.DOUBLE && to == DType.F16) {
                // f16 alone rounds once from the double (NumPy); every other format goes through float.
                for (int i = 0; i < m; i++) {
                    c.singles[i] = roundToOdd(c.floats[i]);
                }
            } else if (form == Form.DOUBLE) {
                toSingles(c, m, true, false);
            }
            if (c.vector && codec instanceof MiniFloat f) {
                VectorMiniFloat.encode(f, c.singles, c.words, m);
            } else {
                for (int i = 0; i < m; i++) {
                    c.words[i] = codec.encode(c.singles[i]);
                }
            }
            if (form == Form.DOUBLE && to == DType.F16) {
                // A NaN's f16 payload comes from the double's bits, which the float may not keep.
                for (int i = 0; i < m; i++) {
                    if (Double.isNaN(c.floats[i])) {
                        c.words[i] = codec.encode(c.floats[i]);
                    }
                }
            }
        }
        return true;
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

    /** Into {@code c.floats}: f64, or f32 widened exactly. */
    private static void readDoubles(MemorySegment s, long so, long ss, boolean dense, DType t, Chunks c, int m) {
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
    private static void readSingles(MemorySegment s, long so, long ss, boolean dense, DType t, Chunks c, int m) {
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
        } else {
            for (int i = 0; i < m; i++) {
                out[i] = Float.intBitsToFloat((h[i] & 0xffff) << 16);
            }
        }
    }

    /** {@code c.singles} into {@code c.floats}, exactly. */
    private static void widen(Chunks c, int m) {
        for (int i = 0; i < m; i++) {
            c.floats[i] = c.singles[i];
        }
    }

    /** Into {@code c.ints}: 1 where the value is not zero (NaN included), as ValueMover compares. */
    private static void toPred(Chunks c, int m, Form form) {
        long[] out = c.ints;
        switch (form) {
            case LONG -> {
                for (int i = 0; i < m; i++) {
                    out[i] = out[i] != 0 ? 1 : 0;
                }
            }
            case DOUBLE -> {
                for (int i = 0; i < m; i++) {
                    out[i] = c.floats[i] != 0 ? 1 : 0;
                }
            }
            case FLOAT -> {
                for (int i = 0; i < m; i++) {
                    out[i] = c.singles[i] != 0 ? 1 : 0;
                }
            }
        }
    }

    /**
     * {@return {@code x} rounded to float toward zero, with the lowest bit set if that lost
     * anything (round to odd)} A value rounded to odd with at least two bits more than the final
     * format rounds from there to nearest even as it would from {@code x} itself; float has 24
     * against f16's 11, so f64 -> f16 can go through float without rounding twice.
     */
    static float roundToOdd(double x) {
        float f = (float) x;
        if (f == x || x != x) {
            return f; // exact, or NaN (whose payload the caller takes from the double)
        }
        int bits = Float.floatToRawIntBits(f);
        if (Math.abs((double) f) > Math.abs(x)) {
            bits--; // rounded away from zero: the float below in magnitude (from infinity: the largest finite)
        }
        return Float.intBitsToFloat(bits | 1);
    }

    /** Into {@code c.singles}: doubles rounded once to nearest even, integers too (u64 read unsigned). */
    private static void toSingles(Chunks c, int m, boolean fromDoubles, boolean unsigned64) {
        float[] out = c.singles;
        if (fromDoubles) {
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

    /** Integers into {@code c.floats}: exact to 2^53, rounded once beyond (u64 read unsigned). */
    private static void toDoubles(Chunks c, int m, boolean unsigned64) {
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

    /** Writes the chunk in the destination's form (see {@link #toDestination}). */
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
            default -> {
                if (to.kind() == DType.Kind.FLOAT) {
                    for (int i = 0; i < m; i++) {
                        c.ints[i] = c.words[i];
                    }
                    writeBits(d, dO, ds, dense, to.byteWidth(), c, m);
                } else {
                    // Sub-byte types sit in the low bits of their byte, the rest zero, as ElementAccess writes them.
                    if (to.isSubByte()) {
                        long mask = (1L << to.bitWidth()) - 1;
                        for (int i = 0; i < m; i++) {
                            c.ints[i] &= mask;
                        }
                    }
                    writeBits(d, dO, ds, dense, to.byteWidth(), c, m);
                }
            }
        }
    }

    /** Writes the low {@code width} bytes of each of {@code c.ints}: integers, pred, or a {@link ByteTable}'s bits. */
    static void writeBits(MemorySegment d, long dO, long ds, boolean dense, int width, Chunks c, int m) {
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
