package dev.tensorbuf.ops.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.Remap;
import dev.tensorbuf.views.XlaLayout;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The output-to-input map of each view op (the maps HLO indexing uses for transpose, slice,
 * reverse, broadcast, pad, concatenate, dynamic-slice, reshape and bitcast) evaluated at every
 * output index of random small shapes and compared with the op's definition in XLA's operation
 * semantics, written out here index by index: the domain (which output indices read the input)
 * and the input index read. Seeded; a failure names the case.
 */
class ViewOpMapsPropertyTest {
    private static final long SEED = Long.getLong("tensorbuf.seed", 4404L);
    private static final long[] NONE = new long[0];

    private static long[] randomDims(Random rnd, int rank, int max) {
        long[] d = new long[rank];
        for (int i = 0; i < rank; i++) {
            d[i] = 1 + rnd.nextInt(max);
        }
        return d;
    }

    /** Visits every index of the box {@code dims}, row-major. */
    private static void forEach(long[] dims, Consumer<long[]> body) {
        for (long d : dims) {
            if (d == 0) {
                return;
            }
        }
        long[] idx = new long[dims.length];
        while (true) {
            body.accept(idx.clone());
            int k = dims.length - 1;
            while (k >= 0 && ++idx[k] == dims[k]) {
                idx[k] = 0;
                k--;
            }
            if (k < 0) {
                return;
            }
        }
    }

    /** The domain is exactly the output box: each dimension {@code [0, n - 1]}, no constraint. */
    private static void assertBox(IndexingMap m, long[] dims, String what) {
        assertEquals(dims.length, m.dims().size(), what);
        for (int i = 0; i < dims.length; i++) {
            assertEquals(new Interval(0, dims[i] - 1), m.dimBounds().get(i), what + " dim " + i);
        }
    }

