package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.internal.ViewReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Review (issue 36): a staged packed destination packed back whole bytes, so the slots of a
 * staged run the copy does not write went back with the bits they had when unpacked, and a thread
 * writing other elements of the same buffer meanwhile lost its writes. Now only the slots the copy
 * writes are packed back. These tests stand a writer between the copy into the temporary and the
 * packing back (the staging's hook, or {@link PackedPieces#packBack} called by hand): it changes
 * every slot the view does not address, found by brute force from the view's element maps, and
 * every such change must survive, byte for byte over the whole buffer.
 */
class PackedWriteBackTest {
    private static final String[] PACKED = {"s4", "u4", "s2", "u2", "u1"};
    @ArenaPerTest
    private Allocator allocator;

    /** The packing primitive against a slot-by-slot reference, raw bytes with high bits included. */
    @Test
    void packWrittenAgreesSlotBySlot() {
        Random r = new Random(36);
        for (int bits : new int[] {1, 2, 4}) {
            int perByte = 8 / bits;
            int low = (1 << bits) - 1;
            for (int trial = 0; trial < 400; trial++) {
                long first = perByte * (long) r.nextInt(9);
                int slots = perByte * (1 + r.nextInt(40));
                double written = new double[] {0, 0.2, 0.5, 0.9, 1}[trial % 5];
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment in = arena.allocate(slots);
                    for (int k = 0; k < slots; k++) {
                        int v = r.nextInt(256);
                        in.set(ValueLayout.JAVA_BYTE, k,
                                r.nextDouble() < written && v != 0x80 ? (byte) v : SubByteStaging.UNWRITTEN);
                    }
                    long bytes = first / perByte + slots / perByte + 3;
                    MemorySegment packed = arena.allocate(bytes);
                    for (long b = 0; b < bytes; b++) {
                        packed.set(ValueLayout.JAVA_BYTE, b, (byte) r.nextInt(256));
                    }
                    byte[] want = packed.toArray(ValueLayout.JAVA_BYTE);
                    for (int k = 0; k < slots; k++) {
                        byte v = in.get(ValueLayout.JAVA_BYTE, k);
                        if (v != SubByteStaging.UNWRITTEN) {
                            long slot = first + k;
                            int shift = (int) (slot % perByte) * bits;
                            int at = (int) (slot / perByte);
                            want[at] = (byte) (want[at] & ~(low << shift) | (v & low) << shift);
                        }
                    }
                    SubByteStaging.packWritten(in, slots, bits, packed, first);
                    assertArrayEquals(want, packed.toArray(ValueLayout.JAVA_BYTE),
                            bits + "-bit, slots [" + first + ", " + (first + slots) + "), trial " + trial);
                }
            }
        }
    }

    /** A run of which the copy writes nothing does not write a byte: it passes over read-only memory. */
    @Test
    void aRunWrittenNowhereWritesNoByte() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocate(100);
            in.fill(SubByteStaging.UNWRITTEN);
            MemorySegment packed = arena.allocate(64).fill((byte) 0x5a).asReadOnly();
            for (int bits : new int[] {1, 2, 4}) {
                SubByteStaging.packWritten(in, 96, bits, packed, 8 * 8 / bits);
            }
            assertEquals(0x5a, packed.get(ValueLayout.JAVA_BYTE, 9));
        }
    }

    /** Destination views whose written and unwritten slots alternate within bytes. */
    private static List<Function<TensorView, TensorView>> crops() {
        return List.of(
                v -> Ops.slice(Ops.reshape(v, 240), new long[] {1}, new long[] {200}, new long[] {3}),
                v -> Ops.slice(Ops.reshape(v, 240), new long[] {0}, new long[] {240}, new long[] {2}),
                v -> Ops.slice(Ops.reshape(v, 240), new long[] {3}, new long[] {237}, new long[] {1}),
                v -> Ops.slice(v, new long[] {1, 1}, new long[] {11, 19}, new long[] {2, 3}),
                v -> Ops.transpose(Ops.slice(v, new long[] {0, 3}, new long[] {12, 15}, new long[] {1, 1}), 1, 0),
                v -> Ops.reverse(Ops.slice(v, new long[] {2, 1}, new long[] {9, 20}, new long[] {3, 5}), 1));
    }

    /**
     * A one-piece packed destination, staged ({@code SubByteStaging}): a writer between the copy
     * and the packing back changes every slot the view does not address, and keeps its change.
     */
    @Test
    void aStagedCopyKeepsWritesMadeBeforeItsPackBack() {
        Random r = new Random(7);
        CopyExecutor executor = new CopyExecutor(1, false, Long.MAX_VALUE);
        for (String type : PACKED) {
            int bits = Integer.parseInt(type.substring(1));
            int crop = 0;
            for (Function<TensorView, TensorView> f : crops()) {
                String what = type + " crop " + crop++;
                MemoryBuffer buffer = random(r, 12 * 20 * bits / 8 + 2);
                TensorView dst = f.apply(TensorView.of(buffer, type + "[12,20]{1,0:E(" + bits + ")}"));
                TensorView src = source(r, dst, DType.S8);
                SubByteStaging.Staging staging = SubByteStaging.plan(src, dst, ViewAdapter.access(src),
                        ViewAdapter.destination(dst)).orElseThrow(() -> new AssertionError(what + ": not staged"));
                Map<MemoryBuffer, long[]> writer = new IdentityHashMap<>();
                staging.run(executor, () -> writer.putAll(writeElsewhere(r, dst)));
                assertExpected(src, dst, writer, what);
            }
        }
    }

    /**
     * A packed destination over several pieces ({@link PackedPieces}): the same, with the writer
     * between the copy into the pieces' temporaries and {@link PackedPieces#packBack}.
     */
    @Test
    void aCopyIntoPackedPiecesKeepsWritesMadeBeforeItsPackBack() {
        Random r = new Random(11);
        CopyEngine engine = CopyEngine.of(1);
        for (String type : PACKED) {
            int bits = Integer.parseInt(type.substring(1));
            for (long[] step : new long[][] {{1, 1}, {1, 2}, {2, 3}, {3, 1}}) {
                String what = type + " step " + step[0] + "," + step[1];
                MemoryBuffer a = random(r, 8 * 24 * bits / 8 + 1);
                MemoryBuffer b = random(r, 8 * 40 * bits / 8 + 1);
                String e = "{1,0:E(" + bits + ")}";
                TensorView joined = Ops.concatenate(1, TensorView.of(a, type + "[8,24]" + e), TensorView.of(b, type + "[8,40]" + e));
                TensorView dst = Ops.slice(joined, new long[] {1, 5}, new long[] {8, 61}, step);
                TensorView src = source(r, dst, DType.F32);
                PackedPieces staged = PackedPieces.forWriting(dst, allocator, true);
                engine.copy(src, staged.view());
                Map<MemoryBuffer, long[]> writer = writeElsewhere(r, dst);
                staged.packBack();
                assertExpected(src, dst, writer, what);
            }
        }
    }

    /**
     * A source of a sub-byte type stored a byte a slot may hold any byte, the unwritten mark
     * included (its high bits are not read): such slots are told from unwritten ones by a second
     * copy, and the result is the element path's, byte for byte, one piece or several.
     */
    @Test
    void rawSourceBytesThatLookUnwrittenAreStillWritten() {
        Random r = new Random(13);
        CopyEngine engine = CopyEngine.of(1);
        for (String type : PACKED) {
            int bits = Integer.parseInt(type.substring(1));
            String e = "{1,0:E(" + bits + ")}";
            MemoryBuffer one = random(r, 12 * 20 * bits / 8 + 2);
            MemoryBuffer twin = copyOf(one);
            Function<TensorView, TensorView> crop = crops().get(3);
            TensorView dst = crop.apply(TensorView.of(one, type + "[12,20]" + e));
            TensorView src = rawSource(r, dst, type);
            engine.copy(src, dst);
            ViewAdapter.copyElements(src, crop.apply(TensorView.of(twin, type + "[12,20]" + e)));
            assertArrayEquals(bytes(twin), bytes(one), type + " one piece");

            MemoryBuffer a = random(r, 8 * 24 * bits / 8 + 1);
            MemoryBuffer b = random(r, 8 * 40 * bits / 8 + 1);
            MemoryBuffer a2 = copyOf(a);
            MemoryBuffer b2 = copyOf(b);
            Function<List<MemoryBuffer>, TensorView> pieces = l -> Ops.slice(Ops.concatenate(1,
                    TensorView.of(l.get(0), type + "[8,24]" + e), TensorView.of(l.get(1), type + "[8,40]" + e)),
                    new long[] {1, 5}, new long[] {8, 61}, new long[] {2, 3});
            TensorView into = pieces.apply(List.of(a, b));
            TensorView raw = rawSource(r, into, type);
            engine.copy(raw, into);
            ViewAdapter.copyElements(raw, pieces.apply(List.of(a2, b2)));
            assertArrayEquals(bytes(a2), bytes(a), type + " pieces, part 0");
            assertArrayEquals(bytes(b2), bytes(b), type + " pieces, part 1");
        }
    }

    /** A dense view of {@code dst}'s dims of byte-a-slot {@code type}, every byte 0x80 or another with high bits. */
    private TensorView rawSource(Random r, TensorView dst, String type) {
        long n = dst.elementCount();
        MemoryBuffer b = allocator.allocate(n);
        for (long k = 0; k < n; k++) {
            b.segment().set(ValueLayout.JAVA_BYTE, k, (byte) (k % 3 == 0 ? 0x80 : r.nextInt(256)));
        }
        return TensorView.of(b, type + dims(dst) + "{" + minorToMajor(dst) + ":E(8)}");
    }

    /** {@return per buffer of {@code dst}'s pieces, each slot's bits as the writer left them, or -1 where the view writes} */
    private static Map<MemoryBuffer, long[]> writeElsewhere(Random r, TensorView dst) {
        int bits = dst.access().storageBits();
        int perByte = 8 / bits;
        int low = (1 << bits) - 1;
        Map<MemoryBuffer, long[]> slots = new IdentityHashMap<>();
        for (ViewMap.Single p : dst.map().pieces()) {
            slots.computeIfAbsent(p.buffer(), b -> new long[(int) (b.byteSize() * perByte)]);
        }
        ViewReader reader = ViewReader.of(dst.map());
        long[] dims = Extents.toArray(dst.dims());
        long[] index = new long[dims.length];
        for (long n = dst.elementCount(); n > 0; n--) {
            int p = reader.pieceOf(index);
            slots.get(dst.map().pieces().get(p).buffer())[(int) reader.offset(p, index)] = -1;
            for (int d = dims.length - 1; d >= 0 && ++index[d] == dims[d]; d--) {
                index[d] = 0;
            }
        }
        for (Map.Entry<MemoryBuffer, long[]> e : slots.entrySet()) {
            MemorySegment s = e.getKey().segment();
            long[] v = e.getValue();
            for (int slot = 0; slot < v.length; slot++) {
                if (v[slot] == 0) {
                    // Never zero: a slot packed back from an unwritten mark would read 0.
                    v[slot] = 1 + r.nextInt(low);
                    int shift = slot % perByte * bits;
                    byte old = s.get(ValueLayout.JAVA_BYTE, slot / perByte);
                    s.set(ValueLayout.JAVA_BYTE, slot / perByte, (byte) (old & ~(low << shift) | v[slot] << shift));
                }
            }
        }
        return slots;
    }

    /** Every slot the view writes holds the source's value, every other one the writer's, whole buffers. */
    private static void assertExpected(TensorView src, TensorView dst, Map<MemoryBuffer, long[]> writer, String what) {
        int bits = dst.access().storageBits();
        int perByte = 8 / bits;
        int low = (1 << bits) - 1;
        ViewReader reader = ViewReader.of(dst.map());
        long[] dims = Extents.toArray(dst.dims());
        long[] index = new long[dims.length];
        Map<MemoryBuffer, long[]> want = new IdentityHashMap<>();
        for (Map.Entry<MemoryBuffer, long[]> e : writer.entrySet()) {
            want.put(e.getKey(), e.getValue().clone());
        }
        for (long n = 0; n < dst.elementCount(); n++) {
            int p = reader.pieceOf(index);
            TensorElements e = TensorElements.of(src);
            long value = (src.dtype() == DType.F32 ? (long) e.getDouble(index) : e.getLong(index)) & low;
            want.get(dst.map().pieces().get(p).buffer())[(int) reader.offset(p, index)] = value;
            for (int d = dims.length - 1; d >= 0 && ++index[d] == dims[d]; d--) {
                index[d] = 0;
            }
        }
        int written = 0;
        for (Map.Entry<MemoryBuffer, long[]> e : want.entrySet()) {
            long[] v = e.getValue();
            byte[] expected = new byte[(int) e.getKey().byteSize()];
            for (int slot = 0; slot < v.length; slot++) {
                assertTrue(v[slot] >= 0, what);
                expected[slot / perByte] |= (byte) (v[slot] << (slot % perByte * bits));
            }
            for (long[] w : List.of(writer.get(e.getKey()))) {
                for (long x : w) {
                    written += x < 0 ? 1 : 0;
                }
            }
            assertArrayEquals(expected, bytes(e.getKey()), what);
        }
        assertEquals(dst.elementCount(), written, what + ": the brute force found a slot per element");
    }

    /** A dense source of {@code dst}'s dims, values in the packed type's range. */
    private TensorView source(Random r, TensorView dst, DType type) {
        long n = dst.elementCount();
        TensorView v = TensorView.of(allocator.allocate(n * type.byteWidth()), type + dims(dst) + "{" + minorToMajor(dst) + "}");
        DType t = dst.dtype();
        long lo = t.kind() == DType.Kind.SIGNED ? -(1L << (t.bitWidth() - 1)) : 0;
        long span = 1L << t.bitWidth();
        long[] dims = Extents.toArray(dst.dims());
        long[] index = new long[dims.length];
        TensorElements e = TensorElements.of(v);
        for (long k = 0; k < n; k++) {
            long value = lo + r.nextInt((int) span);
            if (type == DType.F32) {
                e.setDouble(value, index);
            } else {
                e.setLong(value, index);
            }
            for (int d = dims.length - 1; d >= 0 && ++index[d] == dims[d]; d--) {
                index[d] = 0;
            }
        }
        return v;
    }

    private static String dims(TensorView v) {
        return v.dims().toString().replace(" ", "");
    }

    private static String minorToMajor(TensorView v) {
        List<String> m = new ArrayList<>();
        for (int d = v.dims().size() - 1; d >= 0; d--) {
            m.add(Integer.toString(d));
        }
        return String.join(",", m);
    }

    private MemoryBuffer random(Random r, long bytes) {
        MemoryBuffer b = allocator.allocate(bytes);
        for (long k = 0; k < bytes; k++) {
            b.segment().set(ValueLayout.JAVA_BYTE, k, (byte) r.nextInt(256));
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
}
