package dev.tensorbuf.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Variable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import dev.tensorbuf.views.internal.Extents;

/**
 * The tiled layout of a {@link MapForm.Tiled} comes from the map alone: a random XLA tiled shape,
 * a transpose of it and a slice of it recover a layout whose map is the original map at every
 * index (brute force), and the shape itself and its transpose recover whole layouts, the
 * transpose's being the shape permuted as XLA's transposes that are bitcasts.
 */
class TiledRecoveryTest {
    private static final String[] TILES = {"T(8,128)", "T(8,128)(2,1)", "T(2,128)(4,1)", "T(4)(2,1)", "T(2,2)",
        "T(8,128)(4,1)", "T(4,4)(2,1)"};
    private static final DType[] TYPES = {DType.BF16, DType.S8, DType.F32, DType.U8};

    @Test
    void theFigure1LayoutAndItsTransposeAreRecoveredFromTheirMaps() {
        ArrayShape shape = ArrayShape.parse("f32[3,5]{1,0:T(2,2)}");
        MapForm.Tiled form = assertInstanceOf(MapForm.Tiled.class, MapForm.of(shape.toIndexingMap()));
        assertEquals(Optional.of(shape), form.xlaShape(DType.F32));
        MapForm.Tiled t = assertInstanceOf(MapForm.Tiled.class, MapForm.of(transposed(shape, new int[] {1, 0})));
        assertEquals("f32[5,3]{0,1:T(2,2)}", t.xlaShape(DType.F32).orElseThrow().toString());
        // Rows 1-2 and columns 1-4: the same layout, read from its corner (1, 1).
        MapForm.Tiled s = assertInstanceOf(MapForm.Tiled.class, MapForm.of(sliced(shape, new long[] {1, 1}, new long[] {2, 4})));
        MapForm.Tiled.Layout layout = s.layout().orElseThrow();
        assertEquals(List.of(3L, 5L), layout.dims());
        assertEquals(List.of(1L, 1L), layout.start());
        assertEquals(Optional.empty(), s.xlaShape(DType.F32), "a slice is no whole layout");
    }

    @Test
    void theIssueExampleIsItsOwnLayoutAndItsTransposeThePermutedOne() {
        ArrayShape shape = ArrayShape.parse("bf16[32,64,112,112]{1,3,2,0:T(8,128)(2,1)}");
        MapForm.Tiled form = assertInstanceOf(MapForm.Tiled.class, MapForm.of(shape.toIndexingMap()));
        assertEquals(Optional.of(shape), form.xlaShape(DType.BF16));
        int[] perm = {3, 1, 2, 0};
        MapForm.Tiled t = assertInstanceOf(MapForm.Tiled.class, MapForm.of(transposed(shape, perm)));
        assertEquals(Optional.of(permuted(shape, perm)), t.xlaShape(DType.BF16));
    }

    @Test
    void aGeneralMapHasNoLayout() {
        // A reshape of a transpose: the merged index's digits read two dimensions at once.
        MapForm f = MapForm.of(IndexingMap.parse(
                "(d0, d1) -> (((d0 * 4 + d1) mod 6) * 5 + (d0 * 4 + d1) / 6), domain: d0 in [0, 5], d1 in [0, 3]"));
        assertEquals(Optional.empty(), assertInstanceOf(MapForm.Tiled.class, f).layout());
    }

    @Test
    void randomTiledShapesTheirTransposesAndSlicesRecoverTheirOwnMaps() {
        Random rnd = new Random(36);
        int whole = 0;
        int slices = 0;
        int slicesRecovered = 0;
        for (int trial = 0; trial < 150; trial++) {
            ArrayShape shape = randomShape(rnd);
            IndexingMap map = shape.toIndexingMap();
            MapForm form = MapForm.of(map);
            if (!(form instanceof MapForm.Tiled tiled)) {
                continue; // the tiles fell on dimensions that fit one tile: strides
            }
            whole++;
            String what = shape.toString();
            assertTrue(tiled.xlaShape(shape.dtype()).isPresent(), what + ": a whole layout");
            checkLayout(tiled, map, what);
            int[] perm = permutation(rnd, shape.rank());
            IndexingMap t = transposed(shape, perm);
            MapForm.Tiled tf = assertInstanceOf(MapForm.Tiled.class, MapForm.of(t), what + " transposed");
            assertTrue(tf.xlaShape(shape.dtype()).isPresent(), what + " transposed " + Arrays.toString(perm) + ": whole");
            checkLayout(tf, t, what + " transposed " + Arrays.toString(perm));
            long[] start = new long[shape.rank()];
            long[] sizes = new long[shape.rank()];
            for (int i = 0; i < start.length; i++) {
                start[i] = rnd.nextLong(shape.dim(i));
                sizes[i] = 1 + rnd.nextLong(shape.dim(i) - start[i]);
            }
            IndexingMap s = sliced(shape, start, sizes);
            if (MapForm.of(s) instanceof MapForm.Tiled sf) {
                slices++;
                if (sf.layout().isPresent()) {
                    slicesRecovered++;
                    checkLayout(sf, s, what + " sliced from " + Arrays.toString(start) + " by " + Arrays.toString(sizes));
                }
            }
        }
        assertTrue(whole >= 100, "tiled shapes tried: " + whole);
        assertTrue(slicesRecovered * 2 >= slices, slicesRecovered + " of " + slices + " tiled slices recovered");
    }

