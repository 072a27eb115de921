package dev.tensorbuf.ops.copy.internal;

import java.lang.foreign.MemorySegment;

/**
 * {@link dev.tensorbuf.ops.copy.internal.Kernel#FILL}: broadcast along the innermost loop. With the Vector
 * API, a run of an element of 1, 2, 4 or 8 bytes spanning at least {@link #VECTOR_RUN_BYTES} is
 * written with wide stores of the repeated pattern ({@link VectorFill}). Otherwise the first
 * elements of a run are written one by one, the rest by doubling {@code MemorySegment.copy} from
 * the run's own start, which keeps the wide copy stub on large runs; and when the outermost loop
 * is a broadcast too (source stride 0) over a dense destination block, only its first block is
 * filled and the others are bulk copies of it (few large copies from cache, the copy stub's
 * streaming stores, no per-run work), which is what makes short runs fast. Long runs replicate
 * too once a block reaches {@link #STREAMING_COPY_BYTES}, where that is faster
 * ({@link #STREAMED_FILLS}): the vector fill's stores read each destination line before writing
 * it, the stub's streaming stores do not (a per-channel value over {@code [32,64,112,112]}: one
 * 3.2 MB image filled, 31 streamed copies of it).
 */
final class FillKernel {
    private static final int SEED_ELEMENTS = 64;
    /**
     * Smallest destination block replicated by bulk copies by default (an engine's
     * {@code CopyEngine.Config.replicateBytes}); 0 turns replication off.
     */
    public static final long REPLICATE_BYTES = 64 << 10;

    /**
     * Shortest run that the vector fill writes directly instead of replicating blocks: below it,
     * per-run work outweighs the wide stores' advantage over block copies.
     */
    static final long VECTOR_RUN_BYTES = 1024;

    /**
     * From this many bytes a {@code MemorySegment.copy} writes with streaming stores on x86 (the
     * JDK's copy stub; {@code bench/experiments/Thr.java}: 14 GB/s written below, 28 above).
     * Blocks this large are replicated even when their runs are long enough for the vector fill.
     */
    static final long STREAMING_COPY_BYTES = 2_621_440;

    /**
     * Whether long runs replicate by streamed copies at all: where the copy stub's streaming stores
     * write faster than the vector fill's plain ones. On a 2-core Intel Xeon VM 2.5 MiB streamed
     * copies wrote 25-28.5 GB/s on two threads against 13-16 for 256-bit stores
     * ({@code bench/experiments/NtFill.java 2 1048576}); on a 2-core AMD EPYC VM 24-25 against 22-27,
     * and the broadcast ran 0.91x on two quiet threads so (8effbef8). The default of
     * {@code CopyEngine.Config.streamedFills}: true on a CPU whose vendor is Intel.
     */
    static final boolean STREAMED_FILLS = CpuInfo.isIntel();

    private FillKernel() {
    }

    /** Fills {@code t}, long runs replicated by streamed copies or not, as {@code streamed} says. */
    static void run(Task t, boolean vector, long replicateBytes, boolean streamed) {
        Task copies = replicas(t, vector, replicateBytes, 1, streamed);
        if (copies == null) {
            runs(t, vector);
            return;
        }
        runs(t.slice(0, 0, 1), vector);
        BulkKernel.run(copies);
    }

    private static boolean vectorRuns(Task t, boolean vector) {
        int w = t.dstWidth();
        return vector && (w == 1 || w == 2 || w == 4 || w == 8) && t.dstStride()[t.rank() - 1] == w
                && t.count()[t.rank() - 1] * w >= Math.max(VECTOR_RUN_BYTES, VectorFill.BYTES);
    }

    /**
     * {@return the bulk copies that make the rest of {@code t} from its first outer block, or null
     * when {@code t} does not replicate}: its outermost loop broadcasts (source stride 0) over
     * dense destination blocks of at least {@code replicateBytes}. The copies are a
     * {@link dev.tensorbuf.ops.copy.internal.Kernel#BULK} task reading the destination's first block, so
     * they can be split across threads once that block is filled (a split fill would fill one
     * block per piece with ordinary stores). When the runs are long enough for the vector fill,
     * which writes faster than ordinary copies, only blocks the copy streams
     * ({@link #STREAMING_COPY_BYTES}), at least one for each of the {@code pieces} the copies are
     * cut into, so no piece is a part of a block below the streaming size, and only on a machine
     * where streamed copies write faster ({@code streamed}: the engine's
     * {@code CopyEngine.Config.streamedFills}, {@link #STREAMED_FILLS} by default).
     */
    static Task replicas(Task t, boolean vector, long replicateBytes, int pieces, boolean streamed) {
        int r = t.rank();
        long block = t.denseDestinationBytes(1);
        if (replicateBytes <= 0 || r < 2 || block < replicateBytes || t.srcStride()[0] != 0 || t.count()[0] < 2
                || t.dstStride()[0] < block) {
            return null;
        }
        if (vectorRuns(t, vector) && (!streamed || block < STREAMING_COPY_BYTES || t.count()[0] - 1 < pieces)) {
            return null;
        }
        long ds = t.dstStride()[0];
        return new Task(t.dst(), t.dst(), t.dstOff(), t.dstOff() + ds, new long[] {t.count()[0] - 1, block},
                new long[] {0, 1}, new long[] {ds, 1}, 1, 1, -1, 0);
    }

    private static void runs(Task t, boolean vector) {
        int r = t.rank();
        long n = t.count()[r - 1];
        int w = t.dstWidth();
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 1);
        if (vectorRuns(t, vector)) {
            do {
                VectorFill.fillRun(src, o.src, dst, o.dst, n, w);
            } while (o.next());
            return;
        }
        do {
            fillRun(src, o.src, dst, o.dst, n, w);
        } while (o.next());
    }

    private static void fillRun(MemorySegment src, long so, MemorySegment dst, long d, long n, int w) {
        long seed = Math.min(n, SEED_ELEMENTS);
        switch (w) {
            case 1 -> {
                dst.asSlice(d, n).fill(src.get(Layouts.I8, so));
                return;
            }
            case 2 -> {
                short v = src.get(Layouts.I16, so);
                for (long i = 0; i < seed; i++) {
                    dst.set(Layouts.I16, d + 2 * i, v);
                }
            }
            case 4 -> {
                int v = src.get(Layouts.I32, so);
                for (long i = 0; i < seed; i++) {
                    dst.set(Layouts.I32, d + 4 * i, v);
                }
            }
            case 8 -> {
                long v = src.get(Layouts.I64, so);
                for (long i = 0; i < seed; i++) {
                    dst.set(Layouts.I64, d + 8 * i, v);
                }
            }
            default -> {
                for (long i = 0; i < seed; i++) {
                    MemorySegment.copy(src, so, dst, d + w * i, w);
                }
            }
        }
        long done = seed;
        while (done < n) {
            long chunk = Math.min(done, n - done);
            MemorySegment.copy(dst, d, dst, d + done * w, chunk * w);
            done += chunk;
        }
    }
}
