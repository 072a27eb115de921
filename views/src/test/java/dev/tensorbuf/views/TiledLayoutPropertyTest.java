package dev.tensorbuf.views;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import org.junit.jupiter.api.Test;
import dev.tensorbuf.views.XlaLayout.Tile;
import dev.tensorbuf.views.internal.Extents;

/**
 * Checks the tiled linear index against seed 000's definition, computed by moving data: the
 * array is laid out in physical order, then each tile level pads, reshapes and transposes it
 * ("tiling as pad-reshape-transpose"), with combined dimensions merged by a reshape first. The
 * flattened result lists, slot by slot, which logical element sits there. The library's
 * {@code linearIndex} must put every element in its slot and {@code logicalIndex} must invert it,
 * reporting exactly the padding slots as empty.
 */
class TiledLayoutPropertyTest {
    private static final int CASES = 400;

    @Test
    void linearIndexEqualsPadReshapeTransposeAndLogicalIndexInvertsIt() {
        long seed = Long.getLong("tensorbuf.seed", System.nanoTime());
        System.out.println("TiledLayoutPropertyTest seed: " + seed + " (rerun with -Dtensorbuf.seed=" + seed + ")");
        Random random = new Random(seed);
        for (int c = 0; c < CASES; c++) {
            ArrayShape shape = randomShape(random);
            String context = "seed " + seed + ", case " + c + ": " + shape;
            long[] memory = bruteForceMemoryOrder(shape);
            assertEquals(memory.length, shape.physicalElementCount(), context);
            for (int slot = 0; slot < memory.length; slot++) {
                Optional<List<Long>> logical = shape.logicalIndex(slot);
                if (memory[slot] < 0) {
                    assertEquals(Optional.empty(), logical, context + ", padding slot " + slot);
                } else {
                    long[] index = unravel(memory[slot], shape);
                    assertEquals(slot, shape.linearIndex(index), context + ", index " + Arrays.toString(index));
                    assertEquals(Optional.of(Arrays.stream(index).boxed().toList()), logical, context + ", slot " + slot);
                }
            }
        }
    }

    /** A rank 0-3 array with dims 0-5, a random minor_to_major and 0-3 tile levels, some with '*'. */
    static ArrayShape randomShape(Random random) {
        int rank = random.nextInt(4);
        long[] dims = new long[rank];
        for (int i = 0; i < rank; i++) {
            dims[i] = random.nextInt(20) == 0 ? 0 : 1 + random.nextInt(5);
        }
        List<Integer> m2m = new ArrayList<>();
        for (int i = 0; i < rank; i++) {
            m2m.add(i);
        }
        Collections.shuffle(m2m, random);
        List<Tile> tiles = new ArrayList<>();
        int currentRank = rank;
        int levels = random.nextInt(4);
        for (int l = 0; l < levels; l++) {
            int r = 1 + random.nextInt(Math.max(1, currentRank) + 1);
            long[] t = new long[r];
            int groups = 0;
            for (int k = 0; k < r; k++) {
                boolean combine = k < r - 1 && random.nextInt(5) == 0;
                t[k] = combine ? Tile.COMBINE : 1 + random.nextInt(4);
                groups += combine ? 0 : 1;
            }
            tiles.add(Tile.of(t));
            currentRank = Math.max(currentRank, r) - r + 2 * groups;
        }
        XlaLayout layout = XlaLayout.of(m2m.stream().mapToInt(Integer::intValue).toArray()).withTiles(tiles);
        return ArrayShape.of(DType.F32, dims).withLayout(layout);
    }

