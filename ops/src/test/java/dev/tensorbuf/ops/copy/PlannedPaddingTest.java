package dev.tensorbuf.ops.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.internal.ViewAdapter;
import dev.tensorbuf.ops.quant.BlockTensor;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.BlockType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * The padding a destination's layout owns is zeroed by a step of the plan, whichever way the plan
 * is made: a copy of views, a copy whose packed source is staged, a GGUF dequantization, a copy
 * through a temporary with a scale and bias. Each destination buffer starts as 0xFF, and every
 * byte is checked against XLA's {@code LinearIndexForNestedTiling} ({@link ArrayShape#linearIndex}):
 * the elements at their slots, zero elsewhere up to the layout's end, 0xFF past it. Packed
 * sub-byte layouts own the rest of their last byte too ({@code u2[11]{0:T(4)E(2)}}: the twelfth slot).
 */
class PlannedPaddingTest {
    @ArenaPerTest
    private Allocator arena;
    private final CopyEngine engine = CopyEngine.of(1);

    /** The value at {@code (i, j)}: small integers, exact in every type here and in Q8_0 with scale 1. */
    private static long value(long i, long j) {
        return (i * 64 + j) % 15 - 7;
    }

    private static long owned(ArrayShape shape) {
        return Math.max(shape.physicalByteSize(), shape.arraySize());
    }

    /** {@return the bytes a buffer of {@code bytes} holding {@code shape} must hold: elements by {@code at}, zero to the layout's end, 0xFF after} */
    private static byte[] expected(ArrayShape shape, long bytes, BiFunction<Long, Long, Long> at) {
        byte[] out = new byte[(int) bytes];
        java.util.Arrays.fill(out, (int) owned(shape), out.length, (byte) 0xFF);
        MemorySegment m = MemorySegment.ofArray(out);
        ElementAccess access = ElementAccess.of(shape);
        long rows = shape.dims().get(0);
        long cols = shape.rank() > 1 ? shape.dims().get(1) : 1;
        for (long i = 0; i < rows; i++) {
            for (long j = 0; j < cols; j++) {
                long slot = shape.rank() > 1 ? shape.linearIndex(i, j) : shape.linearIndex(i);
                long v = at.apply(i, j);
                if (access.storageBits() < 8) {
                    access.setBits(m, slot, v & ((1L << access.storageBits()) - 1));
                } else {
                    access.setDouble(m, slot, v);
                }
            }
        }
        return out;
    }

    /** A 0xFF buffer {@code extra} bytes longer than {@code shape}'s layout. */
    private MemoryBuffer dirty(ArrayShape shape, long extra) {
        MemoryBuffer out = arena.allocate(owned(shape) + extra);
        out.segment().fill((byte) 0xFF);
        return out;
    }

    private static String hex(MemoryBuffer b) {
        return HexFormat.of().formatHex(b.segment().toArray(ValueLayout.JAVA_BYTE));
    }

    /** {@return a dense view of {@code type} holding {@link #value}} */
    private TensorView source(String type, long rows, long cols) {
        TensorView v = TensorView.of(arena.allocate(Math.max(1, rows * cols * 4)),
                type + "[" + rows + "," + cols + "]{1,0" + (type.equals("s4") ? ":E(4)" : "") + "}");
        for (long i = 0; i < rows; i++) {
            for (long j = 0; j < cols; j++) {
                TensorElements.of(v).setDouble(value(i, j), i, j);
            }
        }
        return v;
    }

    /** {@return Q8_0 blocks of scale 1 holding {@link #value}} */
    private BlockTensor q8(long rows, long cols) {
        MemoryBuffer blocks = arena.allocate(BlockType.Q8_0.byteSize(rows * cols));
        MemorySegment s = blocks.segment();
        long at = 0;
        for (long i = 0; i < rows; i++) {
            for (long j = 0; j < cols; j += 32) {
                s.set(ValueLayout.JAVA_SHORT_UNALIGNED, at, Float.floatToFloat16(1f));
                for (int k = 0; k < 32; k++) {
                    s.set(ValueLayout.JAVA_BYTE, at + 2 + k, (byte) value(i, j + k));
                }
                at += 34;
            }
        }
        return BlockTensor.of(blocks, BlockType.Q8_0, rows, cols);
    }

