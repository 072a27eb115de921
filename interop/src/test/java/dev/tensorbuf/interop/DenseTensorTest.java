package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DenseTensorTest {
    @TempDir
    Path dir;

    @Test
    void exampleFromJavadoc() throws IOException {
        try (Allocator arena = Allocators.confined()) {
            TensorView a = TensorView.of(arena.allocate(24), "f32[2,3]{1,0}");
            TensorElements.of(a).copyFrom(new float[] {0, 1, 2, 3, 4, 5});
            assertEquals("f32[2, 3] (24 bytes)", DenseTensor.of(a).toString());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> DenseTensor.of(Ops.transpose(a, 1, 0)));
            assertEquals("f32[3,2] strides [1, 3] is not C order: its strides are not the row-major [2, 1], so its"
                    + " buffer's bytes are not this tensor's; DenseTensor.copyOf(view, allocator) copies it into C order",
                    e.getMessage());
            Path file = dir.resolve("t.npy");
            Npy.write(file, DenseTensor.copyOf(Ops.transpose(a, 1, 0), arena));
            try (Npy.Tensor t = Npy.map(file)) {
                assertEquals(List.of(3L, 2L), t.shape());
                assertArrayEquals(new float[] {0, 3, 1, 4, 2, 5},
                        t.data().segment().toArray(ValueLayout.JAVA_FLOAT_UNALIGNED));
            }
        }
    }

    @Test
    void reversedAndSteppedViewsAreRefusedAndCopiedRight() throws IOException {
        try (Allocator arena = Allocators.confined()) {
            TensorView a = TensorView.of(arena.allocate(24), "s32[2,3]{1,0}");
            TensorElements.of(a).copyFrom(new int[] {0, 1, 2, 3, 4, 5});
            TensorView reversed = Ops.reverse(a, 1);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DenseTensor.of(reversed));
            assertTrue(e.getMessage().contains("strides [3, -1] offset 2 is not C order: its strides are not the row-major [3, 1]"), e.getMessage());
            TensorView stepped = Ops.slice(a, new long[] {0, 0}, new long[] {2, 3}, new long[] {1, 2});
            assertThrows(IllegalArgumentException.class, () -> DenseTensor.of(stepped));
            SafetensorsFile.write(dir.resolve("r.safetensors"),
                    Map.of("r", DenseTensor.copyOf(reversed, arena), "s", DenseTensor.copyOf(stepped, arena)));
            try (SafetensorsFile f = SafetensorsFile.open(dir.resolve("r.safetensors"))) {
                assertArrayEquals(new int[] {2, 1, 0, 5, 4, 3},
                        f.tensor("r").data().segment().toArray(ValueLayout.JAVA_INT_UNALIGNED));
                assertArrayEquals(new int[] {0, 2, 3, 5},
                        f.tensor("s").data().segment().toArray(ValueLayout.JAVA_INT_UNALIGNED));
            }
        }
    }

    @Test
    void contiguousSliceIsWrappedWithoutACopy() {
        try (Allocator arena = Allocators.confined()) {
            TensorView a = TensorView.of(arena.allocate(48), "f32[4,3]{1,0}");
            TensorElements.of(a).copyFrom(new float[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
            DenseTensor rows = DenseTensor.of(Ops.slice(a, new long[] {1, 0}, new long[] {3, 3}, new long[] {1, 1}));
            assertEquals(a.buffer().segment().address() + 12, rows.bytes().address());
            assertArrayEquals(new float[] {3, 4, 5, 6, 7, 8}, rows.bytes().toArray(ValueLayout.JAVA_FLOAT_UNALIGNED));
            // Column 1 alone is [4, 1] with strides [3, 1]: a dim of size 1 may have any stride, but rows of 3 apart are not C order.
            assertThrows(IllegalArgumentException.class,
                    () -> DenseTensor.of(Ops.slice(a, new long[] {0, 1}, new long[] {4, 2}, new long[] {1, 1})));
            // Row 2 alone is [1, 3]: its outer stride 3 is not the packed 3 of a size-1 dim, and does not matter.
            DenseTensor row = DenseTensor.of(Ops.slice(a, new long[] {2, 0}, new long[] {3, 3}, new long[] {1, 1}));
            assertArrayEquals(new float[] {6, 7, 8}, row.bytes().toArray(ValueLayout.JAVA_FLOAT_UNALIGNED));
        }
    }

    @Test
    void subByteViewsMustBePackedAndStartOnAByte() {
        try (Allocator arena = Allocators.confined()) {
            TensorView packed = TensorView.strided(arena.allocate(3), ElementAccess.packed(DType.S4), StridedLayout.packed(2, 3));
            TensorElements.of(packed).copyFrom(new long[] {1, -2, 3, -4, 5, -6});
            DenseTensor t = DenseTensor.of(packed);
            assertEquals(3, t.bytes().byteSize());
            assertEquals((byte) 0xe1, t.bytes().get(ValueLayout.JAVA_BYTE, 0));
            TensorView unpacked = TensorView.strided(arena.allocate(6), DType.S4, StridedLayout.packed(2, 3));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DenseTensor.of(unpacked));
            assertTrue(e.getMessage().contains("its s4 elements are stored one to a byte, and C-order s4 data are packed,"
                    + " 2 to a byte"), e.getMessage());
            DenseTensor copied = DenseTensor.copyOf(unpacked, arena);
            assertEquals(3, copied.bytes().byteSize());
            TensorView odd = TensorView.strided(arena.allocate(4), ElementAccess.packed(DType.S4),
                    StridedLayout.of(new long[] {2}, new long[] {1}, 1));
            e = assertThrows(IllegalArgumentException.class, () -> DenseTensor.of(odd));
            assertTrue(e.getMessage().contains("it starts at element 1, bit 4 of a byte"), e.getMessage());
        }
    }

    @Test
    void tiledViewIsRefusedWithTheReasonAndCopiedToCOrder() {
        try (Allocator arena = Allocators.confined()) {
            TensorView tiled = TensorView.of(arena.allocate(96), "f32[3,5]{1,0:T(2,2)}");
            float[] values = new float[15];
            for (int i = 0; i < 15; i++) {
                values[i] = i;
            }
            TensorElements.of(tiled).copyFrom(values);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DenseTensor.of(tiled));
            assertTrue(e.getMessage().contains("is not C order: it is not one buffer read through strides ("), e.getMessage());
            assertArrayEquals(values, DenseTensor.copyOf(tiled, arena).bytes().toArray(ValueLayout.JAVA_FLOAT_UNALIGNED));
        }
    }

    /** XLA packs s4[3] into 2 bytes, the last one's high bits zero; a count that does not fill whole bytes is a tensor too. */
    @Test
    void oddCountsOfSubByteElementsTakeTheirBytesRoundedUp() throws IOException {
        // int4 [1, -2, 7]: e1 07; the example of the class comment.
        DenseTensor three = new DenseTensor(DType.S4, List.of(3L), java.lang.foreign.MemorySegment.ofArray(
                new byte[] {(byte) 0xe1, 0x07}));
        assertEquals(3, three.elementCount());
        Path file = dir.resolve("s4.npy");
        Npy.write(file, three);
        byte[] all = java.nio.file.Files.readAllBytes(file);
        assertArrayEquals(new byte[] {0x01, 0x0e, 0x07}, java.util.Arrays.copyOfRange(all, all.length - 3, all.length));
        try (Npy.Tensor back = Npy.map(file, DType.S4)) {
            assertEquals(List.of(3L), back.shape());
            assertArrayEquals(new long[] {1, -2, 7}, TensorElements.of(back.view()).toLongArray());
        }
        IllegalArgumentException tooShort = assertThrows(IllegalArgumentException.class, () -> new DenseTensor(DType.U2,
                List.of(5L), java.lang.foreign.MemorySegment.ofArray(new byte[1])));
        assertEquals("u2[5] needs 2 bytes: u2 elements are held packed, 4 to a byte (first element in the low bits, the"
                + " last byte's unused high bits zero); the data has 1", tooShort.getMessage());
        // Copies pack into ceil(n * bits / 8) bytes and zero the unused bits, even over a pool's dirty memory.
        try (dev.tensorbuf.memory.PooledAllocator pool = dev.tensorbuf.memory.PooledAllocator.builder().build()) {
            for (dev.tensorbuf.memory.MemoryBuffer dirty : List.of(pool.allocate(64), pool.allocate(64))) {
                dirty.segment().fill((byte) 0xff);
                dirty.close(); // back to the pool, dirty, for the next two allocations
            }
            dev.tensorbuf.memory.MemoryBuffer unpacked = pool.allocate(5);
            unpacked.segment().copyFrom(java.lang.foreign.MemorySegment.ofArray(new byte[] {1, 0x0e, 7, 0x08, 0x0f}));
            TensorView s4 = TensorView.strided(unpacked, ElementAccess.of(DType.S4), StridedLayout.packed(new long[] {5}));
            DenseTensor packed = DenseTensor.copyOf(s4, pool);
            assertArrayEquals(new byte[] {(byte) 0xe1, (byte) 0x87, 0x0f}, packed.bytes().toArray(ValueLayout.JAVA_BYTE));
            // A scalar s4 is one element, half a byte.
            DenseTensor scalar = DenseTensor.copyOf(TensorView.strided(unpacked.slice(1, 1), ElementAccess.of(DType.S4),
                    StridedLayout.packed(new long[0])), pool);
            assertArrayEquals(new byte[] {0x0e}, scalar.bytes().toArray(ValueLayout.JAVA_BYTE));
        }
        // A packed view of an odd count is its bytes as they are, without a copy.
        try (Allocator arena = Allocators.confined()) {
            TensorView view = TensorView.of(arena.allocate(2), "s4[3]{0:E(4)}");
            TensorElements.of(view).copyFrom(new long[] {-8, 3, -1});
            DenseTensor d = DenseTensor.of(view);
            assertArrayEquals(new byte[] {0x38, 0x0f}, d.bytes().toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void subByteBytesThatAreNotPackedSaySoAndHowToPackThem() {
        IllegalArgumentException odd = assertThrows(IllegalArgumentException.class,
                () -> new DenseTensor(DType.S4, List.of(35L), java.lang.foreign.MemorySegment.ofArray(new byte[35])));
        assertEquals("s4[35] needs 18 bytes: s4 elements are held packed, 2 to a byte (first element in the low bits, the"
                + " last byte's unused high bits zero); the data has 35, one element to a byte as ml_dtypes holds them:"
                + " DenseTensor.copyOf(TensorView.strided(buffer, DType.S4, layout), allocator) packs them", odd.getMessage());
        IllegalArgumentException unpacked = assertThrows(IllegalArgumentException.class,
                () -> new DenseTensor(DType.U2, List.of(2L, 4L), java.lang.foreign.MemorySegment.ofArray(new byte[8])));
        assertEquals("u2[2, 4] needs 2 bytes: u2 elements are held packed, 4 to a byte (first element in the low bits);"
                + " the data has 8, one element to a byte as ml_dtypes holds them: DenseTensor.copyOf(TensorView.strided("
                + "buffer, DType.U2, layout), allocator) packs them", unpacked.getMessage());
        IllegalArgumentException short1 = assertThrows(IllegalArgumentException.class,
                () -> new DenseTensor(DType.S4, List.of(4L), java.lang.foreign.MemorySegment.ofArray(new byte[1])));
        assertEquals("s4[4] needs 2 bytes: s4 elements are held packed, 2 to a byte (first element in the low bits); the"
                + " data has 1", short1.getMessage());
    }

    @Test
    void emptyViewBecomesAnEmptyTensor() {
        try (Allocator arena = Allocators.confined()) {
            TensorView empty = TensorView.of(arena.allocate(1), "f32[0,3]{1,0}");
            assertEquals(0, DenseTensor.of(empty).bytes().byteSize());
            assertEquals(0, DenseTensor.copyOf(Ops.transpose(empty, 1, 0), arena).bytes().byteSize());
        }
    }
}
