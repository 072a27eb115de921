package dev.tensorbuf.views;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.internal.Linear;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Views made from a description whose map is composed on first need ({@link PendingMap}): an
 * untiled XLA layout by its strides, a remap of a tiled view, a {@link Remap.Pad}, parts side by
 * side. Each against the general path (the same op's {@code IndexingMap} composed at once) on
 * random small shapes: the same map, the same elements, the same error at creation. Seed printed;
 * {@code -Dtensorbuf.seed=N} replays it.
 */
class DeferredMapTest {
    private static final int CASES = 400;
    private static final String[] LAYOUT_SUFFIXES = {"", "", ":T(2)", ":T(2,2)", ":T(2,1)"};

    private Allocator arena;

    @BeforeEach
    void open() {
        arena = Allocators.confined();
    }

    @AfterEach
    void close() {
        arena.close();
    }

    @Test
    void exampleFromJavadoc() {
        Remap.Pad p = Remap.Pad.of(new long[] {2}, new long[] {1}, new long[] {2}, new long[] {1});
        assertArrayEquals(new long[] {6}, p.outputDims());
        assertEquals("(d0) -> ((d0 - 1) / 2), domain: d0 in [1, 3], (d0 - 1) mod 2 in [0, 0]", p.toIndexingMap().toString());
        TensorView v = TensorView.of(arena.allocate(8), "f32[2]{0}");
        TensorElements.of(v).copyFrom(new float[] {1, 2});
        assertArrayEquals(new float[] {0, 1, 0, 2, 0, 0}, TensorElements.of(v.padded(p, TensorView.scalar(DType.F32, 0))).toFloatArray());
    }

    @Test
    void untiledXlaShapeViewHasTheStridesAndMapOfItsLayout() {
        long seed = TestSeed.of("untiledXlaShapeViewHasTheStridesAndMapOfItsLayout");
        Random rnd = new Random(seed);
        for (int c = 0; c < CASES; c++) {
            ArrayShape shape = (ArrayShape) XlaShape.parse(randomShape(rnd, ""));
            TensorView v = TensorView.of(arena.allocate(Math.max(4, 4 * shape.elementCount())), shape);
            IndexingMap layoutMap = shape.toIndexingMap();
            long[] coefficients = new long[shape.rank()];
            long[] constant = new long[1];
            assertTrue(Linear.extract(layoutMap.results().getFirst(), coefficients, constant), layoutMap.toString());
            String where = shape + " (seed " + seed + ")";
            assertEquals(shape + " strides " + Arrays.toString(coefficients), v.toString(), where);
            assertEquals(new ViewMap.Single(v.buffer(), layoutMap, true), v.map(), where);
            TensorElements.of(v).forEachIndex(index -> assertEquals(shape.linearIndex(index), ElementLocator.locate(v, index, false), where));
        }
    }

    /**
     * A strided view inside its buffer defers its map and reads its layout off its strides, as
     * an op's view does: a copy of a view made per call composes and simplifies no map. Random
     * layouts with negative and zero strides; the map built later is the layout's, element for
     * element.
     */
    @Test
    void stridedViewInsideItsBufferDefersItsMap() {
        long seed = TestSeed.of("stridedViewInsideItsBufferDefersItsMap");
        Random rnd = new Random(seed);
        for (int c = 0; c < CASES; c++) {
            int rank = 1 + rnd.nextInt(3);
            long[] sizes = new long[rank];
            long[] strides = new long[rank];
            long offset = 0;
            for (int d = 0; d < rank; d++) {
                sizes[d] = 1 + rnd.nextInt(4);
                strides[d] = rnd.nextInt(9) - 3;
                offset += strides[d] < 0 ? -strides[d] * (sizes[d] - 1) : 0;
            }
            StridedLayout layout = StridedLayout.of(sizes, strides, offset);
            String where = layout + " (seed " + seed + ")";
            TensorView v = TensorView.strided(arena.allocate(4 * (layout.maxOffset() + 1)), DType.F32, layout);
            // The layout the simplifier finds for the same map, made into a view at once.
            TensorView general = TensorView.over(new ViewMap.Single(v.buffer(), layout.toIndexingMap()),
                    ElementAccess.of(DType.F32), sizes);
            assertEquals(general.form(), new MapForm.Strided(general.indexingMap(), v.stridedLayout().orElseThrow()), where);
            assertTrue(!v.mapBuilt(), where);
            assertEquals(new ViewMap.Single(v.buffer(), layout.toIndexingMap()), v.map(), where);
            TensorElements.of(v).forEachIndex(index -> assertEquals(layout.offsetOf(index), ElementLocator.locate(v, index, false), where));
        }
        IllegalArgumentException beyond = assertThrows(IllegalArgumentException.class,
                () -> TensorView.strided(arena.allocate(20), DType.F32, StridedLayout.packed(2, 3)));
        assertEquals("f32[2,3]: index [1, 2] reaches element offset 5, beyond the buffer of 5 elements (20 bytes)",
                beyond.getMessage());
    }

    /**
     * A view of a tiled XLA shape checks its reach from the tiles' physical size and builds its
     * map when first asked; the map is the layout's, every index lands on {@code linearIndex},
     * and a buffer under XLA's ArraySize throws at creation, though its elements might fit.
     */
    @Test
    void tiledXlaShapeViewDefersTheMapOfItsLayout() {
        long seed = TestSeed.of("tiledXlaShapeViewDefersTheMapOfItsLayout");
        Random rnd = new Random(seed);
        String[] tiles = {":T(2,2)", ":T(2)", ":T(4,2)(2,1)", ":T(2,*,2)", ":T(3,2)(1,2)"};
        for (int c = 0; c < CASES; c++) {
            ArrayShape shape = (ArrayShape) XlaShape.parse(randomShape(rnd, tiles[rnd.nextInt(tiles.length)]));
            if (shape.rank() == 0) {
                continue; // "f32[]" has no layout text to tile
            }
            String where = shape + " (seed " + seed + ")";
            TensorView v = TensorView.of(arena.allocate(Math.max(1, shape.arraySize())), shape);
            assertEquals(shape.toString(), v.toString(), where);
            // Only an empty tiled view builds its map at once (there is nothing to defer).
            boolean emptyTiled = shape.elementCount() == 0 && !v.shape().requireLayout().tiles().isEmpty();
            assertEquals(!emptyTiled, !v.mapBuilt(), where);
            // The map is the buffer's whole layout: it owns the tile padding it never reaches.
            assertEquals(new ViewMap.Single(v.buffer(), v.shape().toIndexingMap(), true), v.map(), where);
            TensorElements.of(v).forEachIndex(index -> assertEquals(shape.linearIndex(index), ElementLocator.locate(v, index, false), where));
            if (shape.arraySize() > 0) {
                // One byte short of ArraySize, even where the elements end before the tile padding.
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> TensorView.of(arena.allocate(shape.arraySize() - 1), shape), where);
                assertEquals("view of " + shape + ": a buffer of " + (shape.arraySize() - 1) + " bytes is too small;"
                        + " XLA's ArraySize for the shape is " + shape.arraySize() + " bytes, tile padding included",
                        e.getMessage(), where);
            }
        }
    }

    @Test
    void layoutBeyondTheBufferStillThrowsAtCreationNamingTheFirstIndex() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TensorView.of(arena.allocate(20), "f32[2,3]{0,1}"));
        assertEquals("f32[2,3]{0,1}: index [1, 2] reaches element offset 5, beyond the buffer of 5 elements (20 bytes)",
                e.getMessage());
    }

    @Test
    void padRemapViewEqualsTheGeneralPathsPaddedView() {
        long seed = TestSeed.of("padRemapViewEqualsTheGeneralPathsPaddedView");
        Random rnd = new Random(seed);
        TensorView fill = TensorView.scalar(DType.F32, -7);
        int made = 0;
        for (int c = 0; c < CASES; c++) {
            TensorView v = randomSource(rnd);
            int rank = v.rank();
            long[] low = new long[rank];
            long[] high = new long[rank];
            long[] interior = new long[rank];
            for (int i = 0; i < rank; i++) {
                low[i] = rnd.nextInt(6) - 2;
                high[i] = rnd.nextInt(6) - 2;
                interior[i] = rnd.nextInt(3);
            }
            Remap.Pad pad;
            try {
                pad = Remap.Pad.of(v.dimsArray(), low, high, interior);
            } catch (IllegalArgumentException negativeSize) {
                continue;
            }
            String where = v + " " + pad + " (seed " + seed + ")";
            TensorView fast = v.padded(pad, fill);
            TensorView general = v.padded(pad.toIndexingMap(), pad.outputDims(), fill);
            assertEquals(general.map(), fast.map(), where);
            assertArrayEquals(TensorElements.of(general).toDoubleArray(), TensorElements.of(fast).toDoubleArray(), where);
            made++;
        }
        assertTrue(made > CASES / 2, made + " of " + CASES + " pads had sizes >= 0");
    }

    @Test
    void concatenatedViewReadsEachPartOnItsSlab() {
        long seed = TestSeed.of("concatenatedViewReadsEachPartOnItsSlab");
        Random rnd = new Random(seed);
        for (int c = 0; c < CASES; c++) {
            int rank = 1 + rnd.nextInt(3);
            int dim = rnd.nextInt(rank);
            long[] dims = new long[rank];
            for (int i = 0; i < rank; i++) {
                dims[i] = 1 + rnd.nextInt(3);
            }
            List<TensorView> parts = new ArrayList<>();
            int n = 1 + rnd.nextInt(3);
            for (int k = 0; k < n; k++) {
                long[] d = dims.clone();
                d[dim] = rnd.nextInt(3);
                parts.add(source(rnd, d, LAYOUT_SUFFIXES[rnd.nextInt(LAYOUT_SUFFIXES.length)]));
            }
            TensorView joined = TensorView.concatenated(dim, parts);
            String where = parts + " along " + dim + " (seed " + seed + ")";
            TensorElements.of(joined).forEachIndex(index -> {
                long[] at = index.clone();
                for (TensorView p : parts) {
                    if (at[dim] < p.dimsArray()[dim]) {
                        assertEquals(TensorElements.of(p).getDouble(at), TensorElements.of(joined).getDouble(index), where + " at " + Arrays.toString(index));
                        return;
                    }
                    at[dim] -= p.dimsArray()[dim];
                }
                throw new AssertionError("no part holds " + Arrays.toString(index) + " of " + where);
            });
        }
    }

    @Test
    void remapOfATiledViewEqualsTheGeneralPathAndThrowsItsErrorAtCreation() {
        long seed = TestSeed.of("remapOfATiledViewEqualsTheGeneralPathAndThrowsItsErrorAtCreation");
        Random rnd = new Random(seed);
        for (int c = 0; c < CASES; c++) {
            TensorView v = source(rnd, randomDims(rnd), ":T(2,2)");
            long[] dims = v.dimsArray();
            long[] out = new long[dims.length];
            long[][] coefficients = new long[dims.length][dims.length];
            long[] offsets = new long[dims.length];
            int[] perm = permutation(rnd, dims.length);
            for (int j = 0; j < dims.length; j++) {
                // A permuted, maybe reversed, slice, now and then one past the end.
                int i = perm[j];
                boolean reversed = rnd.nextBoolean();
                out[i] = 1 + rnd.nextInt((int) dims[j]);
                coefficients[j][i] = reversed ? -1 : 1;
                long past = rnd.nextInt(8) == 0 ? 1 : 0;
                offsets[j] = (reversed ? out[i] - 1 : 0) + rnd.nextInt((int) (dims[j] - out[i] + 1)) + past;
            }
            Remap.Affine r = Remap.Affine.of(out, coefficients, offsets);
            String where = v + " through " + r + " (seed " + seed + ")";
            TensorView general;
            try {
                general = v.remap(r.toIndexingMap(), out);
            } catch (IllegalArgumentException e) {
                IllegalArgumentException fast = assertThrows(IllegalArgumentException.class, () -> v.remap(r), where);
                assertEquals(e.getMessage(), fast.getMessage(), where);
                continue;
            }
            TensorView fast = v.remap(r);
            // A tile that covers its dims leaves the map affine: then strides compose, in another term order.
            TensorElements.of(fast).forEachIndex(index -> assertEquals(ElementLocator.locate(general, index, false),
                    ElementLocator.locate(fast, index, false), where));
            assertArrayEquals(TensorElements.of(general).toDoubleArray(), TensorElements.of(fast).toDoubleArray(), where);
        }
    }

    @Test
    void badFillOrPadOfOtherDimsThrowsAtCreation() {
        TensorView v = TensorView.of(arena.allocate(24), "f32[2,3]{1,0}");
        Remap.Pad pad = Remap.Pad.of(new long[] {2, 3}, new long[] {1, 0}, new long[] {0, 1}, new long[] {0, 0});
        IllegalArgumentException wrongType = assertThrows(IllegalArgumentException.class,
                () -> v.padded(pad, TensorView.scalar(DType.S32, 0)));
        assertTrue(wrongType.getMessage().contains("must be a one-buffer rank-0 f32 view"), wrongType.getMessage());
        Remap.Pad other = Remap.Pad.of(new long[] {3, 2}, new long[] {1, 0}, new long[] {0, 1}, new long[] {0, 0});
        IllegalArgumentException wrongDims = assertThrows(IllegalArgumentException.class,
                () -> v.padded(other, TensorView.scalar(DType.F32, 0)));
        assertTrue(wrongDims.getMessage().contains("does not pad f32[2,3]{1,0}"), wrongDims.getMessage());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> Remap.Pad.of(new long[] {2}, new long[] {-2}, new long[] {-1}, new long[] {0}));
        assertEquals("pad of [2]: dim 0 with low -2, high -1, interior 0 gives size -1", negative.getMessage());
        // A crop by 2^63 leaves a size that fits, but no map can shift an output index by it: refused when made,
        // not on the first read (which threw a bare ArithmeticException).
        IllegalArgumentException shift = assertThrows(IllegalArgumentException.class,
                () -> Remap.Pad.of(new long[] {3}, new long[] {Long.MIN_VALUE}, new long[] {Long.MAX_VALUE}, new long[] {0}));
        assertEquals("pad of [3]: dim 0 with low -9223372036854775808, high 9223372036854775807, interior 0: output index 1"
                + " minus low -9223372036854775808 overflows a long", shift.getMessage());
        IllegalArgumentException far = assertThrows(IllegalArgumentException.class,
                () -> Remap.Pad.of(new long[] {3}, new long[] {-Long.MAX_VALUE}, new long[] {Long.MAX_VALUE}, new long[] {0}));
        assertTrue(far.getMessage().endsWith(": output index 2 minus low -9223372036854775807 overflows a long"), far.getMessage());
        // One step short of that reads as padding everywhere, as XLA gives it.
        Remap.Pad justFits = Remap.Pad.of(new long[] {3}, new long[] {-Long.MAX_VALUE + 2}, new long[] {Long.MAX_VALUE - 2},
                new long[] {0});
        assertArrayEquals(new float[] {-1, -1, -1}, TensorElements.of(TensorView.of(arena.allocate(12), "f32[3]{0}")
                .padded(justFits, TensorView.scalar(DType.F32, -1))).toFloatArray());
        IllegalArgumentException mismatch = assertThrows(IllegalArgumentException.class,
                () -> TensorView.concatenated(1, List.of(v, TensorView.of(arena.allocate(24), "f32[3,2]{1,0}"))));
        assertTrue(mismatch.getMessage().contains("concatenate along dimension 1: part 1, f32[3,2]{1,0}, does not match"), mismatch.getMessage());
    }

    private TensorView randomSource(Random rnd) {
        long[] dims = randomDims(rnd);
        if (rnd.nextInt(8) == 0) {
            dims[rnd.nextInt(dims.length)] = 0;
        }
        TensorView v = source(rnd, dims, LAYOUT_SUFFIXES[rnd.nextInt(LAYOUT_SUFFIXES.length)]);
        if (rnd.nextBoolean()) {
            // A transposed source: strided, or a tiled one whose map is composed later.
            int[] perm = permutation(rnd, dims.length);
            long[] out = new long[dims.length];
            int[] reads = new int[dims.length];
            long[] ones = new long[dims.length];
            for (int i = 0; i < dims.length; i++) {
                out[i] = dims[perm[i]];
                reads[perm[i]] = i;
                ones[i] = 1;
            }
            v = v.remap(Remap.Affine.ofTerms(out, reads, ones, new long[dims.length]));
        }
        return v;
    }

    private static long[] randomDims(Random rnd) {
        long[] dims = new long[1 + rnd.nextInt(3)];
        for (int i = 0; i < dims.length; i++) {
            dims[i] = 1 + rnd.nextInt(4);
        }
        return dims;
    }

    private TensorView source(Random rnd, long[] dims, String tile) {
        StringBuilder text = new StringBuilder("f32[");
        for (int i = 0; i < dims.length; i++) {
            text.append(i == 0 ? "" : ",").append(dims[i]);
        }
        text.append("]{");
        int[] m2m = permutation(rnd, dims.length);
        for (int i = 0; i < m2m.length; i++) {
            text.append(i == 0 ? "" : ",").append(m2m[i]);
        }
        ArrayShape shape = (ArrayShape) XlaShape.parse(text.append(tile).append("}").toString());
        TensorView v = TensorView.of(arena.allocate(Math.max(4, shape.arraySize())), shape);
        double[] values = new double[(int) v.elementCount()];
        for (int i = 0; i < values.length; i++) {
            values[i] = rnd.nextInt(1000);
        }
        TensorElements.of(v).copyFrom(values);
        return v;
    }

    private static String randomShape(Random rnd, String tile) {
        int rank = rnd.nextInt(5);
        if (rank == 0) {
            return "f32[]";
        }
        StringBuilder text = new StringBuilder("f32[");
        for (int i = 0; i < rank; i++) {
            text.append(i == 0 ? "" : ",").append(1 + rnd.nextInt(4));
        }
        text.append("]{");
        int[] m2m = permutation(rnd, rank);
        for (int i = 0; i < rank; i++) {
            text.append(i == 0 ? "" : ",").append(m2m[i]);
        }
        return text.append(tile).append("}").toString();
    }

    private static int[] permutation(Random rnd, int n) {
        List<Integer> p = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            p.add(i);
        }
        java.util.Collections.shuffle(p, rnd);
        return p.stream().mapToInt(Integer::intValue).toArray();
    }
}