    /** Every way a plan into a tiled destination is made, each checked byte for byte; the explanations, in that order. */
    private List<CopyPlan.Explanation> everyEntryPoint(String text) {
        ArrayShape shape = ArrayShape.parse(text);
        long rows = shape.dims().get(0);
        long cols = shape.dims().get(1);
        byte[] want = expected(shape, owned(shape) + 64, PlannedPaddingTest::value);
        List<CopyPlan.Explanation> explained = new ArrayList<>();

        MemoryBuffer copied = dirty(shape, 64);
        TensorView dst = TensorView.of(copied, shape);
        explained.add(engine.explain(source("f32", rows, cols), dst));
        engine.copy(source("f32", rows, cols), dst);
        assertEquals(HexFormat.of().formatHex(want), hex(copied), text + ": a copy of views\n" + explained.getLast());

        MemoryBuffer staged = dirty(shape, 64);
        TensorView packed = source("s4", rows, cols);
        TensorView into = TensorView.of(staged, shape);
        explained.add(engine.explain(packed, into));
        assertEquals(CopyPlan.Explanation.Route.STAGED, explained.getLast().route(), explained.getLast().toString());
        engine.copy(packed, into);
        assertEquals(HexFormat.of().formatHex(want), hex(staged), text + ": a staged packed source\n" + explained.getLast());

        MemoryBuffer dequantized = dirty(shape, 64);
        TensorView weights = TensorView.of(dequantized, shape);
        BlockTensor q = q8(rows, cols);
        explained.add(q.explain(weights, engine));
        q.dequantize(weights, engine);
        assertEquals(HexFormat.of().formatHex(want), hex(dequantized), text + ": a GGUF dequantization\n" + explained.getLast());

        // Over two pieces with a scale and bias: through a dense temporary, then planned into the destination.
        MemoryBuffer scaled = dirty(shape, 64);
        TensorView out = TensorView.of(scaled, shape);
        TensorView whole = source("f32", rows, cols);
        long half = cols / 2;
        TensorView joined = Ops.concatenate(1, List.of(Ops.slice(whole, new long[] {0, 0}, new long[] {rows, half},
                new long[] {1, 1}), Ops.slice(whole, new long[] {0, half}, new long[] {rows, cols}, new long[] {1, 1})));
        ChannelAffine identity = new ChannelAffine(0, Collections.nCopies((int) rows, 1f), Collections.nCopies((int) rows, 0f));
        explained.add(engine.explain(joined, out, identity));
        assertEquals(CopyPlan.Explanation.Route.THROUGH_TEMPORARY, explained.getLast().route(), explained.getLast().toString());
        engine.copy(joined, out, identity);
        assertEquals(HexFormat.of().formatHex(want), hex(scaled), text + ": through a temporary, scaled\n" + explained.getLast());
        return explained;
    }

    @Test
    void everyEntryPointPlansTheTailPastASmallerLayout() {
        // Three rows of T(8,128)(2,1) read as T(4,128)(2,1): bf16 slots 512 to 1,023 hold no element.
        for (CopyPlan.Explanation e : everyEntryPoint("bf16[3,64]{1,0:T(8,128)(2,1)}")) {
            assertTrue(e.toString().contains("zero: dst +512, loops [512: 1]"), e.toString());
            assertTrue(e.toJson().contains("{\"step\":\"zero\",\"dst_offset\":512,"), e.toJson());
        }
    }

    @Test
    void everyEntryPointZeroesTilesRowGapsAndTailPadding() {
        for (String text : List.of("f32[5,64]{1,0:T(4,128)}", "f32[3,64]{1,0:T(1,96)}", "bf16[6,32]{0,1:T(4,16)(2,1)}",
                "f32[3,32]{1,0:T(2,64)L(2048)}", "bf16[9,32]{1,0}")) {
            for (CopyPlan.Explanation e : everyEntryPoint(text)) {
                boolean padded = owned(ArrayShape.parse(text)) > ArrayShape.parse(text).dims().stream()
                        .reduce(1L, Math::multiplyExact) * ArrayShape.parse(text).dtype().byteWidth();
                assertEquals(padded, e.toString().contains("zero: "), text + "\n" + e);
            }
        }
    }

    @Test
    void aPackedLayoutOwnsTheRestOfItsLastByte() {
        ArrayShape shape = ArrayShape.parse("u2[11]{0:T(4)E(2)}");
        MemoryBuffer out = dirty(shape, 2);
        TensorView src = TensorView.of(arena.allocate(11), "u8[11]{0}");
        for (int i = 0; i < 11; i++) {
            TensorElements.of(src).setLong(i % 4, i);
        }
        engine.copy(src, TensorView.of(out, shape));
        // Slots 0-3 and 4-7 hold 0, 1, 2, 3 (first slot lowest): 0xe4; slots 8-10 hold 0, 1, 2 and slot 11 is zero.
        assertEquals("e4e424ffff", hex(out));
    }

    @Test
    void aTransposeOrReverseOfAnUntiledPackedLayoutStillOwnsTheRestOfItsLastByte() {
        // Made by stride arithmetic, which must keep the mark that the view reads the whole layout.
        ArrayShape s4 = ArrayShape.parse("s4[5,3]{0,1:E(4)}");
        MemoryBuffer nibbles = dirty(s4, 2);
        TensorView transposed = Ops.transpose(TensorView.of(nibbles, s4), 1, 0);
        TensorView src = TensorView.of(arena.allocate(15), "s8[3,5]{1,0}");
        TensorElements.of(src).forEachIndex(index -> TensorElements.of(src).setLong((index[1] + 5 * index[0]) % 8, index));
        engine.copy(src, transposed);
        // (i, j) of s4[5,3]{0,1} is slot i + 5j and holds slot % 8, low nibble first; slot 15 is zero.
        assertEquals("1032547610325406ffff", hex(nibbles));

        ArrayShape u2 = ArrayShape.parse("u2[11]{0:E(2)}");
        MemoryBuffer slots = dirty(u2, 2);
        TensorView reversed = Ops.reverse(TensorView.of(slots, u2), 0);
        TensorView from = TensorView.of(arena.allocate(11), "u8[11]{0}");
        for (int i = 0; i < 11; i++) {
            TensorElements.of(from).setLong((10 - i) % 4, i);
        }
        engine.copy(from, reversed);
        // Slot k holds k % 4, as in aPackedLayoutOwnsTheRestOfItsLastByte; the twelfth slot is zero.
        assertEquals("e4e424ffff", hex(slots));
    }

