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
 * streaming stores, no per-run work), which is what makes short runs fast.
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

    private FillKernel() {
    }

    static void run(Task t, boolean vector, long replicateBytes) {
        Task copies = replicas(t, vector, replicateBytes);
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
     * block per piece with ordinary stores). Never when the runs are long enough for the vector
     * fill, which writes faster than the copies.
     */
    static Task replicas(Task t, boolean vector, long replicateBytes) {
        int r = t.rank();
        if (vectorRuns(t, vector)) {
            return null;
        }
        long block = t.denseDestinationBytes(1);
        if (replicateBytes <= 0 || r < 2 || block < replicateBytes || t.srcStride()[0] != 0 || t.count()[0] < 2
                || t.dstStride()[0] < block) {
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
