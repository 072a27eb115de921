package dev.tensorbuf.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.internal.RemapChains;

/**
 * {@link TensorView#remap(Remap)} (stride arithmetic on strided views) against
 * {@link TensorView#remap(IndexingMap, long...)} (composition), on random chains of random affine
 * remaps and reshapes: same offsets at every index, same form, and the lazily built map equal to the
 * composed one at every point; each step against its own composition, and the whole chain against
 * one composed chain, and the chain in one {@link dev.tensorbuf.views.internal.RemapChains#remap} call against the
 * steps one at a time. Seed printed; {@code -Dtensorbuf.seed=N} replays it.
 */
class AffineRemapTest {
    private static final int CHAINS = 300;

    @Test
    void exampleFromJavadoc() {
        Remap.Affine t = Remap.Affine.of(new long[] {3, 2}, new long[][] {{0, 1}, {1, 0}}, new long[] {0, 0});
        assertEquals("(d0, d1) -> (d1, d0), domain: d0 in [0, 2], d1 in [0, 1]", t.toIndexingMap().toString());
        try (Allocator arena = Allocators.confined()) {
            TensorView v = TensorView.of(arena.allocate(24), "f32[2,3]{1,0}");
            TensorView r = v.remap(t);
            assertEquals("f32[3,2] strides [1, 3]", r.toString());
            assertEquals("(d0, d1) -> (d1 * 3 + d0), domain: d0 in [0, 2], d1 in [0, 1]", r.indexingMap().toString());
            assertEquals("f32[2,3] strides [1, 2]", RemapChains.remap(v, List.of(Remap.Reshape.of(new long[] {2, 3}, new long[] {3, 2}),
                    Remap.Affine.of(new long[] {2, 3}, new long[][] {{0, 1}, {1, 0}}, new long[] {0, 0}))).toString());
        }
    }

