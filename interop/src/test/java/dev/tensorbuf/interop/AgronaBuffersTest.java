package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.internal.RestrictedNative;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaShape;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgronaBuffersTest {
    @TempDir
    Path dir;

    @Test
    void exampleFromJavadoc() {
        try (Allocator arena = Allocators.shared();
             MemoryBuffer buffer = arena.allocate(24)) {
            TensorView v = TensorView.of(buffer, "f32[2,3]{1,0}");
            TensorElements.of(v).setFloat(6.5f, 1, 2);
            MutableDirectBuffer agrona = AgronaBuffers.asMutableDirectBuffer(v);
            assertEquals(24, agrona.capacity());
            assertEquals(6.5f, agrona.getFloat(20, ByteOrder.LITTLE_ENDIAN));
            agrona.putFloat(0, 1.5f, ByteOrder.LITTLE_ENDIAN);
            assertEquals(1.5f, TensorElements.of(v).getFloat(0, 0));
            var e = assertThrows(IllegalArgumentException.class,
                    () -> AgronaBuffers.asMutableDirectBuffer(Ops.transpose(v, 1, 0)));
            assertTrue(e.getMessage().contains("is not C-contiguous: strides [1, 3], row-major strides would be [2, 1]"),
                    e.getMessage());
            assertTrue(e.getMessage().contains("StridedLayout.packed(3, 2)"), e.getMessage());
        }
    }

    @Test
    void rowSliceBridgesJustItsBytes() {
        try (Allocator arena = Allocators.shared()) {
            TensorView v = TensorView.of(arena.allocate(24), "f32[2,3]{1,0}");
            TensorElements.of(v).copyFrom(new float[] {0, 1, 2, 3, 4, 5});
            TensorView row = Ops.slice(v, new long[] {1, 0}, new long[] {2, 3}, new long[] {1, 1});
            DirectBuffer agrona = AgronaBuffers.asDirectBuffer(row);
            assertEquals(12, agrona.capacity());
            assertEquals(3f, agrona.getFloat(0, ByteOrder.LITTLE_ENDIAN));
            assertEquals(5f, agrona.getFloat(8, ByteOrder.LITTLE_ENDIAN));
            assertEquals(v.buffer().address() + 12, agrona.addressOffset());
        }
    }

    @Test
    void tiledViewIsRefusedWithTheReason() {
        try (Allocator arena = Allocators.shared()) {
            TensorView tiled = TensorView.of(arena.allocate(96), "f32[3,5]{1,0:T(2,2)}");
            var e = assertThrows(IllegalArgumentException.class, () -> AgronaBuffers.asDirectBuffer(tiled));
            assertTrue(e.getMessage().contains("is not C-contiguous: its map is not strided"), e.getMessage());
        }
    }

    @Test
    void paddedViewReadsTwoBuffersAndIsRefused() {
        try (Allocator arena = Allocators.shared()) {
            TensorView v = TensorView.of(arena.allocate(12), "f32[3]{0}");
            TensorView padded = Ops.pad(v, new long[] {1}, new long[] {0}, new long[] {0}, 0.0);
            var e = assertThrows(IllegalArgumentException.class, () -> AgronaBuffers.asDirectBuffer(padded));
            assertTrue(e.getMessage().contains("reads 2 buffers (a pad or concatenation)"), e.getMessage());
        }
    }

    @Test
    void deviceMemoryIsRefused() {
        MemoryBuffer onGpu = MemoryBuffer.foreign(0x7f00_0000_0000L, 24, MemorySpace.DEVICE, "cuda", () -> { });
        var e = assertThrows(UnsupportedOperationException.class, () -> AgronaBuffers.asDirectBuffer(onGpu));
        assertTrue(e.getMessage().contains("S(0) device memory (HBM), which is not host-accessible"), e.getMessage());
        TensorView view = TensorView.of(onGpu, "f32[2,3]{1,0}");
        assertThrows(UnsupportedOperationException.class, () -> AgronaBuffers.asMutableDirectBuffer(view));
    }

    @Test
    void closedBufferIsRefused() {
        Allocator arena = Allocators.shared();
        MemoryBuffer buffer = arena.allocate(24);
        TensorView v = TensorView.of(buffer, "f32[2,3]{1,0}");
        buffer.close();
        var e = assertThrows(IllegalStateException.class, () -> AgronaBuffers.asMutableDirectBuffer(v));
        assertTrue(e.getMessage().contains("its buffer is closed"), e.getMessage());
        arena.close();
    }

    @Test
    void moreThanTwoGibibytesIsRefused() {
        try (Arena arena = Arena.ofConfined()) {
            // Never touched: the check comes before any access.
            MemorySegment huge = RestrictedNative.resize(arena.allocate(64), 3L << 30);
            MemoryBuffer buffer = MemoryBuffer.foreign(huge, MemorySpace.HOST, "test", () -> { });
            var e = assertThrows(IllegalArgumentException.class, () -> AgronaBuffers.asDirectBuffer(buffer));
            assertTrue(e.getMessage().contains("holds 3221225472 bytes, more than an Agrona buffer's 2147483639"),
                    e.getMessage());
            // Up to the JDK's ByteBuffer limit, 2^31 - 9 bytes, the bridge works; one byte more is refused by name.
            MemoryBuffer justFits = buffer.slice(0, AgronaBuffers.MAX_BYTES);
            assertEquals(AgronaBuffers.MAX_BYTES, AgronaBuffers.asDirectBuffer(justFits).capacity());
            var over = assertThrows(IllegalArgumentException.class,
                    () -> AgronaBuffers.asDirectBuffer(buffer.slice(0, AgronaBuffers.MAX_BYTES + 1)));
            assertTrue(over.getMessage().contains("more than an Agrona buffer's"), over.getMessage());
            TensorView view = TensorView.strided(buffer, DType.F32, StridedLayout.packed(600_000_000L));
            var v = assertThrows(IllegalArgumentException.class, () -> AgronaBuffers.asMutableDirectBuffer(view));
            assertTrue(v.getMessage().contains("holds 2400000000 bytes"), v.getMessage());
            // A small view of the big buffer is fine: only the view's bytes are bridged.
            TensorView head = TensorView.strided(buffer, DType.F32, StridedLayout.packed(4));
            assertEquals(16, AgronaBuffers.asMutableDirectBuffer(head).capacity());
        }
    }

    @Test
    void mappedFileIsReadOnlyAndNotCastableToMutable() throws IOException {
        Path file = dir.resolve("x.npy");
        MemorySegment data = Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2, 3, 4, 5, 6);
        Npy.write(file, new DenseTensor(DType.F32, List.of(2L, 3L), data));
        try (Npy.Tensor a = Npy.map(file)) {
            TensorView v = TensorView.strided(a.data(), DType.F32, a.layout());
            DirectBuffer agrona = AgronaBuffers.asDirectBuffer(v);
            assertFalse(agrona instanceof MutableDirectBuffer, agrona.getClass().getName());
            assertEquals(6f, agrona.getFloat(20, ByteOrder.LITTLE_ENDIAN));
            assertTrue(agrona.byteBuffer().isReadOnly());
            assertThrows(UnsupportedOperationException.class, () -> agrona.wrap(new byte[4]));
            var e = assertThrows(IllegalArgumentException.class, () -> AgronaBuffers.asMutableDirectBuffer(v));
            assertTrue(e.getMessage().contains("is read-only"), e.getMessage());
        }
    }

    @Test
    void anUnsafeBufferOverAReadOnlyMappingBecomesAReadOnlyBuffer() throws IOException {
        // Writing through it would fault (SIGSEGV): the bridge must make it read-only although
        // UnsafeBuffer is a MutableDirectBuffer.
        Path file = dir.resolve("ro.bin");
        Files.write(file, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file)) {
            ByteBuffer mapped = ch.map(java.nio.channels.FileChannel.MapMode.READ_ONLY, 0, 8);
            MemoryBuffer b = AgronaBuffers.asBuffer(new UnsafeBuffer(mapped));
            assertTrue(b.isReadOnly());
            assertTrue(b.segment().isReadOnly());
            TensorView v = AgronaBuffers.asView(new UnsafeBuffer(mapped), (ArrayShape) XlaShape.parse("u8[8]{0}"));
            assertEquals(8, TensorElements.of(v).getLong(7));
            var e = assertThrows(IllegalArgumentException.class, () -> TensorElements.of(v).setLong(0, 0));
            assertTrue(e.getMessage().contains("read-only"), e.getMessage());
            b.close();
        }
    }

    @Test
    void offHeapDirectBufferBecomesAViewWithoutCopying() {
        UnsafeBuffer agrona = new UnsafeBuffer(ByteBuffer.allocateDirect(24));
        TensorView v = AgronaBuffers.asView(agrona, (ArrayShape) XlaShape.parse("f32[2,3]{1,0}"));
        agrona.putFloat(20, 6.5f, ByteOrder.LITTLE_ENDIAN);
        assertEquals(6.5f, TensorElements.of(v).getFloat(1, 2));
        TensorElements.of(v).setFloat(-2f, 0, 1);
        assertEquals(-2f, agrona.getFloat(4, ByteOrder.LITTLE_ENDIAN));
        assertEquals(agrona.addressOffset(), v.buffer().address());
        v.buffer().close();
        assertThrows(IllegalStateException.class, () -> TensorElements.of(v).getFloat(1, 2));
        assertEquals(6.5f, agrona.getFloat(20, ByteOrder.LITTLE_ENDIAN), "closing the view frees nothing");
    }

    @Test
    void bridgeRoundTripKeepsTheAddress() {
        try (Allocator arena = Allocators.shared();
             MemoryBuffer buffer = arena.allocate(64)) {
            DirectBuffer agrona = AgronaBuffers.asDirectBuffer(buffer);
            try (MemoryBuffer back = AgronaBuffers.asBuffer(agrona)) {
                assertEquals(buffer.address(), back.address());
                assertEquals(64, back.byteSize());
                assertEquals(MemorySpace.HOST, back.memorySpace());
            }
        }
    }

    @Test
    void heapDirectBufferIsRefusedAndCanBeCopied() {
        UnsafeBuffer heap = new UnsafeBuffer("hello".getBytes(StandardCharsets.US_ASCII));
        var e = assertThrows(IllegalArgumentException.class, () -> AgronaBuffers.asBuffer(heap));
        assertTrue(e.getMessage().contains("is on the Java heap (a byte[])"), e.getMessage());
        try (Allocator arena = Allocators.shared();
             MemoryBuffer copy = AgronaBuffers.copyOf(heap, arena)) {
            assertEquals(5, copy.byteSize());
            assertEquals('e', copy.segment().get(ValueLayout.JAVA_BYTE, 1));
        }
    }

    @Test
    void thisJvmHasTheOpeningSoTheCheckPasses() {
        assertTrue(AgronaBuffers.isAvailable());
        assertNull(AgronaBuffers.missingAccess(DirectBuffer.class.getModule()));
    }

    /** Runs {@link AgronaWithoutFlag} in a JVM started without the opening. */
    @Test
    void withoutTheOpeningTheBridgeNamesTheFlagAndStagingStillWorks() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // Scalar kernels asked for: without them the JVM lacks the Vector API module, and the
        // engine's one notice about that would be a WARNING this test does not look for.
        Process p = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-Dtensorbuf.copy.vector=false", "-cp",
                System.getProperty("java.class.path"), AgronaWithoutFlag.class.getName())
                .redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child JVM did not finish");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("available=false"), out);
        assertTrue(out.contains("IllegalStateException: Agrona's UnsafeBuffer needs the JVM option"
                + " --add-opens java.base/jdk.internal.misc=ALL-UNNAMED"), out);
        assertTrue(out.contains("staged=1 value=6.5"), out);
        assertFalse(out.contains("WARNING"), out);
    }
}
