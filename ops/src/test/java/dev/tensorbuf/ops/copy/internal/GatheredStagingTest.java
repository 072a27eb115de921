package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.copy.CopyPlan.Explanation;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.internal.Extents;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Review (issue 36): a packed 1/2/4-bit view of one piece that reaches far more slots than it has
 * elements (a strided slice with a large step, a few elements of a large buffer, a small crop of a
 * big tiled {@code s4} array) was copied element by element, staging declining to unpack the span
 * it reaches. Its own slots are now gathered into (or scattered back from) a temporary of exactly
 * its elements ({@link GatheredSlots}), the copy planned against it. The element path
 * ({@link ViewAdapter#copyElements}) is the reference, every byte of the destination buffer, run
 * on a twin of the same bytes; a packed source's values are also checked against
 * {@link TensorElements}.
 */
class GatheredStagingTest {
    private static final String[] PACKED = {"s4", "u4", "s2", "u2", "u1"};
    /** Slots of the packed buffers: far more than any view below has elements. */
    private static final long SLOTS = 1 << 16;
    @ArenaPerTest
    private Allocator allocator;

    private static int bits(String type) {
        return Integer.parseInt(type.substring(1));
    }

    /** Views of a packed {@code [256, 256]} array that reach much of it with few elements. */
    private static List<Function<TensorView, TensorView>> sparse() {
        return List.of(
                v -> Ops.slice(Ops.reshape(v, SLOTS), new long[] {3}, new long[] {SLOTS}, new long[] {7 * 97}),
                v -> Ops.slice(Ops.reshape(v, SLOTS), new long[] {0}, new long[] {SLOTS}, new long[] {1000}),
                v -> Ops.slice(v, new long[] {1, 2}, new long[] {256, 256}, new long[] {7, 1000}),
                v -> Ops.slice(v, new long[] {5, 1}, new long[] {256, 256}, new long[] {50, 7}),
                v -> Ops.transpose(Ops.slice(v, new long[] {1, 2}, new long[] {256, 250}, new long[] {7, 31}), 1, 0),
                v -> Ops.reverse(Ops.slice(v, new long[] {0, 3}, new long[] {256, 256}, new long[] {9, 40}), 0),
                v -> Ops.reverse(Ops.transpose(Ops.slice(v, new long[] {2, 7}, new long[] {255, 12},
                        new long[] {1, 1}), 1, 0), 1));
    }

    private MemoryBuffer random(Random r, long bytes) {
        MemoryBuffer b = allocator.allocate(bytes);
        for (long i = 0; i < bytes; i++) {
            b.segment().set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt(256));
        }
        return b;
    }

    private MemoryBuffer copyOf(MemoryBuffer b) {
        MemoryBuffer c = allocator.allocate(b.byteSize());
        c.segment().copyFrom(b.segment());
        return c;
    }

    private static byte[] bytes(MemoryBuffer b) {
        return b.segment().toArray(ValueLayout.JAVA_BYTE);
    }

    private static String dims(TensorView v) {
        return v.dims().toString().replace(" ", "");
    }

    /** A dense row-major view of {@code like}'s dims and type {@code type}, its bytes random. */
    private TensorView dense(Random r, TensorView like, String type) {
        DType t = DType.fromXlaName(type);
        long bytes = Math.max(1, Math.ceilDiv(like.elementCount() * t.bitWidth(), 8));
        String layout = "{" + String.join(",", java.util.stream.IntStream.range(0, like.dims().size())
                .map(i -> like.dims().size() - 1 - i).mapToObj(Integer::toString).toList()) + "}";
        return TensorView.of(random(r, bytes), type + dims(like) + layout);
    }

    /**
     * Asserts the copy is staged with every packed side gathered through {@code how} (null: gathered
     * through strides or map, or its span unpacked whole where that is at most 4096 slots or 8 a
     * element), planned between the temporaries.
     */
    private static Explanation assertGathered(TensorView src, TensorView dst, String how) {
        Explanation e = CopyEngine.of(1).explain(src, dst);
        assertEquals(Explanation.Route.STAGED, e.route(), e.toString());
        assertEquals(Explanation.Route.PLANNED, e.parts().getFirst().route(), e.toString());
        assertTrue(!e.staging().isEmpty(), e.toString());
        for (Explanation.Staged s : e.staging()) {
            if (how == null) {
                // Either way: the span unpacked whole only where that pays, else the slots gathered.
                assertTrue(!s.gather().isEmpty() || s.slots() <= Math.max(4096, 8 * src.elementCount()), e.toString());
                continue;
            } else {
                assertEquals(how, s.gather(), e.toString());
            }
            long n = s.side().equals("source") ? src.elementCount() : dst.elementCount();
            assertEquals(n, s.slots(), "a byte per element, not per slot reached: " + e);
        }
        return e;
    }

    /** Every value of a packed source, read back from the copy, is what {@link TensorElements} reads. */
    private static void assertValues(TensorView src, TensorView dst, String what) {
        TensorElements in = TensorElements.of(src);
        TensorElements out = TensorElements.of(dst);
        long[] dims = Extents.toArray(src.dims());
        long[] index = new long[dims.length];
        for (long k = 0; k < src.elementCount(); k++) {
            assertEquals(in.getLong(index), (long) out.getDouble(index), what + " at " + java.util.Arrays.toString(index));
            for (int d = dims.length - 1; d >= 0 && ++index[d] == dims[d]; d--) {
                index[d] = 0;
            }
        }
    }

    @Test
    void sparseStridedSourcesAreGatheredAndAgreeWithTheElementPath() {
        Random r = new Random(36);
        for (String type : PACKED) {
            int bits = bits(type);
            MemoryBuffer packed = random(r, SLOTS * bits / 8);
            int view = 0;
            for (Function<TensorView, TensorView> f : sparse()) {
                TensorView src = f.apply(TensorView.of(packed, type + "[256,256]{1,0:E(" + bits + ")}"));
                for (String into : new String[] {"f32", "s8", "s32"}) {
                    String what = type + " view " + view + " -> " + into;
                    TensorView dst = dense(r, src, into);
                    TensorView twin = TensorView.of(copyOf(dst.buffer()), dst.shape());
                    Explanation e = assertGathered(src, dst, "strides");
                    assertTrue(e.toString().contains("gathered a byte each in row-major order through its strides"), e.toString());
                    CopyEngine.of(1).copy(src, dst);
                    ViewAdapter.copyElements(src, twin);
                    assertArrayEquals(bytes(twin.buffer()), bytes(dst.buffer()), what);
                    if (into.equals("f32")) {
                        assertValues(src, dst, what);
                    }
                }
                view++;
            }
        }
    }

    /**
     * Into a sparse packed destination: every byte of its buffer as the element path leaves it,
     * so the slots the view does not reach (most of them) keep their bits.
     */
    @Test
    void sparseStridedDestinationsAreScatteredAndAgreeWithTheElementPath() {
        Random r = new Random(37);
        for (String type : PACKED) {
            int bits = bits(type);
            int view = 0;
            for (Function<TensorView, TensorView> f : sparse()) {
                MemoryBuffer packed = random(r, SLOTS * bits / 8);
                MemoryBuffer twin = copyOf(packed);
                String base = type + "[256,256]{1,0:E(" + bits + ")}";
                TensorView dst = f.apply(TensorView.of(packed, base));
                for (String from : new String[] {"s8", "f32"}) {
                    String what = from + " -> " + type + " view " + view;
                    TensorView src = from.equals("f32") ? floats(r, dst, bits) : small(r, dst, bits);
                    Explanation e = assertGathered(src, dst, "strides");
                    assertTrue(e.toString().contains("then each scattered back into its slot through its strides"),
                            e.toString());
                    assertEquals(0, e.zeroedBytes(), "a crop owns no padding: " + e);
                    CopyEngine.of(1).copy(src, dst);
                    ViewAdapter.copyElements(src, f.apply(TensorView.of(twin, base)));
                    assertArrayEquals(bytes(twin), bytes(packed), what);
                }
                view++;
            }
        }
    }

    /** Bytes ({@code s8}) of {@code like}'s dims holding values a {@code bits}-bit type (signed or not) stores. */
    private TensorView small(Random r, TensorView like, int bits) {
        TensorView v = dense(r, like, "s8");
        for (long k = 0; k < like.elementCount(); k++) {
            v.buffer().segment().set(ValueLayout.JAVA_BYTE, k, (byte) r.nextInt(1 << (bits - 1)));
        }
        return v;
    }

    /** Floats of {@code like}'s dims holding values a {@code bits}-bit type (signed or not) stores. */
    private TensorView floats(Random r, TensorView like, int bits) {
        TensorView v = dense(r, like, "f32");
        long n = like.elementCount();
        for (long k = 0; k < n; k++) {
            v.buffer().segment().setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, k, r.nextInt(1 << (bits - 1)));
        }
        return v;
    }

    /** Packed on both sides, each far sparser than its span: both gathered, the copy planned between them. */
    @Test
    void packedToPackedGathersBothSides() {
        Random r = new Random(38);
        for (String from : PACKED) {
            for (String to : PACKED) {
                MemoryBuffer in = random(r, SLOTS * bits(from) / 8);
                MemoryBuffer out = random(r, SLOTS * bits(to) / 8);
                MemoryBuffer twin = copyOf(out);
                TensorView src = Ops.transpose(Ops.slice(TensorView.of(in, from + "[256,256]{1,0:E(" + bits(from) + ")}"),
                        new long[] {1, 2}, new long[] {256, 256}, new long[] {7, 40}), 1, 0);
                Function<MemoryBuffer, TensorView> dstOf = b -> Ops.reverse(Ops.reshape(Ops.slice(Ops.reshape(
                        TensorView.of(b, to + "[" + SLOTS + "]{0:E(" + bits(to) + ")}"), SLOTS), new long[] {5},
                        new long[] {5 + 251 * 258 + 1}, new long[] {251}), src.dims().get(0), src.dims().get(1)), 1);
                TensorView dst = dstOf.apply(out);
                if (dst.elementCount() != src.elementCount()) {
                    throw new AssertionError("the test's views: " + src + " and " + dst);
                }
                Explanation e = assertGathered(src, dst, "strides");
                assertEquals(2, e.staging().size(), e.toString());
                // Values that do not fit are refused by both paths alike (the first in row-major
                // order, the engine naming its index); else both copy alike.
                byte[] before = bytes(out);
                RuntimeException staged = catching(() -> CopyEngine.of(1).copy(src, dst));
                RuntimeException element = catching(() -> ViewAdapter.copyElements(src, dstOf.apply(twin)));
                assertEquals(element == null, staged == null, from + " -> " + to + ": " + staged + ", " + element);
                if (staged != null) {
                    String[] words = element.getMessage().split(" out of range ", 2);
                    assertTrue(staged.getMessage().startsWith(words[0] + " at index ")
                            && staged.getMessage().endsWith(" out of range " + words[1]), staged + ", " + element);
                }
                assertArrayEquals(staged == null ? bytes(twin) : before, bytes(out),
                        from + " -> " + to + (staged == null ? "" : ": refused, the destination is left as it was"));
            }
        }
    }

    private static RuntimeException catching(Runnable r) {
        try {
            r.run();
            return null;
        } catch (RuntimeException e) {
            return e;
        }
    }

    /**
     * A small crop of a big tiled packed array: its map is no strides, and the span it reaches is
     * the array; its slots are found through its map. Source and destination.
     */
    @Test
    void cropsOfTiledPackedArraysAreGatheredThroughTheirMap() {
        Random r = new Random(39);
        String[][] layouts = {
                {"s4", "[64,512]{1,0:T(8,128)(2,1)E(4)}"},
                {"u4", "[64,512]{0,1:T(8,128)(2,1)E(4)}"},
                {"u2", "[64,512]{1,0:T(8,128)(4,1)E(2)}"},
                {"s2", "[64,512]{1,0:T(4,128)E(2)}"},
                {"u1", "[64,512]{1,0:T(8,128)(8,1)E(1)}"},
        };
        List<Function<TensorView, TensorView>> crops = List.of(
                v -> Ops.slice(v, new long[] {3, 100}, new long[] {11, 130}, new long[] {1, 1}),
                v -> Ops.slice(v, new long[] {0, 1}, new long[] {64, 512}, new long[] {9, 77}),
                v -> Ops.transpose(Ops.slice(v, new long[] {1, 250}, new long[] {64, 270}, new long[] {20, 3}), 1, 0),
                v -> Ops.reverse(Ops.slice(v, new long[] {40, 300}, new long[] {48, 306}, new long[] {1, 1}), 1));
        int maps = 0;
        for (String[] l : layouts) {
            int bits = bits(l[0]);
            String shape = l[0] + l[1];
            long bytes = dev.tensorbuf.views.ArrayShape.parse(shape).physicalByteSize();
            int c = 0;
            for (Function<TensorView, TensorView> crop : crops) {
                String what = shape + " crop " + c++;
                MemoryBuffer packed = random(r, bytes);
                TensorView src = crop.apply(TensorView.of(packed, shape));
                TensorView dst = dense(r, src, "f32");
                TensorView twinDst = TensorView.of(copyOf(dst.buffer()), dst.shape());
                // A crop whose map simplifies to strides is gathered through them; the others through the map.
                Explanation e = assertGathered(src, dst, null);
                if (e.staging().getFirst().gather().equals("map")) {
                    maps++;
                    assertTrue(e.toString().contains("through its map"), e.toString());
                }
                CopyEngine.of(1).copy(src, dst);
                ViewAdapter.copyElements(src, twinDst);
                assertArrayEquals(bytes(twinDst.buffer()), bytes(dst.buffer()), what + " as a source");
                assertValues(src, dst, what);

                MemoryBuffer twin = copyOf(packed);
                TensorView in = small(r, src, bits);
                TensorView into = crop.apply(TensorView.of(packed, shape));
                e = assertGathered(in, into, null);
                assertEquals(0, e.zeroedBytes(), "a crop owns no padding: " + e);
                CopyEngine.of(1).copy(in, into);
                ViewAdapter.copyElements(in, crop.apply(TensorView.of(twin, shape)));
                assertArrayEquals(bytes(twin), bytes(packed), what + " as a destination");
            }
        }
        assertTrue(maps >= 10, "crops gathered through their maps: " + maps);
    }

    /**
     * Whole packed layouts whose padding or gaps are far more slots than their elements: the
     * copy zeroes them as the element path does, and writes each element into its slot.
     */
    @Test
    void wholeLayoutsMostlyPaddingZeroItAsTheElementPath() {
        Random r = new Random(40);
        for (String shape : new String[] {"s4[100,1]{1,0:T(8,128)(2,1)E(4)}", "u2[3,40,1]{2,1,0:T(8,128)(4,1)E(2)}",
                "s4[64,1]{1,0:T(1,256)E(4)}", "u1[33,2]{1,0:T(1,512)E(1)}"}) {
            long bytes = dev.tensorbuf.views.ArrayShape.parse(shape).physicalByteSize() + 5;
            MemoryBuffer packed = allocator.allocate(bytes);
            packed.segment().fill((byte) 0xff);
            MemoryBuffer twin = copyOf(packed);
            TensorView dst = TensorView.of(packed, shape);
            TensorView src = dense(r, dst, "s8");
            for (long k = 0; k < src.elementCount(); k++) {
                src.buffer().segment().set(ValueLayout.JAVA_BYTE, k, (byte) (k % 2));
            }
            Explanation e = CopyEngine.of(1).explain(src, dst);
            assertEquals(Explanation.Route.STAGED, e.route(), shape + ": " + e);
            assertTrue(e.staging().getFirst().gather().length() > 0, shape + ": " + e);
            assertTrue(e.zeroedBytes() > 0, shape + ": " + e);
            CopyEngine.of(1).copy(src, dst);
            ViewAdapter.copyElements(src, TensorView.of(twin, shape));
            assertArrayEquals(bytes(twin), bytes(packed), shape);
        }
    }

    /**
     * A writer between the copy into the temporary and the scatter changes every slot the view
     * does not reach; each change survives, as after {@link SubByteStaging#packWritten}.
     */
    @Test
    void theScatterWritesOnlyTheViewsSlots() {
        Random r = new Random(41);
        CopyExecutor executor = new CopyExecutor(1, false, Long.MAX_VALUE);
        for (String type : PACKED) {
            int bits = bits(type);
            int perByte = 8 / bits;
            int low = (1 << bits) - 1;
            for (Function<TensorView, TensorView> f : sparse()) {
                MemoryBuffer packed = random(r, SLOTS * bits / 8);
                TensorView dst = f.apply(TensorView.of(packed, type + "[256,256]{1,0:E(" + bits + ")}"));
                TensorView src = small(r, dst, bits);
                long[] want = new long[(int) SLOTS];
                java.util.Arrays.fill(want, -1);
                long[] dims = Extents.toArray(dst.dims());
                long[] index = new long[dims.length];
                long[] reached = new long[(int) dst.elementCount()];
                for (int k = 0; k < reached.length; k++) {
                    reached[k] = ((dev.tensorbuf.views.ViewMap.Single) dst.map()).map().compile().evaluate(0, index);
                    want[(int) reached[k]] = TensorElements.of(src).getLong(index) & low;
                    for (int d = dims.length - 1; d >= 0 && ++index[d] == dims[d]; d--) {
                        index[d] = 0;
                    }
                }
                SubByteStaging.Staging staging = SubByteStaging.plan(src, dst, ViewAdapter.access(src),
                        ViewAdapter.destination(dst)).orElseThrow();
                assertEquals("strides", staging.sides().getFirst().gather());
                staging.run(executor, () -> {
                    for (int slot = 0; slot < SLOTS; slot++) {
                        if (want[slot] < 0) {
                            want[slot] = r.nextInt(low + 1);
                            int shift = slot % perByte * bits;
                            byte old = packed.segment().get(ValueLayout.JAVA_BYTE, slot / perByte);
                            packed.segment().set(ValueLayout.JAVA_BYTE, slot / perByte,
                                    (byte) (old & ~(low << shift) | want[slot] << shift));
                        }
                    }
                });
                for (int slot = 0; slot < SLOTS; slot++) {
                    int b = packed.segment().get(ValueLayout.JAVA_BYTE, slot / perByte);
                    assertEquals(want[slot], b >>> (slot % perByte * bits) & low, type + " " + dst + " slot " + slot);
                }
            }
        }
    }

    /** What staging still declines keeps the element path's refusals, word for word, and says why it declines. */
    @Test
    void readOnlyAndTwiceWrittenDestinationsAreRefusedAsBefore() {
        Random r = new Random(42);
        for (String type : PACKED) {
            int bits = bits(type);
            MemoryBuffer b = random(r, SLOTS * bits / 8);
            MemoryBuffer readOnly = MemoryBuffer.foreign(b.segment().asReadOnly(), MemorySpace.HOST, "test", () -> {
            });
            List<TensorView> refused = new ArrayList<>();
            refused.add(Ops.slice(TensorView.of(readOnly, type + "[" + SLOTS + "]{0:E(" + bits + ")}"), new long[] {0},
                    new long[] {SLOTS}, new long[] {1000}));
            // Strides [0, 1000]: each slot written from 3 indices.
            refused.add(Ops.broadcast(Ops.slice(TensorView.of(b, type + "[" + SLOTS + "]{0:E(" + bits + ")}"),
                    new long[] {0}, new long[] {SLOTS}, new long[] {1000}), new long[] {3, 66}, 1));
            for (TensorView dst : refused) {
                TensorView src = small(r, dst, bits);
                Explanation e = CopyEngine.of(1).explain(src, dst);
                assertEquals(Explanation.Route.ELEMENTS, e.route(), e.toString());
                assertTrue(e.reason().contains("the element path refuses it"), e.reason());
                IllegalArgumentException before = assertThrows(IllegalArgumentException.class,
                        () -> ViewAdapter.copyElements(src, dst));
                IllegalArgumentException now = assertThrows(IllegalArgumentException.class,
                        () -> CopyEngine.of(1).copy(src, dst));
                assertEquals(before.getMessage(), now.getMessage());
            }
        }
    }
}
