package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * Runs plans: turns each step into byte-addressed {@link Task}s, splits large plans across the
 * calling thread and its {@link CopyWorkers}, and calls each kernel from its own line, so every
 * kernel keeps its own type profile (reference/java-kernels.md: shared call sites slowed kernels
 * by up to 13.7x).
 */
public final class CopyExecutor {
    /**
     * Plans moving fewer bytes than this run on the calling thread. Handing work to another
     * thread costs tens of microseconds: the 1.2 MB C = 3 interleave (13 us on one thread) ran at
     * 50 GB/s on 2 threads against 90 on one; the 8 MB padded tiling (130 us) ran at 82-86 on 2
     * threads against 49-63 on one once its steps ran as one batch (it was 29 with a hand-off per step).
     */
    public static final long PARALLEL_THRESHOLD_BYTES = 4L << 20;
    /** The default band of a blocked transpose, see {@code VectorTranspose}. */
    public static final long TRANSPOSE_BAND_BYTES = VectorTranspose.BAND_BYTES;
    /** The default smallest block a fill replicates, see {@code FillKernel}. */
    public static final long REPLICATE_BYTES = FillKernel.REPLICATE_BYTES;
    /** Whether broadcasts of long runs replicate by streamed copies by default: on this machine's CPU, {@link FillKernel#STREAMED_FILLS}. */
    public static final boolean STREAMED_FILLS = FillKernel.STREAMED_FILLS;
    /**
     * Pieces per thread, so a thread slowed by a neighbour's load does not hold up the rest. Times
     * the largest parallelism ({@link #MAX_PARALLELISM}) it stays far inside an int.
     */
    private static final int PIECES_PER_THREAD = 4;
    /**
     * The most threads an engine may run a copy on: more than the cores of any machine a JVM runs
     * on. Past the cores a copy only slows down (500 threads copied 16 MB in 814 ms, 2 in a few),
     * each engine starts a thread per unit, and {@code Integer.MAX_VALUE} made every copy fail on
     * an array of that many workers.
     */
    public static final int MAX_PARALLELISM = 4096;
    /** From this many bytes even a copy whose kernels are still cold is split across threads. */
    private static final long COLD_PARALLEL_BYTES = 64L << 20;
    /** Numbers the executors, so each engine's threads have names of their own. */
    private static final AtomicInteger EXECUTORS = new AtomicInteger();

    /** Never started: a thread other than the caller, to ask whether a segment is confined. */
    private static final Thread OTHER_THREAD = Thread.ofPlatform().unstarted(() -> { });

    private final int parallelism;
    private final boolean vector;
    private final long thresholdBytes;
    private final ScalarFirst scalarFirst;
    private final long replicateBytes;
    private final boolean streamedFills;
    private final long bandBytes;
    private final boolean stageDestination;
    private final long spinNanos;
    private final VectorWarmup warmup;
    /** Vector kernels asked for, and the module absent: said once, at the first copy (not at making an engine, which {@code explain} does too). */
    private final boolean vectorMissing;
    private final int number = EXECUTORS.getAndIncrement();
    private volatile CopyWorkers workers;

    /**
     * @param parallelism threads for large steps, {@code 1} to {@link #MAX_PARALLELISM}
     * @param vector whether to use the Vector API kernels (ignored when the module is absent)
     * @param thresholdBytes steps moving fewer bytes run on the calling thread
     */
    public CopyExecutor(int parallelism, boolean vector, long thresholdBytes) {
        this(parallelism, vector, thresholdBytes, ScalarFirst.jvmWide(0), VectorWarmup.SHARED);
    }

    CopyExecutor(int parallelism, boolean vector, long thresholdBytes, ScalarFirst scalarFirst) {
        this(parallelism, vector, thresholdBytes, scalarFirst, VectorWarmup.OFF);
    }

    CopyExecutor(int parallelism, boolean vector, long thresholdBytes, ScalarFirst scalarFirst, VectorWarmup warmup) {
        this(parallelism, vector, thresholdBytes, scalarFirst, FillKernel.REPLICATE_BYTES, FillKernel.STREAMED_FILLS,
                VectorTranspose.BAND_BYTES, true, CopyWorkers.SPIN_NANOS, warmup);
    }

