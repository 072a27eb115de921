package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.internal.FloatCodec;
import dev.tensorbuf.views.internal.MiniFloat;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;

/**
 * Conversions a chunk at a time, from pred, s8-s64, u8-u64, f16, bf16, f32 and f64 to any real
 * type (and between c64 and c128, part by part). A dense run of a common pair first goes through
 * that pair's own loop ({@link DenseConvert}), which may leave the rest of the run (from a value
 * out of range) to the chunks. The source run is read ({@link ChunkReads}) into one of four forms:
 * an {@code int[]} for pred and the integers that fit one, a {@code long[]} for the others (and
 * for any integer on its way to a 64-bit one), a {@code double[]} for f64 (and f32 on its way to
 * f64 or a 64-bit integer) and a {@code float[]} for f16, bf16 and f32 otherwise. The chunk is
 * then converted to the destination's form in array loops that C2 vectorises (branch-free: range
 * checks are min/max reductions, in {@link ChunkRanges}; pred is a sign bit) and written. The
 * destination's form is {@code float[]} for f32, {@code double[]} for f64, {@code long[]} for
 * 64-bit integers and {@code int[]} for everything else: narrower integers, pred, and a narrow
 * float's bit patterns.
 * Dense runs are read with bulk {@code MemorySegment.copy} and written with vector stores
 * (bulk copies without the Vector API); strided runs use element loops. {@link ValueMover} spends 8-20 ns an element dispatching on both types per
 * element; this takes 0.2-1.5.
 *
 * <p>The rules are {@link ValueMover}'s, step for step: a double meets a narrow float through a
 * {@code float} rounded to odd, so it rounds once, as {@link FloatCodec#encode(double)} does (bf16
 * excepted, which goes through {@code float} rounded to nearest, as XLA takes it). A chunk holding a value the fast loops are not sure of (NaN to an integer, out of
 * range) goes through {@link ValueMover#move} instead, which writes the values before it and
 * throws the message the slow path throws.
 */
final class ChunkConvert {
    private static final Set<DType> SOURCES = EnumSet.of(DType.PRED, DType.S8, DType.S16, DType.S32, DType.S64,
            DType.U8, DType.U16, DType.U32, DType.U64, DType.F16, DType.BF16, DType.F32, DType.F64);
    /** Elements a chunk holds: its arrays stay in the L1 cache. */
    static final int CHUNK = 512;

    /** The array a chunk is read into. */
    private enum Form { INT, LONG, DOUBLE, FLOAT }

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

    /**
     * Per-task arrays: one per form, and one per width for bulk moves; and whether the Vector API
     * kernels run. Sized to the task's runs, up to {@link #CHUNK}: a copy of 16 elements built
     * six arrays of 512 (13.8 KB zeroed) and took 0.69 us, most of it that allocation.
     */
    static final class Chunks {
        final boolean vector;
        final long[] ints;
        final double[] floats;
        final byte[] bytes;
        final short[] shorts;
        final int[] words;
        final float[] singles;

