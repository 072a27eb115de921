package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.interop.internal.HugePageAllocator;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.PooledAllocator;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An outside review closed a shared arena allocator while a DLPack export of its memory was out:
 * the close freed the memory, and the consumer's read crashed the JVM (256 MiB) or read garbage
 * (small buffers). An in-place export lends its buffer now, so the close is refused until the
 * consumer calls the deleter.
 */
class DlpackAllocatorCloseTest {
    private static final String CURE = " lent outside Java (MemoryBuffer.lend(), e.g. an in-place DLPack export); nothing"
            + " was freed and it stays open: end the loans (for DLPack, the consumer calls the tensor's deleter),"
            + " then close it again";
    private static final int FLOATS = 1024;

    static Stream<Arguments> allocators() {
        return Stream.of(
                Arguments.of("confined arena", (Supplier<Allocator>) Allocators::confined, FLOATS,
                        "confined arena allocator (default alignment 64, open)"),
                Arguments.of("shared arena", (Supplier<Allocator>) Allocators::shared, FLOATS,
                        "shared arena allocator (default alignment 64, open)"),
                Arguments.of("pool", (Supplier<Allocator>) () -> PooledAllocator.builder().name("dlpack").build(),
                        FLOATS, "pool 'dlpack'"),
                Arguments.of("huge-page allocator, small buffer", (Supplier<Allocator>) HugePageAllocator::open,
                        FLOATS, "huge-page allocator (open, 0 large buffer(s) open)"),
                Arguments.of("huge-page allocator, large buffer", (Supplier<Allocator>) HugePageAllocator::open,
                        (int) (HugePageAllocator.THRESHOLD_BYTES / 4), "huge-page allocator (open, 1 large buffer(s) open)"));
    }

    /** Closes it; a pool without logging the buffer the test left open on purpose. */
    private static void closeQuietly(Allocator allocator) {
        if (allocator instanceof PooledAllocator pool) {
            pool.closeAndReport();
        } else {
            allocator.close();
        }
    }

    /** The review's reproduction (Uaf.java), on a small buffer: no crash is needed to show it. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("allocators")
    void closingTheAllocatorOfAPendingExportIsRefusedUntilTheDeleterRuns(String kind, Supplier<Allocator> factory,
            int floats, String name) {
        if (kind.endsWith("large buffer")) {
            assumeTrue(HugePageAllocator.available(), "a large huge-page buffer is a mapping of its own only on Linux");
        }
        int pending = Dlpack.pendingExports();
        Allocator allocator = factory.get();
        TensorView q = TensorView.of(allocator.allocate(4L * floats), "f32[" + floats + "]");
        for (int i = 0; i < floats; i += 97) {
            TensorElements.of(q).setFloat(i * 0.5f, i);
        }
        MemorySegment m = Dlpack.exportVersioned(q);
        IllegalStateException refused = assertThrows(IllegalStateException.class, allocator::close);
        assertEquals("cannot close " + name + ": 1 of its buffers (" + 4L * floats + " bytes) is" + CURE,
                refused.getMessage());
        assertTrue(allocator.isOpen(), "a refused close frees nothing and leaves the allocator usable");
        allocator.allocate(64).close();
        try (Dlpack.Tensor back = Dlpack.importVersioned(m)) {
            for (int i = 0; i < floats; i += 97) {
                assertEquals(i * 0.5f, TensorElements.of(back.view()).getFloat(i), "element " + i);
            }
            assertThrows(IllegalStateException.class, allocator::close, "the import holds the export until it closes");
        } // our deleter runs here and ends the loan
        assertEquals(pending, Dlpack.pendingExports());
        closeQuietly(allocator);
        assertFalse(allocator.isOpen());
        assertThrows(IllegalStateException.class, () -> Dlpack.exportVersioned(q), "nothing to export any more");
    }

    /**
     * A copied export (a view DLPack cannot describe) owns its copy, freed by the deleter: it lends
     * nothing, so the source's allocator closes at once and the copy still reads.
     */
    @Test
    void aCopiedExportLendsNothingAndOutlivesItsSourcesAllocator() {
        Allocator arena = Allocators.shared();
        TensorView source = TensorView.of(arena.allocate(4 * 8 * 128), "f32[8,128]");
        TensorElements.of(source).setFloat(3.5f, 7, 100);
        TensorView padded = Ops.pad(source, new long[] {1, 0}, new long[] {0, 0}, new long[] {0, 0}, 0.0);
        MemorySegment m = Dlpack.exportVersioned(padded);
        arena.close();
        try (Dlpack.Tensor back = Dlpack.importVersioned(m)) {
            assertEquals(3.5f, TensorElements.of(back.view()).getFloat(8, 100));
            assertEquals(0f, TensorElements.of(back.view()).getFloat(0, 100));
        }
    }