    /**
     * An engine's executor, with every setting of its {@code config}: an epilogue's block copies
     * ({@link PointwiseCopy}) go through {@code owner}, on the thread that runs the block.
     */
    public CopyExecutor(CopyEngine.Config config, CopyEngine owner) {
        this(config.parallelism(), config.vectorKernels(), config.parallelThresholdBytes(),
                ScalarFirst.jvmWide(config.scalarFirstBytes()), config.replicateBytes(), config.streamedFills(),
                config.transposeBandBytes(),
                config.stageDestination(), config.spinMicros() * 1_000,
                config.warmup() ? VectorWarmup.SHARED : VectorWarmup.OFF);
        this.owner = owner;
    }

    /** The engine this executor runs for; null for one made alone (tests), whose blocks copy through {@link PointwiseCopy#engine()}. */
    private CopyEngine owner;

    /** {@return the engine an epilogue's block copies go through: the owning engine, else a one-thread one} */
    CopyEngine owner() {
        return owner != null ? owner : PointwiseCopy.engine();
    }

    private CopyExecutor(int parallelism, boolean vector, long thresholdBytes, ScalarFirst scalarFirst,
                         long replicateBytes, boolean streamedFills, long bandBytes, boolean stageDestination, long spinNanos,
                         VectorWarmup warmup) {
        this.parallelism = parallelism;
        this.thresholdBytes = thresholdBytes;
        this.vector = vector && VectorSupport.AVAILABLE;
        this.scalarFirst = scalarFirst;
        this.replicateBytes = replicateBytes;
        this.streamedFills = streamedFills;
        this.bandBytes = bandBytes;
        this.stageDestination = stageDestination;
        this.spinNanos = spinNanos;
        this.warmup = warmup;
        this.vectorMissing = vector && !VectorSupport.AVAILABLE;
    }

    /** {@return whether broadcasts of long runs replicate by streamed copies} */
    boolean streamedFills() {
        return streamedFills;
    }

    /** {@return the staging scratch held by every engine of the process} */
    public static ScratchMemory scratchMemory() {
        return StagedDestination.memory();
    }

    /** Frees the staging scratch kept for reuse. {@return the bytes freed} */
    public static long releaseScratch() {
        return StagedDestination.release();
    }

    /** {@return the threads a batch moving {@code bytes} (read plus written) runs on} */
    public int threadsFor(long bytes) {
        return bytes < thresholdBytes ? 1 : parallelism;
    }

    /**
     * Runs {@code piece.accept(i)} for every {@code i < count}, on the calling thread and the
     * workers, or on the caller alone where another batch holds them; returns when every piece
     * has ended, and throws what one threw. For loops other than copies ({@link EngineThreads}).
     */
    public void runPieces(int count, IntConsumer piece) {
        if (parallelism == 1 || count <= 1 || !workers().run(count, piece)) {
            for (int i = 0; i < count; i++) {
                piece.accept(i);
            }
        }
    }

    /** {@return the bytes from which a batch of steps is split across threads} */
    public long thresholdBytes() {
        return thresholdBytes;
    }

    /** {@return the most threads a step runs on: the calling thread and the helpers} */
    public int parallelism() {
        return parallelism;
    }

    /** {@return whether a thread other than the caller may touch {@code segment} (not a confined arena's)} */
    static boolean shareable(MemorySegment segment) {
        return segment.isAccessibleBy(OTHER_THREAD);
    }

    /**
     * Runs {@code unit.accept(i)} for every {@code i < units}, on the calling thread and the
     * helpers; every unit has ended when this returns or throws. On the caller alone when another
     * copy is using the helpers. An {@link Step.Epilogue}'s shares of blocks run so.
     */
    void forEach(int units, java.util.function.IntConsumer unit) {
        if (units > 1 && workers().run(units, unit)) {
            return;
        }
        for (int i = 0; i < units; i++) {
            unit.accept(i);
        }
    }

    /** {@return whether the Vector API kernels run} */
    public boolean vector() {
        return vector;
    }

