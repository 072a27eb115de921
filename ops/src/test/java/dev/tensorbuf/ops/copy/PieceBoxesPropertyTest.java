package dev.tensorbuf.ops.copy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Random compositions of concatenate, pad, strided slice, reverse, transpose, broadcast and
 * reshape over small buffers (u8, f32, bf16, packed s4), copied by the engine into destinations
 * of several kinds (packed, transposed, stepped, tiled, concatenated, a padded view written only
 * in its data), against a brute-force reference: every element read through the source view's
 * element access and written into an identical destination index by index. Values are 0-7, exact
 * in every type here, so the reference needs no conversion rules. Every copy is planned box by
 * box: no step of its explanation goes element by element.
 */
class PieceBoxesPropertyTest {
    private static final List<DType> TYPES = List.of(DType.U8, DType.F32, DType.BF16, DType.S4);
    private static final List<String> DESTINATIONS = List.of("packed", "transposed", "stepped", "T(2,2)", "joined",
            "padded data");

    @ArenaPerTest
    private Allocator allocator;

    /** A destination with the buffers it writes. */
    private record Destination(TensorView view, List<MemoryBuffer> buffers, boolean tiled) {
    }

    @Test
    void randomCompositionsCopyAsTheElementReferenceDoesAndArePlannedBoxByBox() {
        Random random = new Random(20261202);
        int planned = 0;
        for (int round = 0; round < 300; round++) {
            int rank = 1 + random.nextInt(3);
            long[] dims = new long[rank];
            for (int d = 0; d < rank; d++) {
                dims[d] = 1 + random.nextInt(4);
            }
            DType from = TYPES.get(random.nextInt(TYPES.size()));
            TensorView src = generate(random, from, dims, 3);
            DType to = TYPES.get(random.nextInt(TYPES.size()));
            String kind = DESTINATIONS.get(random.nextInt(DESTINATIONS.size()));
            if (kind.equals("T(2,2)") && (rank < 2 || to == DType.S4)) {
                kind = "packed";
            }
            String k = kind;
            long seed = random.nextLong();
            CopyEngine engine = round % 3 == 0 ? CopyEngine.of(2, true, 0) : CopyEngine.of(1, round % 2 == 0);
            CopyPlan.Explanation e = check(engine, src, () -> destination(k, to, dims, seed),
                    "round " + round + ": " + src + " into " + kind + " " + to);
            assertEquals(0, elementCopies(e), "round " + round + ": " + e);
            // Packed s4 pieces are unpacked where they reach first (STAGED), then copied in pieces.
            planned += e.route() == CopyPlan.Explanation.Route.PIECES || e.route() == CopyPlan.Explanation.Route.STAGED
                    && !e.parts().isEmpty() && e.parts().getFirst().route() == CopyPlan.Explanation.Route.PIECES ? 1 : 0;
        }
        assertTrue(planned > 150, "most rounds have several pieces on a side: " + planned);
    }

