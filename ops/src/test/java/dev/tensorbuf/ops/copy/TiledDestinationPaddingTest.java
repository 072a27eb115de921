package dev.tensorbuf.ops.copy;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.MapForm;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Review: a copy into a view made from a tiled shape zeroed its padding, but into the same memory
 * reached through ops ({@code transpose(transpose(t))}, or {@code transpose(t)} with the source
 * transposed alike) it left the padding bytes as they were. A destination whose map form is a
 * whole tiled layout ({@link MapForm.Tiled#xlaShape}, recovered from the map) is written through
 * that layout: every way of making it gives the bytes of the direct copy. A tiled shape whose map
 * is strides ({@code T(1,128)} rows, {@code T(2,4)} over a dimension of 3) is a strided view, whose
 * gaps its map cannot tell from another array's elements; the view knows it is its buffer's whole
 * layout, and every way zeroes them too.
 */
class TiledDestinationPaddingTest {
    private static final List<String> SHAPES = List.of("f32[3,5]{1,0:T(2,2)}", "f32[3,5]{0,1:T(2,2)}",
            "bf16[3,5]{1,0:T(2,4)(2,1)}", "bf16[3,5]{1,0:T(1,128)}", "u8[5,3]{1,0:T(4,4)(2,1)}",
            "s4[3,5]{1,0:T(2,4)E(4)}", "s4[3,5]{1,0:T(2,2)}", "f32[2,3,5]{2,1,0:T(2,2)}", "s8[3,2,5]{0,2,1:T(2,4)}",
            "f64[3,5]{1,0:T(2,4)L(16)}");

    /** A derived destination and how its source must be arranged so the bytes match the direct copy's. */
    private record Way(UnaryOperator<TensorView> destination, UnaryOperator<TensorView> source) {
    }

    private static Map<String, Way> ways(int rank) {
        int[] identity = new int[rank];
        int[] rotate = new int[rank]; // output dim i is input dim (i + 1) mod rank
        int[] back = new int[rank];
        for (int i = 0; i < rank; i++) {
            identity[i] = i;
            rotate[i] = (i + 1) % rank;
            back[(i + 1) % rank] = i;
        }
        Map<String, Way> ways = new LinkedHashMap<>();
        ways.put("direct", new Way(v -> v, v -> v));
        ways.put("transposed twice", new Way(v -> Ops.transpose(Ops.transpose(v, rotate), back), v -> v));
        ways.put("transposed", new Way(v -> Ops.transpose(v, rotate), v -> Ops.transpose(v, rotate)));
        ways.put("transposed by the identity", new Way(v -> Ops.transpose(v, identity), v -> v));
        long[] zeros = new long[rank];
        long[] ones = new long[rank];
        Arrays.fill(ones, 1);
        ways.put("sliced whole", new Way(v -> Ops.slice(v, zeros, Extents.toArray(v.dims()), ones), v -> v));
        return ways;
    }

    @Test
    void aDestinationDerivedFromATiledViewGetsTheBytesOfTheDirectCopy() {
        try (Allocator allocator = Allocators.shared()) {
            for (CopyEngine engine : List.of(CopyEngine.of(1, false), CopyEngine.of(1, true), CopyEngine.of(2, true, 0))) {
                for (String text : SHAPES) {
                    checkEveryWay(engine, allocator, ArrayShape.parse(text));
                }
            }
        }
    }

    private static void checkEveryWay(CopyEngine engine, Allocator allocator, ArrayShape shape) {
        long bytes = Math.max(shape.physicalByteSize(), shape.arraySize());
        TensorView src = TensorView.strided(allocator.allocate(4 * shape.elementCount()), DType.F32,
                StridedLayout.packed(Extents.toArray(shape.dims())));
        float[] values = new float[(int) shape.elementCount()];
        for (int i = 0; i < values.length; i++) {
            values[i] = i % 8; // whole and within s4's and u8's ranges, so every type holds them
        }
        TensorElements.of(src).copyFrom(values);
        byte[] direct = null;
        for (var way : ways(shape.rank()).entrySet()) {
            String what = shape + " " + way.getKey() + " (parallelism " + engine.parallelism() + ", vector "
                    + engine.vectorKernels() + ")";
            TensorView base = TensorView.of(allocator.allocate(bytes), shape);
            base.buffer().segment().fill((byte) 0x77);
            TensorView dst = way.getValue().destination().apply(base);
            TensorView from = way.getValue().source().apply(src);
            boolean owns = !(base.form() instanceof MapForm.Strided);
            assertEquals(owns, dst.form() instanceof MapForm.Tiled t && t.xlaShape(dst.dtype()).isPresent(),
                    what + ": a whole tiled layout, from its map");
            engine.copy(from, dst);
            // Brute force: each element where the view's own map puts it, read back through it.
            TensorElements.of(from).forEachIndex(i -> assertEquals(TensorElements.of(from).getDouble(i), TensorElements.of(dst).getDouble(i), 0.0,
                    () -> what + ": element " + Arrays.toString(i)));
            byte[] memory = base.buffer().segment().toArray(ValueLayout.JAVA_BYTE);
            // Strides with gaps are owned too, read whole however the view was made: rows padded
            // (T(1,128)) and strides padded in two dims (s8[3,2,5]{0,2,1:T(2,4)}).
            boolean rows = !owns && shape.requireLayout().elementSizeInBits() == 0;
            if (direct == null) {
                if (owns || rows) {
                    checkSlotsNotElementsAreZero(shape, memory, what);
                } else {
                    checkSlotsNotElementsAreUntouched(shape, memory, what);
                }
                direct = memory;
            } else {
                assertEquals(HexFormat.of().formatHex(direct), HexFormat.of().formatHex(memory),
                        what + ": the bytes of the direct copy");
            }
        }
    }

    /** Every byte of every whole-byte slot that holds no element is as it was (0x77). */
    private static void checkSlotsNotElementsAreUntouched(ArrayShape shape, byte[] memory, String what) {
        long bytes = shape.requireLayout().elementSizeInBits() != 0 ? 0 : shape.dtype().byteWidth();
        assertTrue(bytes > 0, what + ": whole-byte slots");
        long gaps = 0;
        for (long slot = 0; slot < shape.physicalElementCount(); slot++) {
            if (shape.logicalIndex(slot).isPresent()) {
                continue;
            }
            gaps++;
            for (long b = slot * bytes; b < (slot + 1) * bytes; b++) {
                assertEquals((byte) 0x77, memory[(int) b], what + ": gap slot " + slot);
            }
        }
        assertTrue(gaps > 0, what + ": has gaps to check");
    }

    /** Every bit of every slot that holds no element is zero (tile padding). */
    private static void checkSlotsNotElementsAreZero(ArrayShape shape, byte[] memory, String what) {
        long bits = shape.requireLayout().elementSizeInBits() != 0 ? shape.requireLayout().elementSizeInBits()
                : 8L * shape.dtype().byteWidth();
        long padding = 0;
        for (long slot = 0; slot < shape.physicalElementCount(); slot++) {
            if (shape.logicalIndex(slot).isPresent()) {
                continue;
            }
            padding++;
            for (long bit = slot * bits; bit < (slot + 1) * bits; bit++) {
                long at = bit;
                assertEquals(0, (memory[(int) (at / 8)] >> (at % 8)) & 1,
                        () -> what + ": padding slot " + at / bits + " holds " + memory[(int) (at / 8)]);
            }
        }
        assertTrue(padding > 0, what + ": has padding to check");
    }
}
