package dev.tensorbuf.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Random calls, with mostly invalid arguments, to allocators and buffers: every failure must be
 * one of the documented exception types with a message, and every success must behave as the
 * contract says (sizes, addresses, aliasing of slices, read-only state). Seeded: the seed is
 * printed, {@code -Dtensorbuf.seed=N} replays it.
 */
class MemoryAbuseTest {
    private static final int CALLS = 30_000;

    /**
     * Sizes a caller might pass by mistake, next to ordinary ones. The huge ones exceed the 2^47
     * bytes of a 64-bit process's address space, so they fail even where the kernel overcommits;
     * a merely large size (8 GiB) would succeed, be zeroed and get the test killed.
     */
    private static final long[] ODD_SIZES = {
        -1, Long.MIN_VALUE, Long.MAX_VALUE, Long.MAX_VALUE - 63, 1L << 62, 1L << 50, 0, 1, 63, 64, 65, 4095,
    };
    /** Alignments, invalid ones included; the huge ones as unreachable as the sizes. */
    private static final long[] ALIGNMENTS = {
        0, -1, -64, 3, 48, Long.MIN_VALUE, 1L << 62, 1L << 50, 1, 2, 8, 64, 4096, 8192, 1 << 16,
    };

    /** A root or view and the root offset it starts at, for checking aliasing by brute force. */
    private record Held(MemoryBuffer buffer, MemoryBuffer root, long offset) {
    }

