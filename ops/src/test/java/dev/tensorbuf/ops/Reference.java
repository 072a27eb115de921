package dev.tensorbuf.ops;

import java.util.Arrays;

/**
 * A dense row-major tensor of doubles and the view ops on it by explicit index arithmetic,
 * independent of indexing maps: the brute-force reference of the agreement tests.
 */
record Reference(long[] dims, double[] values) {

    static long count(long[] dims) {
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        return n;
    }

    int position(long[] index) {
        long p = 0;
        for (int i = 0; i < dims.length; i++) {
            p = p * dims[i] + index[i];
        }
        return (int) p;
    }

    double at(long[] index) {
        return values[position(index)];
    }

    /** Builds a tensor of {@code dims} whose element at each index is {@code f(index)}. */
    static Reference build(long[] dims, java.util.function.ToDoubleFunction<long[]> f) {
        double[] out = new double[(int) count(dims)];
        long[] index = new long[dims.length];
        for (int k = 0; k < out.length; k++) {
            out[k] = f.applyAsDouble(index);
            for (int d = dims.length - 1; d >= 0; d--) {
                if (++index[d] < dims[d]) {
                    break;
                }
                index[d] = 0;
            }
        }
        return new Reference(dims.clone(), out);
    }

    Reference transpose(int[] perm) {
        long[] out = new long[perm.length];
        for (int i = 0; i < perm.length; i++) {
            out[i] = dims[perm[i]];
        }
        long[] in = new long[dims.length];
        return build(out, o -> {
            for (int i = 0; i < perm.length; i++) {
                in[perm[i]] = o[i];
            }
            return at(in);
        });
    }

    Reference slice(long[] start, long[] limit, long[] stride) {
        long[] out = new long[dims.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = (limit[i] - start[i] + stride[i] - 1) / stride[i];
        }
        long[] in = new long[dims.length];
        return build(out, o -> {
            for (int i = 0; i < o.length; i++) {
                in[i] = start[i] + o[i] * stride[i];
            }
            return at(in);
        });
    }

    Reference reverse(boolean[] reversed) {
        long[] in = new long[dims.length];
        return build(dims, o -> {
            for (int i = 0; i < o.length; i++) {
                in[i] = reversed[i] ? dims[i] - 1 - o[i] : o[i];
            }
            return at(in);
        });
    }

    Reference broadcast(long[] out, int[] bd) {
        long[] in = new long[dims.length];
        return build(out, o -> {
            for (int j = 0; j < bd.length; j++) {
                in[j] = o[bd[j]];
            }
            return at(in);
        });
    }

    Reference pad(long[] low, long[] high, long[] interior, double fill) {
        long[] out = new long[dims.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = low[i] + high[i] + dims[i] + Math.max(dims[i] - 1, 0) * interior[i];
        }
        long[] in = new long[dims.length];
        return build(out, o -> {
            for (int i = 0; i < o.length; i++) {
                long shifted = o[i] - low[i];
                if (shifted < 0 || shifted % (interior[i] + 1) != 0 || shifted / (interior[i] + 1) >= dims[i]) {
                    return fill;
                }
                in[i] = shifted / (interior[i] + 1);
            }
            return at(in);
        });
    }

    Reference reshape(long[] out) {
        return new Reference(out.clone(), values.clone());
    }

    Reference concatenate(int dim, Reference other) {
        long[] out = dims.clone();
        out[dim] += other.dims[dim];
        long[] in = new long[dims.length];
        return build(out, o -> {
            System.arraycopy(o, 0, in, 0, o.length);
            if (o[dim] < dims[dim]) {
                return at(in);
            }
            in[dim] -= dims[dim];
            return other.at(in);
        });
    }

    Reference dynamicSlice(long[] offsets, long[] sizes) {
        long[] start = new long[dims.length];
        long[] ones = new long[dims.length];
        long[] limit = new long[dims.length];
        for (int i = 0; i < dims.length; i++) {
            start[i] = Math.min(Math.max(offsets[i], 0), dims[i] - sizes[i]);
            limit[i] = start[i] + sizes[i];
            ones[i] = 1;
        }
        return slice(start, limit, ones);
    }

    /**
     * Same bytes under another untiled layout: physical slot of a logical index is the
     * row-major position over the dims ordered major to minor.
     */
    Reference bitcast(int[] minorToMajor, long[] targetDims, int[] targetMinorToMajor) {
        double[] physical = new double[values.length];
        long[] idx = new long[dims.length];
        for (int k = 0; k < values.length; k++) {
            physical[(int) physicalSlot(dims, minorToMajor, idx)] = values[k];
            for (int d = dims.length - 1; d >= 0; d--) {
                if (++idx[d] < dims[d]) {
                    break;
                }
                idx[d] = 0;
            }
        }
        return build(targetDims, o -> physical[(int) physicalSlot(targetDims, targetMinorToMajor, o)]);
    }

    static long physicalSlot(long[] dims, int[] minorToMajor, long[] index) {
        long slot = 0;
        for (int k = minorToMajor.length - 1; k >= 0; k--) {
            slot = slot * dims[minorToMajor[k]] + index[minorToMajor[k]];
        }
        return slot;
    }

    @Override
    public String toString() {
        return Arrays.toString(dims) + " " + Arrays.toString(values);
    }
}
