package dev.tensorbuf.ops.shard.internal;

import dev.tensorbuf.ops.shard.HloSharding.TileAssignment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;

/**
 * The arithmetic of XLA's iota tile assignments: the canonical form of a reshape and transpose,
 * transposing an iota without listing its ids, and the ids themselves. Written from the rules of
 * XLA's {@code tile_assignment.cc} and {@code hlo_sharding.cc}; the canonical forms are what XLA
 * prints, so they must come out the same.
 *
 * <p>Not API.
 */
public final class IotaForms {
    private IotaForms() {
    }

    /** {@return the product of {@code dims}, each {@code >= 1}, at most {@link TileAssignment#MAX_DEVICES}} */
    public static long product(List<Long> dims, String what) {
        long n = 1;
        for (long d : dims) {
            if (d < 1) {
                throw new IllegalArgumentException("the " + what + " " + dims + " has a dimension of size " + d
                        + "; each must be >= 1");
            }
            if (d > TileAssignment.MAX_DEVICES || n * d > TileAssignment.MAX_DEVICES) {
                throw new IllegalArgumentException("the " + what + " " + dims + " has more than "
                        + TileAssignment.MAX_DEVICES + " devices");
            }
            n *= d;
        }
        return n;
    }

    public static void checkDistinct(List<Long> devices) {
        Set<Long> seen = new HashSet<>();
        for (long d : devices) {
            if (d < 0) {
                throw new IllegalArgumentException("device id " + d + " is negative");
            }
            if (!seen.add(d)) {
                // XLA's HloSharding::Validate refuses the same: each device holds one tile.
                throw new IllegalArgumentException("device " + d + " is listed twice in " + devices);
            }
        }
    }

    public static void checkPermutation(List<Integer> perm, int rank) {
        if (perm.size() != rank) {
            throw new IllegalArgumentException("the iota transpose " + perm + " has " + perm.size()
                    + " entries, the iota has " + rank + " dimensions");
        }
        boolean[] seen = new boolean[rank];
        for (int p : perm) {
            if (p < 0 || p >= rank || seen[p]) {
                throw new IllegalArgumentException("the iota transpose " + perm + " is not a permutation of 0.."
                        + (rank - 1));
            }
            seen[p] = true;
        }
    }

    public static String join(List<?> values, String open, String close) {
        StringJoiner j = new StringJoiner(",", open, close);
        for (Object v : values) {
            j.add(String.valueOf(v));
        }
        return j.toString();
    }

    /**
     * Brings an iota's reshape and transpose to XLA's canonical form, in place: dimensions of
     * size 1 go, and a run of dimensions the transpose keeps adjacent and in order becomes one.
     * {@code [1,3,1,4,1,5]T(4,3,2,5,1,0)} becomes {@code [3,20]T(1,0)}; no dimension left
     * becomes {@code [1]}.
     */
    public static void canonicalize(List<Long> dims, List<Integer> perm) {
        if (dims.size() > 1) {
            while (true) {
                int[] newIndex = new int[dims.size()];
                List<Long> kept = new ArrayList<>();
                for (int i = 0; i < dims.size(); i++) {
                    newIndex[i] = dims.get(i) == 1 ? -1 : kept.size();
                    if (dims.get(i) != 1) {
                        kept.add(dims.get(i));
                    }
                }
                List<Integer> keptPerm = new ArrayList<>();
                for (int p : perm) {
                    if (newIndex[p] >= 0) {
                        keptPerm.add(newIndex[p]);
                    }
                }
                dims.clear();
                dims.addAll(kept);
                perm.clear();
                perm.addAll(keptPerm);
                // A run perm[base], perm[base]+1, ... reads consecutive ids: fold it into its first dimension.
                boolean changed = false;
                for (int i = 1, base = 0; i < dims.size(); i++) {
                    int baseDim = perm.get(base);
                    int dim = perm.get(i);
                    if (baseDim + (i - base) == dim) {
                        dims.set(baseDim, dims.get(baseDim) * dims.get(dim));
                        dims.set(dim, 1L);
                        changed = true;
                    } else {
                        base = i;
                    }
                }
                if (!changed) {
                    break;
                }
            }
        }
        if (dims.isEmpty()) {
            dims.add(1L);
            perm.clear();
            perm.add(0);
        }
    }

