package dev.tensorbuf.ops.copy.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
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
 * kept. {@code -Dtensorbuf.copy.stageDestination=false} turns staging off.
 */
final class StagedDestination {
    /** The JDK copy stub streams from this many bytes per call (measured: bench/RESULTS.md). */
    static final long MIN_CHUNK_BYTES = 2_621_440;
    /**
     * Scratch size. Chunks are under two thresholds (5 MiB) plus the rounding to 16-row blocks; a
     * larger chunk is written directly.
     */
    static final long SCRATCH_BYTES = 6L << 20;
    static final boolean ENABLED = !"false".equals(System.getProperty("tensorbuf.copy.stageDestination"));
    private static final ArrayBlockingQueue<MemorySegment> FREE =
            new ArrayBlockingQueue<>(Runtime.getRuntime().availableProcessors());

    private StagedDestination() {
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
            MemorySegment scratch = take();
            try {
                kernel.accept(new Task(piece.src(), scratch, piece.srcOff(), 0, piece.count(), piece.srcStride(),
                        piece.dstStride(), piece.srcWidth(), piece.dstWidth(), piece.channelLoop(),
                        piece.channelBase()));
                MemorySegment.copy(scratch, 0, piece.dst(), piece.dstOff(), bytes);
            } finally {
                give(scratch);
            }
        }
    }

    /** {@return {@code t} cut into chunks that together cover it once, in order} */
    static List<Chunk> chunks(Task t) {
        List<Chunk> out = new ArrayList<>();
        if (!ENABLED || t.denseDestinationBytes(0) < MIN_CHUNK_BYTES) {
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

    private static MemorySegment take() {
        MemorySegment s = FREE.poll();
        // Automatic arenas: a buffer the pool does not keep goes with the garbage collector.
        return s != null ? s : Arena.ofAuto().allocate(SCRATCH_BYTES, 4096);
    }

    private static void give(MemorySegment s) {
        FREE.offer(s);
    }
}