    public void execute(CopyPlan plan) {
        if (vectorMissing) {
            VectorSupport.noticeMissing();
        }
        Values values = Values.of(plan);
        // Runs and zero steps write disjoint parts of the destination, so they run as one batch
        // (one hand-off to the other threads per plan, not one per step); a gather step is
        // ordered after the zeroing before it.
        List<Work> batch = new ArrayList<>();
        for (Step step : AccessCopies.steps(plan)) {
            switch (step) {
                case Step.Run r -> batch.add(work(r.kernel(), task(plan, r), values));
                case Step.Zero z -> batch.add(work(Kernel.ZERO, task(plan, z), values));
                // Not work(): a warm-up would run the kernel over the blocks' bytes as if they were f32.
                case Step.Dequantize d -> batch.add(new Work(d.run().kernel(), vector, task(plan, d), d));
                case Step.Gather g -> {
                    runBatch(batch, values);
                    batch.clear();
                    GatherKernel.run(AccessCopies.src(plan), AccessCopies.dst(plan), plan.affine().orElse(null));
                }
                case Step.Epilogue p -> {
                    runBatch(batch, values);
                    batch.clear();
                    p.pass().run(this);
                }
            }
        }
        runBatch(batch, values);
        warmup.start();
    }

    /**
     * Runs one loop nest between two strided sides on the calling thread, as {@link #execute}
     * runs a plan's one run: a box of a copy over pieces ({@link BoxRuns}), whose plan is its
     * form's, moved to its offsets. The caller has checked both sides against the loops.
     */
    public void runLoops(Step.Run r, MemorySegment src, DType from, MemorySegment dst, DType to) {
        if (vectorMissing) {
            VectorSupport.noticeMissing();
        }
        int sw = from.byteWidth();
        int dw = to.byteWidth();
        Values values = new Values(ElementAccess.of(from), ElementAccess.of(to), null, null);
        run(work(r.kernel(), task(src, dst, r.srcOffset() * sw, r.dstOffset() * dw, r.loops(), sw, dw, -1), values), values);
        warmup.start();
    }

    /**
     * A loop nest ready to run at many offsets ({@link #runAt}): its counts and byte strides made
     * once, as {@link #runLoops} makes them for each call. A copy cut past the ceiling runs some
     * hundred thousand boxes of a few hundred forms so ({@link BoxTable}).
     */
    public static final class Prepared {
        private final Kernel kernel;
        private final long[] count;
        private final long[] srcStride;
        private final long[] dstStride;
        private final int srcWidth;
        private final int dstWidth;
        private final Values values;

        private Prepared(Step.Run r, DType from, DType to) {
            kernel = r.kernel();
            srcWidth = from.byteWidth();
            dstWidth = to.byteWidth();
            int n = r.loops().size();
            count = new long[n];
            srcStride = new long[n];
            dstStride = new long[n];
            for (int i = 0; i < n; i++) {
                Loop l = r.loops().get(i);
                count[i] = l.count();
                srcStride[i] = l.srcStride() * srcWidth;
                dstStride[i] = l.dstStride() * dstWidth;
            }
            values = new Values(ElementAccess.of(from), ElementAccess.of(to), null, null);
        }
    }

    /** {@return {@code r}'s loops (its offsets aside) ready for {@link #runAt}} */
    public Prepared prepare(Step.Run r, DType from, DType to) {
        return new Prepared(r, from, to);
    }

    /**
     * Runs {@code p}'s loops from source element {@code srcOffset} of {@code src} and destination
     * element {@code dstOffset} of {@code dst} on the calling thread, as {@link #runLoops} runs a
     * run at those offsets. The caller has checked both sides against the loops.
     */
    public void runAt(Prepared p, MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset) {
        if (vectorMissing) {
            VectorSupport.noticeMissing();
        }
        Task t = new Task(src, dst, srcOffset * p.srcWidth, dstOffset * p.dstWidth, p.count, p.srcStride, p.dstStride,
                p.srcWidth, p.dstWidth, -1, 0);
        run(work(p.kernel, t, p.values), p.values);
        warmup.start();
    }

    /** What kernels need besides their task: element access and the per-channel scale and bias. */
    record Values(ElementAccess sa, ElementAccess da, float[] scale, float[] bias) {
        static Values of(CopyPlan plan) {
            ChannelAffine affine = plan.affine().orElse(null);
            return new Values(ElementAccess.of(AccessCopies.src(plan).dtype()), ElementAccess.of(AccessCopies.dst(plan).dtype()),
                    affine == null ? null : GatherKernel.Floats.toArray(affine.scale()),
                    affine == null ? null : GatherKernel.Floats.toArray(affine.bias()));
        }
    }

