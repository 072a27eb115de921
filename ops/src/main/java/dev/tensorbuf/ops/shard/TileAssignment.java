package dev.tensorbuf.ops.shard;

import dev.tensorbuf.ops.shard.internal.IotaForms;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Which device holds each tile of a tiled {@link HloSharding}: an array of device ids whose
 * shape is the tile grid. XLA writes it in two forms, kept apart because XLA prints each as it
 * was made: a list ({@code devices=[2,2]0,2,1,3}) and an iota
 * ({@code devices=[2,2]<=[2,2]T(1,0)}: the ids 0..n-1 reshaped to {@code [2,2]}, transposed by
 * {@code (1,0)}, then read as the grid {@code [2,2]}).
 *
 * {@snippet :
 * TileAssignment t = TileAssignment.iota(List.of(2L, 2L), List.of(2L, 2L), List.of(1, 0));
 * t.devices();   // [0, 2, 1, 3]
 * t.deviceAt(0, 1); // 2
 * TileAssignment.iota(List.of(4L, 1L), List.of(2L, 2L), List.of(0, 1)).toString(); // "devices=[4,1]<=[4]"
 * }
 *
 * <p>Two assignments with the same grid and ids but different forms are different values (they
 * print differently); {@link #sameDevices} compares what they assign, as XLA's {@code ==} does.
 */
public sealed interface TileAssignment permits TileAssignment.Listed, TileAssignment.Iota {
    /**
     * The most devices a tile grid may hold. Device arrays are materialised for boxes and
     * printing; XLA's own meshes are far smaller.
     */
    long MAX_DEVICES = 1L << 20;

    /** {@return the tile grid's dimensions} */
    List<Long> dims();

    /** {@return the number of tiles (product of {@link #dims()})} */
    default long deviceCount() {
        long n = 1;
        for (long d : dims()) {
            n *= d;
        }
        return n;
    }

    /** {@return the device ids in row-major order of the grid} */
    List<Long> devices();

    /** {@return the device of the tile at {@code index}} @param index one index per grid dimension */
    default long deviceAt(long... index) {
        List<Long> dims = dims();
        if (index.length != dims.size()) {
            throw new IllegalArgumentException("tile index " + Arrays.toString(index) + " has " + index.length
                    + " entries, the grid " + dims + " has " + dims.size() + " dimensions");
        }
        long linear = 0;
        for (int i = 0; i < index.length; i++) {
            if (index[i] < 0 || index[i] >= dims.get(i)) {
                throw new IndexOutOfBoundsException("tile index " + Arrays.toString(index) + " out of bounds for grid " + dims);
            }
            linear = linear * dims.get(i) + index[i];
        }
        return devices().get((int) linear);
    }

    /** {@return whether {@code other} has the same grid and the same device in every tile} @param other another assignment */
    default boolean sameDevices(TileAssignment other) {
        return dims().equals(other.dims()) && devices().equals(other.devices());
    }

    /** {@return the same devices read as another grid of the same count} @param newDims the new grid */
    TileAssignment reshape(List<Long> newDims);

    /** {@return XLA's text, {@code devices=[2,2]0,1,2,3} or {@code devices=[2,2]<=[4]}} */
    @Override
    String toString();

    /** {@return a listed assignment} @param dims the grid @param devices ids in row-major order */
    static TileAssignment listed(List<Long> dims, List<Long> devices) {
        return new Listed(dims, devices);
    }

    /** {@return the iota {@code [0..n)} read as the grid {@code dims}} @param dims the grid */
    static TileAssignment iota(List<Long> dims) {
        return new Iota(dims, List.of(IotaForms.product(dims, "grid")), List.of(0));
    }

    /**
     * {@return the iota {@code [0..n)} reshaped to {@code reshapeDims}, transposed by
     * {@code perm}, read as the grid {@code dims}}, in XLA's canonical form (dimensions of size 1
     * dropped, runs kept in order merged)
     *
     * @param dims the grid
     * @param reshapeDims the shape the ids are first laid out in
     * @param perm the transpose of that shape, a permutation of its dimensions
     */
    static TileAssignment iota(List<Long> dims, List<Long> reshapeDims, List<Integer> perm) {
        return new Iota(dims, reshapeDims, perm);
    }

    /**
     * Device ids listed one by one, {@code devices=[2,1,2]2,3,5,7}.
     *
     * @param dims the tile grid, each {@code >= 1}
     * @param devices one id per tile, row-major, each {@code >= 0}, no id twice
     */
    record Listed(List<Long> dims, List<Long> devices) implements TileAssignment {
        /** @throws IllegalArgumentException if the counts differ, an id repeats or is negative */
        public Listed {
            dims = List.copyOf(dims);
            devices = List.copyOf(devices);
            long n = IotaForms.product(dims, "grid");
            if (devices.size() != n) {
                throw new IllegalArgumentException("the grid " + dims + " has " + n + " tiles but " + devices.size()
                        + " devices are listed");
            }
            IotaForms.checkDistinct(devices);
        }

        @Override
        public TileAssignment reshape(List<Long> newDims) {
            return new Listed(newDims, devices);
        }

        @Override
        public String toString() {
            return "devices=" + IotaForms.join(dims, "[", "]") + IotaForms.join(devices, "", "");
        }
    }

    /**
     * The ids {@code 0..n-1} laid out as {@code reshapeDims}, transposed by {@code perm}, read
     * as the grid {@code dims}: XLA's {@code IotaTileAssignment}. The constructor brings
     * {@code reshapeDims} and {@code perm} to XLA's canonical form, so
     * {@code [4,1]<=[2,2]T(0,1)} is kept as {@code [4,1]<=[4]}.
     *
     * @param dims the tile grid
     * @param reshapeDims canonical: no dimension of size 1 unless it is the only one
     * @param perm canonical: no run {@code i, i+1} kept in order
     */
    record Iota(List<Long> dims, List<Long> reshapeDims, List<Integer> perm) implements TileAssignment {
        /** @throws IllegalArgumentException if the counts differ or {@code perm} is not a permutation */
        public Iota {
            dims = List.copyOf(dims);
            long n = IotaForms.product(dims, "grid");
            long m = IotaForms.product(reshapeDims, "iota reshape");
            if (n != m) {
                throw new IllegalArgumentException("the grid " + dims + " has " + n + " tiles but the iota "
                        + reshapeDims + " has " + m + " devices");
            }
            IotaForms.checkPermutation(perm, reshapeDims.size());
            List<Long> r = new ArrayList<>(reshapeDims);
            List<Integer> p = new ArrayList<>(perm);
            IotaForms.canonicalize(r, p);
            reshapeDims = List.copyOf(r);
            perm = List.copyOf(p);
        }

        @Override
        public List<Long> devices() {
            return IotaForms.materialize(dims, reshapeDims, perm);
        }

        @Override
        public TileAssignment reshape(List<Long> newDims) {
            return new Iota(newDims, reshapeDims, perm);
        }

        @Override
        public String toString() {
            String s = "devices=" + IotaForms.join(dims, "[", "]") + "<=" + IotaForms.join(reshapeDims, "[", "]");
            return reshapeDims.size() > 1 ? s + IotaForms.join(perm, "T(", ")") : s;
        }
    }
}