    /** The cases the issue names, each once, by hand. */
    @Test
    void theCasesThatWentElementByElementArePlanned() {
        Random random = new Random(7);
        TensorView a = leaf(random, DType.F32, new long[] {2, 3});
        TensorView b = leaf(random, DType.F32, new long[] {2, 3});
        TensorView joined = Ops.concatenate(0, List.of(a, b));
        TensorView s4 = leaf(random, DType.S4, new long[] {3, 4});
        List<TensorView> sources = List.of(
                Ops.broadcast(joined, new long[] {2, 4, 3}, 1, 2),
                Ops.slice(joined, new long[] {1, 0}, new long[] {4, 3}, new long[] {2, 2}),
                Ops.reverse(Ops.transpose(joined, 1, 0), 0, 1),
                Ops.reshape(joined, 3, 4),
                Ops.reshape(joined, 12),
                Ops.pad(s4, new long[] {1, -1}, new long[] {0, 2}, new long[] {1, 1}, 5L),
                Ops.concatenate(1, List.of(Ops.pad(a, new long[] {0, 1}, new long[] {0, 0}, new long[] {0, 0}, 3.0),
                        Ops.pad(b, new long[] {0, 0}, new long[] {0, 2}, new long[] {0, 1}, 4.0))),
                Ops.pad(joined, new long[] {2, -1}, new long[] {1, 1}, new long[] {1, 2}, 6.0));
        for (TensorView src : sources) {
            long[] dims = Extents.toArray(src.dims());
            for (String kind : DESTINATIONS) {
                DType to = kind.equals("T(2,2)") && dims.length < 2 ? null : DType.F32;
                if (to == null) {
                    continue;
                }
                CopyPlan.Explanation e = check(CopyEngine.of(1), src, () -> destination(kind, to, dims, 3),
                        src + " into " + kind);
                assertEquals(0, elementCopies(e), e.toString());
                // A pad of packed s4 is unpacked where it reaches first (STAGED), then copied in pieces.
                CopyPlan.Explanation pieces = e.route() == CopyPlan.Explanation.Route.STAGED ? e.parts().getFirst() : e;
                assertEquals(CopyPlan.Explanation.Route.PIECES, pieces.route(), e.toString());
            }
        }
    }

    /**
     * A concatenation of the even and odd elements of one buffer: the destination's pieces share a
     * buffer, and their byte ranges overlap, but each index has a slot of its own (checked slot by
     * slot), so the copy is planned box by box. The same pieces twice are refused in the element
     * path's words, before anything is written.
     */
    @Test
    void destinationPiecesOverOneBufferArePlannedWhenTheirSlotsDiffer() {
        TensorView flat = TensorView.strided(allocator.allocate(32), DType.F32, StridedLayout.packed(8));
        TensorView interleaved = Ops.concatenate(0, List.of(
                Ops.slice(flat, new long[] {0}, new long[] {8}, new long[] {2}),
                Ops.slice(flat, new long[] {1}, new long[] {8}, new long[] {2})));
        TensorView src = leaf(new Random(1), DType.F32, new long[] {8});
        CopyPlan.Explanation e = CopyEngine.of(1).explain(src, interleaved);
        assertEquals(0, elementCopies(e), e.toString());
        CopyEngine.of(1).copy(src, interleaved);
        for (int i = 0; i < 8; i++) {
            assertEquals(TensorElements.of(src).getFloat(i), TensorElements.of(interleaved).getFloat(i), "index " + i);
        }
        TensorView row = TensorView.strided(allocator.allocate(16), DType.F32, StridedLayout.packed(4));
        var refused = assertThrows(IllegalArgumentException.class,
                () -> CopyEngine.of(1).copy(src, Ops.concatenate(0, List.of(row, row))));
        assertTrue(refused.getMessage().contains("writes index [0] and index [4] to one slot"), refused.getMessage());
        assertArrayEquals(new float[4], TensorElements.of(row).toFloatArray(), "refused before anything is written");
    }

    /** A destination index on a pad's fill is refused at the first such index, as the element path refuses it. */
    @Test
    void aWriteIntoAPadsFillIsRefusedInTheElementPathsWords() {
        TensorView base = TensorView.strided(allocator.allocate(24), DType.F32, StridedLayout.packed(2, 3));
        TensorView padded = Ops.pad(base, new long[] {0, 1}, new long[] {1, 0}, new long[] {0, 0}, 0.0);
        TensorView src = leaf(new Random(2), DType.F32, new long[] {3, 4});
        var e = assertThrows(IllegalArgumentException.class, () -> CopyEngine.of(1).copy(src, padded));
        assertEquals("index [0, 0] of " + padded + " is padding: it reads the fill value and cannot be written",
                e.getMessage());
        assertArrayEquals(new float[6], TensorElements.of(base).toFloatArray(), "nothing written");
    }