    /**
     * {@return the most threads a step of {@code plan} runs on: as {@link #execute} batches the
     * steps, {@link #threadsFor(long)} of each batch's bytes, 1 for a gather step and for a batch
     * over a confined arena's memory} Fewer when another copy is using the helper threads then.
     */
    public int threadsFor(CopyPlan plan) {
        int threads = 1;
        long bytes = 0;
        boolean shareable = true;
        for (Step step : AccessCopies.steps(plan)) {
            Task t = switch (step) {
                case Step.Run r -> task(plan, r);
                case Step.Zero z -> task(plan, z);
                case Step.Dequantize d -> task(plan, d);
                case Step.Gather g -> null;
                case Step.Epilogue p -> {
                    threads = Math.max(threads, p.pass().threads(this));
                    yield null;
                }
            };
            if (t == null) {
                threads = Math.max(threads, batchThreads(bytes, shareable));
                bytes = 0;
                shareable = true;
            } else {
                bytes += t.bytes();
                shareable &= new Work(Kernel.ZERO, false, t).shareable();
            }
        }
        return Math.max(threads, batchThreads(bytes, shareable));
    }

    private int batchThreads(long bytes, boolean shareable) {
        return bytes == 0 || !shareable ? 1 : threadsFor(bytes);
    }

    private static Task task(CopyPlan plan, Step.Zero z) {
        int w = Math.max(1, AccessCopies.dst(plan).dtype().byteWidth());
        return task(null, AccessCopies.dst(plan).segment(), 0, z.dstOffset() * w, z.loops(), w, w, -1);
    }

    /** The run over the source's f32 rows, its source the blocks' segment (whose offsets are the rows'). */
    private static Task task(CopyPlan plan, Step.Dequantize d) {
        int dw = AccessCopies.dst(plan).dtype().byteWidth();
        Step.Run r = d.run();
        return task(d.source().segment(), AccessCopies.dst(plan).segment(), r.srcOffset() * 4, r.dstOffset() * dw, r.loops(), 4, dw, -1);
    }

    private static Task task(CopyPlan plan, Step.Run r) {
        int sw = AccessCopies.src(plan).dtype().byteWidth();
        int dw = AccessCopies.dst(plan).dtype().byteWidth();
        return task(AccessCopies.src(plan).segment(), AccessCopies.dst(plan).segment(), r.srcOffset() * sw, r.dstOffset() * dw, r.loops(), sw, dw,
                r.channelLoop());
    }

    /** A kernel, whether its vector version runs, and the loop nest it runs. */
    private record Work(Kernel kernel, boolean vector, Task task, Step.Dequantize blocks) {
        Work(Kernel kernel, boolean vector, Task task) {
            this(kernel, vector, task, null);
        }

        /** Segments of a confined arena can only be touched by their owner thread. */
        boolean shareable() {
            return task.dst().isAccessibleBy(OTHER_THREAD) && (task.src() == null || task.src().isAccessibleBy(OTHER_THREAD));
        }
    }

    /**
     * A step's work, with its kernel's vector version unless {@link ScalarFirst} or
     * {@link VectorWarmup} holds it back (kernels without one ignore the flag).
     */
    private Work work(Kernel kernel, Task task, Values values) {
        // A step large enough to be split is warmed on one of its pieces: the loops its kernel will run.
        int pieces = threadsFor(task.bytes()) == 1 ? 1 : parallelism * PIECES_PER_THREAD;
        return new Work(kernel, vector && scalarFirst.vectorFor(kernel, task.bytes())
                && warmup.vectorFor(kernel, task, pieces, this, values), task);
    }

    private static Task task(MemorySegment src, MemorySegment dst, long so, long dO, List<Loop> loops, int sw, int dw,
                             int channel) {
        int r = loops.size();
        long[] count = new long[r];
        long[] ss = new long[r];
        long[] ds = new long[r];
        for (int i = 0; i < r; i++) {
            count[i] = loops.get(i).count();
            ss[i] = loops.get(i).srcStride() * sw;
            ds[i] = loops.get(i).dstStride() * dw;
        }
        return new Task(src, dst, so, dO, count, ss, ds, sw, dw, channel, 0);
    }

