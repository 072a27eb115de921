package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * An elementwise expression whose only varying operand has 8-bit elements (u8, s8, pred) and
 * whose other operands are per-channel constants (broadcasts varying along at most one
 * dimension, the same for all, of at most {@link #MAX_CHANNELS} indices), lowered to a lookup
 * table: the expression has at most 256 values per channel, so they are all evaluated once by
 * {@link Pointwise#eval} and each element is then one load from the table. Being the evaluator's
 * own results, the table agrees with XLA exactly where the evaluator does, whatever the
 * expression (FMA contraction, flushed denormals, rounding to bf16: all already in it). This is
 * the image-normalising form, {@code (convert(x) - mean) / std} to f32 or bf16, in any layout.
 *
 * @param data the index of the 8-bit operand
 * @param channelDim the dimension the constants vary along, or -1 when they are all scalars
 * @param channels the number of channels (1 when {@code channelDim} is -1)
 * @param table the result's bits, {@code table[channel * 256 + (x & 0xff)]}, as a byte[],
 *     short[], int[] or long[] by the result type's width
 * @param expr the expression, for the report
 */
record PointwiseTable(int data, int channelDim, int channels, Object table, String expr) {
    /** More channels than this make a table too large to stay in cache: the block evaluator runs instead. */
    static final int MAX_CHANNELS = 64;

    /** {@return the table for {@code e} over {@code leaves} into {@code dst}, or null when the expression is not of this form} */
    static PointwiseTable of(Pointwise.Expr e, List<TensorView> leaves, TensorView dst, Allocator allocator) {
        if (dst.dtype().bitWidth() % 8 != 0 || dst.dtype().bitWidth() > 64) {
            return null;
        }
        int data = -1;
        for (int k = 0; k < leaves.size(); k++) {
            TensorView l = leaves.get(k);
            if (l.dtype().bitWidth() == 8 && !isChannelConstant(l)) {
                if (data >= 0) {
                    return null; // two varying operands: the block evaluator's
                }
                data = k;
            }
        }
        for (int k = 0; k < leaves.size() && data < 0; k++) {
            if (leaves.get(k).dtype().bitWidth() == 8) {
                data = k;
            }
        }
        if (data < 0) {
            return null;
        }
        int channelDim = -1;
        for (int k = 0; k < leaves.size(); k++) {
            if (k == data) {
                continue;
            }
            TensorView l = leaves.get(k);
            if (!isChannelConstant(l)) {
                return null;
            }
            int v = varyingDim(l);
            if (v >= 0 && channelDim >= 0 && v != channelDim) {
                return null;
            }
            channelDim = Math.max(channelDim, v);
        }
        int channels = channelDim < 0 ? 1 : (int) (long) dst.dims().get(channelDim);
        int n = channels * 256;
        Object[] columns = new Object[leaves.size()];
        for (int k = 0; k < leaves.size(); k++) {
            TensorView l = leaves.get(k);
            if (k == data) {
                TensorView bytes = PointwiseCopy.scratch(ArrayShape.of(l.dtype(), n), allocator);
                for (int i = 0; i < n; i++) {
                    bytes.buffer().segment().set(ValueLayout.JAVA_BYTE, i, (byte) i);
                }
                columns[k] = PointwiseCopy.read(bytes, n);
            } else {
                columns[k] = expand(l, channelDim, channels, allocator);
            }
        }
        Object result = Pointwise.eval(e, columns, n);
        TensorView out = PointwiseCopy.scratch(ArrayShape.of(dst.dtype(), n), allocator);
        PointwiseCopy.write(out, result, n);
        MemorySegment seg = out.buffer().segment();
        Object table = switch (dst.dtype().bitWidth()) {
            case 8 -> seg.toArray(ValueLayout.JAVA_BYTE);
            case 16 -> seg.asSlice(0, 2L * n).toArray(ValueLayout.JAVA_SHORT_UNALIGNED);
            case 32 -> seg.asSlice(0, 4L * n).toArray(ValueLayout.JAVA_INT_UNALIGNED);
            default -> seg.asSlice(0, 8L * n).toArray(ValueLayout.JAVA_LONG_UNALIGNED);
        };
        if (table instanceof byte[] b && b.length != n) {
            table = java.util.Arrays.copyOf(b, n);
        }
        return new PointwiseTable(data, channelDim, channels, table, e.toString());
    }

    private static boolean isChannelConstant(TensorView v) {
        int d = varyingDim(v);
        return d == -1 || (d >= 0 && v.dims().get(d) <= MAX_CHANNELS);
    }

    /**
     * {@return the one dimension along which {@code v}'s elements may differ: -1 for none (a
     * scalar broadcast), -2 for several or a view that is not strided}
     */
    static int varyingDim(TensorView v) {
        StridedLayout s = v.stridedLayout().orElse(null);
        if (s == null) {
            return -2;
        }
        int found = -1;
        for (int d = 0; d < s.rank(); d++) {
            if (s.strides().get(d) != 0 && s.sizes().get(d) > 1) {
                if (found >= 0) {
                    return -2;
                }
                found = d;
            }
        }
        return found;
    }

    /** {@return {@code v}'s values along the channel dim, each repeated 256 times, as {@link PointwiseCopy#read} gives them} */
    private static Object expand(TensorView v, int channelDim, int channels, Allocator allocator) {
        Object values = line(v, channelDim, channels, allocator);
        int n = channels * 256;
        if (values instanceof double[] d) {
            double[] r = new double[n];
            for (int i = 0; i < n; i++) {
                r[i] = d[i >> 8];
            }
            return r;
        }
        long[] l = (long[]) values;
        long[] r = new long[n];
        for (int i = 0; i < n; i++) {
            r[i] = l[i >> 8];
        }
        return r;
    }

    /**
     * {@return the {@code channels} values of {@code v} (constant but along {@code channelDim}, or
     * everywhere when it is -1) along that dim, as {@link PointwiseCopy#read} gives them}
     */
    static Object line(TensorView v, int channelDim, int channels, Allocator allocator) {
        int rank = v.rank();
        long[] start = new long[rank];
        long[] limit = new long[rank];
        long[] stride = new long[rank];
        java.util.Arrays.fill(limit, 1);
        java.util.Arrays.fill(stride, 1);
        if (channelDim >= 0) {
            limit[channelDim] = channels;
        }
        TensorView line = dev.tensorbuf.ops.Ops.slice(v, start, limit, stride);
        TensorView dense = PointwiseCopy.scratch(ArrayShape.of(v.dtype(), dev.tensorbuf.views.internal.Extents.toArray(line.dims())),
                allocator);
        PointwiseCopy.engine().copy(line, dense);
        return PointwiseCopy.read(dense, channels);
    }

    /** {@return the kernel's name, for the report} */
    String kernel() {
        return "lookup table " + channels + "x256 " + "(" + (channelDim < 0 ? "no channel dim" : "channels along dim " + channelDim)
                + ")";
    }

    /**
     * Writes the results for the 8-bit values {@code x[0, n)} of a dense block into {@code out}
     * (an array of the table's kind): the block's dims are {@code blockDims}, its first index
     * {@code start}.
     */
    void apply(byte[] x, Object out, int n, long[] blockDims, long[] start) {
        if (channelDim < 0 || blockDims[channelDim] == 1) {
            int base = channelDim < 0 ? 0 : (int) start[channelDim] * 256;
            lookup(x, out, 0, n, base);
            return;
        }
        long inner = 1;
        for (int d = channelDim + 1; d < blockDims.length; d++) {
            inner *= blockDims[d];
        }
        int run = (int) inner;
        int span = (int) blockDims[channelDim];
        int first = (int) start[channelDim];
        for (int i = 0, r = 0; i < n; i += run, r++) {
            lookup(x, out, i, i + run, (first + r % span) * 256);
        }
    }

    private void lookup(byte[] x, Object out, int from, int to, int base) {
        switch (table) {
            case int[] t -> {
                int[] o = (int[]) out;
                for (int i = from; i < to; i++) {
                    o[i] = t[base + (x[i] & 0xff)];
                }
            }
            case short[] t -> {
                short[] o = (short[]) out;
                for (int i = from; i < to; i++) {
                    o[i] = t[base + (x[i] & 0xff)];
                }
            }
            case byte[] t -> {
                byte[] o = (byte[]) out;
                for (int i = from; i < to; i++) {
                    o[i] = t[base + (x[i] & 0xff)];
                }
            }
            case long[] t -> {
                long[] o = (long[]) out;
                for (int i = from; i < to; i++) {
                    o[i] = t[base + (x[i] & 0xff)];
                }
            }
            default -> throw new AssertionError(table);
        }
    }

    /** {@return a scratch array of the table's kind for {@code n} results} */
    Object newOut(int n) {
        return switch (table) {
            case int[] t -> new int[n];
            case short[] t -> new short[n];
            case byte[] t -> new byte[n];
            default -> new long[n];
        };
    }

    /** Copies {@code n} results from {@code out} into {@code seg} at byte {@code offset}. */
    static void store(Object out, MemorySegment seg, long offset, int n) {
        switch (out) {
            case int[] o -> MemorySegment.copy(o, 0, seg, ValueLayout.JAVA_INT_UNALIGNED, offset, n);
            case short[] o -> MemorySegment.copy(o, 0, seg, ValueLayout.JAVA_SHORT_UNALIGNED, offset, n);
            case byte[] o -> MemorySegment.copy(o, 0, seg, ValueLayout.JAVA_BYTE, offset, n);
            case long[] o -> MemorySegment.copy(o, 0, seg, ValueLayout.JAVA_LONG_UNALIGNED, offset, n);
            default -> throw new AssertionError(out);
        }
    }
}
