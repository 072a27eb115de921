package dev.tensorbuf.ops.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.quant.internal.BlockKernels;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.BlockType;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each op of {@link BlockTensor}, dequantized into f32, bf16, transposed and tiled layouts, equals
 * the same op on the whole tensor dequantized to f32 (a view the copy engine then copies into the
 * same layout): the ops move no bytes and pick the same values.
 */
class BlockTensorTest {
    private static final List<String> LAYOUTS = List.of("f32[%s]{%s}", "bf16[%s]{%s}", "f16[%s]{%s}");
    private Allocator arena;
    private MemoryBuffer bytes;
    private BlockTensor q;
    private TensorView reference;

    @BeforeEach
    void setUp() {
        arena = Allocators.confined();
        long seed = Long.getLong("tensorbuf.seed", 38);
        System.out.println("BlockTensorTest seed " + seed);
        Random random = new Random(seed);
        for (BlockType type : List.of(BlockType.Q4_K)) {
            long[] dims = {3, 5, 512};
            bytes = arena.allocate(type.byteSize(3 * 5 * 512));
            for (long i = 0; i < bytes.byteSize(); i++) {
                bytes.segment().set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
            }
            // Finite scales, so that every value compares as a number.
            for (long b = 0; b < bytes.byteSize() / type.blockBytes(); b++) {
                for (int at : new int[] {0, 2}) {
                    bytes.segment().set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN),
                            b * type.blockBytes() + at, Float.floatToFloat16(random.nextFloat() - 0.5f));
                }
            }
            q = BlockTensor.of(bytes, type, dims);
            MemoryBuffer f32 = arena.allocate(4L * 3 * 5 * 512);
            BlockKernels.defaults().dequantize(type, bytes.segment(), 0, f32.segment(), 0, 3 * 5 * 2);
            reference = TensorView.of(f32, ArrayShape.of(DType.F32, dims));
        }
    }

    @AfterEach
    void tearDown() {
        arena.close();
    }

    /** Dequantizes {@code t} into each layout and compares with {@code expected} copied into the same layout. */
    private void assertDequantizes(TensorView expected, BlockTensor t) {
        assertEquals(expected.dims(), t.dims());
        int r = t.rank();
        String dims = String.join(",", t.dims().stream().map(String::valueOf).toList());
        String rowMajor = String.join(",", java.util.stream.IntStream.range(0, r).map(i -> r - 1 - i).mapToObj(String::valueOf).toList());
        String colMajor = String.join(",", java.util.stream.IntStream.range(0, r).mapToObj(String::valueOf).toList());
        for (String pattern : LAYOUTS) {
            for (String order : List.of(rowMajor, colMajor, rowMajor + ":T(8,128)")) {
                String shape = String.format(pattern, dims, order);
                TensorView want = TensorView.of(arena.allocate(ArrayShape.parse(shape).arraySize() + 1), shape);
                TensorView got = TensorView.of(arena.allocate(ArrayShape.parse(shape).arraySize() + 1), shape);
                CopyEngine.defaults().copy(expected, want);
                t.dequantize(got);
                long[] index = new long[r];
                do {
                    float w = TensorElements.of(want).getFloat(index);
                    float g = TensorElements.of(got).getFloat(index);
                    if (Float.floatToRawIntBits(w) != Float.floatToRawIntBits(g)) {
                        throw new AssertionError(t + " into " + shape + " at " + Arrays.toString(index) + ": got " + g
                                + ", expected " + w);
                    }
                } while (next(index, t.dims()));
            }
        }
    }

    private static boolean next(long[] index, List<Long> dims) {
        for (int d = index.length - 1; d >= 0; d--) {
            if (++index[d] < dims.get(d)) {
                return true;
            }
            index[d] = 0;
        }
        return false;
    }

    private static long[] ones(int r) {
        long[] a = new long[r];
        Arrays.fill(a, 1);
        return a;
    }

    @Test
    void wholeTensorDequantizesIntoEveryLayout() {
        assertDequantizes(reference, q);
    }

    @Test
    void slicesOfOuterDimsAndWholeBlocksAreValues() {
        assertDequantizes(Ops.slice(reference, new long[] {1, 0, 0}, new long[] {3, 5, 512}, ones(3)), q.slice(0, 1, 3));
        assertDequantizes(Ops.slice(reference, new long[] {0, 2, 256}, new long[] {3, 4, 512}, ones(3)),
                q.slice(1, 2, 4).slice(2, 256, 512));
    }

    @Test
    void slicesInsideBlocksAreReadThroughTheirBlocks() {
        // Inside one block, across a block boundary, from a boundary, to a boundary, and one value.
        for (long[] range : new long[][] {{37, 100}, {100, 300}, {256, 301}, {3, 256}, {255, 256}, {0, 512}}) {
            BlockTensor window = q.slice(2, range[0], range[1]);
            TensorView expected = Ops.slice(reference, new long[] {0, 0, range[0]}, new long[] {3, 5, range[1]}, ones(3));
            assertDequantizes(expected, window);
            assertEquals(TensorElements.of(expected).getFloat(2, 4, range[1] - range[0] - 1), window.getFloat(2, 4, range[1] - range[0] - 1));
        }
        // Ops on a window: another inner slice (offsets add up inside the block), outer slices,
        // selects, transposes and concatenation along an outer dim.
        BlockTensor window = q.slice(2, 100, 400);
        TensorView rw = Ops.slice(reference, new long[] {0, 0, 100}, new long[] {3, 5, 400}, ones(3));
        assertDequantizes(Ops.slice(rw, new long[] {0, 0, 180}, new long[] {3, 5, 290}, ones(3)), window.slice(2, 180, 290));
        assertDequantizes(Ops.slice(rw, new long[] {1, 2, 7}, new long[] {3, 4, 9}, ones(3)),
                window.slice(0, 1, 3).slice(1, 2, 4).slice(2, 7, 9));
        assertDequantizes(Ops.reshape(Ops.slice(rw, new long[] {1, 0, 0}, new long[] {2, 5, 300}, ones(3)), 5, 300),
                window.select(0, 1));
        assertDequantizes(Ops.transpose(rw, 1, 0, 2), window.transpose(1, 0, 2));
        BlockTensor cat = BlockTensor.concatenate(0, List.of(window.slice(0, 2, 3), q.slice(2, 100, 400).slice(0, 0, 2)));
        assertDequantizes(Ops.concatenate(0, List.of(Ops.slice(rw, new long[] {2, 0, 0}, new long[] {3, 5, 300}, ones(3)),
                Ops.slice(rw, new long[] {0, 0, 0}, new long[] {2, 5, 300}, ones(3)))), cat);
        Random random = new Random(38);
        for (int i = 0; i < 200; i++) {
            long[] at = {random.nextInt(3), random.nextInt(5), random.nextInt(300)};
            assertEquals(Float.floatToRawIntBits(TensorElements.of(rw).getFloat(at)), Float.floatToRawIntBits(window.getFloat(at)),
                    Arrays.toString(at));
        }
        assertEquals("reshape of Q4_K[3, 5, 300] to [15, 300]: its rows are slices inside 256-value blocks, so the outer"
                + " dims have no dense strides; reshape before slicing the innermost dim",
                assertThrows(IllegalArgumentException.class, () -> window.reshape(15, 300)).getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> window.getFloat(0, 0, 300));
    }

    @Test
    void selectingOneExpertDropsTheDim() {
        BlockTensor expert = q.select(0, 2);
        assertEquals(List.of(5L, 512L), expert.dims());
        assertDequantizes(Ops.reshape(Ops.slice(reference, new long[] {2, 0, 0}, new long[] {3, 5, 512}, ones(3)), 5, 512),
                expert);
    }

    @Test
    void transposesAndReshapesOfOuterDims() {
        assertDequantizes(Ops.transpose(reference, 1, 0, 2), q.transpose(1, 0, 2));
        assertDequantizes(Ops.reshape(reference, 15, 512), q.reshape(15, 512));
        assertDequantizes(Ops.reshape(Ops.slice(reference, new long[] {1, 0, 0}, new long[] {3, 5, 512}, ones(3)), 10, 512),
                q.slice(0, 1, 3).reshape(10, 512));
        assertThrows(IllegalArgumentException.class, () -> q.transpose(2, 1, 0));
        assertEquals("reshape of Q4_K[5, 3, 512] to [15, 512]: outer dim 1 has byte stride 1440, not the dense 288 a"
                + " reshape needs", assertThrows(IllegalArgumentException.class,
                        () -> q.transpose(1, 0, 2).reshape(15, 512)).getMessage());
    }

    @Test
    void concatenationAlongOuterDimsAndOpsOnIt() {
        BlockTensor a = q.slice(1, 0, 2);
        BlockTensor b = q.slice(1, 3, 5);
        BlockTensor cat = BlockTensor.concatenate(1, List.of(b, a));
        assertEquals(2, cat.partCount());
        TensorView ra = Ops.slice(reference, new long[] {0, 0, 0}, new long[] {3, 2, 512}, ones(3));
        TensorView rb = Ops.slice(reference, new long[] {0, 3, 0}, new long[] {3, 5, 512}, ones(3));
        TensorView rcat = Ops.concatenate(1, List.of(rb, ra));
        assertDequantizes(rcat, cat);
        assertDequantizes(Ops.slice(rcat, new long[] {0, 1, 0}, new long[] {3, 3, 512}, ones(3)), cat.slice(1, 1, 3));
        assertDequantizes(Ops.transpose(rcat, 1, 0, 2), cat.transpose(1, 0, 2));
        assertThrows(IllegalArgumentException.class, () -> BlockTensor.concatenate(2, List.of(a, b)));
    }

    @Test
    void typesWithoutReferenceAreRefusedWhenRead() {
        BlockTensor iq = BlockTensor.of(bytes, BlockType.Q8_K, 2, 256);
        assertEquals(List.of(256L), iq.select(0, 1).dims(), "ops take any block type; only reading needs a reference");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> iq.dequantize(TensorView.of(arena.allocate(4 * 512), "f32[2,256]")));
        assertEquals(true, e.getMessage().startsWith("cannot dequantize Q8_K"), e.getMessage());
    }
}