    /**
     * Runs a batch of independent steps: on the calling thread when small, else cut into pieces
     * (each step into a share of {@code parallelism * PIECES_PER_THREAD} in proportion to its
     * bytes, and into at least one a thread) that the calling thread and {@code parallelism - 1}
     * {@link CopyWorkers} take, each thread the same run of every step first; every piece ends
     * before this returns or throws. Taken from one list instead, the pieces went to whichever
     * thread came first, so a copy repeated in cache found its data in the other core's cache:
     * the 8 MB padded tiling ran 1.28-1.40x faster on two threads with the runs kept, and
     * slower on two threads than on one without (paced turns, bench/RESULTS.md). One hand-off per
     * batch matters for in-cache copies of a few MB, whose several steps (a tiled destination's
     * boxes and padding) each take tens of microseconds: a fork and join per step made two threads
     * slower than one.
     */
    private void runBatch(List<Work> batch, Values values) {
        long bytes = 0;
        boolean shareable = true;
        boolean cold = false;
        for (Work w : batch) {
            bytes += w.task().bytes();
            shareable &= w.shareable();
        }
        if (threadsFor(bytes) > 1 && shareable && bytes < COLD_PARALLEL_BYTES) {
            for (Work w : batch) {
                // A kernel's first scalar batches while its vector version warms stay on the caller.
                cold |= vector && !w.vector() && w.blocks() == null && !warmup.isWarm(w.kernel())
                        && warmup.onCallerAlone(w.kernel(), parallelism);
            }
        }
        if (threadsFor(bytes) == 1 || !shareable || cold) {
            for (Work w : batch) {
                run(w, values);
            }
            return;
        }
        int target = parallelism * PIECES_PER_THREAD;
        CopyWorkers helpers = workers();
        int threads = helpers.threads();
        // Each step's pieces in runs, one a thread: thread s takes the s-th run of every step
        // first, so a copy repeated in cache finds each part where the same core left it.
        List<List<Work>> shares = new ArrayList<>();
        for (int s = 0; s < threads; s++) {
            shares.add(new ArrayList<>());
        }
        for (Work w : batch) {
            Kernel k = w.kernel();
            boolean v = w.vector();
            Task t = w.task();
            int share = (int) Math.max(threads, Math.min(target, Math.ceilDiv(w.task().bytes() * target, Math.max(1, bytes))));
            if (k == Kernel.FILL && w.blocks() == null) {
                Task copies = FillKernel.replicas(t, v, replicateBytes, share, streamedFills);
                if (copies != null) {
                    // One block filled here, the rest copied from it by every thread.
                    run(k, v, t.slice(0, 0, 1), values);
                    k = Kernel.BULK;
                    t = copies;
                }
            }
            List<Task> cut = new ArrayList<>();
            split(t, 0, share, reserved(k), whole(k, t), cut);
            for (int j = 0; j < cut.size(); j++) {
                shares.get((int) ((long) j * threads / cut.size())).add(new Work(k, v, cut.get(j), w.blocks()));
            }
        }
        List<Work> pieces = new ArrayList<>();
        int[] bounds = new int[threads + 1];
        for (int s = 0; s < threads; s++) {
            pieces.addAll(shares.get(s));
            bounds[s + 1] = pieces.size();
        }
        boolean shared = helpers.run(bounds, i -> {
            Work piece = pieces.get(i);
            run(piece, values);
        });
        if (!shared) {
            // Another copy is using the workers: this one runs on its caller alone.
            for (Work piece : pieces) {
                run(piece, values);
            }
        }
    }

    /** Innermost loops a kernel walks itself and keeps in 16-element blocks when cut. */
    static int reserved(Kernel k) {
        return switch (k) {
            case TRANSPOSE, PAIR_INTERLEAVE, INTERLEAVE, DEINTERLEAVE, BYTE_PLANES, CONVERT_PAIR_INTERLEAVE,
                 CONVERT_PAIR_DEINTERLEAVE -> 2;
            default -> 1;
        };
    }

    /** The loop a kernel needs whole (its plane or row-pair loop), or -1. */
    static int whole(Kernel k, Task t) {
        return switch (k) {
            case INTERLEAVE -> t.rank() - 1;
            case DEINTERLEAVE, BYTE_PLANES, CONVERT_PAIR_DEINTERLEAVE -> t.rank() - 2;
            default -> -1;
        };
    }