    private final Map<String, Integer> outcomes = new TreeMap<>();

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void randomAllocatorAndBufferCallsThrowOnlyDocumentedExceptions() {
        long seed = Long.getLong("tensorbuf.seed", System.nanoTime());
        System.out.println("MemoryAbuseTest seed " + seed + " (rerun with -Dtensorbuf.seed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        List<Allocator> allocators = new ArrayList<>();
        List<Held> held = new ArrayList<>();
        try {
            for (int call = 0; call < CALLS; call++) {
                if (allocators.isEmpty() || random.nextInt(500) == 0) {
                    allocators.add(newAllocator(random));
                }
                int action = random.nextInt(100);
                String name;
                if (action < 20 || held.isEmpty()) {
                    name = "allocate";
                    Allocator allocator = allocators.get(random.nextInt(allocators.size()));
                    long size = random.nextInt(4) == 0 ? ODD_SIZES[random.nextInt(ODD_SIZES.length)] : random.nextLong(0, 1 << 16);
                    long alignment = ALIGNMENTS[random.nextInt(ALIGNMENTS.length)];
                    attempt(name, seed, call, () -> {
                        MemoryBuffer b = allocator.allocate(size, alignment);
                        assertEquals(size, b.byteSize());
                        assertTrue(b.isAligned(alignment), () -> b + " not aligned to " + alignment);
                        assertTrue(b.isRoot() && b.isAlive() && !b.isReadOnly());
                        held.add(new Held(b, b, 0));
                    });
                } else {
                    Held h = held.get(random.nextInt(held.size()));
                    MemoryBuffer b = h.buffer();
                    if (action < 45) {
                        name = "slice";
                        long offset = pick(random, b.byteSize());
                        long length = pick(random, b.byteSize());
                        attempt(name, seed, call, () -> {
                            MemoryBuffer s = b.slice(offset, length);
                            assertTrue(offset >= 0 && length >= 0 && offset + length <= b.byteSize(),
                                    "slice(" + offset + ", " + length + ") of " + b.byteSize() + " bytes accepted");
                            assertEquals(length, s.byteSize());
                            assertEquals(b.address() + offset, s.address());
                            assertEquals(b.isReadOnly(), s.isReadOnly());
                            assertFalse(s.isRoot());
                            held.add(new Held(s, h.root(), h.offset() + offset));
                        });
                    } else if (action < 55) {
                        name = "asReadOnly";
                        attempt(name, seed, call, () -> {
                            MemoryBuffer r = b.asReadOnly();
                            assertTrue(r.isReadOnly() && r.segment().isReadOnly());
                            held.add(new Held(r, h.root(), h.offset()));
                        });
                    } else if (action < 80) {
                        name = "segment access";
                        long at = pick(random, b.byteSize());
                        byte value = (byte) random.nextInt();
                        attempt(name, seed, call, () -> readWrite(h, at, value));
                    } else if (action < 88) {
                        name = "isAligned";
                        long alignment = ALIGNMENTS[random.nextInt(ALIGNMENTS.length)];
                        attempt(name, seed, call, () -> {
                            boolean aligned = b.isAligned(alignment);
                            assertEquals(b.address() % alignment == 0, aligned);
                        });
                    } else if (action < 96 || random.nextInt(8) != 0) {
                        name = "close";
                        attempt(name, seed, call, () -> {
                            b.close();
                            assertTrue(b.isRoot(), "a view closed");
                            assertFalse(b.isAlive());
                        });
                    } else {
                        name = "close allocator";
                        Allocator allocator = allocators.remove(random.nextInt(allocators.size()));
                        attempt(name, seed, call, () -> {
                            if (allocator instanceof PooledAllocator pool) {
                                pool.closeAndReport(); // leaks are the point here: no warning
                            } else {
                                allocator.close();
                            }
                            assertFalse(allocator.isOpen());
                        });
                    }
                }
                // Keep mostly live handles, so calls reach past the closed-buffer check.
                held.removeIf(x -> !x.buffer().isAlive() && random.nextInt(10) != 0);
                if (held.size() > 200) {
                    held.subList(0, 100).clear();
                }
            }
        } finally {
            allocators.forEach(a -> attempt("final close", seed, -1,
                    () -> { if (a instanceof PooledAllocator p) p.closeAndReport(); else a.close(); }));
        }
        System.out.println("MemoryAbuseTest outcomes " + outcomes);
        assertTrue(outcomes.keySet().stream().anyMatch(k -> k.startsWith("allocate: ok")), outcomes::toString);
        assertTrue(outcomes.keySet().stream().anyMatch(k -> k.startsWith("slice: IndexOutOfBoundsException")), outcomes::toString);
        assertTrue(outcomes.keySet().stream().anyMatch(k -> k.contains("IllegalStateException")), outcomes::toString);
    }

    /** Writes through one handle and reads it back through its root, where both are alive and writable. */
    private static void readWrite(Held h, long at, byte value) {
        MemorySegment segment = h.buffer().segment();
        segment.get(ValueLayout.JAVA_BYTE, at); // out of range: FFM's IndexOutOfBoundsException
        segment.set(ValueLayout.JAVA_BYTE, at, value); // read-only: FFM's IllegalArgumentException
        assertEquals(value, h.root().segment().get(ValueLayout.JAVA_BYTE, h.offset() + at),
                "a write through a slice at " + at + " must land at root offset " + (h.offset() + at));
    }

    private static Allocator newAllocator(SplittableRandom random) {
        return switch (random.nextInt(3)) {
            case 0 -> Allocators.confined(ALIGNMENTS[9 + random.nextInt(4)]);
            case 1 -> Allocators.shared();
            default -> PooledAllocator.builder().name("abuse")
                    .byteLimit(random.nextBoolean() ? 1 << 22 : Long.MAX_VALUE)
                    .largestSizeClass(1L << (6 + random.nextInt(12)))
                    .maxCachedBytes(random.nextInt(1 << 20))
                    .build();
        };
    }

    /** {@return an offset or length near the interesting edges of {@code size}, or a wild one} */
    private static long pick(SplittableRandom random, long size) {
        return switch (random.nextInt(8)) {
            case 0 -> ODD_SIZES[random.nextInt(ODD_SIZES.length)];
            case 1 -> size;
            case 2 -> size + 1;
            case 3 -> size - 1;
            default -> size <= 0 ? 0 : random.nextLong(0, size);
        };
    }

    private void attempt(String name, long seed, int call, Runnable code) {
        try {
            code.run();
            outcomes.merge(name + ": ok", 1, Integer::sum);
        } catch (IllegalArgumentException | IndexOutOfBoundsException | IllegalStateException
                 | UnsupportedOperationException expected) {
            String message = expected.getMessage();
            if (message == null || message.isBlank()) {
                fail("call " + call + " (" + name + ", seed " + seed + ") threw " + expected.getClass().getName()
                        + " without a message", expected);
            }
            outcomes.merge(name + ": " + expected.getClass().getSimpleName(), 1, Integer::sum);
        } catch (OutOfMemoryError tooLarge) {
            // Documented on Allocator.allocate: the request is valid but the machine has no such memory.
            String message = String.valueOf(tooLarge.getMessage());
            assertTrue(name.equals("allocate") && message.contains("cannot reserve"),
                    () -> "call " + call + " (" + name + ", seed " + seed + "): " + tooLarge);
            outcomes.merge(name + ": OutOfMemoryError", 1, Integer::sum);
        } catch (RuntimeException | Error other) {
            fail("call " + call + " (" + name + ", seed " + seed + ") threw an undocumented " + other, other);
        }
    }
}
