package dev.tensorbuf.ops.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.PooledAllocator;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A copy into a view that is its buffer's whole XLA layout writes the layout's every byte: the
 * elements where XLA's {@code LinearIndexForNestedTiling} puts them ({@link ArrayShape#linearIndex},
 * the brute-force reference here), zero in every other byte of the layout (tile padding, rows
 * padded by strides in one dim or several, tail padding {@code L(n)}), and nothing past the
 * layout in a longer buffer. Two forms the map alone cannot tell: a map that also reads as a
 * smaller layout ({@code bf16[3,9]{1,0:T(8,128)(2,1)}}: three rows read like {@code T(4,128)(2,1)},
 * half the bytes), and strides padded in two dims ({@code s8[3,2,5]{0,2,1:T(2,4)}}). Each buffer
 * starts as 0xFF.
 */
class OwnedPaddingTest {
    @ArenaPerTest
    private Allocator arena;
    private final CopyEngine engine = CopyEngine.of(1);

    /** {@return a dense f32 view of {@code dims} holding 1 to 97 in row-major order: exact in bf16 and s8} */
    private TensorView counting(List<Long> dims) {
        long n = dims.stream().reduce(1L, Math::multiplyExact);
        TensorView v = TensorView.of(arena.allocate(Math.max(1, n * 4)), "f32" + dims.toString().replace(" ", ""));
        long[] k = {0};
        TensorElements.of(v).forEachIndex(i -> TensorElements.of(v).setDouble(k[0]++ % 97 + 1, i));
        return v;
    }

    /** {@return the bytes the layout owns: its slots, or XLA's ArraySize when larger} */
    private static long owned(ArrayShape shape) {
        return Math.max(shape.physicalByteSize(), shape.arraySize());
    }

    /**
     * {@return what {@code buffer} must hold after {@code src} is copied into the view of it
     * through {@code perm} (view dim {@code k} is layout dim {@code perm[k]}): zero up to the
     * layout's end, each element at its slot, the bytes past the layout as they were (0xFF)}
     */
    private static byte[] expected(TensorView src, ArrayShape shape, int[] perm, long bufferBytes) {
        byte[] out = new byte[(int) bufferBytes];
        java.util.Arrays.fill(out, (int) owned(shape), out.length, (byte) 0xFF);
        MemorySegment m = MemorySegment.ofArray(out);
        ElementAccess access = ElementAccess.of(shape);
        TensorElements.of(src).forEachIndex(i -> {
            long[] at = new long[i.length];
            for (int k = 0; k < i.length; k++) {
                at[perm[k]] = i[k];
            }
            access.setDouble(m, shape.linearIndex(at), TensorElements.of(src).getDouble(i));
        });
        return out;
    }

    private static int[] identity(int rank) {
        int[] p = new int[rank];
        for (int k = 0; k < rank; k++) {
            p[k] = k;
        }
        return p;
    }

    /** Copies into {@code shape} (through {@code perm}) in a 0xFF buffer {@code extra} bytes longer, checks every byte, returns the plan. */
    private CopyPlan.Explanation copyAndCheck(ArrayShape shape, int[] perm, long extra) {
        long bytes = owned(shape) + extra;
        MemoryBuffer out = arena.allocate(bytes);
        out.segment().fill((byte) 0xFF);
        TensorView whole = TensorView.of(out, shape);
        TensorView dst = java.util.Arrays.equals(perm, identity(perm.length)) ? whole : Ops.transpose(whole, perm);
        for (int k = 0; k < perm.length; k++) {
            assertEquals(shape.dims().get(perm[k]), dst.dims().get(k), "transpose semantics");
        }
        TensorView src = counting(dst.dims());
        CopyPlan.Explanation plan = engine.explain(src, dst);
        engine.copy(src, dst);
        assertEquals(HexFormat.of().formatHex(expected(src, shape, perm, bytes)),
                HexFormat.of().formatHex(out.segment().toArray(ValueLayout.JAVA_BYTE)),
                shape + " through " + java.util.Arrays.toString(perm) + ", " + extra + " bytes past the layout\n" + plan);
        return plan;
    }

    @Test
    void aMapThatAlsoReadsAsASmallerLayoutHasAllItsLayoutsPaddingZeroed() {
        ArrayShape shape = ArrayShape.parse("bf16[3,9]{1,0:T(8,128)(2,1)}");
        assertEquals(2048, owned(shape));
        for (long extra : new long[] {0, 2048}) {
            CopyPlan.Explanation plan = copyAndCheck(shape, identity(2), extra);
            assertEquals(CopyPlan.Explanation.Route.PLANNED, plan.route(), plan.toString());
            // The map reads as a layout of 1,024 bytes: slots 512 to 1,023 (bf16) are zeroed as its tail.
            assertTrue(plan.toString().contains("zero: dst +512, loops [512: 1]"), plan.toString());
        }
        copyAndCheck(shape, new int[] {1, 0}, 0);
    }

