package dev.tensorbuf.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class AllocatorsTest {

    @Test
    void exampleFromJavadoc() {
        try (Allocator allocator = Allocators.confined(128)) {
            MemoryBuffer buffer = allocator.allocate(1000);
            assertTrue(buffer.isAligned(128));
            assertEquals(1000, buffer.byteSize());
            assertEquals(new MemoryBuffer.Owner.Arena(false), buffer.owner());
            assertEquals("confined arena", buffer.owner().toString());
        }
        Expect.throwsWith(IllegalArgumentException.class, "alignment 48 is not a power of two",
                () -> Allocators.confined(48));
    }

    /** The one wording of every allocator's out-of-memory error, allocators of other modules included. */
    @Test
    void cannotReserveExampleFromJavadoc() {
        assertEquals("cannot reserve 8 bytes aligned to 1048576 (an alignment that may take up to 1048583 bytes"
                + " to meet) for pool 'p': the system has no such native memory",
                Allocator.cannotReserve(8, 1L << 20, "pool 'p'").getMessage());
        try (Allocator arena = Allocators.shared()) {
            OutOfMemoryError e = assertThrows(OutOfMemoryError.class, () -> arena.allocate(1, 1L << 62));
            assertEquals("cannot reserve 1 byte aligned to 4611686018427387904 (an alignment that may take up to"
                    + " 4611686018427387904 bytes to meet) for shared arena: the system has no such native memory",
                    e.getMessage());
            assertInstanceOf(OutOfMemoryError.class, e.getCause(), "the system's own refusal");
        }
    }

    @Test
    void allocatorExampleFromJavadoc() { // the snippet of Allocator
        try (Allocator allocator = Allocators.shared()) {
            MemoryBuffer page = allocator.allocate(8192, 4096);
            assertTrue(page.isAligned(4096));
            assertEquals(64, allocator.defaultAlignment());
            assertTrue(allocator.allocate(100).isAligned(64));
        }
    }

    static Stream<Arguments> allocators() {
        return Stream.of(
                Arguments.of("confined", (Supplier<Allocator>) Allocators::confined),
                Arguments.of("shared", (Supplier<Allocator>) Allocators::shared),
                Arguments.of("pool", (Supplier<Allocator>) () -> PooledAllocator.builder().name("aligned").build()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("allocators")
    void everyPowerOfTwoAlignmentUpTo64KiBIsHonoured(String name, Supplier<Allocator> factory) {
        try (Allocator allocator = factory.get()) {
            for (int shift = 0; shift <= 16; shift++) {
                long alignment = 1L << shift;
                for (long size : new long[] {1, 24, alignment, 3 * alignment + 1, 5000}) {
                    MemoryBuffer buffer = allocator.allocate(size, alignment);
                    assertEquals(size, buffer.byteSize());
                    assertTrue(buffer.isAligned(alignment), () -> name + " " + size + " bytes at " + alignment
                            + " gave address " + Long.toHexString(buffer.address()));
                    assertEquals(0, buffer.address() % alignment);
                    buffer.close();
                }
            }
            MemoryBuffer byDefault = allocator.allocate(3);
            assertTrue(byDefault.isAligned(64), name);
            byDefault.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("allocators")
    void nonPowerOfTwoAlignmentsAndNegativeSizesAreRejectedByValue(String name, Supplier<Allocator> factory) {
        try (Allocator allocator = factory.get()) {
            for (long alignment : new long[] {0, -8, 3, 48, 100, 4095}) {
                Expect.throwsWith(IllegalArgumentException.class, "alignment " + alignment + " is not a power of two",
                        () -> allocator.allocate(64, alignment));
            }
            Expect.throwsWith(IllegalArgumentException.class, "byteSize -1 must be >= 0", () -> allocator.allocate(-1));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("allocators")
    void closedAllocatorRefusesToAllocateAndClosingTwiceDoesNothing(String name, Supplier<Allocator> factory) {
        Allocator allocator = factory.get();
        assertTrue(allocator.isOpen());
        allocator.close();
        allocator.close();
        assertFalse(allocator.isOpen());
        Expect.throwsWith(IllegalStateException.class, "is closed", () -> allocator.allocate(8));
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void arenaMemoryIsZeroed(boolean shared) {
        try (Allocator allocator = shared ? Allocators.shared() : Allocators.confined()) {
            MemoryBuffer buffer = allocator.allocate(4096);
            for (long i = 0; i < 4096; i += 8) {
                assertEquals(0, buffer.segment().get(ValueLayout.JAVA_LONG, i));
            }
            assertEquals(MemorySpace.HOST, allocator.memorySpace());
        }
    }

    @Test
    void confinedAllocatorRefusesOtherThreadsAndSurvivesAWrongThreadClose() throws Exception {
        try (Allocator confined = Allocators.confined()) {
            MemoryBuffer buffer = confined.allocate(64);
            // These name the buffer, the thread and the cure; FFM would have let the first three pass.
            List<Runnable> reaches = List.of(buffer::address, () -> buffer.slice(0, 8),
                    buffer::asReadOnly, () -> buffer.isAligned(64));
            for (Runnable reach : reaches) {
                Thread other = Thread.ofPlatform().name("loader-7").unstarted(reach);
                var error = new AtomicReference<Throwable>();
                other.setUncaughtExceptionHandler((t, e) -> error.set(e));
                other.start();
                other.join();
                assertInstanceOf(WrongThreadException.class, error.get());
                assertEquals("buffer of 64 bytes from confined arena cannot be used from thread \"loader-7\": a confined"
                        + " arena is for the thread that made it (use Allocators.shared() or a pool to share buffers"
                        + " between threads)", error.get().getMessage());
            }
            // segment() stays a cheap per-element call; the segment's first access is FFM's check.
            var access = CompletableFuture.runAsync(() -> buffer.segment().get(ValueLayout.JAVA_BYTE, 0));
            assertInstanceOf(WrongThreadException.class, assertThrows(ExecutionException.class, access::get).getCause());
            var allocate = CompletableFuture.runAsync(() -> confined.allocate(8));
            var allocateError = assertThrows(ExecutionException.class, allocate::get);
            assertInstanceOf(WrongThreadException.class, allocateError.getCause());
            assertTrue(allocateError.getCause().getMessage().startsWith(
                    "confined arena allocator (default alignment 64, open) cannot allocate from thread"),
                    allocateError.getCause().getMessage());
            var close = CompletableFuture.runAsync(confined::close);
            var closeError = assertThrows(ExecutionException.class, close::get);
            assertInstanceOf(WrongThreadException.class, closeError.getCause());
            assertTrue(closeError.getCause().getMessage().contains("cannot close from thread"),
                    closeError.getCause().getMessage());
            assertTrue(confined.isOpen());
            assertTrue(buffer.isAlive());
            assertEquals(0, buffer.segment().get(ValueLayout.JAVA_BYTE, 0), "the owner thread still reads it");
        }
    }

    @Test
    void sharedAllocatorServesOtherThreads() throws Exception {
        try (Allocator shared = Allocators.shared()) {
            MemoryBuffer buffer = CompletableFuture.supplyAsync(() -> shared.allocate(64)).get();
            buffer.segment().set(ValueLayout.JAVA_LONG, 0, 99L);
            long read = CompletableFuture.supplyAsync(() -> buffer.segment().get(ValueLayout.JAVA_LONG, 0)).get();
            assertEquals(99L, read);
        }
    }
}
