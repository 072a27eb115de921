package dev.tensorbuf.ops.copy.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Runs a kernel into a scratch buffer and moves each finished chunk of the destination with one
 * {@code MemorySegment.copy}, whose JDK stub writes with streaming (non-temporal) stores from
 * {@link #MIN_CHUNK_BYTES} per call. A kernel's own vector stores make the CPU read every
 * destination line before writing it (write-allocate); streaming stores do not.
 *
 * <p>Why only some kernels: it pays where the kernel writes the destination in strided passes
 * (NCHW -> NHWC, whose 16-channel passes each write one 64-byte line in every {@code 4C} bytes):
 * 4-19% on C = 32, 64 and 128 in turns with the direct kernel (bench/RESULTS.md), nothing at C = 256.
 * Where the kernel writes long sequential runs (NHWC -> NCHW) the scratch's extra trip through
 * the L3 cost up to 12%. {@link VectorTranspose#writesInPasses} says which.
 *
 * <p>The task's destination must be dense in its loop order (loops of one iteration aside), as
 * the planner's nests for a packed destination are; otherwise, and for chunks under
 * {@link #MIN_CHUNK_BYTES}, the kernel writes the destination directly. Chunks are cut along the
 * outermost loop whose iterations are at most {@code 2 * MIN_CHUNK_BYTES}, so each is between one
 * and about two times the streaming threshold. Scratch buffers are pooled, at most one per core
 * kept; each has its own arena, so one the pool cannot keep, or {@link #release} drops, is freed
 * at once rather than when the garbage collector gets to it. {@link #memory} accounts for them.
 * An engine's {@code CopyEngine.Config.stageDestination} ({@code -Dtensorbuf.copy.stageDestination=false})
 * turns staging off: its executor then runs the kernel directly.
 */
final class StagedDestination {
    /** The JDK copy stub streams from this many bytes per call (measured: bench/RESULTS.md). */
    static final long MIN_CHUNK_BYTES = 2_621_440;
    /**
     * Scratch size. Chunks are under two thresholds (5 MiB) plus the rounding to 16-row blocks; a
     * larger chunk is written directly.
     */
    static final long SCRATCH_BYTES = 6L << 20;
    private static final ArrayBlockingQueue<Scratch> FREE =
            new ArrayBlockingQueue<>(Runtime.getRuntime().availableProcessors());
    private static final AtomicLong HELD = new AtomicLong();
    private static final AtomicLong IN_USE = new AtomicLong();
    private static final AtomicLong PEAK = new AtomicLong();
    private static final AtomicLong ALLOCATIONS = new AtomicLong();

    private StagedDestination() {
    }

    /** A scratch buffer and the arena that frees it. */
    record Scratch(Arena arena, MemorySegment segment) {
    }

    /** A piece of a task and whether it goes through the scratch. */
    record Chunk(Task task, boolean staged) {
    }

    /** Runs {@code kernel} over {@code t}, staging the chunks {@link #chunks} marks. */
    static void run(Task t, Consumer<Task> kernel) {
        for (Chunk c : chunks(t)) {
            Task piece = c.task();
            if (!c.staged()) {
                kernel.accept(piece);
                continue;
            }
            long bytes = destinationBytes(piece);
            Scratch scratch = take();
            try {
                kernel.accept(new Task(piece.src(), scratch.segment(), piece.srcOff(), 0, piece.count(), piece.srcStride(),
                        piece.dstStride(), piece.srcWidth(), piece.dstWidth(), piece.channelLoop(),
                        piece.channelBase()));
                MemorySegment.copy(scratch.segment(), 0, piece.dst(), piece.dstOff(), bytes);
            } finally {
                give(scratch);
            }
        }
    }

    /** {@return {@code t} cut into chunks that together cover it once, in order} */
    static List<Chunk> chunks(Task t) {
        List<Chunk> out = new ArrayList<>();
        if (t.denseDestinationBytes(0) < MIN_CHUNK_BYTES) {
            out.add(new Chunk(t, false));
        } else {
            cut(t, 0, out);
        }
        return out;
    }

    private static void cut(Task t, int level, List<Chunk> out) {
        int r = t.rank();
        long per = t.denseDestinationBytes(level + 1);
        long count = t.count()[level];
        if (per > 2 * MIN_CHUNK_BYTES && level < r - 1) {
            for (long i = 0; i < count; i++) {
                cut(t.slice(level, i, 1), level + 1, out);
            }
            return;
        }
        long total = per * count;
        long pieces = Math.max(1, total / MIN_CHUNK_BYTES);
        long step = Math.ceilDiv(count, pieces);
        if (level >= r - 2) {
            // The kernel's 16x16 blocks stay whole.
            step = Math.ceilDiv(step, 16) * 16;
        }
        for (long from = 0; from < count; from += step) {
            long n = Math.min(step, count - from);
            long bytes = per * n;
            out.add(new Chunk(t.slice(level, from, n), bytes >= MIN_CHUNK_BYTES && bytes <= SCRATCH_BYTES));
        }
    }

    static long destinationBytes(Task t) {
        return t.elements() * t.dstWidth();
    }

    /** {@return the scratch memory held now: in use and kept, the peak, buffers ever allocated} */
    static ScratchMemory memory() {
        return new ScratchMemory(HELD.get(), IN_USE.get(), PEAK.get(), ALLOCATIONS.get());
    }

    /** Frees every kept scratch buffer; ones in use stay. {@return the bytes freed} */
    static long release() {
        long freed = 0;
        for (Scratch s = FREE.poll(); s != null; s = FREE.poll()) {
            free(s);
            freed += SCRATCH_BYTES;
        }
        return freed;
    }

    static Scratch take() {
        Scratch s = FREE.poll();
        if (s == null) {
            Arena arena = Arena.ofShared();
            try {
                s = new Scratch(arena, arena.allocate(SCRATCH_BYTES, 4096));
            } catch (RuntimeException | Error e) {
                arena.close();
                throw e;
            }
            ALLOCATIONS.incrementAndGet();
            PEAK.accumulateAndGet(HELD.addAndGet(SCRATCH_BYTES), Math::max);
        }
        IN_USE.addAndGet(SCRATCH_BYTES);
        return s;
    }

    static void give(Scratch s) {
        IN_USE.addAndGet(-SCRATCH_BYTES);
        if (!FREE.offer(s)) {
            free(s);
        }
    }

    private static void free(Scratch s) {
        s.arena().close();
        HELD.addAndGet(-SCRATCH_BYTES);
    }
}