    /** Seed 000 by data movement: slot -> row-major logical id, or -1 for padding. */
    static long[] bruteForceMemoryOrder(ArrayShape shape) {
        int rank = shape.rank();
        long[] dims = Extents.toArray(shape.dims());
        long[] data = new long[(int) product(dims)];
        for (int i = 0; i < data.length; i++) {
            data[i] = i;
        }
        XlaLayout layout = shape.requireLayout();
        int[] toPhysical = new int[rank];
        for (int j = 0; j < rank; j++) {
            toPhysical[j] = layout.minorToMajor().get(rank - 1 - j);
        }
        data = transpose(data, dims, toPhysical);
        dims = permute(dims, toPhysical);
        for (Tile tile : layout.tiles()) {
            int r = tile.rank();
            // left-pad the rank with 1s: a reshape
            if (r > dims.length) {
                long[] padded = new long[r];
                Arrays.fill(padded, 1);
                System.arraycopy(dims, 0, padded, r - dims.length, dims.length);
                dims = padded;
            }
            int prefix = dims.length - r;
            // combine: merging adjacent dims row-major is a reshape
            List<Long> merged = new ArrayList<>();
            List<Long> sizes = new ArrayList<>();
            long run = 1;
            for (int k = 0; k < r; k++) {
                run *= dims[prefix + k];
                if (!tile.isCombined(k)) {
                    merged.add(run);
                    sizes.add(tile.dim(k));
                    run = 1;
                }
            }
            int g = merged.size();
            long[] combined = new long[prefix + g];
            System.arraycopy(dims, 0, combined, 0, prefix);
            for (int q = 0; q < g; q++) {
                combined[prefix + q] = merged.get(q);
            }
            // pad each tiled dim up to a multiple of its tile
            long[] paddedDims = combined.clone();
            for (int q = 0; q < g; q++) {
                long d = combined[prefix + q];
                long t = sizes.get(q);
                paddedDims[prefix + q] = (d + t - 1) / t * t;
            }
            data = pad(data, combined, paddedDims);
            // reshape each tiled dim into (count, tile), then transpose the tile dims to the end
            long[] split = new long[prefix + 2 * g];
            System.arraycopy(paddedDims, 0, split, 0, prefix);
            for (int q = 0; q < g; q++) {
                split[prefix + 2 * q] = paddedDims[prefix + q] / sizes.get(q);
                split[prefix + 2 * q + 1] = sizes.get(q);
            }
            int[] perm = new int[split.length];
            for (int p = 0; p < prefix; p++) {
                perm[p] = p;
            }
            for (int q = 0; q < g; q++) {
                perm[prefix + q] = prefix + 2 * q;
                perm[prefix + g + q] = prefix + 2 * q + 1;
            }
            data = transpose(data, split, perm);
            dims = permute(split, perm);
        }
        return data;
    }

    /** out[i_0..] = in[...] with out dim k = in dim perm[k]. */
    private static long[] transpose(long[] in, long[] dims, int[] perm) {
        long[] outDims = permute(dims, perm);
        long[] inStrides = strides(dims);
        long[] out = new long[in.length];
        long[] idx = new long[dims.length];
        for (int o = 0; o < out.length; o++) {
            long rest = o;
            long src = 0;
            for (int k = outDims.length - 1; k >= 0; k--) {
                idx[k] = rest % outDims[k];
                rest /= outDims[k];
                src += idx[k] * inStrides[perm[k]];
            }
            out[o] = in[(int) src];
        }
        return out;
    }

    private static long[] pad(long[] in, long[] dims, long[] newDims) {
        long[] out = new long[(int) product(newDims)];
        Arrays.fill(out, -1);
        long[] outStrides = strides(newDims);
        for (int i = 0; i < in.length; i++) {
            long rest = i;
            long dst = 0;
            for (int k = dims.length - 1; k >= 0; k--) {
                dst += (rest % dims[k]) * outStrides[k];
                rest /= dims[k];
            }
            out[(int) dst] = in[i];
        }
        return out;
    }

    private static long[] permute(long[] dims, int[] perm) {
        long[] out = new long[perm.length];
        for (int k = 0; k < perm.length; k++) {
            out[k] = dims[perm[k]];
        }
        return out;
    }

    private static long[] strides(long[] dims) {
        long[] s = new long[dims.length];
        long n = 1;
        for (int k = dims.length - 1; k >= 0; k--) {
            s[k] = n;
            n *= dims[k];
        }
        return s;
    }

    private static long product(long[] dims) {
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        return n;
    }

    static long[] unravel(long id, ArrayShape shape) {
        long[] index = new long[shape.rank()];
        for (int i = shape.rank() - 1; i >= 0; i--) {
            index[i] = id % shape.dim(i);
            id /= shape.dim(i);
        }
        return index;
    }
}