    private static int[] shuffled(Random rnd, int n) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }

    @Test
    void transposeReadsInputPermutationIAtOutputI() {
        Random rnd = new Random(SEED);
        for (int c = 0; c < 60; c++) {
            int rank = 1 + rnd.nextInt(4);
            int[] perm = shuffled(rnd, rank);
            long[] out = randomDims(rnd, rank, 4);
            IndexingMap m = Transpose.outputToInput(out, perm);
            String what = "transpose " + Arrays.toString(perm) + " to " + Arrays.toString(out);
            assertBox(m, out, what);
            forEach(out, d -> {
                long[] in = new long[rank];
                for (int i = 0; i < rank; i++) {
                    in[perm[i]] = d[i]; // output dim i is input dim perm[i]
                }
                assertArrayEquals(in, m.evaluate(d), what + " at " + Arrays.toString(d));
            });
        }
    }

    @Test
    void sliceReadsStartPlusIndexTimesStride() {
        Random rnd = new Random(SEED + 1);
        for (int c = 0; c < 60; c++) {
            int rank = 1 + rnd.nextInt(3);
            long[] start = new long[rank];
            long[] stride = new long[rank];
            long[] out = new long[rank];
            for (int i = 0; i < rank; i++) {
                long n = 1 + rnd.nextInt(9);
                start[i] = rnd.nextInt((int) n);
                long limit = start[i] + rnd.nextInt((int) (n - start[i]) + 1);
                stride[i] = 1 + rnd.nextInt(3);
                out[i] = Math.ceilDiv(limit - start[i], stride[i]);
            }
            IndexingMap m = Slice.outputToInput(out, start, stride);
            String what = "slice from " + Arrays.toString(start) + " by " + Arrays.toString(stride);
            if (Arrays.stream(out).anyMatch(n -> n == 0)) {
                continue; // an empty slice reads nothing
            }
            assertBox(m, out, what);
            forEach(out, d -> {
                long[] in = new long[rank];
                for (int i = 0; i < rank; i++) {
                    in[i] = start[i] + d[i] * stride[i];
                }
                assertArrayEquals(in, m.evaluate(d), what + " at " + Arrays.toString(d));
            });
        }
    }

    @Test
    void reverseReadsTheMirrorOfEachReversedDimension() {
        Random rnd = new Random(SEED + 2);
        for (int c = 0; c < 60; c++) {
            int rank = 1 + rnd.nextInt(4);
            long[] dims = randomDims(rnd, rank, 5);
            boolean[] reversed = new boolean[rank];
            for (int i = 0; i < rank; i++) {
                reversed[i] = rnd.nextBoolean();
            }
            IndexingMap m = Reverse.outputToInput(dims, reversed);
            String what = "reverse " + Arrays.toString(reversed) + " of " + Arrays.toString(dims);
            assertBox(m, dims, what);
            forEach(dims, d -> {
                long[] in = new long[rank];
                for (int i = 0; i < rank; i++) {
                    in[i] = reversed[i] ? dims[i] - 1 - d[i] : d[i];
                }
                assertArrayEquals(in, m.evaluate(d), what + " at " + Arrays.toString(d));
            });
        }
    }

    @Test
    void broadcastReadsTheOutputDimensionEachInputDimensionBecomes() {
        Random rnd = new Random(SEED + 3);
        for (int c = 0; c < 60; c++) {
            int outRank = 1 + rnd.nextInt(4);
            int inRank = rnd.nextInt(outRank + 1);
            int[] chosen = Arrays.copyOf(shuffled(rnd, outRank), inRank); // any order: XLA allows it
            long[] out = randomDims(rnd, outRank, 4);
            IndexingMap m = Broadcast.outputToInput(out, chosen);
            String what = "broadcast " + Arrays.toString(chosen) + " to " + Arrays.toString(out);
            assertBox(m, out, what);
            assertEquals(inRank, m.results().size(), what);
            forEach(out, d -> {
                long[] in = new long[inRank];
                for (int j = 0; j < inRank; j++) {
                    in[j] = d[chosen[j]];
                }
                assertArrayEquals(in, m.evaluate(d), what + " at " + Arrays.toString(d));
            });
        }
    }

    @Test
    void padReadsTheInputExactlyWhereAnElementLands() {
        Random rnd = new Random(SEED + 4);
        for (int c = 0; c < 80; c++) {
            int rank = 1 + rnd.nextInt(2);
            long[] in = randomDims(rnd, rank, 4);
            long[] low = new long[rank];
            long[] high = new long[rank];
            long[] interior = new long[rank];
            long[] out = new long[rank];
            for (int i = 0; i < rank; i++) {
                interior[i] = rnd.nextInt(3);
                long span = in[i] + (in[i] - 1) * interior[i];
                low[i] = rnd.nextInt(5) - 2; // negative crops
                high[i] = rnd.nextInt(5) - 2;
                if (span + low[i] + high[i] < 1) {
                    low[i] = 0;
                    high[i] = 0;
                }
                out[i] = span + low[i] + high[i];
                assertEquals(out[i], Remap.Pad.outputSize(in[i], low[i], high[i], interior[i]));
            }
            IndexingMap m = Pad.outputToInput(in, low, high, interior);
            String what = "pad of " + Arrays.toString(in) + " low " + Arrays.toString(low) + " high "
                    + Arrays.toString(high) + " interior " + Arrays.toString(interior);
            long[] hits = new long[1];
            forEach(out, d -> {
                long[] src = new long[rank];
                boolean reads = true;
                for (int i = 0; i < rank; i++) {
                    long p = d[i] - low[i];
                    long q = Math.floorDiv(p, interior[i] + 1);
                    reads &= p >= 0 && Math.floorMod(p, interior[i] + 1) == 0 && q < in[i];
                    src[i] = q;
                }
                assertEquals(reads, m.contains(d, NONE, NONE), what + " at " + Arrays.toString(d));
                if (reads) {
                    hits[0]++;
                    assertArrayEquals(src, m.evaluate(d), what + " at " + Arrays.toString(d));
                }
            });
            // Every input element kept by the crops is read once.
            long kept = 1;
            for (int i = 0; i < rank; i++) {
                long n = 0;
                for (long k = 0; k < in[i]; k++) {
                    long at = low[i] + k * (interior[i] + 1);
                    n += at >= 0 && at < out[i] ? 1 : 0;
                }
                kept *= n;
            }
            assertEquals(kept, hits[0], what);
        }
    }

    @Test
    void concatenatePartReadsItsSlabShiftedByItsStart() {
        Random rnd = new Random(SEED + 5);
        for (int c = 0; c < 60; c++) {
            int rank = 1 + rnd.nextInt(3);
            int dim = rnd.nextInt(rank);
            long[] out = randomDims(rnd, rank, 4);
            out[dim] += 3;
            long start = rnd.nextInt((int) out[dim]);
            long size = 1 + rnd.nextInt((int) (out[dim] - start));
            IndexingMap m = Concatenate.outputToPart(out, dim, start, size);
            String what = "part [" + start + ", " + (start + size) + ") of dim " + dim + " of " + Arrays.toString(out);
            forEach(out, d -> {
                boolean reads = d[dim] >= start && d[dim] < start + size;
                assertEquals(reads, m.contains(d, NONE, NONE), what + " at " + Arrays.toString(d));
                if (reads) {
                    long[] part = d.clone();
                    part[dim] -= start;
                    assertArrayEquals(part, m.evaluate(d), what + " at " + Arrays.toString(d));
                }
            });
        }
    }

    @Test
    void dynamicSliceReadsIndexPlusTheClampedOffset() {
        Random rnd = new Random(SEED + 6);
        for (int c = 0; c < 60; c++) {
            int rank = 1 + rnd.nextInt(3);
            long[] in = randomDims(rnd, rank, 5);
            long[] sizes = new long[rank];
            long[] offsets = new long[rank];
            for (int i = 0; i < rank; i++) {
                sizes[i] = 1 + rnd.nextInt((int) in[i]);
                offsets[i] = rnd.nextInt(12) - 4; // below 0 and past the end: XLA clamps
            }
            IndexingMap m = DynamicSlice.outputToInput(in, sizes);
            String what = "dynamic-slice " + Arrays.toString(sizes) + " of " + Arrays.toString(in);
            assertBox(m, sizes, what);
            long[] clamped = DynamicSlice.clampedStarts(in, offsets, sizes);
            for (int i = 0; i < rank; i++) {
                assertEquals(new Interval(0, in[i] - sizes[i]), m.runtimeVarBounds().get(i), what + " offset " + i);
                assertEquals(Math.min(Math.max(offsets[i], 0), in[i] - sizes[i]), clamped[i],
                        what + " offset " + offsets[i] + " clamped");
            }
            IndexingMap bound = DynamicSlice.bind(m, offsets).toIndexingMap();
            forEach(sizes, d -> {
                long[] read = new long[rank];
                for (int i = 0; i < rank; i++) {
                    read[i] = d[i] + clamped[i];
                }
                assertArrayEquals(read, m.evaluate(d, NONE, clamped), what + " at " + Arrays.toString(d));
                assertArrayEquals(read, bound.evaluate(d), what + " bound at " + Arrays.toString(d));
            });
        }
    }

    private static long rowMajor(long[] dims, long[] idx) {
        long l = 0;
        for (int i = 0; i < dims.length; i++) {
            l = l * dims[i] + idx[i];
        }
        return l;
    }

    private static long[] unRowMajor(long[] dims, long l) {
        long[] idx = new long[dims.length];
        for (int i = dims.length - 1; i >= 0; i--) {
            idx[i] = l % dims[i];
            l /= dims[i];
        }
        return idx;
    }

    /** A random way to write {@code n} as a product of {@code rank} factors (ones included). */
    private static long[] factor(Random rnd, long n, int rank) {
        long[] d = new long[rank];
        Arrays.fill(d, 1);
        long left = n;
        for (long p = 2; left > 1; ) {
            if (left % p == 0) {
                d[rnd.nextInt(rank)] *= p;
                left /= p;
            } else {
                p++;
            }
        }
        return d;
    }

    @Test
    void reshapeKeepsTheRowMajorPosition() {
        Random rnd = new Random(SEED + 7);
        long[] counts = {1, 2, 6, 8, 12, 24, 30, 36, 48, 60};
        for (int c = 0; c < 80; c++) {
            long n = counts[rnd.nextInt(counts.length)];
            long[] in = factor(rnd, n, 1 + rnd.nextInt(4));
            long[] out = factor(rnd, n, 1 + rnd.nextInt(4));
            IndexingMap m = Reshape.outputToInput(in, out);
            String what = "reshape " + Arrays.toString(in) + " to " + Arrays.toString(out);
            assertBox(m, out, what);
            forEach(out, d -> assertArrayEquals(unRowMajor(in, rowMajor(out, d)), m.evaluate(d),
                    what + " at " + Arrays.toString(d)));
        }
    }

    private static ArrayShape shape(long[] dims, int[] minorToMajor) {
        return ArrayShape.of(DType.F32, dims).withLayout(XlaLayout.of(minorToMajor));
    }

    /** Physical order of an untiled layout: the offset of a logical index, most major first. */
    private static long offset(long[] dims, int[] minorToMajor, long[] idx) {
        long l = 0;
        for (int k = minorToMajor.length - 1; k >= 0; k--) {
            l = l * dims[minorToMajor[k]] + idx[minorToMajor[k]];
        }
        return l;
    }

    @Test
    void bitcastReadsTheInputElementAtTheSameOffset() {
        Random rnd = new Random(SEED + 8);
        long[] counts = {1, 4, 6, 12, 24, 36, 60};
        for (int c = 0; c < 80; c++) {
            long n = counts[rnd.nextInt(counts.length)];
            long[] in = factor(rnd, n, 1 + rnd.nextInt(4));
            int[] inOrder = shuffled(rnd, in.length);
            long[] out;
            if (rnd.nextBoolean()) {
                // A transpose-shaped bitcast: the output's physical dims are the input's.
                out = new long[in.length];
                int[] outOrder0 = shuffled(rnd, in.length);
                for (int k = 0; k < in.length; k++) {
                    out[outOrder0[k]] = in[inOrder[k]];
                }
                checkBitcast(in, inOrder, out, outOrder0);
            } else {
                out = factor(rnd, n, 1 + rnd.nextInt(4));
                checkBitcast(in, inOrder, out, shuffled(rnd, out.length));
            }
        }
    }

    private static void checkBitcast(long[] in, int[] inOrder, long[] out, int[] outOrder) {
        ArrayShape input = shape(in, inOrder);
        ArrayShape output = shape(out, outOrder);
        IndexingMap m = Bitcast.outputToInput(input, output);
        String what = "bitcast " + input + " to " + output;
        assertBox(m, out, what);
        long[] inPhysical = new long[in.length];
        for (int k = 0; k < in.length; k++) {
            inPhysical[k] = in[inOrder[in.length - 1 - k]];
        }
        assertEquals(Arrays.stream(inPhysical).boxed().toList(), Bitcast.physicalDims(input), what);
        forEach(out, d -> {
            long off = offset(out, outOrder, d);
            long[] expected = null;
            long[][] found = new long[1][];
            forEach(in, i -> {
                if (offset(in, inOrder, i) == off) {
                    found[0] = i;
                }
            });
            expected = found[0];
            assertArrayEquals(expected, m.evaluate(d), what + " at " + Arrays.toString(d));
        });
    }

    @Test
    void logicalAndPhysicalMapsAreInverse() {
        Random rnd = new Random(SEED + 9);
        for (int c = 0; c < 40; c++) {
            int rank = 1 + rnd.nextInt(4);
            long[] dims = randomDims(rnd, rank, 4);
            int[] order = shuffled(rnd, rank);
            ArrayShape s = shape(dims, order);
            IndexingMap toPhysical = Bitcast.logicalToPhysical(s);
            IndexingMap toLogical = Bitcast.physicalToLogical(s);
            List<Long> physical = Bitcast.physicalDims(s);
            assertEquals(Arrays.stream(order).boxed().toList(), Bitcast.minorToMajor(s));
            forEach(dims, d -> {
                long[] p = toPhysical.evaluate(d);
                for (int k = 0; k < rank; k++) {
                    // Physical dim k (major first) is logical dim order[rank - 1 - k].
                    assertEquals(d[order[rank - 1 - k]], p[k], s + " at " + Arrays.toString(d));
                    assertTrue(p[k] < physical.get(k));
                }
                assertArrayEquals(d, toLogical.evaluate(p), s + " round trip at " + Arrays.toString(d));
            });
            assertBox(toLogical, physical.stream().mapToLong(Long::longValue).toArray(), s.toString());
        }
        // No layout written: XLA's default, descending.
        ArrayShape plain = ArrayShape.of(DType.F32, 2, 3, 4);
        assertEquals(List.of(2, 1, 0), Bitcast.minorToMajor(plain));
        assertEquals(List.of(2L, 3L, 4L), Bitcast.physicalDims(plain));
        assertFalse(new ArrayList<>(Bitcast.physicalDims(shape(new long[] {2, 3}, new int[] {0, 1})))
                .equals(List.of(2L, 3L)));
    }
}