    /** Rank 0: one box with no dimensions, held by the fill of a pad that crops its only element, or by a part. */
    @Test
    void scalarsOfPiecesAreOneBoxOfThePieceThatHoldsThem() {
        TensorView x = TensorView.strided(allocator.allocate(8), DType.F32, StridedLayout.packed(2));
        TensorElements.of(x).copyFrom(new float[] {4, 5});
        TensorView cropped = Ops.reshape(Ops.pad(x, new long[] {-2}, new long[] {1}, new long[] {0}, -3.0));
        TensorView second = Ops.reshape(Ops.slice(Ops.concatenate(0, List.of(x, x)), new long[] {3}, new long[] {4},
                new long[] {1}));
        List<Integer> pieces = List.of(1, 1);
        List<Float> values = List.of(-3f, 5f);
        List<TensorView> sources = List.of(cropped, second);
        for (int k = 0; k < 2; k++) {
            TensorView dst = TensorView.strided(allocator.allocate(4), DType.F32, StridedLayout.packed());
            CopyPlan.Explanation e = CopyEngine.of(1).explain(sources.get(k), dst);
            assertEquals(List.of(new CopyPlan.Explanation.Piece(List.of(), List.of(), List.of(), pieces.get(k), 0, k == 0)),
                    e.pieces(), e.toString());
            CopyEngine.of(1).copy(sources.get(k), dst);
            assertEquals(values.get(k), TensorElements.of(dst).getFloat());
        }
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
     * Copies with the engine into one destination and index by index through the views' element
     * access into an identical one; every element, and every byte of untiled destinations, must
     * agree. {@return the engine's explanation, made before it ran}
     */
    private static CopyPlan.Explanation check(CopyEngine engine, TensorView src, Supplier<Destination> make, String what) {
        Destination planned = make.get();
        Destination reference = make.get();
        CopyPlan.Explanation explained = engine.explain(src, planned.view());
        engine.copy(src, planned.view());
        TensorView ref = reference.view();
        TensorElements.of(src).forEachIndex(index -> TensorElements.of(ref).setDouble(TensorElements.of(src).getDouble(index), index));
        int bits = ref.access().storageBits();
        long n = ref.elementCount();
        if (bits < 8 && n * bits % 8 != 0 && ref.map() instanceof dev.tensorbuf.views.ViewMap.Single single
                && single.wholeLayout()) {
            // A packed row-major whole layout owns the rest of its last byte, which a copy writes as zero.
            MemorySegment last = reference.buffers().getFirst().segment();
            long at = n * bits / 8;
            last.set(ValueLayout.JAVA_BYTE, at, (byte) (last.get(ValueLayout.JAVA_BYTE, at) & ((1 << (n * bits % 8)) - 1)));
        }
        TensorElements.of(src).forEachIndex(index -> assertEquals(TensorElements.of(src).getDouble(index), TensorElements.of(planned.view()).getDouble(index),
                () -> what + ": index " + Arrays.toString(index) + "\n" + explained));
        if (!planned.tiled()) {
            for (int b = 0; b < planned.buffers().size(); b++) {
                MemorySegment got = planned.buffers().get(b).segment();
                MemorySegment want = reference.buffers().get(b).segment();
                assertArrayEquals(want.toArray(ValueLayout.JAVA_BYTE), got.toArray(ValueLayout.JAVA_BYTE),
                        what + ": buffer " + b);
            }
        }
        return explained;
    }

    private Destination destination(String kind, DType dtype, long[] dims, long seed) {
        int rank = dims.length;
        Random random = new Random(seed);
        return switch (kind) {
            case "packed" -> {
                MemoryBuffer b = garbage(packedBytes(dims, dtype), random);
                yield new Destination(packed(b, dtype, dims), List.of(b), false);
            }
            case "transposed" -> {
                long[] reversed = new long[rank];
                int[] perm = new int[rank];
                for (int d = 0; d < rank; d++) {
                    reversed[d] = dims[rank - 1 - d];
                    perm[d] = rank - 1 - d;
                }
                MemoryBuffer b = garbage(packedBytes(dims, dtype), random);
                yield new Destination(Ops.transpose(packed(b, dtype, reversed), perm), List.of(b), false);
            }
            case "stepped" -> {
                long[] wide = dims.clone();
                wide[rank - 1] *= 2;
                long[] stride = new long[rank];
                Arrays.fill(stride, 1);
                stride[rank - 1] = 2;
                MemoryBuffer b = garbage(packedBytes(wide, dtype), random);
                yield new Destination(Ops.slice(packed(b, dtype, wide), new long[rank], wide, stride), List.of(b), false);
            }
            case "T(2,2)" -> {
                StringBuilder text = new StringBuilder(dtype.xlaName()).append(Arrays.toString(dims).replace(" ", ""))
                        .append("{");
                for (int d = rank - 1; d >= 0; d--) {
                    text.append(d).append(d > 0 ? "," : "");
                }
                ArrayShape shape = ArrayShape.parse(text.append(":T(2,2)}").toString());
                MemoryBuffer b = garbage(Math.max(1, Math.max(shape.physicalByteSize(), shape.arraySize())), random);
                yield new Destination(TensorView.of(b, shape), List.of(b), true);
            }
            case "joined" -> {
                int dim = random.nextInt(rank);
                long[] first = dims.clone();
                first[dim] = random.nextInt((int) dims[dim] + 1);
                long[] second = dims.clone();
                second[dim] = dims[dim] - first[dim];
                MemoryBuffer a = garbage(packedBytes(first, dtype), random);
                MemoryBuffer b = garbage(packedBytes(second, dtype), random);
                yield new Destination(Ops.concatenate(dim, List.of(packed(a, dtype, first), packed(b, dtype, second))),
                        List.of(a, b), false);
            }
            default -> {
                // A pad whose every written index lands in its data: its fill's boxes are all cut away.
                MemoryBuffer b = garbage(packedBytes(dims, dtype), random);
                long[] one = new long[rank];
                Arrays.fill(one, 1);
                long[] limit = new long[rank];
                for (int d = 0; d < rank; d++) {
                    limit[d] = dims[d] + 1;
                }
                TensorView padded = Ops.pad(packed(b, dtype, dims), one, one, new long[rank], 1L);
                yield new Destination(Ops.slice(padded, one, limit, one), List.of(b), false);
            }
        };
    }

    /** {@return a row-major view of {@code b}: packed two a byte under {@code E(4)} for s4} */
    private static TensorView packed(MemoryBuffer b, DType dtype, long[] dims) {
        if (dtype != DType.S4 || dims.length == 0) {
            return TensorView.strided(b, dtype, StridedLayout.packed(dims));
        }
        return TensorView.of(b, ArrayShape.parse(shapeText(dtype, dims, ":E(4)")));
    }

    private static String shapeText(DType dtype, long[] dims, String tail) {
        StringBuilder text = new StringBuilder(dtype.xlaName()).append(Arrays.toString(dims).replace(" ", "")).append("{");
        for (int d = dims.length - 1; d >= 0; d--) {
            text.append(d).append(d > 0 ? "," : "");
        }
        return text.append(tail).append("}").toString();
    }

    private static long packedBytes(long[] dims, DType dtype) {
        long n = Extents.elementCount("dims", dims);
        return Math.max(1, dtype == DType.S4 ? (n + 1) / 2 : n * dtype.byteWidth());
    }

    private MemoryBuffer garbage(long bytes, Random random) {
        MemoryBuffer b = allocator.allocate(bytes);
        for (long i = 0; i < bytes; i++) {
            b.segment().set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
        }
        return b;
    }

    /** A view of {@code dims} over one buffer of values 0-7: row-major, transposed, or tiled (not s4). */
    private TensorView leaf(Random random, DType dtype, long[] dims) {
        int rank = dims.length;
        int how = random.nextInt(3);
        TensorView v;
        if (how == 2 && rank >= 2 && dtype != DType.S4) {
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
            v = Ops.transpose(packed(allocator.allocate(packedBytes(dims, dtype)), dtype, reversed), perm);
        } else {
            v = packed(allocator.allocate(packedBytes(dims, dtype)), dtype, dims);
        }
        TensorView view = v;
        TensorElements.of(view).forEachIndex(index -> TensorElements.of(view).setDouble(random.nextInt(8), index));
        return view;
    }

    /** A view of {@code dims}: a leaf, or one of the ops over views made so. */
    private TensorView generate(Random random, DType dtype, long[] dims, int depth) {
        int rank = dims.length;
        int op = depth == 0 || rank == 0 ? 0 : random.nextInt(9);
        switch (op) {
            case 1, 2 -> {
                int dim = random.nextInt(rank);
                int parts = 2 + random.nextInt(2);
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
            case 3, 4 -> {
                long[] low = new long[rank];
                long[] high = new long[rank];
                long[] interior = new long[rank];
                long[] n = new long[rank];
                for (int d = 0; d < rank; d++) {
                    for (int attempt = 0; ; attempt++) {
                        low[d] = attempt < 20 ? random.nextInt(5) - 1 : 0;
                        high[d] = attempt < 20 ? random.nextInt(5) - 1 : 0;
                        interior[d] = attempt < 20 ? random.nextInt(3) : 0;
                        long rest = dims[d] - low[d] - high[d] + interior[d];
                        if (rest >= 0 && rest % (interior[d] + 1) == 0) {
                            n[d] = rest / (interior[d] + 1);
                            if (n[d] > 0 || dims[d] == low[d] + high[d]) {
                                break;
                            }
                        }
                    }
                }
                return Ops.pad(generate(random, dtype, n, depth - 1), low, high, interior, (long) random.nextInt(8));
            }
            case 5 -> {
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
            case 6 -> {
                long[] in = new long[rank];
                long[] start = new long[rank];
                long[] limit = new long[rank];
                long[] stride = new long[rank];
                for (int d = 0; d < rank; d++) {
                    stride[d] = 1 + random.nextInt(3);
                    start[d] = random.nextInt(2);
                    limit[d] = dims[d] == 0 ? start[d] : start[d] + (dims[d] - 1) * stride[d] + 1;
                    in[d] = limit[d] + random.nextInt(2);
                }
                return Ops.slice(generate(random, dtype, in, depth - 1), start, limit, stride);
            }
            case 7 -> {
                // Broadcast: keep some dimensions, in order; the others are repeated.
                List<Integer> kept = new ArrayList<>();
                for (int d = 0; d < rank; d++) {
                    if (random.nextBoolean()) {
                        kept.add(d);
                    }
                }
                if (kept.isEmpty() && dtype == DType.S4) {
                    kept.add(0); // a rank-0 s4 has no E(4) layout, and concatenate wants one storage throughout
                }
                long[] in = new long[kept.size()];
                int[] to = new int[kept.size()];
                for (int k = 0; k < in.length; k++) {
                    to[k] = kept.get(k);
                    in[k] = dims[to[k]];
                }
                return Ops.broadcast(generate(random, dtype, in, depth - 1), dims, to);
            }
            case 8 -> {
                // Reshape: from the flat view, or from the dims with two neighbours merged.
                long n = Extents.elementCount("dims", dims);
                long[] in;
                if (rank == 1 || random.nextBoolean()) {
                    in = rank == 1 && n % 2 == 0 && n > 2 ? new long[] {2, n / 2} : new long[] {n};
                } else {
                    int d = random.nextInt(rank - 1);
                    in = new long[rank - 1];
                    for (int e = 0, o = 0; e < rank; e++) {
                        in[o] = e == d + 1 ? in[o] * dims[e] : dims[e];
                        o += e == d ? 0 : 1;
                    }
                }
                return Ops.reshape(generate(random, dtype, in, depth - 1), dims);
            }
            default -> {
                return leaf(random, dtype, dims);
            }
        }
    }
}