    /**
     * One thread exports, imports, checks every value and releases, over and over, while another
     * closes the allocator: each close is refused while an export is out, each export after the
     * close is refused, and no read ever meets freed memory.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anExportRacingTheAllocatorsCloseNeverReadsFreedMemory() throws Exception {
        Map<String, Long> outcomes = new TreeMap<>();
        Map<String, Supplier<Allocator>> kinds = new TreeMap<>(Map.of(
                "shared", Allocators::shared,
                "pool", () -> PooledAllocator.builder().name("race").build(),
                "huge-page", HugePageAllocator::open));
        for (var kind : kinds.entrySet()) {
            AtomicLong exports = new AtomicLong();
            AtomicLong refusedExports = new AtomicLong();
            AtomicLong refusedCloses = new AtomicLong();
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(800);
            int rounds = 0;
            while (System.nanoTime() < end || rounds < 10) {
                rounds++;
                Allocator allocator = kind.getValue().get();
                TensorView v = TensorView.of(allocator.allocate(4 * 256), "f32[256]");
                for (int i = 0; i < 256; i++) {
                    TensorElements.of(v).setFloat(i + 0.25f, i);
                }
                AtomicBoolean exportOut = new AtomicBoolean(); // from the export's return to its release
                AtomicReference<Throwable> failure = new AtomicReference<>();
                CountDownLatch exported = new CountDownLatch(1);
                Thread exporter = Thread.ofPlatform().start(() -> {
                    try {
                        for (int n = 0; n < 500; n++) {
                            MemorySegment m;
                            try {
                                m = Dlpack.exportVersioned(v);
                            } catch (IllegalStateException closed) {
                                assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
                                refusedExports.incrementAndGet();
                                return;
                            }
                            exportOut.set(true);
                            exports.incrementAndGet();
                            exported.countDown();
                            try (Dlpack.Tensor back = Dlpack.importVersioned(m)) {
                                for (int i = 0; i < 256; i++) {
                                    assertEquals(i + 0.25f, TensorElements.of(back.view()).getFloat(i), "element " + i);
                                }
                                exportOut.set(false);
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    } finally {
                        exported.countDown();
                    }
                });
                exported.await(); // so that the close meets exports, not an exporter still starting
                while (true) {
                    try {
                        closeQuietly(allocator);
                        break;
                    } catch (IllegalStateException lent) {
                        assertTrue(lent.getMessage().contains("is lent outside Java"), lent.getMessage());
                        refusedCloses.incrementAndGet();
                    }
                }
                assertFalse(exportOut.get(), "the allocator closed while an export was out");
                exporter.join();
                if (failure.get() != null) {
                    throw new AssertionError(kind.getKey() + ": the exporter failed", failure.get());
                }
            }
            outcomes.put(kind.getKey() + " rounds", (long) rounds);
            outcomes.put(kind.getKey() + " exports", exports.get());
            outcomes.put(kind.getKey() + " refused closes", refusedCloses.get());
            outcomes.put(kind.getKey() + " refused exports", refusedExports.get());
            assertTrue(refusedCloses.get() > 0, () -> kind.getKey() + ": no close met an export " + outcomes);
            assertTrue(refusedExports.get() > 0, () -> kind.getKey() + ": no export met a close " + outcomes);
        }
        System.out.println("DlpackAllocatorCloseTest race outcomes " + outcomes);
    }
}