    /** {@return the ids of the iota, row-major over the grid {@code dims}} */
    public static List<Long> materialize(List<Long> dims, List<Long> reshapeDims, List<Integer> perm) {
        int n = (int) product(dims, "grid");
        int r = reshapeDims.size();
        // Strides of the reshaped iota, then taken in transposed order: id of transposed index t is sum t[i]*stride[perm[i]].
        long[] stride = new long[r];
        long s = 1;
        for (int i = r - 1; i >= 0; i--) {
            stride[i] = s;
            s *= reshapeDims.get(i);
        }
        long[] tDims = new long[r];
        long[] tStride = new long[r];
        for (int i = 0; i < r; i++) {
            tDims[i] = reshapeDims.get(perm.get(i));
            tStride[i] = stride[perm.get(i)];
        }
        Long[] out = new Long[n];
        long[] idx = new long[r];
        for (int k = 0; k < n; k++) {
            long id = 0;
            for (int i = 0; i < r; i++) {
                id += idx[i] * tStride[i];
            }
            out[k] = id;
            for (int i = r - 1; i >= 0; i--) {
                if (++idx[i] < tDims[i]) {
                    break;
                }
                idx[i] = 0;
            }
        }
        return List.of(out);
    }

    private enum TransposeKind { NOOP, RESHAPE, TRANSPOSE }

    private static TransposeKind transposeKind(List<Long> dims, int[] perm) {
        TransposeKind kind = TransposeKind.NOOP;
        int previous = -1;
        for (int i = 0; i < perm.length; i++) {
            int d = perm[i];
            if (dims.get(d) == 1) {
                if (d != i && dims.get(i) != 1) {
                    kind = TransposeKind.RESHAPE;
                }
                continue;
            }
            if (d <= previous) {
                return TransposeKind.TRANSPOSE;
            }
            previous = d;
        }
        return kind;
    }

    /**
     * {@return the grid dimensions of {@code iota} transposed by {@code perm}, as an iota}, or
     * empty where XLA's rule gives no iota (the caller then lists the devices)
     */
    public static Optional<TileAssignment.Iota> transpose(TileAssignment.Iota iota, int[] perm) {
        List<Long> dims = iota.dims();
        TransposeKind kind = transposeKind(dims, perm);
        if (kind == TransposeKind.NOOP) {
            return Optional.of(iota);
        }
        List<Long> newDims = new ArrayList<>();
        for (int p : perm) {
            newDims.add(dims.get(p));
        }
        if (kind == TransposeKind.RESHAPE) {
            return Optional.of(new TileAssignment.Iota(newDims, iota.reshapeDims(), iota.perm()));
        }
        List<Long> reshape = iota.reshapeDims();
        List<Integer> tPerm = iota.perm();
        if (reshape.size() == 1) {
            List<Integer> p = new ArrayList<>();
            for (int x : perm) {
                p.add(x);
            }
            return Optional.of(new TileAssignment.Iota(newDims, dims, p));
        }
        boolean pure = true;
        int[] toNonOne = new int[dims.size()];
        int nonOne = 0;
        for (int i = 0; i < dims.size(); i++) {
            long d = dims.get(i);
            if (d == 1) {
                toNonOne[i] = -1;
                continue;
            }
            if (nonOne >= reshape.size() || reshape.get(tPerm.get(nonOne)) != d) {
                pure = false;
            }
            toNonOne[i] = nonOne++;
        }
        if (!pure) {
            return Optional.empty();
        }
        List<Integer> newPerm = new ArrayList<>();
        for (int p : perm) {
            if (dims.get(p) != 1) {
                newPerm.add(tPerm.get(toNonOne[p]));
            }
        }
        return Optional.of(new TileAssignment.Iota(newDims, reshape, newPerm));
    }

