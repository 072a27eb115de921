package dev.tensorbuf.ops.copy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.internal.ViewAdapter;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Review: copying a padded or concatenated view went element by element (35-40 MB/s; u8[2^28]
 * as two slices joined took 7 s). The engine now cuts both sides' pieces into boxes by their
 * domains and copies box by box, each box planned ({@code PiecePairs}, {@code DomainBoxes}).
 * Every case here is checked byte for byte against the element path
 * ({@link ViewAdapter#copyElements}) into an identical destination, and the engine's explanation
 * of the copy ({@link CopyEngine#explain}) says which path it takes.
 */
class PiecePairsTest {
    private static final double FILL = -7;
    private static final List<DType> DESTINATION_TYPES = List.of(DType.F32, DType.F64, DType.S32, DType.BF16, DType.S8);
    private static final List<String> DESTINATIONS = List.of("packed", "transposed", "stepped", "T(2,2)", "T(8,128)");

    @ArenaPerTest
    private Allocator allocator;

    /** A destination made twice from the same bytes: one for the engine, one for the element path. */
    private record Destination(TensorView view, List<MemoryBuffer> buffers) {
    }

    @Test
    void randomPadsAndConcatenationsCopyAsTheElementPathDoesWithoutIt() {
        Random random = new Random(20250611);
        int cases = 0;
        for (int round = 0; round < 400; round++) {
            int rank = 1 + random.nextInt(3);
            long[] dims = new long[rank];
            for (int d = 0; d < rank; d++) {
                dims[d] = random.nextInt(8) == 0 ? 0 : 1 + random.nextInt(5);
            }
            DType from = random.nextBoolean() ? DType.F32 : DType.S16;
            TensorView src = generate(random, from, dims, 3);
            DType to = random.nextInt(3) == 0 ? from : DESTINATION_TYPES.get(random.nextInt(DESTINATION_TYPES.size()));
            String kind = DESTINATIONS.get(random.nextInt(rank >= 2 ? DESTINATIONS.size() : 3));
            long seed = random.nextLong();
            CopyEngine engine = round % 3 == 0 ? CopyEngine.of(2, true, 0) : CopyEngine.of(1, round % 2 == 0);
            CopyPlan.Explanation e = checkAgainstElementPath(engine, src, () -> destination(kind, to, dims, seed),
                    "round " + round + ": " + src + " into " + kind + " " + to);
            assertEquals(0, elementCopies(e), "round " + round + ": only the reference went element by element, " + e);
            cases++;
        }
        assertEquals(400, cases);
    }

    @Test
    void concatenationsAlongEachDimensionWithEmptyPartsGoPartByPart() {
        for (int dim = 0; dim < 3; dim++) {
            for (int parts = 2; parts <= 4; parts++) {
                long[] dims = {3, 4, 5};
                List<TensorView> in = new ArrayList<>();
                long total = 0;
                for (int k = 0; k < parts; k++) {
                    long[] p = dims.clone();
                    p[dim] = k == 1 ? 0 : k + 1; // part 1 is empty
                    total += p[dim];
                    in.add(leaf(new Random(k), DType.F32, p));
                }
                TensorView joined = Ops.concatenate(dim, in);
                long[] out = dims.clone();
                out[dim] = total;
                for (String kind : DESTINATIONS) {
                    TensorView src = joined;
                    assertTakesNoElementPath(checkAgainstElementPath(CopyEngine.of(1), src,
                            () -> destination(kind, DType.F32, out, 5), src + " into " + kind));
                }
            }
        }
    }

    @Test
    void padsWithNegativeEdgesAndInteriorPaddingGoPartByPart() {
        TensorView source = leaf(new Random(1), DType.F32, new long[] {4, 5});
        long[][][] pads = {
            {{1, 2}, {2, 1}, {0, 0}}, {{-1, 2}, {3, -2}, {0, 0}}, {{0, -3}, {0, -1}, {0, 0}},
            {{2, 1}, {1, 0}, {1, 2}}, {{-2, 1}, {-1, -3}, {2, 1}}, {{-5, 0}, {3, 0}, {0, 0}}, // crops every element of dim 0
        };
        for (long[][] p : pads) {
            TensorView padded = Ops.pad(source, p[0], p[1], p[2], FILL);
            long[] out = Extents.toArray(padded.dims());
            for (String kind : DESTINATIONS) {
                for (DType to : List.of(DType.F32, DType.S32)) {
                    assertTakesNoElementPath(checkAgainstElementPath(CopyEngine.of(1), padded,
                            () -> destination(kind, to, out, 9), padded + " into " + kind + " " + to));
                }
            }
        }
    }

    @Test
    void nestedPadsOfConcatenationsAndOpsOverThemGoPartByPart() {
        Random random = new Random(3);
        TensorView a = leaf(random, DType.F32, new long[] {2, 3});
        TensorView b = leaf(random, DType.F32, new long[] {4, 3});
        TensorView joined = Ops.concatenate(0, List.of(a, b));
        TensorView padOfJoined = Ops.pad(joined, new long[] {1, -1}, new long[] {-2, 2}, new long[] {1, 0}, FILL);
        TensorView joinedPads = Ops.concatenate(1, List.of(padOfJoined, Ops.pad(b, new long[] {4, 0},
                new long[] {Extents.toArray(padOfJoined.dims())[0] - 8, 0}, new long[] {0, 0}, 3.0)));
        List<TensorView> sources = List.of(padOfJoined, joinedPads, Ops.transpose(joinedPads, 1, 0),
                Ops.reverse(joinedPads, 0, 1), Ops.slice(joinedPads, new long[] {1, 1}, new long[] {7, 5}, new long[] {1, 1}),
                Ops.transpose(Ops.slice(Ops.reverse(padOfJoined, 1), new long[] {2, 0}, new long[] {5, 4}, new long[] {1, 1}), 1, 0),
                Ops.reshape(joined, 3, 6));
        for (TensorView src : sources) {
            long[] out = Extents.toArray(src.dims());
            for (String kind : DESTINATIONS) {
                assertTakesNoElementPath(checkAgainstElementPath(CopyEngine.of(1), src,
                        () -> destination(kind, DType.F64, out, 2), src + " into " + kind));
            }
        }
    }

    @Test
    void aConcatenatedDestinationTakesTheMatchingSliceOfTheSourceInEachPart() {
        Random random = new Random(4);
        TensorView plain = leaf(random, DType.F32, new long[] {5, 4});
        TensorView padded = Ops.pad(leaf(random, DType.F32, new long[] {3, 2}), new long[] {1, 1}, new long[] {1, 1},
                new long[] {0, 0}, FILL);
        for (TensorView src : List.of(plain, padded, Ops.transpose(Ops.concatenate(1, List.of(plain, padded)), 1, 0))) {
            long[] out = Extents.toArray(src.dims());
            for (int dim = 0; dim < 2; dim++) {
                int d = dim;
                assertTakesNoElementPath(checkAgainstElementPath(CopyEngine.of(1), src,
                        () -> concatenatedDestination(out, d), src + " into a concatenation along " + d));
                // The destination transposed: the transpose goes onto the source, inverted.
                assertTakesNoElementPath(checkAgainstElementPath(CopyEngine.of(1), Ops.transpose(src, 1, 0), () -> {
                    Destination c = concatenatedDestination(out, d);
                    return new Destination(Ops.transpose(c.view(), 1, 0), c.buffers());
                }, src + " transposed into a transposed concatenation along " + d));
            }
        }
    }

    /**
     * A strided slice and a broadcast of a concatenation went element by element when the engine
     * split views by the op that made them; their maps' domains are boxes all the same: rows 0
     * and 1 of the slice come from one part each, and the broadcast's part boundary is on dim 1.
     */
    @Test
    void aStridedSliceAndABroadcastOfAConcatenationGoBoxByBox() {
        Random random = new Random(5);
        TensorView joined = Ops.concatenate(0, List.of(leaf(random, DType.F32, new long[] {2, 3}),
                leaf(random, DType.F32, new long[] {2, 3})));
        TensorView slice = Ops.slice(joined, new long[] {0, 0}, new long[] {4, 3}, new long[] {2, 1});
        TensorView broadcast = Ops.broadcast(joined, new long[] {2, 4, 3}, 1, 2);
        List<String> boxes = List.of("[[0:1, 0:3], [1:2, 0:3]]", "[[0:2, 0:2, 0:3], [0:2, 2:4, 0:3]]");
        List<TensorView> sources = List.of(slice, broadcast);
        for (int k = 0; k < 2; k++) {
            TensorView src = sources.get(k);
            long[] out = Extents.toArray(src.dims());
            CopyPlan.Explanation e = checkAgainstElementPath(CopyEngine.of(1), src,
                    () -> destination("packed", DType.F32, out, 1), src.toString());
            assertTakesNoElementPath(e);
            assertEquals(boxes.get(k), e.pieces().stream().map(CopyPlan.Explanation.Piece::box).toList().toString(),
                    e.toString());
            assertEquals(List.of(0, 1), e.pieces().stream().map(CopyPlan.Explanation.Piece::sourcePiece).toList());
        }
        // A padded destination is refused, as before: its fill may not be written.
        TensorView padded = Ops.pad(leaf(random, DType.F32, new long[] {2}), new long[] {1}, new long[] {1}, new long[] {0}, 0.0);
        var e = assertThrows(IllegalArgumentException.class,
                () -> CopyEngine.of(1).copy(leaf(random, DType.F32, new long[] {4}), padded));
        assertTrue(e.getMessage().contains("fill"), e.getMessage());
    }

    /**
     * A slice of a reshape of a pad (RunXlaAgreementTest's module: dynamic-slice of a reshape of an
     * interior pad): splitting by ops moved the slice to the other side without progress and split
     * without end (a StackOverflowError), and then went element by element. Its pieces' domains
     * cut into boxes by their constraints, and each box is planned.
     */
    @Test
    void aSliceOfAReshapeOfAPadGoesBoxByBox() {
        Random random = new Random(7);
        TensorView broadcast = Ops.broadcast(leaf(random, DType.F16, new long[] {1}), new long[] {3, 1}, 1);
        TensorView padded = Ops.pad(broadcast, new long[] {1, -1}, new long[] {1, 2}, new long[] {1, 1}, 37.25);
        TensorView src = Ops.dynamicSlice(Ops.reshape(padded, 14), new long[] {3}, new long[] {7});
        CopyPlan.Explanation e = checkAgainstElementPath(CopyEngine.of(1), src,
                () -> destination("packed", DType.F16, new long[] {7}, 1), src.toString());
        assertTakesNoElementPath(e);
        assertTrue(!e.pieces().isEmpty(), e.toString());
    }

    /**
     * A strided slice of a concatenation into a reshape of a concatenation: moving ops from side
     * to side gave the same copy again, which a nesting bound ended on the element path. Pairing
     * by domain: the destination's staircase ([0, 3) of row 0 from one buffer, the rest of it and
     * row 1 from the other) meets the source's rows in four boxes.
     */
    @Test
    void aStridedSliceOfAConcatenationIntoAReshapeOfOneGoesBoxByBox() {
        Random random = new Random(8);
        TensorView joined = Ops.concatenate(0, List.of(leaf(random, DType.F32, new long[] {2, 3}),
                leaf(random, DType.F32, new long[] {2, 3})));
        TensorView src = Ops.slice(joined, new long[] {0, 0}, new long[] {4, 3}, new long[] {2, 1});
        MemoryBuffer a = allocator.allocate(12);
        MemoryBuffer b = allocator.allocate(12);
        TensorView dst = Ops.reshape(Ops.concatenate(0, List.of(
                TensorView.strided(a, DType.F32, StridedLayout.packed(3)),
                TensorView.strided(b, DType.F32, StridedLayout.packed(3)))), 2, 3);
        CopyPlan.Explanation e = CopyEngine.of(1).explain(src, dst);
        assertTakesNoElementPath(e);
        assertEquals("[[0:1, 0:3], [1:2, 0:3]]", e.pieces().stream().map(CopyPlan.Explanation.Piece::box).toList()
                .toString(), e.toString());
        assertEquals(List.of(0, 1), e.pieces().stream().map(CopyPlan.Explanation.Piece::destinationPiece).toList());
        CopyEngine.of(1).copy(src, dst);
        for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 3; j++) {
                assertEquals(TensorElements.of(src).getFloat(i, j), TensorElements.of(dst).getFloat(i, j), "[" + i + ", " + j + "]");
            }
        }
    }

    @Test
    void aRefusedValueIsNamedAtItsIndexInTheWholeSourceAsTheElementPathNamesIt() {
        // Concatenated along dim 1: part 0 holds 300 at row 1, part 1 holds 400 at row 0. The
        // parts are copied in order, so the copy meets 300 first; 400 comes first in logical order.
        TensorView first = f32(new long[] {2, 2}, 0, 1, 2, 300);
        TensorView second = f32(new long[] {2, 3}, 5, 400, 6, 7, 8, 9);
        TensorView joined = Ops.concatenate(1, List.of(first, second));
        TensorView u8 = TensorView.of(allocator.allocate(10), "u8[2,5]{1,0}");
        CopyPlan.Explanation plan = CopyEngine.of(1).explain(joined, u8);
        assertEquals(CopyPlan.Explanation.Route.PIECES, plan.route(), plan.toString());
        assertEquals(0, elementCopies(plan), "the parts are copied planned: " + plan);
        var e = assertThrows(IllegalArgumentException.class, () -> CopyEngine.of(1).copy(joined, u8));
        assertEquals("value 400.0 at index [0, 3] of " + joined + " out of range [0, 255] for u8", e.getMessage());
        assertEquals(elementPathMessage(joined, DType.U8), e.getMessage(), "the element path's words");

        // A pad whose fill the destination cannot hold: the first padding index in logical order.
        TensorView padded = Ops.pad(f32(new long[] {2}, 1, 2), new long[] {0}, new long[] {2}, new long[] {1}, -1.0);
        e = assertThrows(IllegalArgumentException.class,
                () -> CopyEngine.of(1).copy(padded, TensorView.of(allocator.allocate(5), "u8[5]{0}")));
        assertEquals("value -1.0 at index [1] of " + padded + " out of range [0, 255] for u8", e.getMessage());
        assertEquals(elementPathMessage(padded, DType.U8), e.getMessage());
    }

    /** {@return the message the element path gives for {@code src} into a {@code to} destination} */
    private String elementPathMessage(TensorView src, DType to) {
        long[] dims = Extents.toArray(src.dims());
        TensorView dst = TensorView.strided(allocator.allocate(Math.max(1, src.elementCount() * to.byteWidth())), to,
                StridedLayout.packed(dims));
        var e = assertThrows(IllegalArgumentException.class, () -> ViewAdapter.copyElements(src, dst));
        return CopyFailures.namingTheRefusedElement(e, src, dst).getMessage();
    }

    private static void assertTakesNoElementPath(CopyPlan.Explanation e) {
        assertEquals(0, elementCopies(e), "only the reference went element by element: " + e);
        assertTrue(e.route() == CopyPlan.Explanation.Route.PIECES || e.route() == CopyPlan.Explanation.Route.PLANNED,
                e.toString());
    }

    /** {@return the copies in {@code e} that go element by element and have elements to copy} */
    static long elementCopies(CopyPlan.Explanation e) {
        long n = e.route() == CopyPlan.Explanation.Route.ELEMENTS && e.elements() > 0 ? 1 : 0;
        for (CopyPlan.Explanation p : e.parts()) {
            n += elementCopies(p);
        }
        return n;
    }

    /**
     * Copies with the engine and with the element path into two identical destinations; their
     * bytes must agree. {@return the engine's explanation of its copy, made before it ran}
     */
    private static CopyPlan.Explanation checkAgainstElementPath(CopyEngine engine, TensorView src,
                                                                Supplier<Destination> make, String what) {
        Destination planned = make.get();
        Destination reference = make.get();
        CopyPlan.Explanation explained = engine.explain(src, planned.view());
        engine.copy(src, planned.view());
        ViewAdapter.copyElements(src, reference.view());
        for (int b = 0; b < planned.buffers().size(); b++) {
            MemorySegment got = planned.buffers().get(b).segment();
            MemorySegment want = reference.buffers().get(b).segment();
            long mismatch = got.mismatch(want);
            if (mismatch >= 0) {
                assertArrayEquals(want.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                        got.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), what + ": buffer " + b + " byte " + mismatch);
            }
        }
        return explained;
    }

    private Destination destination(String kind, DType dtype, long[] dims, long seed) {
        int rank = dims.length;
        return switch (kind) {
            case "packed" -> {
                MemoryBuffer b = garbage(bytes(dims, dtype), seed);
                yield new Destination(TensorView.strided(b, dtype, StridedLayout.packed(dims)), List.of(b));
            }
            case "transposed" -> {
                long[] reversed = new long[rank];
                int[] perm = new int[rank];
                for (int d = 0; d < rank; d++) {
                    reversed[d] = dims[rank - 1 - d];
                    perm[d] = rank - 1 - d;
                }
                MemoryBuffer b = garbage(bytes(dims, dtype), seed);
                yield new Destination(Ops.transpose(TensorView.strided(b, dtype, StridedLayout.packed(reversed)), perm), List.of(b));
            }
            case "stepped" -> {
                long[] wide = dims.clone();
                wide[rank - 1] *= 2;
                long[] stride = new long[rank];
                Arrays.fill(stride, 1);
                stride[rank - 1] = 2;
                MemoryBuffer b = garbage(bytes(wide, dtype), seed);
                yield new Destination(Ops.slice(TensorView.strided(b, dtype, StridedLayout.packed(wide)), new long[rank],
                        wide, stride), List.of(b));
            }
            default -> {
                StringBuilder text = new StringBuilder(dtype.xlaName()).append(Arrays.toString(dims).replace(" ", "")).append("{");
                for (int d = rank - 1; d >= 0; d--) {
                    text.append(d).append(d > 0 ? "," : "");
                }
                ArrayShape shape = ArrayShape.parse(text.append(":").append(kind).append("}").toString());
                MemoryBuffer b = garbage(Math.max(1, Math.max(shape.physicalByteSize(), shape.arraySize())), seed);
                yield new Destination(TensorView.of(b, shape), List.of(b));
            }
        };
    }

    /** Two buffers, joined along {@code dim} at a third of its size. */
    private Destination concatenatedDestination(long[] dims, int dim) {
        long[] first = dims.clone();
        first[dim] = dims[dim] / 3;
        long[] second = dims.clone();
        second[dim] = dims[dim] - first[dim];
        MemoryBuffer a = garbage(bytes(first, DType.F32), 7);
        MemoryBuffer b = garbage(bytes(second, DType.F32), 8);
        return new Destination(Ops.concatenate(dim, List.of(TensorView.strided(a, DType.F32, StridedLayout.packed(first)),
                TensorView.strided(b, DType.F32, StridedLayout.packed(second)))), List.of(a, b));
    }

    private static long bytes(long[] dims, DType dtype) {
        return Math.max(1, Extents.elementCount("dims", dims) * dtype.byteWidth());
    }

    private MemoryBuffer garbage(long bytes, long seed) {
        MemoryBuffer b = allocator.allocate(bytes);
        Random random = new Random(seed);
        for (long i = 0; i < bytes; i++) {
            b.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
        }
        return b;
    }

    private TensorView f32(long[] dims, float... values) {
        TensorView v = TensorView.strided(allocator.allocate(4L * values.length), DType.F32, StridedLayout.packed(dims));
        TensorElements.of(v).copyFrom(values);
        return v;
    }

    /** A view of {@code dims} over one buffer of small integers: packed, transposed, or tiled. */
    private TensorView leaf(Random random, DType dtype, long[] dims) {
        int rank = dims.length;
        TensorView v;
        int how = random.nextInt(3);
        if (how == 2 && rank >= 2) {
            StringBuilder text = new StringBuilder(dtype.xlaName()).append(Arrays.toString(dims).replace(" ", "")).append("{");
            for (int d = 0; d < rank; d++) {
                text.append(d).append(d < rank - 1 ? "," : ""); // column-major, tiled
            }
            ArrayShape shape = ArrayShape.parse(text.append(":T(2,2)}").toString());
            v = TensorView.of(allocator.allocate(Math.max(1, Math.max(shape.physicalByteSize(), shape.arraySize()))), shape);
        } else if (how == 1 && rank >= 2) {
            long[] reversed = new long[rank];
            int[] perm = new int[rank];
            for (int d = 0; d < rank; d++) {
                reversed[d] = dims[rank - 1 - d];
                perm[d] = rank - 1 - d;
            }
            v = Ops.transpose(TensorView.strided(allocator.allocate(bytes(dims, dtype)), dtype, StridedLayout.packed(reversed)), perm);
        } else {
            v = TensorView.strided(allocator.allocate(bytes(dims, dtype)), dtype, StridedLayout.packed(dims));
        }
        long[] values = new long[(int) v.elementCount()];
        for (int i = 0; i < values.length; i++) {
            values[i] = random.nextInt(101) - 50;
        }
        TensorElements.of(v).forEachIndex(new java.util.function.Consumer<>() {
            int k;

            @Override
            public void accept(long[] index) {
                TensorElements.of(v).setDouble(values[k++], index);
            }
        });
        return v;
    }

    /** A view of {@code dims}: a leaf, or a concatenation, pad, transpose, reverse or slice of views made so. */
    private TensorView generate(Random random, DType dtype, long[] dims, int depth) {
        int rank = dims.length;
        int op = depth == 0 ? 0 : random.nextInt(6);
        switch (op) {
            case 1 -> {
                int dim = random.nextInt(rank);
                int parts = 2 + random.nextInt(3);
                List<TensorView> in = new ArrayList<>();
                long left = dims[dim];
                for (int k = 0; k < parts; k++) {
                    long[] p = dims.clone();
                    p[dim] = k == parts - 1 ? left : random.nextInt((int) left + 1);
                    left -= p[dim];
                    in.add(generate(random, dtype, p, depth - 1));
                }
                return Ops.concatenate(dim, in);
            }
            case 2, 3 -> {
                long[] low = new long[rank];
                long[] high = new long[rank];
                long[] interior = new long[rank];
                long[] n = new long[rank];
                for (int d = 0; d < rank; d++) {
                    for (int attempt = 0; ; attempt++) {
                        low[d] = attempt < 20 ? random.nextInt(6) - 2 : 0;
                        high[d] = attempt < 20 ? random.nextInt(6) - 2 : 0;
                        interior[d] = attempt < 20 ? random.nextInt(3) : 0;
                        // out = low + high + n + (n - 1) * interior
                        long rest = dims[d] - low[d] - high[d] + interior[d];
                        if (rest >= 0 && rest % (interior[d] + 1) == 0) {
                            n[d] = rest / (interior[d] + 1);
                            if (n[d] > 0 || dims[d] == low[d] + high[d]) {
                                break;
                            }
                        }
                    }
                }
                return Ops.pad(generate(random, dtype, n, depth - 1), low, high, interior, FILL);
            }
            case 4 -> {
                int[] perm = new int[rank];
                for (int d = 0; d < rank; d++) {
                    perm[d] = d;
                }
                for (int d = rank - 1; d > 0; d--) {
                    int j = random.nextInt(d + 1);
                    int t = perm[d];
                    perm[d] = perm[j];
                    perm[j] = t;
                }
                long[] in = new long[rank];
                for (int d = 0; d < rank; d++) {
                    in[perm[d]] = dims[d];
                }
                TensorView t = Ops.transpose(generate(random, dtype, in, depth - 1), perm);
                return random.nextBoolean() ? t : Ops.reverse(t, random.nextInt(rank));
            }
            case 5 -> {
                long[] in = new long[rank];
                long[] start = new long[rank];
                long[] limit = new long[rank];
                long[] ones = new long[rank];
                for (int d = 0; d < rank; d++) {
                    start[d] = random.nextInt(3);
                    in[d] = dims[d] + start[d] + random.nextInt(3);
                    limit[d] = start[d] + dims[d];
                    ones[d] = 1;
                }
                return Ops.slice(generate(random, dtype, in, depth - 1), start, limit, ones);
            }
            default -> {
                return leaf(random, dtype, dims);
            }
        }
    }
}