    @Test
    void stridesPaddedInTwoDimsHaveBothGapsZeroed() {
        // The last: elements two slots apart (the (2,1) sub-tiles pair a size-1 dim's padding with them).
        for (String text : new String[] {"s8[3,2,5]{0,2,1:T(2,4)}", "f32[5,3,2]{2,1,0:T(4,4)}", "bf16[2,3,5]{2,1,0:T(4,8)}",
                "bf16[6,10,1]{1,2,0:T(4,16)(2,1)}"}) {
            ArrayShape shape = ArrayShape.parse(text);
            for (long extra : new long[] {0, 64}) {
                CopyPlan.Explanation plan = copyAndCheck(shape, identity(3), extra);
                assertEquals(CopyPlan.Explanation.Route.PLANNED, plan.route(), plan.toString());
                assertTrue(plan.toString().contains("zero: "), plan.toString());
            }
            copyAndCheck(shape, new int[] {2, 0, 1}, 0);
        }
    }

    @Test
    void randomTiledLayoutsOwnExactlyTheirPadding() {
        Random random = new Random(36);
        String[] types = {"f32", "bf16", "s8"};
        int checked = 0;
        int zeroing = 0;
        for (int round = 0; round < 400 && checked < 150; round++) {
            int rank = 1 + random.nextInt(3);
            List<Long> dims = new ArrayList<>();
            for (int k = 0; k < rank; k++) {
                dims.add(1L + random.nextInt(11));
            }
            String type = types[random.nextInt(types.length)];
            List<Integer> order = new ArrayList<>();
            for (int k = 0; k < rank; k++) {
                order.add(k);
            }
            java.util.Collections.shuffle(order, random);
            String tiles = tiles(random, rank, type);
            String text = type + dims.toString().replace(" ", "") + "{"
                    + order.toString().replace(" ", "").replace("[", "").replace("]", "") + tiles + "}";
            ArrayShape shape;
            try {
                shape = ArrayShape.parse(text);
                owned(shape);
            } catch (IllegalArgumentException notXla) {
                continue; // a tiling XLA refuses: not a case
            }
            int[] perm = identity(rank);
            if (rank > 1 && random.nextBoolean()) {
                perm = rank == 2 ? new int[] {1, 0} : new int[] {2, 0, 1};
            }
            CopyPlan.Explanation plan = copyAndCheck(shape, perm, random.nextBoolean() ? 0 : 8 * (1 + random.nextInt(8)));
            assertTrue(plan.route() != CopyPlan.Explanation.Route.ELEMENTS, text + "\n" + plan);
            long elementBytes = shape.dims().stream().reduce(1L, Math::multiplyExact) * shape.dtype().byteWidth();
            if (owned(shape) > elementBytes) {
                assertTrue(plan.toString().contains("zero: ") || plan.zeroedBytes() > 0, text + " has padding\n" + plan);
                zeroing++;
            }
            checked++;
        }
        assertTrue(checked >= 100 && zeroing >= 50, checked + " layouts checked, " + zeroing + " with padding");
    }

    /** A random tiling for {@code rank} dims of {@code type}, as layout text after the order; empty for none. */
    private static String tiles(Random random, int rank, String type) {
        int[] small = {1, 2, 3, 4, 8};
        return switch (random.nextInt(rank > 1 ? 6 : 3)) {
            case 0 -> "";
            case 1 -> ":T(" + small[1 + random.nextInt(4)] + ")";
            case 2 -> ":T(" + small[1 + random.nextInt(4)] + ")L(" + (16 << random.nextInt(3)) + ")";
            case 3 -> ":T(1," + (8 + random.nextInt(9)) + ")"; // rows padded by strides
            case 4 -> ":T(" + small[1 + random.nextInt(4)] + "," + small[1 + random.nextInt(4)] + ")"; // both dims
            default -> ":T(" + (2 << random.nextInt(3)) + "," + (4 << random.nextInt(5)) + ")"
                    + (type.equals("bf16") ? "(2,1)" : type.equals("s8") ? "(4,1)" : "");
        };
    }

    @Test
    void materializeGivesTheSameBytesFromAPoolsDirtyMemory() {
        for (String text : new String[] {"bf16[3,9]{1,0:T(8,128)(2,1)}", "s8[3,2,5]{0,2,1:T(2,4)}", "f32[3,5]{1,0:T(1,8)}",
                "f32[3]{0:T(2)L(16)}", "bf16[6,10,1]{1,2,0:T(4,16)(2,1)}"}) {
            ArrayShape shape = ArrayShape.parse(text);
            long bytes = owned(shape);
            try (PooledAllocator pool = PooledAllocator.builder().name("dirty").build()) {
                try (MemoryBuffer dirty = pool.allocate(bytes)) {
                    dirty.segment().fill((byte) 0xFF);
                }
                TensorView src = counting(shape.dims());
                TensorView made = engine.materialize(src, shape, pool);
                try (MemoryBuffer buffer = made.buffer()) {
                    assertEquals(1, pool.stats().reuses(), text + ": the dirty block was reused");
                    assertEquals(HexFormat.of().formatHex(expected(src, shape, identity(shape.rank()), bytes)),
                            HexFormat.of().formatHex(buffer.segment().asSlice(0, bytes).toArray(ValueLayout.JAVA_BYTE)), text);
                }
            }
        }
    }
}
