package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.copy.internal.ChunkConvert.Chunks;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.FloatCodec;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The convert kernel's loops for the commonest form of a {@link ChannelExpression},
 * {@code [convert<T>](fma(convert<f32>(%0), %1, %2))} from an 8-32-bit integer, f16, bf16 or f32
 * into f32, bf16 or f16, recognised in the expression ({@link #recognise}): a chunk of source
 * elements read into a {@code float[]} as {@link ChunkConvert} reads them (bulk when dense), the
 * fma applied across the chunk, then encoded and written as ChunkConvert writes f32 and narrow
 * floats. Each step computes what the evaluator's op computes, value for value:
 * {@code convert<f32>} of these sources is exact or rounded once ({@code (float) int}), the fma is
 * {@code Math.fma} on floats, the store is the destination codec's rounding
 * ({@code ElementAccess.setFloat}'s).
 *
 * <p>Why not the evaluator: it reads through {@code ElementAccess} a virtual call per element,
 * carries doubles, allocates a column per op and stores per element, which made these copies
 * slower than the per-element fma they replaced (f32 NCHW -> NHWC 0.63x). With the channel loop
 * innermost (runs of 3 channels) the kernel also takes the loop outside it, so each channel
 * becomes a run of up to {@link #CHUNK} elements instead of a run of 3 per odometer step.
 */
final class AffineChunks {
    /** Elements per chunk: ChunkConvert's, its arrays in the L1 cache. */
    static final int CHUNK = ChunkConvert.CHUNK;
    private static final Set<DType> SOURCES = EnumSet.of(DType.S8, DType.U8, DType.S16, DType.U16, DType.S32, DType.F16,
            DType.BF16, DType.F32);
    private static final Set<DType> DESTINATIONS = EnumSet.of(DType.F32, DType.BF16, DType.F16);

    private AffineChunks() {
    }

    /**
     * The recognised form: {@code from} and {@code to} of
     * {@code [convert<to>](fma([convert<f32>](%0: from), %1: f32, %2: f32))}.
     */
    record Form(DType from, DType to) {
    }

    /** {@return the form these loops compute if {@code e} is one, else null} */
    static Form recognise(Pointwise.Expr e) {
        DType to = e.type();
        Pointwise.Expr fma = e;
        if (e instanceof Pointwise.Op(String op, DType t, List<Pointwise.Expr> args, String detail) && op.equals("convert")
                && t != DType.F32) {
            fma = args.getFirst();
        }
        if (!(fma instanceof Pointwise.Op(String op, DType t, List<Pointwise.Expr> args, String detail))
                || !op.equals(Pointwise.Op.FMA) || t != DType.F32 || !DESTINATIONS.contains(to)
                || !args.get(1).equals(new Pointwise.Leaf(1, DType.F32)) || !args.get(2).equals(new Pointwise.Leaf(2, DType.F32))) {
            return null;
        }
        Pointwise.Expr x = args.getFirst();
        if (x instanceof Pointwise.Op(String cv, DType xt, List<Pointwise.Expr> xa, String xd) && cv.equals("convert")
                && xt == DType.F32 && xa.getFirst() instanceof Pointwise.Leaf(int index, DType from) && index == 0
                && from != DType.F32) {
            return SOURCES.contains(from) ? new Form(from, to) : null;
        }
        return x.equals(new Pointwise.Leaf(0, DType.F32)) ? new Form(DType.F32, to) : null;
    }

    /**
     * Runs task {@code t} (byte offsets and strides) in form {@code f}. The channel is constant
     * along the innermost loop unless that loop is the channel loop; then, when the loop outside
     * it is at least as long, the kernel takes both loops and runs the outer one a channel at a
     * time, a chunk of it at once, so each destination block is still written while in cache.
     */
    static void run(Task t, Form f, float[] scale, float[] bias, boolean vector) {
        int r = t.rank();
        int ch = t.channelLoop();
        long[] count = t.count();
        FloatCodec codec = f.to() == DType.F32 ? null : FloatCodec.of(f.to());
        if (ch == r - 1 && r >= 2 && count[r - 2] >= count[r - 1]) {
            long n = count[r - 2];
            long ss = t.srcStride()[r - 2];
            long ds = t.dstStride()[r - 2];
            long channels = count[r - 1];
            long css = t.srcStride()[r - 1];
            long cds = t.dstStride()[r - 1];
            Chunks c = new Chunks(vector, n);
            Odometer o = new Odometer(t, 2);
            do {
                for (long done = 0; done < n; done += CHUNK) {
                    int m = (int) Math.min(CHUNK, n - done);
                    for (int k = 0; k < channels; k++) {
                        int cc = (int) (t.channelBase() + k);
                        read(t.src(), o.src + done * ss + k * css, ss, f.from(), c, m);
                        fma(c.singles, m, scale[cc], bias[cc]);
                        write(t.dst(), o.dst + done * ds + k * cds, ds, f.to(), codec, c, m);
                    }
                }
            } while (o.next());
            return;
        }
        long n = count[r - 1];
        long ss = t.srcStride()[r - 1];
        long ds = t.dstStride()[r - 1];
        Chunks c = new Chunks(vector, n);
        Odometer o = new Odometer(t, 1);
        do {
            for (long done = 0; done < n; done += CHUNK) {
                int m = (int) Math.min(CHUNK, n - done);
                read(t.src(), o.src + done * ss, ss, f.from(), c, m);
                if (ch == r - 1) {
                    fma(c.singles, m, scale, bias, (int) (t.channelBase() + done));
                } else {
                    int cc = (int) (t.channelBase() + (ch >= 0 ? o.index(ch) : 0));
                    fma(c.singles, m, scale[cc], bias[cc]);
                }
                write(t.dst(), o.dst + done * ds, ds, f.to(), codec, c, m);
            }
        } while (o.next());
    }

    /** {@code convert<f32>} of {@code m} source elements into {@code c.singles}. */
    private static void read(MemorySegment s, long so, long ss, DType from, Chunks c, int m) {
        boolean dense = ss == from.byteWidth();
        if (from.kind() == DType.Kind.FLOAT) {
            ChunkReads.readSingles(s, so, ss, dense, from, c, m);
            return;
        }
        float[] out = c.singles;
        if (!dense && from == DType.U8) {
            // One pass for strided pixels (NHWC -> NCHW) rather than bytes, then ints, then floats.
            for (int i = 0; i < m; i++) {
                out[i] = s.get(Layouts.I8, so + i * ss) & 0xff;
            }
            return;
        }
        ChunkReads.readWords(s, so, ss, dense, from, c, m);
        int[] in = c.words;
        for (int i = 0; i < m; i++) {
            out[i] = in[i]; // exact below 2^24, else rounded once: the evaluator's (float) of the long
        }
    }

    private static void fma(float[] v, int m, float scale, float bias) {
        for (int i = 0; i < m; i++) {
            v[i] = Math.fma(v[i], scale, bias);
        }
    }

    private static void fma(float[] v, int m, float[] scale, float[] bias, int c0) {
        for (int i = 0; i < m; i++) {
            v[i] = Math.fma(v[i], scale[c0 + i], bias[c0 + i]);
        }
    }

    /** Stores {@code c.singles} as {@code to}: f32 as they are, bf16 and f16 through the codec's rounding. */
    private static void write(MemorySegment d, long dO, long ds, DType to, FloatCodec codec, Chunks c, int m) {
        boolean dense = ds == to.byteWidth();
        if (codec == null) {
            ChunkConvert.writeSingles(d, dO, ds, dense, c, m);
            return;
        }
        ChunkConvert.encodeSingles(c, m, codec);
        ChunkConvert.writeWords(d, dO, ds, dense, 2, c, m);
    }
}