    @Test
    void randomPackedTilingsAgreeWithXlasLinearIndex() {
        Random random = new Random(3602);
        String[] types = {"s4", "u4", "u2", "u1"};
        int checked = 0;
        int tails = 0;
        for (int round = 0; round < 600 && checked < 200; round++) {
            String type = types[random.nextInt(types.length)];
            int bits = Integer.parseInt(type.substring(1));
            int rank = 1 + random.nextInt(2);
            long[] dims = new long[rank];
            for (int k = 0; k < rank; k++) {
                dims[k] = 1 + random.nextInt(13);
            }
            int[] small = {1, 2, 3, 4, 8};
            String tiles = switch (random.nextInt(4)) {
                case 0 -> "";
                case 1 -> "T(" + small[1 + random.nextInt(4)] + ")";
                case 2 -> rank > 1 ? "T(" + small[random.nextInt(5)] + "," + small[1 + random.nextInt(4)] + ")" : "T(8)";
                default -> "T(" + small[1 + random.nextInt(4)] + ")L(" + (1 << random.nextInt(4)) + ")";
            };
            String order = rank == 1 ? "0" : random.nextBoolean() ? "1,0" : "0,1";
            String text = type + java.util.Arrays.toString(dims).replace(" ", "") + "{" + order + ":" + tiles + "E(" + bits + ")}";
            ArrayShape shape;
            try {
                shape = ArrayShape.parse(text);
                owned(shape);
            } catch (IllegalArgumentException notXla) {
                continue;
            }
            long lo = type.startsWith("s") ? -(1L << (bits - 1)) : 0;
            long span = 1L << bits;
            long seed = random.nextLong();
            BiFunction<Long, Long, Long> at = (i, j) -> lo + Math.floorMod(i * 31 + j * 7 + seed, span);
            long extra = random.nextInt(3);
            byte[] want = expected(shape, owned(shape) + extra, at);
            boolean transpose = rank == 2 && random.nextBoolean();
            int reversed = random.nextBoolean() ? -1 : random.nextInt(rank);
            for (boolean elementByElement : new boolean[] {false, true}) {
                MemoryBuffer out = dirty(shape, extra);
                TensorView dst = TensorView.of(out, shape);
                TensorView turned = reversed < 0 ? dst : Ops.reverse(dst, reversed);
                TensorView view = transpose ? Ops.transpose(turned, 1, 0) : turned;
                TensorView src = TensorView.of(arena.allocate(Math.max(1, view.elementCount())),
                        "s8" + view.dims().toString().replace(" ", ""));
                TensorElements.of(src).forEachIndex(index -> {
                    long[] d = transpose ? new long[] {index[1], index[0]} : index.clone();
                    if (reversed >= 0) {
                        d[reversed] = dims[reversed] - 1 - d[reversed];
                    }
                    TensorElements.of(src).setLong(at.apply(d[0], rank > 1 ? d[1] : 0L), index);
                });
                String what = text + (reversed >= 0 ? " reversed in " + reversed : "") + (transpose ? " transposed" : "")
                        + ", " + extra + " bytes past it"
                        + (elementByElement ? ", element by element" : "");
                if (elementByElement) {
                    // As the engine: a reverse of a tiled layout is written into the layout, both sides turned.
                    ViewAdapter.Turned back = ViewAdapter.unreversed(src, view);
                    if (back == null) {
                        ViewAdapter.copyElements(src, view);
                    } else {
                        ScopedValue.where(ViewAdapter.CALLED_DESTINATION, back.dst())
                                .run(() -> ViewAdapter.copyElements(back.src(), back.dst()));
                    }
                } else {
                    CopyPlan.Explanation e = engine.explain(src, view);
                    assertEquals(CopyPlan.Explanation.Route.STAGED, e.route(), what + "\n" + e);
                    engine.copy(src, view);
                }
                assertEquals(HexFormat.of().formatHex(want), hex(out), what);
            }
            long elements = java.util.Arrays.stream(dims).reduce(1, Math::multiplyExact);
            if (elements * bits % 8 != 0 && Math.ceilDiv(elements * bits, 8) == owned(shape)) {
                tails++; // the rest of the last byte is all the padding there is
            }
            checked++;
        }
        assertTrue(checked >= 150 && tails >= 20, checked + " layouts checked, " + tails + " ending inside their last byte");
    }
}