    /**
     * {@return the iota whose ids are {@code devices} read as the grid {@code dims}, in canonical
     * form}, or empty if the ids are no reshaped and transposed iota. The transposed iota's
     * dimensions are found from the minor end as maximal arithmetic runs (a run that continues
     * past one dimension into the next is what the canonical form merges), then the whole list
     * is checked against them.
     */
    public static Optional<TileAssignment.Iota> detect(List<Long> dims, List<Long> devices) {
        int n = devices.size();
        if (n == 0 || devices.getFirst() != 0) {
            return Optional.empty();
        }
        List<Long> sizes = new ArrayList<>();   // transposed dimensions, minor first
        List<Long> strides = new ArrayList<>();
        long block = 1;
        while (block < n) {
            long stride = devices.get((int) block) - devices.getFirst();
            if (stride <= 0) {
                return Optional.empty();
            }
            long run = 1;
            while (run * block < n && devices.get((int) (run * block)) == run * stride) {
                run++;
            }
            // Past a dimension's end the next one starts; an arithmetic run only continues there
            // when the two are one merged dimension, so the run ends exactly at a dimension's end.
            if (run == 1 || (n / block) % run != 0) {
                return Optional.empty();
            }
            sizes.add(run);
            strides.add(stride);
            block *= run;
        }
        // The reshape dimensions are the transposed ones ordered by stride, largest first; their strides must be dense.
        Integer[] byStride = new Integer[sizes.size()];
        for (int i = 0; i < byStride.length; i++) {
            byStride[i] = i;
        }
        java.util.Arrays.sort(byStride, (a, b) -> Long.compare(strides.get(b), strides.get(a)));
        long expect = 1;
        for (int k = byStride.length - 1; k >= 0; k--) {
            if (strides.get(byStride[k]) != expect) {
                return Optional.empty();
            }
            expect *= sizes.get(byStride[k]);
        }
        List<Long> reshape = new ArrayList<>();
        int[] reshapeIndexOf = new int[byStride.length];
        for (int k = 0; k < byStride.length; k++) {
            reshape.add(sizes.get(byStride[k]));
            reshapeIndexOf[byStride[k]] = k;
        }
        List<Integer> perm = new ArrayList<>();
        for (int i = sizes.size() - 1; i >= 0; i--) {
            perm.add(reshapeIndexOf[i]);
        }
        if (reshape.isEmpty()) {
            reshape.add(1L);
            perm.add(0);
        }
        TileAssignment.Iota iota = new TileAssignment.Iota(dims, reshape, perm);
        return iota.devices().equals(devices) ? Optional.of(iota) : Optional.empty();
    }

    /**
     * For a replication group of {@code groupSize} minor-most ids: the reshape and transpose of
     * the same iota in which the group's dimensions come last, sorted, so that every group's ids
     * are ascending as XLA keeps them; empty where the group does not split the dimensions
     * evenly (the caller then sorts a listed copy).
     */
    public static Optional<TileAssignment.Iota> groupMinorSorted(TileAssignment.Iota iota, long groupSize) {
        List<Long> dims = iota.reshapeDims();
        List<Integer> perm = iota.perm();
        int grouped = 0;
        int splitDim = -1;
        long splitSize = 0;
        for (int i = perm.size() - 1; i >= 0; i--) {
            int dim = perm.get(i);
            long size = dims.get(dim);
            if (size <= groupSize) {
                if (groupSize % size != 0) {
                    return Optional.empty();
                }
                groupSize /= size;
                grouped++;
            } else {
                if (size % groupSize != 0) {
                    return Optional.empty();
                }
                splitDim = dim;
                splitSize = size / groupSize;
                grouped++;
                break;
            }
        }
        List<Long> newDims;
        List<Integer> newPerm;
        if (splitDim < 0) {
            newDims = new ArrayList<>(dims);
            newPerm = new ArrayList<>(perm);
        } else {
            newDims = new ArrayList<>();
            for (int i = 0; i < dims.size(); i++) {
                if (i == splitDim) {
                    newDims.add(splitSize);
                    newDims.add(dims.get(i) / splitSize);
                } else {
                    newDims.add(dims.get(i));
                }
            }
            newPerm = new ArrayList<>();
            for (int p : perm) {
                if (p == splitDim) {
                    newPerm.add(p);
                    newPerm.add(p + 1);
                } else {
                    newPerm.add(p < splitDim ? p : p + 1);
                }
            }
        }
        Collections.sort(newPerm.subList(newPerm.size() - grouped, newPerm.size()));
        return Optional.of(new TileAssignment.Iota(iota.dims(), newDims, newPerm));
    }
}