        /** @param run the longest run the task converts; chunks never hold more */
        Chunks(boolean vector, long run) {
            this.vector = vector;
            int n = (int) Math.max(1, Math.min(CHUNK, run));
            ints = new long[n];
            floats = new double[n];
            bytes = new byte[n];
            shorts = new short[n];
            words = new int[n];
            singles = new float[n];
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
        long first = denseIn && denseOut ? DenseConvert.run(s, so, from, d, dO, to, n, c.vector) : 0;
        if (first == n) {
            return;
        }
        FloatCodec codec = FloatCodec.of(to);
        boolean toLongs = isInteger(to) && to.byteWidth() == 8;
        Form form = switch (from) {
            case F64 -> Form.DOUBLE;
            case F32, F16, BF16 -> toLongs || to == DType.F64 ? Form.DOUBLE : Form.FLOAT;
            case PRED, S8, U8, S16, U16, S32 -> toLongs ? Form.LONG : Form.INT;
            default -> Form.LONG;
        };
        for (long done = first; done < n; done += CHUNK) {
            int m = (int) Math.min(CHUNK, n - done);
            long sOff = so + done * ss;
            long dOff = dO + done * ds;
            switch (form) {
                case INT -> ChunkReads.readWords(s, sOff, ss, denseIn, from, c, m);
                case LONG -> ChunkReads.readLongs(s, sOff, ss, denseIn, from, c, m);
                case DOUBLE -> ChunkReads.readDoubles(s, sOff, ss, denseIn, from, c, m);
                case FLOAT -> ChunkReads.readSingles(s, sOff, ss, denseIn, from, c, m);
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

    /** {@return whether {@code t} is a signed or unsigned integer (pred is not)} */
    static boolean isInteger(DType t) {
        return t.kind() == DType.Kind.SIGNED || t.kind() == DType.Kind.UNSIGNED;
    }

    /**
     * Converts the chunk into the destination's form: {@code c.singles} for f32, {@code c.floats}
     * for f64, {@code c.ints} for 64-bit integers, {@code c.words} for the rest (integers, pred as
     * 0 or 1, and a narrow float's patterns).
     * {@return false if a value (NaN, out of range) must go through ValueMover}
     */
    private static boolean toDestination(Chunks c, int m, Form form, DType from, DType to, FloatCodec codec) {
        boolean unsigned64 = from == DType.U64;
        if (to == DType.PRED) {
            toPred(c, m, form);
            return true;
        }
        if (isInteger(to)) {
            boolean ok = switch (form) {
                case INT -> ChunkRanges.wordsInRange(c, m, to);
                case LONG -> ChunkRanges.intsInRange(c, m, to, unsigned64);
                case DOUBLE -> to.byteWidth() == 8 ? ChunkRanges.doublesToLongs(c, m, to) : ChunkRanges.doublesToWords(c, m, to);
                case FLOAT -> ChunkRanges.singlesToWords(c, m, to);
            };
            if (ok && form == Form.LONG && to.byteWidth() < 8) {
                if (c.vector) {
                    VectorChunks.narrow(c.ints, c.words, m);
                } else {
                    for (int i = 0; i < m; i++) {
                        c.words[i] = (int) c.ints[i];
                    }
                }
            }
            if (ok && to.isSubByte()) {
                // Sub-byte types sit in the low bits of their byte, the rest zero, as ElementAccess writes them.
                int mask = (1 << to.bitWidth()) - 1;
                for (int i = 0; i < m; i++) {
                    c.words[i] &= mask;
                }
            }
            return ok;
        }
        switch (form) {
            case INT -> {
                if (to == DType.F64) {
                    if (c.vector) {
                        VectorChunks.toDoubles(c.words, c.floats, m);
                    } else {
                        for (int i = 0; i < m; i++) {
                            c.floats[i] = c.words[i];
                        }
                    }
                    return true;
                }
                // Exact below 2^24, and rounded once above: as the double's rounding to float.
                for (int i = 0; i < m; i++) {
                    c.singles[i] = c.words[i];
                }
                form = Form.FLOAT;
            }
            case LONG -> {
                if (to == DType.F32) {
                    toSingles(c, m, false, unsigned64);
                    return true;
                }
                toDoubles(c, m, unsigned64);
                form = Form.DOUBLE;
            }
            default -> {
            }
        }
        if (to == DType.F64) {
            if (form == Form.FLOAT) {
                ChunkReads.widen(c, m);
            }
        } else if (to == DType.F32) {
            if (form == Form.DOUBLE) {
                toSingles(c, m, true, false);
            }
        } else {
            if (form == Form.DOUBLE && !(codec instanceof MiniFloat)) {
                // f8e8m0fnu: the codec rounds the double itself, through float below float's normal range.
                for (int i = 0; i < m; i++) {
                    c.words[i] = codec.encode(c.floats[i]);
                }
                return true;
            }
            if (form == Form.DOUBLE && to != DType.BF16) {
                for (int i = 0; i < m; i++) {
                    c.singles[i] = FloatCodec.roundToOdd(c.floats[i]);
                }
            } else if (form == Form.DOUBLE) {
                toSingles(c, m, true, false);
            }
            encodeSingles(c, m, codec);
            if (form == Form.DOUBLE && to == DType.F16) {
                // A NaN's f16 payload comes from the double's bits, which the float may not keep.
                for (int i = 0; i < m; i++) {
                    if (Double.isNaN(c.floats[i])) {
                        c.words[i] = codec.encode(c.floats[i]);
                    }
                }
            } else if (to == DType.F8E5M2 && (from == DType.F16 || from == DType.BF16)) {
                nanToE5m2(c.words, m);
            }
        }
        return true;
    }

    /**
     * Into {@code c.words}: 1 where the value is not zero (NaN included), as ValueMover compares.
     * {@code (a | -a)} has its sign bit set exactly when {@code a} is not zero, and a float is zero
     * exactly when its bits without the sign are: no branch, so the loops vectorise.
     */
    private static void toPred(Chunks c, int m, Form form) {
        int[] out = c.words;
        switch (form) {
            case INT -> {
                for (int i = 0; i < m; i++) {
                    int v = c.words[i];
                    out[i] = (v | -v) >>> 31;
                }
            }
            case LONG -> {
                for (int i = 0; i < m; i++) {
                    long v = c.ints[i];
                    out[i] = (int) ((v | -v) >>> 63);
                }
            }
            case DOUBLE -> {
                for (int i = 0; i < m; i++) {
                    long a = Double.doubleToRawLongBits(c.floats[i]) & Long.MAX_VALUE;
                    out[i] = (int) ((a | -a) >>> 63);
                }
            }
            case FLOAT -> {
                if (c.vector) {
                    VectorChunks.pred(c.singles, out, m);
                    return;
                }
                for (int i = 0; i < m; i++) {
                    int a = Float.floatToRawIntBits(c.singles[i]) & Integer.MAX_VALUE;
                    out[i] = (a | -a) >>> 31;
                }
            }
        }
    }

    /**
     * Replaces f8e5m2 NaN patterns with {@code 0x7f}, either sign: XLA's f8e5m2 of a NaN from a
     * narrower float than f32 (f16, bf16, the one-byte formats), where from f32 and f64 it gives the
     * quiet NaN with the sign ({@code 0x7e}, {@code 0xfe}). See {@link MiniFloat#E5M2_NAN_FROM_NARROW}.
     */
    static void nanToE5m2(int[] words, int m) {
        for (int i = 0; i < m; i++) {
            int w = words[i];
            words[i] = (w & 0x7f) > 0x7c ? MiniFloat.E5M2_NAN_FROM_NARROW : w;
        }
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
        if (!unsigned64) {
            for (int i = 0; i < m; i++) {
                out[i] = c.ints[i];
            }
            return;
        }
        for (int i = 0; i < m; i++) {
            long v = c.ints[i];
            out[i] = v >= 0 ? (double) v : (double) ((v >>> 1) | (v & 1)) * 2.0;
        }
    }

    /** Writes the chunk in the destination's form (see {@link #toDestination}). */
    private static void write(MemorySegment d, long dO, long ds, boolean dense, DType to, Chunks c, int m) {
        if (to == DType.F32) {
            writeSingles(d, dO, ds, dense, c, m);
        } else if (to == DType.F64) {
            if (dense && c.vector) {
                VectorChunks.store(c.floats, d, dO, m);
            } else if (dense) {
                MemorySegment.copy(c.floats, 0, d, Layouts.F64, dO, m);
            } else {
                for (int i = 0; i < m; i++) {
                    d.set(Layouts.F64, dO + i * ds, c.floats[i]);
                }
            }
        } else if (to.byteWidth() == 8) {
            writeLongs(d, dO, ds, dense, c, m);
        } else {
            writeWords(d, dO, ds, dense, to.byteWidth(), c, m);
        }
    }

    /** Encodes {@code c.singles} into {@code c.words} by {@code codec}'s rounding, 8-16 lanes at a time where it can. */
    static void encodeSingles(Chunks c, int m, FloatCodec codec) {
        if (c.vector && codec instanceof MiniFloat f) {
            VectorMiniFloat.encode(f, c.singles, c.words, m);
        } else {
            for (int i = 0; i < m; i++) {
                c.words[i] = codec.encode(c.singles[i]);
            }
        }
    }

    /** Writes {@code c.singles} as f32. */
    static void writeSingles(MemorySegment d, long dO, long ds, boolean dense, Chunks c, int m) {
        if (dense && c.vector) {
            VectorChunks.store(c.singles, d, dO, m);
        } else if (dense) {
            MemorySegment.copy(c.singles, 0, d, Layouts.F32, dO, m);
        } else {
            for (int i = 0; i < m; i++) {
                d.set(Layouts.F32, dO + i * ds, c.singles[i]);
            }
        }
    }

    /** Writes the low {@code width} (1, 2 or 4) bytes of each of {@code c.words}: integers, pred, narrow-float patterns, a {@link ByteTable}'s bits. */
    static void writeWords(MemorySegment d, long dO, long ds, boolean dense, int width, Chunks c, int m) {
        int[] v = c.words;
        if (dense && c.vector) {
            VectorChunks.store(v, width, d, dO, m);
        } else if (!dense) {
            for (int i = 0; i < m; i++) {
                long at = dO + i * ds;
                switch (width) {
                    case 1 -> d.set(Layouts.I8, at, (byte) v[i]);
                    case 2 -> d.set(Layouts.I16, at, (short) v[i]);
                    default -> d.set(Layouts.I32, at, v[i]);
                }
            }
        } else if (width == 1) {
            // Dense without the Vector API: narrowed into the width's array, then one bulk copy.
            for (int i = 0; i < m; i++) {
                c.bytes[i] = (byte) v[i];
            }
            MemorySegment.copy(c.bytes, 0, d, Layouts.I8, dO, m);
        } else if (width == 2) {
            for (int i = 0; i < m; i++) {
                c.shorts[i] = (short) v[i];
            }
            MemorySegment.copy(c.shorts, 0, d, Layouts.I16, dO, m);
        } else {
            MemorySegment.copy(v, 0, d, Layouts.I32, dO, m);
        }
    }

    /** Writes {@code c.ints}, eight bytes each: 64-bit integers, or a {@link ByteTable}'s bits. */
    static void writeLongs(MemorySegment d, long dO, long ds, boolean dense, Chunks c, int m) {
        if (dense && c.vector) {
            VectorChunks.store(c.ints, d, dO, m);
        } else if (dense) {
            MemorySegment.copy(c.ints, 0, d, Layouts.I64, dO, m);
        } else {
            for (int i = 0; i < m; i++) {
                d.set(Layouts.I64, dO + i * ds, c.ints[i]);
            }
        }
    }
}