    @Test
    void remapOutsideTheViewNamesTheResultAndItsRange() {
        try (Allocator arena = Allocators.confined()) {
            TensorView v = TensorView.of(arena.allocate(24), "f32[2,3]{1,0}");
            Remap.Affine past = Remap.Affine.of(new long[] {3}, new long[][] {{0}, {1}}, new long[] {1, 1});
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> v.remap(past));
            assertTrue(e.getMessage().contains("result 1 of map") && e.getMessage().contains("ranges over [1, 3]"),
                    e.getMessage());
        }
    }

    @Test
    void rowsOfTheWrongLengthAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Remap.Affine.of(new long[] {3, 2}, new long[][] {{1}}, new long[] {0}));
        assertTrue(e.getMessage().contains("coefficient row 0 [1] needs one entry per output dimension [3, 2]"),
                e.getMessage());
    }

    /** Every negative size in views is told alike, whichever factory finds it (Errors.negativeSize). */
    @Test
    void negativeSizesAreNamedAsExtentsNamesThem() {
        IllegalArgumentException affine = assertThrows(IllegalArgumentException.class,
                () -> Remap.Affine.of(new long[] {2, -3}, new long[][] {{1, 0}}, new long[] {0}));
        assertEquals("size -3 of dim 1 is negative in output dims [2, -3]", affine.getMessage());
        IllegalArgumentException reshape = assertThrows(IllegalArgumentException.class,
                () -> Remap.Reshape.of(new long[] {6}, new long[] {-2, 3}));
        assertEquals("size -2 of dim 0 is negative in reshape output [-2, 3]", reshape.getMessage());
        IllegalArgumentException shape = assertThrows(IllegalArgumentException.class,
                () -> new ArrayShape(DType.F32, List.of(2L, -1L), List.of(false, false), Optional.empty()));
        assertEquals("size -1 of dim 1 is negative in f32[2, -1]", shape.getMessage());
    }

    @Test
    void strideArithmeticAgreesWithCompositionOnRandomChains() {
        long seed = TestSeed.of("strideArithmeticAgreesWithCompositionOnRandomChains");
        Random rnd = new Random(seed);
        try (Allocator arena = Allocators.confined()) {
            for (int c = 0; c < CHAINS; c++) {
                int rank = 1 + rnd.nextInt(3);
                long[] dims = new long[rank];
                long count = 1;
                for (int i = 0; i < rank; i++) {
                    dims[i] = 1 + rnd.nextInt(4);
                    count *= dims[i];
                }
                String shape = sourceShape(rnd, dims);
                TensorView fast = TensorView.of(arena.allocate(4 * 16 * count), shape);
                for (long k = 0; k < 16 * count; k++) {
                    fast.buffer().segment().setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, k, k);
                }
                TensorView general = fast;
                TensorView start = fast;
                List<String> steps = new ArrayList<>();
                List<Remap> remaps = new ArrayList<>();
                int n = 1 + rnd.nextInt(5);
                for (int s = 0; s < n && fast.elementCount() > 0; s++) {
                    long[] in = Extents.toArray(fast.dims());
                    int kind = rnd.nextInt(6);
                    Remap r = kind < 2 ? randomReshape(rnd, in) : kind == 2 ? signedPermutation(rnd, in) : randomRemap(rnd, in);
                    steps.add(r.toString());
                    remaps.add(r);
                    String where = "seed " + seed + ", chain " + c + " from " + shape + ": " + steps;
                    TensorView oneStep = fast.remap(r.toIndexingMap(), r.outputDims());
                    fast = fast.remap(r);
                    general = general.remap(r.toIndexingMap(), r.outputDims());
                    assertSameView(oneStep, fast, where, true);
                    assertSameView(general, fast, where + " (whole chain composed)", general.isStrided());
                }
                // The chain in one call is the view the steps made one at a time, strides and whole layout alike.
                TensorView chained = RemapChains.remap(start, remaps);
                String where = "seed " + seed + ", chain " + c + " from " + shape + " in one call: " + steps;
                assertSameView(fast, chained, where, true);
                assertEquals(fast.toString(), chained.toString(), where);
            }
        }
    }

    /**
     * Same offsets everywhere and the lazy map equal to the composed one at every point; the same
     * form when {@code sameForm}. A whole chain composed may leave the simplifier a map it no
     * longer sees as strided (a reshape of a transposed view, then a slice) where stride
     * arithmetic still knows the strides: there the offsets must still agree.
     */
    private static void assertSameView(TensorView general, TensorView fast, String where, boolean sameForm) {
        assertEquals(general.dims(), fast.dims(), where);
        IndexingMap composed = ((ViewMap.Single) general.map()).map();
        IndexingMap lazy = ((ViewMap.Single) fast.map()).map();
        // Whether the view still reads its buffer's whole layout (so a copy into it zeroes the
        // slots it does not reach) is not in the map: stride arithmetic must keep it as composing does.
        assertEquals(((ViewMap.Single) general.map()).wholeLayout(), ((ViewMap.Single) fast.map()).wholeLayout(),
                where + " whole layout");
        assertEquals(((ViewMap.Single) general.map()).layoutBytes(), ((ViewMap.Single) fast.map()).layoutBytes(),
                where + " layout bytes");
        TensorElements.of(fast).forEachIndex(index -> {
            long[] copy = index.clone();
            assertEquals(ElementLocator.locate(general, copy, false), ElementLocator.locate(fast, copy, false),
                    where + " at " + Arrays.toString(copy));
            assertEquals(composed.evaluate(copy)[0], lazy.evaluate(copy)[0], where + " map at " + Arrays.toString(copy));
            assertEquals(TensorElements.of(general).getFloat(copy), TensorElements.of(fast).getFloat(copy), where + " value at " + Arrays.toString(copy));
        });
        if (!sameForm) {
            return;
        }
        assertEquals(general.form().getClass(), fast.form().getClass(), where);
        assertEquals(general.stridedLayout(), fast.stridedLayout(), where);
        assertEquals(general.form().whyNotStrided(), fast.form().whyNotStrided(), where);
        if (general.stridedLayout().isPresent()) {
            // Equal strides and offset (above) and the maps agreeing at every point: the two may still
            // order a sum's terms differently (-2 * d1 - 2 * d0 against -2 * d0 - 2 * d1, seed
            // 33466605904003), which is the same map; the bounds must match as well.
            assertEquals(general.indexingMap().dimBounds(), fast.indexingMap().dimBounds(), where);
            assertEquals(general.indexingMap().constraints(), fast.indexingMap().constraints(), where);
        } else {
            assertEquals(general.indexingMap(), fast.indexingMap(), where);
        }
    }

    /** An XLA layout: descending, a random order, or (one time in four) tiled, which takes the general path. */
    private static String sourceShape(Random rnd, long[] dims) {
        StringBuilder s = new StringBuilder("f32[");
        for (int i = 0; i < dims.length; i++) {
            s.append(i == 0 ? "" : ",").append(dims[i]);
        }
        s.append("]{");
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < dims.length; i++) {
            order.add(i);
        }
        java.util.Collections.shuffle(order, rnd);
        for (int i = 0; i < order.size(); i++) {
            s.append(i == 0 ? "" : ",").append(order.get(i));
        }
        if (dims.length >= 2 && rnd.nextInt(4) == 0) {
            s.append(":T(2,2)");
        }
        return s.append("}").toString();
    }

    /** A reshape to a random factorisation of the element count, size-1 dimensions sprinkled in. */
    private static Remap.Reshape randomReshape(Random rnd, long[] in) {
        long count = 1;
        for (long d : in) {
            count *= d;
        }
        List<Long> out = new ArrayList<>();
        while (count > 1 || out.isEmpty()) {
            long f = 1;
            for (long d = 2; d <= count; d++) {
                if (count % d == 0 && rnd.nextInt(2) == 0) {
                    f = d;
                    break;
                }
            }
            if (f == 1 && rnd.nextInt(3) != 0) {
                f = count;
            }
            out.add(f);
            count /= f;
        }
        return Remap.Reshape.of(in, Extents.toArray(out));
    }

    /** A transpose with some dims reversed: it reads every index once, so a whole layout stays whole. */
    private static Remap.Affine signedPermutation(Random rnd, long[] in) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < in.length; i++) {
            order.add(i);
        }
        java.util.Collections.shuffle(order, rnd);
        long[] out = new long[in.length];
        long[][] coefficients = new long[in.length][in.length];
        long[] offsets = new long[in.length];
        for (int i = 0; i < in.length; i++) {
            int j = order.get(i);
            out[i] = in[j];
            boolean reversed = rnd.nextBoolean();
            coefficients[j][i] = reversed ? -1 : 1;
            offsets[j] = reversed ? in[j] - 1 : 0;
        }
        return Remap.Affine.of(out, coefficients, offsets);
    }

    /**
     * Random output dims (a size 0 now and then), then per input dimension up to two terms with
     * coefficients in [-2, 2] whose reach fits the dimension, the offset chosen to stay inside.
     */
    private static Remap.Affine randomRemap(Random rnd, long[] in) {
        int outRank = 1 + rnd.nextInt(3);
        long[] out = new long[outRank];
        for (int i = 0; i < outRank; i++) {
            out[i] = rnd.nextInt(20) == 0 ? 0 : 1 + rnd.nextInt(4);
        }
        long[][] coefficients = new long[in.length][outRank];
        long[] offsets = new long[in.length];
        for (int j = 0; j < in.length; j++) {
            long lo = 0;
            long hi = 0;
            int terms = rnd.nextInt(3);
            for (int t = 0; t < terms; t++) {
                int i = rnd.nextInt(outRank);
                long c = rnd.nextInt(5) - 2;
                long reach = c * Math.max(out[i] - 1, 0);
                if (hi - lo + Math.abs(reach) < in[j] && coefficients[j][i] == 0) {
                    coefficients[j][i] = c;
                    lo += Math.min(reach, 0);
                    hi += Math.max(reach, 0);
                }
            }
            offsets[j] = -lo + rnd.nextLong(in[j] - (hi - lo));
        }
        return Remap.Affine.of(out, coefficients, offsets);
    }
}
