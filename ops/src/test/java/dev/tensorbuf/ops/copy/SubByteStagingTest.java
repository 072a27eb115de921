package dev.tensorbuf.ops.copy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.internal.ViewAdapter;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Review: copies to or from packed sub-byte storage ({@code s4} under {@code E(4)}, 2- and 1-bit
 * types) went element by element, 100-250x slower than {@code u8}. They are now staged through
 * byte-a-slot temporaries read through the same map ({@code SubByteStaging}). The element path
 * ({@link ViewAdapter#copyElements}) is the reference: every byte of the destination buffer, the
 * slots outside the view included, and every refusal's message must be what it gives.
 */
class SubByteStagingTest {
    private static final String[] PACKED = {"s4", "u4", "s2", "u2", "u1"};
    private static final String[] WIDE = {"s8", "u8", "f32"};
    @ArenaPerTest
    private Allocator allocator;

    /** How one side is made over a buffer: its base shape and the ops applied to it. */
    private record Side(ArrayShape base, Function<TensorView, TensorView> ops, String text) {
        long bytes() {
            return Math.max(1, Math.max(base.physicalByteSize(), base.arraySize())) + 3;
        }

        TensorView over(MemoryBuffer buffer) {
            return ops.apply(TensorView.of(buffer, base));
        }
    }

    private static int bits(String type) {
        return Integer.parseInt(type.substring(1));
    }

    private static boolean packed(String type) {
        return bits(type) < 8;
    }

    /** A random way to reach a view of {@code dims}: odd offsets, slices, transposes, reverses, tiles. */
    private static Side side(Random r, String type, long[] dims) {
        int rank = dims.length;
        int[] perm = IntStream.range(0, rank).toArray();
        if (r.nextBoolean()) {
            for (int i = rank - 1; i > 0; i--) {
                int j = r.nextInt(i + 1);
                int t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
            }
        }
        long[] inner = new long[rank]; // the base's dims before slicing: inner[perm[i]] = dims[i]
        for (int i = 0; i < rank; i++) {
            inner[perm[i]] = dims[i];
        }
        boolean slice = r.nextInt(3) == 0;
        long[] start = new long[rank];
        long[] stride = new long[rank];
        long[] base = new long[rank];
        for (int k = 0; k < rank; k++) {
            start[k] = slice ? r.nextInt(3) : 0;
            stride[k] = slice ? 1 + r.nextInt(2) : 1;
            base[k] = start[k] + (inner[k] - 1) * stride[k] + 1 + (slice ? r.nextInt(2) : 0);
        }
        int[] minorToMajor = IntStream.range(0, rank).map(i -> rank - 1 - i).toArray();
        if (r.nextInt(4) == 0) {
            minorToMajor = IntStream.range(0, rank).toArray();
        }
        String layout = Arrays.stream(minorToMajor).mapToObj(Integer::toString).collect(Collectors.joining(","));
        String e = packed(type) ? "E(" + bits(type) + ")" : "";
        int tiling = r.nextInt(5);
        String tiles = "";
        if (tiling == 0) {
            tiles = rank >= 2 ? "T(2,4)" : "T(4)";
        } else if (tiling == 1 && rank >= 2 && bits(type) == 4) {
            tiles = "T(4,4)(2,1)";
        }
        String attrs = tiles + e;
        ArrayShape shape = ArrayShape.parse(type + Arrays.toString(base).replace(" ", "") + "{" + layout
                + (attrs.isEmpty() ? "" : ":" + attrs) + "}");
        boolean reverse = r.nextInt(3) == 0;
        int reversed = r.nextInt(rank);
        String text = shape + (slice ? " slice " + Arrays.toString(start) + " by " + Arrays.toString(stride) : "")
                + " transpose " + Arrays.toString(perm) + (reverse ? " reverse " + reversed : "");
        Function<TensorView, TensorView> ops = v -> {
            TensorView out = v;
            if (slice) {
                long[] limit = new long[rank];
                for (int k = 0; k < rank; k++) {
                    limit[k] = start[k] + (inner[k] - 1) * stride[k] + 1;
                }
                out = Ops.slice(out, start, limit, stride);
            }
            out = Ops.transpose(out, perm);
            return reverse ? Ops.reverse(out, reversed) : out;
        };
        return new Side(shape, ops, text);
    }

    /** Random bytes; wide sources hold mostly small values, so most conversions succeed. */
    private static void fill(Random r, MemoryBuffer b, String type, boolean source) {
        var seg = b.segment();
        for (long o = 0; o < seg.byteSize(); o++) {
            seg.set(ValueLayout.JAVA_BYTE, o, (byte) r.nextInt(256));
        }
        if (source && type.equals("f32")) {
            for (long o = 0; o + 4 <= seg.byteSize(); o += 4) {
                float v = r.nextInt(40) == 0 ? 9.5f : r.nextInt(4) - 1 + (r.nextInt(8) == 0 ? 0.5f : 0);
                seg.set(ValueLayout.JAVA_FLOAT_UNALIGNED, o, v);
            }
        } else if (source && !packed(type)) {
            for (long o = 0; o < seg.byteSize(); o++) {
                seg.set(ValueLayout.JAVA_BYTE, o, (byte) (r.nextInt(50) == 0 ? 9 : r.nextInt(2)));
            }
        }
    }

    /**
     * Copies src into dst both ways and compares: the whole destination buffer, or the refusal.
     * {@return whether the engine's copy was staged}
     */
    private boolean agreesWithElementPath(Random r, CopyEngine engine, String from, String to, long[] dims) {
        Side s = side(r, from, dims);
        Side d = side(r, to, dims);
        String what = from + " -> " + to + ": " + s.text() + " into " + d.text();
        MemoryBuffer srcBuf = allocator.allocate(s.bytes());
        fill(r, srcBuf, from, true);
        MemoryBuffer dstBuf = allocator.allocate(d.bytes());
        fill(r, dstBuf, to, false);
        MemoryBuffer refBuf = allocator.allocate(d.bytes());
        refBuf.segment().copyFrom(dstBuf.segment());
        TensorView src = s.over(srcBuf);
        TensorView dst = d.over(dstBuf);
        TensorView ref = d.over(refBuf);
        IllegalArgumentException expected = null;
        try {
            // As the engine: a reverse of a whole layout is written into the layout, both sides
            // turned, so that the layout's padding (now known to its end) is written as zero.
            ViewAdapter.Turned turned = ViewAdapter.unreversed(src, ref);
            if (turned == null) {
                ViewAdapter.copyElements(src, ref);
            } else {
                ScopedValue.where(ViewAdapter.CALLED_DESTINATION, turned.dst())
                        .run(() -> ViewAdapter.copyElements(turned.src(), turned.dst()));
            }
        } catch (IllegalArgumentException refused) {
            expected = CopyFailures.namingTheRefusedElement(refused, src, ref);
        }
        boolean staged = engine.explain(src, dst).route() == CopyPlan.Explanation.Route.STAGED;
        if (expected != null) {
            IllegalArgumentException got = assertThrows(IllegalArgumentException.class, () -> engine.copy(src, dst), what);
            assertEquals(expected.getMessage(), got.getMessage(), what);
        } else {
            engine.copy(src, dst);
            byte[] want = refBuf.segment().toArray(ValueLayout.JAVA_BYTE);
            byte[] have = dstBuf.segment().toArray(ValueLayout.JAVA_BYTE);
            if (!Arrays.equals(want, have)) {
                fail(what + "\n element path " + hex(want) + "\n staged       " + hex(have));
            }
        }
        return staged;
    }

    private static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(String.format("%02x", x));
        }
        return s.toString();
    }

    private static long[] dims(Random r) {
        long[] dims = new long[1 + r.nextInt(3)];
        for (int i = 0; i < dims.length; i++) {
            dims[i] = 1 + r.nextInt(dims.length == 1 ? 37 : 9);
        }
        return dims;
    }

    @Test
    void everyElementAgreesWithTheElementPath() {
        Random r = new Random(20240611);
        List<CopyEngine> engines = List.of(CopyEngine.of(1), CopyEngine.of(2, true, 0), CopyEngine.of(2, false, 0));
        List<String[]> pairs = new ArrayList<>();
        for (String p : PACKED) {
            pairs.add(new String[] {p, p});
            pairs.add(new String[] {p, "s8"});
            pairs.add(new String[] {"s8", p});
            pairs.add(new String[] {p, "u8"});
            pairs.add(new String[] {"u8", p});
        }
        pairs.add(new String[] {"s4", "f32"});
        pairs.add(new String[] {"f32", "s4"});
        pairs.add(new String[] {"f32", "u2"});
        pairs.add(new String[] {"s4", "u4"});
        pairs.add(new String[] {"u4", "s4"});
        pairs.add(new String[] {"s2", "s4"});
        pairs.add(new String[] {"u1", "u4"});
        int staged = 0;
        int cases = 0;
        for (int round = 0; round < 12; round++) {
            for (String[] pair : pairs) {
                if (agreesWithElementPath(r, engines.get(r.nextInt(engines.size())), pair[0], pair[1], dims(r))) {
                    staged++;
                }
                cases++;
            }
        }
        // Small views of small buffers always pay: every case with a packed side is staged.
        assertEquals(cases, staged, "copies staged");
    }

    @Test
    void slotsOutsideTheDestinationKeepTheirBits() {
        MemoryBuffer b = allocator.allocate(4);
        b.segment().fill((byte) 0x5A);
        TensorView all = TensorView.of(b, "s4[8]{0:E(4)}");
        TensorView middle = Ops.slice(all, new long[] {1}, new long[] {6}, new long[] {1}); // slots 1..5
        TensorView src = TensorView.of(allocator.allocate(5), "s8[5]{0}");
        TensorElements.of(src).copyFrom(new long[] {-1, 1, -2, 2, 7});
        assertStaged(CopyEngine.defaults().explain(src, middle));
        CopyEngine.defaults().copy(src, middle);
        // slots 0, 6, 7 keep 0xA, 0xA, 0x5; slots 1..5 hold f, 1, e, 2, 7 (first slot lowest)
        assertArrayEquals(new byte[] {(byte) 0xFA, (byte) 0xE1, (byte) 0x72, (byte) 0x5A}, b.segment().toArray(ValueLayout.JAVA_BYTE));
        assertArrayEquals(new long[] {-1, 1, -2, 2, 7}, TensorElements.of(middle).toLongArray());
    }

    @Test
    void aRefusedValueNamesTheSameElementAsBefore() {
        TensorView src = TensorView.of(allocator.allocate(6000), "s8[2,3000]{1,0}");
        TensorElements.of(src).setLong(9, 1, 2);
        TensorElements.of(src).setLong(-9, 1, 7);
        MemoryBuffer out = allocator.allocate(3000);
        out.segment().fill((byte) 0x33);
        TensorView dst = TensorView.of(out, "s4[2,3000]{1,0:E(4)}");
        assertStaged(CopyEngine.defaults().explain(src, dst));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CopyEngine.defaults().copy(src, dst));
        assertTrue(e.getMessage().startsWith("value 9 at index [1, 2] of s8[2,3000]"), e.getMessage());
        // Refused, the staged copy leaves the destination as it was.
        for (byte x : out.segment().toArray(ValueLayout.JAVA_BYTE)) {
            assertEquals((byte) 0x33, x);
        }
    }

    /**
     * The structural check: a large packed copy has its span staged whole; a sparse view of a
     * large buffer, its own slots gathered (no longer element by element).
     */
    @Test
    void largePackedCopiesAreStagedWholeAndSparseViewsGathered() {
        long n = 1 << 20;
        TensorView s4 = TensorView.of(allocator.allocate(n / 2), "s4[" + n + "]{0:E(4)}");
        TensorView s8 = TensorView.of(allocator.allocate(n), "s8[" + n + "]{0}");
        CopyEngine engine = CopyEngine.defaults();
        assertStaged(engine.explain(s4, s8));
        assertStaged(engine.explain(s8, s4));
        assertStaged(engine.explain(Ops.reverse(s4, 0), s8));
        engine.copy(s4, s8);
        engine.copy(s8, s4);
        engine.copy(Ops.reverse(s4, 0), s8);
        TensorView sparse = Ops.slice(s4, new long[] {0}, new long[] {n}, new long[] {n / 4}); // 4 elements over 1M slots
        TensorView four = TensorView.of(allocator.allocate(4), "s8[4]{0}");
        CopyPlan.Explanation e = engine.explain(sparse, four);
        assertEquals(CopyPlan.Explanation.Route.STAGED, e.route(), "a sparse view is staged: " + e);
        assertEquals(List.of(new CopyPlan.Explanation.Staged("source", 4, 0, 4, 4, false, "strides")), e.staging(),
                "its 4 slots gathered, not the 1M it spans: " + e);
        engine.copy(sparse, four);
        assertEquals(TensorElements.of(s4).getLong(n / 4 * 3), TensorElements.of(four).getLong(3));
    }

    @Test
    void readOnlyPackedDestinationsAreRefusedAsBefore() {
        MemoryBuffer b = allocator.allocate(8);
        TensorView src = TensorView.of(allocator.allocate(16), "s8[16]{0}");
        TensorView dst = TensorView.of(MemoryBuffer.foreign(b.segment().asReadOnly(), MemorySpace.HOST, "test", () -> {
        }), "s4[16]{0:E(4)}");
        IllegalArgumentException before = assertThrows(IllegalArgumentException.class,
                () -> ViewAdapter.copyElements(src, dst));
        IllegalArgumentException now = assertThrows(IllegalArgumentException.class,
                () -> CopyEngine.defaults().copy(src, dst));
        assertEquals(before.getMessage(), now.getMessage());
    }

    /** The copy is staged: one packed side unpacked into a byte-a-slot temporary around one planned copy. */
    private static void assertStaged(CopyPlan.Explanation e) {
        assertEquals(CopyPlan.Explanation.Route.STAGED, e.route(), e.toString());
        assertEquals(1, e.staging().size(), e.toString());
        assertEquals(1, e.parts().size(), e.toString());
        assertEquals(CopyPlan.Explanation.Route.PLANNED, e.parts().getFirst().route(), e.toString());
    }
}
