package dev.tensorbuf.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
 * A loan ({@link MemoryBuffer#lend()}) is a hold that also refuses its allocator's close: memory handed
 * to native code, which cannot get an exception, must never be freed under it. A review closed a
 * shared arena while a DLPack export of its memory was out, and the consumer's read crashed the JVM.
 */
class BufferLendTest {
    private static final int LOANS_PER_LENDER = 2000;
    private static final String CURE = " lent outside Java (MemoryBuffer.lend(), e.g. an in-place DLPack export); nothing"
            + " was freed and it stays open: end the loans (for DLPack, the consumer calls the tensor's deleter),"
            + " then close it again";

    static Stream<Arguments> allocators() {
        return Stream.of(
                Arguments.of("confined", (Supplier<Allocator>) Allocators::confined,
                        "confined arena allocator (default alignment 64, open)"),
                Arguments.of("shared", (Supplier<Allocator>) Allocators::shared,
                        "shared arena allocator (default alignment 64, open)"),
                Arguments.of("pool", (Supplier<Allocator>) () -> PooledAllocator.builder().name("lent").build(),
                        "pool 'lent'"));
    }

    /** Closes it; a pool without logging the buffer the test left open on purpose. */
    private static void closeQuietly(Allocator allocator) {
        if (allocator instanceof PooledAllocator pool) {
            pool.closeAndReport();
        } else {
            allocator.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("allocators")
    void aLoanRefusesTheAllocatorsCloseUntilItEnds(String kind, Supplier<Allocator> factory, String name) {
        Allocator allocator = factory.get();
        MemoryBuffer lent = allocator.allocate(1000);
        lent.segment().set(ValueLayout.JAVA_INT, 996, 42);
        MemoryBuffer.Hold loan = lent.slice(500, 500).lend(); // a view lends its root's memory
        IllegalStateException refused = assertThrows(IllegalStateException.class, allocator::close);
        assertEquals("cannot close " + name + ": 1 of its buffers (1000 bytes) is" + CURE, refused.getMessage());
        assertTrue(allocator.isOpen(), "a refused close frees nothing");
        assertTrue(lent.isAlive());
        assertEquals(42, lent.segment().get(ValueLayout.JAVA_INT, 996));
        MemoryBuffer more = allocator.allocate(64); // and the allocator goes on working
        more.segment().set(ValueLayout.JAVA_LONG, 0, 7L);
        loan.close();
        loan.close(); // a second close of one loan does nothing: the count must not go below zero
        more.close();
        closeQuietly(allocator);
        assertFalse(allocator.isOpen());
        assertFalse(lent.isAlive());
        assertThrows(IllegalStateException.class, lent::segment);
        assertThrows(IllegalStateException.class, lent::lend, "a buffer of a closed allocator lends nothing");
    }

    /** The message counts lent buffers, not loans, and their bytes together. */
    @Test
    void theRefusalCountsLentBuffersAndTheirBytes() {
        PooledAllocator pool = PooledAllocator.builder().name("counted").build();
        MemoryBuffer a = pool.allocate(1000);
        MemoryBuffer b = pool.allocate(64);
        MemoryBuffer.Hold a1 = a.lend();
        MemoryBuffer.Hold a2 = a.asReadOnly().lend();
        MemoryBuffer.Hold b1 = b.lend();
        Expect.throwsWith(IllegalStateException.class,
                "cannot close pool 'counted': 2 of its buffers (together 1064 bytes) are" + CURE, pool::close);
        Expect.throwsWith(IllegalStateException.class, "2 of its buffers", pool::closeAndReport);
        a1.close();
        Expect.throwsWith(IllegalStateException.class, "2 of its buffers (together 1064 bytes)", pool::close);
        b1.close();
        Expect.throwsWith(IllegalStateException.class, "1 of its buffers (1000 bytes) is", pool::close);
        a2.close();
        assertEquals(2, pool.closeAndReport().leaks().size(), "a and b were never closed");
        assertEquals(0, pool.stats().liveBytes());
    }

    /** A buffer closed while lent is closed for Java, but stays lent: the consumer still reads it. */
    @Test
    void aBufferClosedWhileLentStaysLentUntilTheLoanEnds() {
        PooledAllocator pool = PooledAllocator.builder().name("early").build();
        MemoryBuffer first = pool.allocate(1 << 16);
        long address = first.address();
        MemoryBuffer.Hold loan = first.lend();
        first.close();
        assertFalse(first.isAlive());
        assertThrows(IllegalStateException.class, first::lend);
        assertNotEquals(address, pool.allocate(1 << 16).address(), "the lent block stays out of the pool");
        Expect.throwsWith(IllegalStateException.class, "1 of its buffers (65536 bytes) is lent", pool::close);
        loan.close();
        assertEquals(address, pool.allocate(1 << 16).address(), "back in the pool once the loan ended");
        pool.closeAndReport();
    }

    /** A closed buffer, or one whose allocator closed, refuses a loan in the usual closed words. */
    @Test
    void aClosedBufferOrAllocatorRefusesALoan() {
        Allocator arena = Allocators.shared();
        MemoryBuffer closed = arena.allocate(8);
        closed.close();
        Expect.throwsWith(IllegalStateException.class, "buffer of 8 bytes from shared arena was closed", closed::lend);
        MemoryBuffer open = arena.allocate(16);
        arena.close();
        Expect.throwsWith(IllegalStateException.class,
                "buffer of 16 bytes from shared arena was closed when its shared arena closed", open::lend);
    }

    /** Foreign memory has no allocator to refuse: its loan is a hold, and the deleter waits for it. */
    @Test
    void aForeignBuffersLoanIsAHoldItsDeleterWaitsFor() {
        AtomicInteger deleted = new AtomicInteger();
        MemoryBuffer b = MemoryBuffer.foreign(Arena.ofAuto().allocate(16), MemorySpace.HOST, "test", deleted::incrementAndGet);
        MemoryBuffer.Hold loan = b.lend();
        b.close();
        assertEquals(0, deleted.get());
        loan.close();
        assertEquals(1, deleted.get());
    }

    @Test
    void lendExampleFromJavadoc() { // the snippet of MemoryBuffer.lend, the native library played by a long
        Allocator arena = Allocators.shared();
        MemoryBuffer pixels = arena.allocate(1 << 20);
        MemoryBuffer.Hold loan = pixels.lend();
        long keptByC = pixels.address();
        Expect.throwsWith(IllegalStateException.class, "cannot close shared arena allocator (default alignment 64,"
                + " open): 1 of its buffers (1048576 bytes) is lent outside Java", arena::close);
        assertEquals(keptByC, pixels.address());
        loan.close();
        arena.close();
        assertFalse(pixels.isAlive());
    }

    /**
     * Loans racing the allocator's close, on four threads: a close succeeds only while no loan
     * lasts, and every loan taken after it is refused. Without the check under the scope's lock a
     * loan could slip between the check and the close and be left over freed memory.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aLoanRacingTheCloseEitherComesFirstOrIsRefused() throws Exception {
        Map<String, Long> outcomes = new TreeMap<>();
        for (String kind : new String[] {"shared", "pool"}) {
            AtomicLong refusedCloses = new AtomicLong();
            AtomicLong refusedLoans = new AtomicLong();
            AtomicLong loans = new AtomicLong();
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1000);
            int rounds = 0;
            while (System.nanoTime() < end || rounds < 20) {
                rounds++;
                Allocator allocator = kind.equals("shared") ? Allocators.shared()
                        : PooledAllocator.builder().name("race").build();
                MemoryBuffer buffer = allocator.allocate(256);
                buffer.segment().set(ValueLayout.JAVA_LONG, 0, 0x5eed);
                AtomicInteger outstanding = new AtomicInteger(); // loans that the lenders are using
                AtomicBoolean stop = new AtomicBoolean();
                AtomicReference<Throwable> failure = new AtomicReference<>();
                CountDownLatch lending = new CountDownLatch(3);
                Thread[] lenders = new Thread[3];
                for (int t = 0; t < lenders.length; t++) {
                    lenders[t] = Thread.ofPlatform().start(() -> {
                        try {
                            // A bounded number, so that the closer's turn comes: three lenders
                            // keep a loan out nearly all the time.
                            for (int n = 0; n < LOANS_PER_LENDER && !stop.get(); n++) {
                                MemoryBuffer.Hold loan;
                                try {
                                    loan = buffer.lend();
                                } catch (IllegalStateException closed) {
                                    assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
                                    refusedLoans.incrementAndGet();
                                    return;
                                } finally {
                                    lending.countDown();
                                }
                                outstanding.incrementAndGet();
                                loans.incrementAndGet();
                                // The allocator cannot have closed: the memory is there.
                                assertEquals(0x5eed, buffer.segment().get(ValueLayout.JAVA_LONG, 0));
                                outstanding.decrementAndGet();
                                loan.close();
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    });
                }
                lending.await();
                while (true) {
                    try {
                        closeQuietly(allocator);
                        break;
                    } catch (IllegalStateException lent) {
                        assertTrue(lent.getMessage().contains("is lent outside Java"), lent.getMessage());
                        refusedCloses.incrementAndGet();
                    }
                }
                assertEquals(0, outstanding.get(), "the allocator closed while a loan was in use");
                stop.set(true);
                for (Thread t : lenders) {
                    t.join();
                }
                assertThrows(IllegalStateException.class, buffer::lend);
                if (failure.get() != null) {
                    throw new AssertionError(kind + ": a lender failed", failure.get());
                }
            }
            outcomes.put(kind + " rounds", (long) rounds);
            outcomes.put(kind + " loans", loans.get());
            outcomes.put(kind + " refused closes", refusedCloses.get());
            outcomes.put(kind + " refused loans", refusedLoans.get());
            assertTrue(refusedCloses.get() > 0, () -> kind + ": no close met a loan " + outcomes);
            assertTrue(refusedLoans.get() > 0, () -> kind + ": no loan met a close " + outcomes);
        }
        System.out.println("BufferLendTest race outcomes " + outcomes);
    }
}