    /** The recovered layout's map is {@code map} at every index, and re-derived it simplifies to the same text. */
    private static void checkLayout(MapForm.Tiled form, IndexingMap map, String what) {
        MapForm.Tiled.Layout layout = form.layout().orElseThrow(() -> new AssertionError(what + ": no layout recovered"));
        ArrayShape shape = layout.shape(DType.U8);
        long[] sizes = map.dims().stream().mapToLong(v -> v.bounds().hi() + 1).toArray();
        for (int i = 0; i < sizes.length; i++) {
            // Bitcast reads a layout whose dims are the view's as starting at 0: this is why.
            assertTrue(layout.start().get(i) + sizes[i] <= layout.dims().get(i),
                    () -> what + ": " + layout + " does not cover its start plus the map's sizes");
        }
        long[] index = new long[sizes.length];
        long count = Extents.elementCount("", Arrays.stream(sizes).boxed().toList());
        for (long k = 0; k < count; k++) {
            long rest = k;
            long[] at = new long[sizes.length];
            for (int i = sizes.length - 1; i >= 0; i--) {
                index[i] = rest % sizes[i];
                rest /= sizes[i];
                at[i] = index[i] + layout.start().get(i);
            }
            long expected = map.evaluate(index)[0];
            assertEquals(expected, layout.offset() + shape.linearIndex(at),
                    () -> what + ": " + layout + " at " + Arrays.toString(index));
        }
        assertEquals(form.map(), layout.toIndexingMap(sizes).simplify(), what + ": the re-derived map");
    }

    private static ArrayShape randomShape(Random rnd) {
        String tiles = TILES[rnd.nextInt(TILES.length)];
        DType type = TYPES[rnd.nextInt(TYPES.length)];
        int rank = (tiles.startsWith("T(4)") ? 1 : 2) + rnd.nextInt(tiles.startsWith("T(4)") ? 4 : 3);
        long[] dims = new long[rank];
        long budget = 40_000;
        int[] m2m = permutation(rnd, rank);
        for (int j = 0; j < rank; j++) {
            int d = m2m[j];
            // The two most minor dimensions get sizes around their tiles, odd ones among them.
            long max = j == 0 ? (tiles.contains("128") ? 300 : 40) : j == 1 ? 20 : 4;
            dims[d] = 1 + rnd.nextLong(Math.max(1, Math.min(max, budget)));
            budget /= dims[d];
        }
        StringBuilder text = new StringBuilder(type.toString().toLowerCase()).append('[');
        for (int i = 0; i < rank; i++) {
            text.append(i > 0 ? "," : "").append(dims[i]);
        }
        text.append("]{");
        for (int j = 0; j < rank; j++) {
            text.append(j > 0 ? "," : "").append(m2m[j]);
        }
        return ArrayShape.parse(text.append(':').append(tiles).append('}').toString());
    }

    private static int[] permutation(Random rnd, int n) {
        List<Integer> p = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            p.add(i);
        }
        java.util.Collections.shuffle(p, rnd);
        return p.stream().mapToInt(Integer::intValue).toArray();
    }

    /** {@return the shape's map read through a transpose: output dim {@code i} is input dim {@code perm[i]}} */
    private static IndexingMap transposed(ArrayShape shape, int[] perm) {
        List<Variable> dims = new ArrayList<>();
        AffineExpr[] results = new AffineExpr[perm.length];
        for (int i = 0; i < perm.length; i++) {
            dims.add(Variable.of(0, shape.dim(perm[i]) - 1));
            results[perm[i]] = AffineExpr.dim(i);
        }
        return IndexingMap.compose(shape.toIndexingMap(), IndexingMap.of(dims, List.of(), List.of(results)));
    }

    /** {@return the shape permuted as {@link #transposed} reads it: XLA's transpose that is a bitcast} */
    private static ArrayShape permuted(ArrayShape shape, int[] perm) {
        int[] outputOf = new int[perm.length];
        long[] dims = new long[perm.length];
        for (int i = 0; i < perm.length; i++) {
            outputOf[perm[i]] = i;
            dims[i] = shape.dim(perm[i]);
        }
        int[] m2m = shape.requireLayout().minorToMajor().stream().mapToInt(d -> outputOf[d]).toArray();
        return ArrayShape.of(shape.dtype(), dims).withLayout(XlaLayout.of(m2m).withTiles(shape.requireLayout().tiles()));
    }

    private static IndexingMap sliced(ArrayShape shape, long[] start, long[] sizes) {
        List<Variable> dims = new ArrayList<>();
        List<AffineExpr> results = new ArrayList<>();
        for (int i = 0; i < start.length; i++) {
            dims.add(Variable.of(0, sizes[i] - 1));
            results.add(AffineExpr.dim(i).plus(start[i]));
        }
        return IndexingMap.compose(shape.toIndexingMap(), IndexingMap.of(dims, List.of(), results));
    }
}