    /**
     * Cuts loop {@code k} into about {@code pieces} chunks; when it has fewer iterations, each
     * iteration is cut further along loop {@code k + 1}. The loops a kernel keeps in blocks
     * ({@code reserved} innermost) are cut in multiples of 16 so shuffle blocks stay whole, and
     * loop {@code whole} (the plane loop of the plane kernels, the row-pair loop of the bf16 (2,1)
     * unpack, or -1) is never cut.
     */
    static void split(Task t, int k, int pieces, int reserved, int whole, List<Task> out) {
        long c = t.count()[k];
        int r = t.rank();
        if (k == whole) {
            if (k == r - 1) {
                out.add(t);
            } else {
                split(t, k + 1, pieces, reserved, whole, out);
            }
            return;
        }
        if (c >= pieces || k == r - 1 || (k == r - 2 && whole == r - 1)) {
            long align = k >= r - reserved ? 16 : 1;
            long chunk = Math.max(1, Math.ceilDiv(Math.ceilDiv(c, pieces), align) * align);
            for (long from = 0; from < c; from += chunk) {
                out.add(t.slice(k, from, Math.min(chunk, c - from)));
            }
            return;
        }
        int sub = (int) Math.ceilDiv(pieces, c);
        for (long i = 0; i < c; i++) {
            split(t.slice(k, i, 1), k + 1, sub, reserved, whole, out);
        }
    }

    private void run(Work w, Values values) {
        if (w.blocks() != null) {
            DequantizeKernel.run(this, w.blocks(), w.kernel(), w.vector(), w.task(), values);
        } else {
            run(w.kernel(), w.vector(), w.task(), values);
        }
    }

    void run(Kernel k, boolean vector, Task t, Values values) {
        ElementAccess sa = values.sa();
        ElementAccess da = values.da();
        float[] scale = values.scale();
        float[] bias = values.bias();
        switch (k) {
            case BULK -> BulkKernel.run(t);
            case FILL -> FillKernel.run(t, vector, replicateBytes, streamedFills);
            case TRANSPOSE -> {
                if (!vector) {
                    ScalarTranspose.run(t);
                } else if (stageDestination && VectorTranspose.writesInPasses(t, bandBytes)) {
                    StagedDestination.run(t, piece -> VectorTranspose.run(piece, bandBytes));
                } else {
                    VectorTranspose.run(t, bandBytes);
                }
            }
            case PAIR_INTERLEAVE -> {
                if (vector) {
                    VectorPairInterleave.run(t);
                } else {
                    ElementKernel.run(t);
                }
            }
            case INTERLEAVE -> {
                if (vector) {
                    VectorPlanes.interleave(t);
                } else {
                    ElementKernel.run4(t);
                }
            }
            case DEINTERLEAVE -> {
                if (vector) {
                    VectorPlanes.deinterleave(t);
                } else {
                    ElementKernel.run4(t);
                }
            }
            case EVEN_GATHER -> {
                if (vector) {
                    VectorEvenGather.run(t);
                } else {
                    ElementKernel.run4(t);
                }
            }
            case BYTE_PLANES -> {
                if (vector) {
                    VectorBytePlanes.run(t, scale, bias);
                } else {
                    ScalarBytePlanes.run(t, scale, bias);
                }
            }
            case ELEMENT -> ElementKernel.run(t);
            case CONVERT -> ConvertKernel.run(t, sa, da, scale, bias, vector);
            case CONVERT_PAIR_INTERLEAVE -> {
                if (vector) {
                    VectorBf16Pairs.pack(t);
                } else {
                    Bf16Pairs.pack(t);
                }
            }
            case CONVERT_PAIR_DEINTERLEAVE -> {
                if (vector) {
                    VectorBf16Pairs.unpack(t);
                } else {
                    Bf16Pairs.unpack(t);
                }
            }
            case ZERO -> ZeroKernel.run(t);
            case GATHER -> throw new AssertionError("gather steps run whole");
        }
    }

    /** {@return the prefix of this executor's helper threads' names: {@code tensorbuf-copy-E}, then {@code -I} for each} */
    public String threadNamePrefix() {
        return "tensorbuf-copy-" + number;
    }

    /** {@return whether any batch has been split across this executor's helper threads} */
    boolean helpersStarted() {
        return workers != null;
    }

    private CopyWorkers workers() {
        CopyWorkers w = workers;
        if (w == null) {
            synchronized (this) {
                w = workers;
                if (w == null) {
                    w = new CopyWorkers(parallelism - 1, spinNanos, threadNamePrefix());
                    workers = w;
                }
            }
        }
        return w;
    }
}
