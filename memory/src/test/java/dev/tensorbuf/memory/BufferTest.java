package dev.tensorbuf.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class BufferTest {

    @Test
    void exampleFromJavadoc() {
        try (Allocator arena = Allocators.confined();
                MemoryBuffer buffer = arena.allocate(256)) {
            MemoryBuffer tail = buffer.slice(192, 64);
            tail.segment().set(ValueLayout.JAVA_INT, 0, 7);
            assertEquals(7, buffer.segment().get(ValueLayout.JAVA_INT, 192));
            assertTrue(tail.isAligned(64));
            assertTrue(buffer.asReadOnly().segment().isReadOnly());
            assertSame(MemorySpace.HOST, buffer.memorySpace());
        }
    }

    @Test
    void packageExample() {
        try (PooledAllocator pool = PooledAllocator.builder().name("staging").build();
                MemoryBuffer buffer = pool.allocate(4096)) {
            buffer.segment().setAtIndex(ValueLayout.JAVA_FLOAT, 3, 1.5f);
            assertEquals(1.5f, buffer.slice(12, 4).segment().get(ValueLayout.JAVA_FLOAT, 0));
        }
    }

    /** Every method that reaches a buffer's memory, by name. */
    static Stream<Arguments> memoryAccessors() {
        List<Arguments> accessors = List.of(
                Arguments.of("segment", (Consumer<MemoryBuffer>) MemoryBuffer::segment),
                Arguments.of("address", (Consumer<MemoryBuffer>) MemoryBuffer::address),
                Arguments.of("isAligned", (Consumer<MemoryBuffer>) b -> b.isAligned(8)),
                Arguments.of("slice", (Consumer<MemoryBuffer>) b -> b.slice(0, 8)),
                Arguments.of("asReadOnly", (Consumer<MemoryBuffer>) MemoryBuffer::asReadOnly));
        return accessors.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("memoryAccessors")
    void everyAccessorOfAClosedPooledBufferThrowsNamingTheBufferAndCloseSite(String name, Consumer<MemoryBuffer> accessor) {
        try (PooledAllocator pool = PooledAllocator.builder().name("staging").trackLeaks(true).build()) {
            MemoryBuffer buffer = pool.allocate(4096);
            MemoryBuffer slice = buffer.slice(64, 64);
            buffer.close();
            assertFalse(buffer.isAlive());
            for (MemoryBuffer closed : List.of(buffer, slice)) {
                Expect.throwsWith(IllegalStateException.class,
                        "buffer of 4096 bytes from pool 'staging' was closed at dev.tensorbuf.memory.BufferTest."
                                + "everyAccessorOfAClosedPooledBufferThrowsNamingTheBufferAndCloseSite(BufferTest.java:",
                        () -> accessor.accept(closed));
            }
            assertEquals(4096, buffer.byteSize()); // plain facts stay readable
            assertEquals(new MemoryBuffer.Owner.Pool("staging"), buffer.owner());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("memoryAccessors")
    void everyAccessorOfAClosedArenaBufferThrows(String name, Consumer<MemoryBuffer> accessor) {
        try (Allocator arena = Allocators.confined()) {
            MemoryBuffer buffer = arena.allocate(100);
            buffer.close();
            Expect.throwsWith(IllegalStateException.class, "buffer of 100 bytes from confined arena was closed",
                    () -> accessor.accept(buffer));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("memoryAccessors")
    void everyAccessorThrowsOnceTheAllocatorClosed(String name, Consumer<MemoryBuffer> accessor) {
        Allocator arena = Allocators.shared();
        MemoryBuffer buffer = arena.allocate(100);
        arena.close();
        assertFalse(buffer.isAlive());
        Expect.throwsWith(IllegalStateException.class,
                "buffer of 100 bytes from shared arena was closed when its shared arena closed",
                () -> accessor.accept(buffer));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("memoryAccessors")
    void everyAccessorOfAClosedDeviceBufferThrows(String name, Consumer<MemoryBuffer> accessor) {
        MemoryBuffer buffer = MemoryBuffer.foreign(4096, 1024, MemorySpace.DEVICE, "cuda", () -> {});
        buffer.close();
        Expect.throwsWith(IllegalStateException.class, "buffer of 1024 bytes from foreign owner 'cuda' was closed",
                () -> accessor.accept(buffer));
    }

    @Test
    void closedMessageWithoutTrackingOmitsTheSite() {
        try (PooledAllocator pool = PooledAllocator.builder().name("quiet").build()) {
            MemoryBuffer buffer = pool.allocate(64);
            buffer.close();
            var error = Expect.throwsWith(IllegalStateException.class, "buffer of 64 bytes from pool 'quiet' was closed",
                    buffer::segment);
            assertFalse(error.getMessage().contains(" at "), error.getMessage());
        }
    }

    @Test
    void closingTwiceDoesNothing() {
        try (Allocator arena = Allocators.confined()) {
            MemoryBuffer buffer = arena.allocate(8);
            buffer.close();
            buffer.close();
            assertFalse(buffer.isAlive());
        }
    }

    @Test
    void viewsCannotBeClosedButDieWithTheirRoot() {
        try (Allocator arena = Allocators.confined()) {
            MemoryBuffer root = arena.allocate(128);
            MemoryBuffer slice = root.slice(32, 32);
            MemoryBuffer readOnly = root.asReadOnly();
            assertTrue(root.isRoot());
            assertFalse(slice.isRoot());
            Expect.throwsWith(UnsupportedOperationException.class,
                    "a slice or read-only view of buffer of 128 bytes from confined arena does not own its memory",
                    slice::close);
            Expect.throwsWith(UnsupportedOperationException.class, "does not own its memory", readOnly::close);
            assertTrue(slice.isAlive());
            root.close();
            assertFalse(slice.isAlive());
            assertFalse(readOnly.isAlive());
        }
    }

    @Test
    void sliceSeesTheParentsBytesAtItsOffset() {
        try (Allocator arena = Allocators.confined()) {
            MemoryBuffer buffer = arena.allocate(64);
            for (int i = 0; i < 64; i++) {
                buffer.segment().set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            MemoryBuffer slice = buffer.slice(10, 20).slice(5, 3);
            assertEquals(3, slice.byteSize());
            assertEquals(buffer.address() + 15, slice.address());
            assertEquals(15, slice.segment().get(ValueLayout.JAVA_BYTE, 0));
            assertEquals(17, slice.segment().get(ValueLayout.JAVA_BYTE, 2));
            assertEquals(0, buffer.slice(64, 0).byteSize());
        }
    }

    @ParameterizedTest(name = "slice({0}, {1})")
    @CsvSource({"-1, 4", "0, -1", "60, 5", "65, 0", "1, 64", "9223372036854775807, 1"})
    void sliceOutOfBoundsNamesTheValues(long offset, long length) {
        try (Allocator arena = Allocators.confined()) {
            MemoryBuffer buffer = arena.allocate(64);
            Expect.throwsWith(IndexOutOfBoundsException.class,
                    "slice of " + length + (length == 1 ? " byte" : " bytes") + " at offset " + offset + " out of bounds [0, 64) of a buffer of 64 bytes",
                    () -> buffer.slice(offset, length));
        }
    }

    @Test
    void writesThroughReadOnlyViewsThrowAndReadsWork() {
        try (Allocator arena = Allocators.confined()) {
            MemoryBuffer buffer = arena.allocate(16);
            buffer.segment().set(ValueLayout.JAVA_INT, 4, 42);
            MemoryBuffer readOnly = buffer.asReadOnly();
            MemoryBuffer readOnlySlice = readOnly.slice(4, 8);
            assertTrue(readOnly.isReadOnly());
            assertTrue(readOnlySlice.isReadOnly());
            assertSame(readOnly.owner(), buffer.owner());
            assertEquals(42, readOnlySlice.segment().get(ValueLayout.JAVA_INT, 0));
            for (Supplier<MemorySegment> segment : List.<Supplier<MemorySegment>>of(readOnly::segment,
                    readOnlySlice::segment, () -> readOnly.asReadOnly().segment())) {
                Expect.throwsWith(IllegalArgumentException.class, "read-only",
                        () -> segment.get().set(ValueLayout.JAVA_INT, 0, 1));
                Expect.throwsWith(IllegalArgumentException.class, "read-only", () -> segment.get().fill((byte) 1));
                Expect.throwsWith(IllegalArgumentException.class, "read-only",
                        () -> MemorySegment.copy(buffer.segment(), 0, segment.get(), 0, 4));
            }
            assertEquals(42, buffer.segment().get(ValueLayout.JAVA_INT, 4));
            assertFalse(buffer.isReadOnly());
        }
    }

    @Test
    void isAlignedRejectsNonPowersOfTwo() {
        try (Allocator arena = Allocators.confined()) {
            MemoryBuffer buffer = arena.allocate(16);
            Expect.throwsWith(IllegalArgumentException.class, "alignment 3 is not a power of two",
                    () -> buffer.isAligned(3));
            Expect.throwsWith(IllegalArgumentException.class, "alignment 0 is not a power of two",
                    () -> buffer.isAligned(0));
            assertTrue(buffer.isAligned(1));
            assertFalse(buffer.slice(1, 8).isAligned(2));
        }
    }

    @Test
    void toStringSaysSizeSpaceOwnerAndState() {
        try (Allocator arena = Allocators.confined()) {
            MemoryBuffer buffer = arena.allocate(16);
            assertEquals("MemoryBuffer[16 bytes in S(5) host memory from confined arena, alive]", buffer.toString());
            assertEquals("MemoryBuffer view (read-only)[16 bytes in S(5) host memory from confined arena, alive]",
                    buffer.asReadOnly().toString());
            buffer.close();
            assertEquals("MemoryBuffer[16 bytes in S(5) host memory from confined arena, closed]", buffer.toString());
        }
    }
}
