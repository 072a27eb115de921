package dev.tensorbuf.cli;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaLayout;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a view's elements into a file as row-major bytes through small buffers: the copy
 * engine fills a buffer with the next piece of the output (a slice of the source view, transposed
 * or converted as the view says) and the piece goes to the file with an ordinary write, while it
 * is still in the cache. A scalar job's pieces are copied on one thread a core, two buffers each,
 * and written in order by the calling thread ({@link #THREADS}, {@link OrderedPieces}).
 *
 * <p>Why not a buffer of the whole output, or a mapping of the file: for a 200 MB tensor either
 * costs a page fault per 4 KiB page (51,200 of them, each a trap and a zeroed page), which took
 * more time than the copy and the write together (bench/peers/convert_e2e.sh). One buffer of 2 MiB
 * is faulted once and stays in the cache: the copy fills it and write(2) reads it back from there.
 * One of 8 MiB doubled the 200 MB transpose's system time on 4 KiB pages: 0.65-0.76 s against
 * 0.33-0.35 s for 0.5-2 MiB; under 512 KiB the pieces' own cost grew. On huge pages
 * ({@value #HUGE_PAGE_STAGES}) pieces of 4 MiB beat 2 MiB: a whole 3.2 MB image a piece, read in
 * one run instead of 256 strips of two pieces, the 200 MB NCHW -> NHWC 407 -> 372 ms, NHWC -> NCHW
 * 403 -> 354 (bench/RESULTS.md, "Convert end to end").
 * {@snippet :
 * try (StagedWrites staged = new StagedWrites(bytesReadPlusWritten)) {
 *     Npy.write(out, DType.F32, dims, staged.writer(Ops.transpose(source, 0, 2, 3, 1), progress));
 * }
 * }
 */
final class StagedWrites implements AutoCloseable {
    /** {@value #HUGE_PAGE_STAGES}, read once: it sets both the pieces' size and the ring's start. */
    private static final boolean HUGE_PAGES = Boolean.getBoolean(StagedWrites.HUGE_PAGE_STAGES);
    /**
     * The buffer's size: pieces of whole rows up to this (a row larger than it is split along its
     * next dim); 4 MiB where the ring is on huge pages, 2 MiB otherwise.
     */
    static final long STAGE_BYTES = Long.getLong("tensorbuf.convert.stageBytes",
            HUGE_PAGES ? 4L << 20 : 2L << 20);
    /**
     * The property naming the most bytes (read plus written) a job may move to run every kernel
     * scalar, with no vector warm-up; the launcher sets it for {@code convert}. Unset: the
     * engine's own settings ({@code tensorbuf.copy.*}) decide.
     */
    static final String SCALAR_JOB_BYTES = "tensorbuf.convert.scalarJobBytes";

    private final Allocator arena = Allocators.shared();
    private final CopyEngine engine;
    private final long stageBytes;
    private final int threads;
    private final long ringAlignment;
    /** The buffers pieces are copied into, each of {@link #stageSize} bytes; grown as needed, kept for the next tensor. */
    private MemoryBuffer[] stages = new MemoryBuffer[0];
    private long stageSize;

    /**
     * @param jobBytes what the whole job moves, read plus written: with {@value #SCALAR_JOB_BYTES}
     *     at least this, its kernels run scalar throughout, its pieces on the threads
     *     {@value #THREADS} asks for
     */
    StagedWrites(long jobBytes) {
        this(engineFor(jobBytes, Long.getLong(SCALAR_JOB_BYTES, -1), CopyEngine.defaults()), STAGE_BYTES,
                Integer.getInteger(THREADS, 0), HUGE_PAGES ? HUGE_PAGE_BYTES : STAGE_ALIGNMENT);
    }

    /**
     * @param stageBytes the largest piece
     * @param threads the threads copying pieces, the calling one included, or 0 for one a core
     *     (at most {@link #MAX_THREADS}); 1 where {@code engine} runs on several threads itself
     * @param ringAlignment where the buffers' region starts: a power of two, at least a cache line
     */
    StagedWrites(CopyEngine engine, long stageBytes, int threads, long ringAlignment) {
        if (Long.bitCount(ringAlignment) != 1 || ringAlignment < STAGE_ALIGNMENT) {
            throw new IllegalArgumentException("ring alignment " + ringAlignment);
        }
        this.engine = engine;
        this.stageBytes = stageBytes;
        this.threads = threadsFor(engine, threads, Runtime.getRuntime().availableProcessors());
        this.ringAlignment = ringAlignment;
    }

    /**
     * The property naming the threads that copy a scalar job's pieces (default 0: one a core, at
     * most {@link #MAX_THREADS}). Each copies whole pieces into two buffers of its own while the
     * calling thread, copying too, writes them in order ({@link OrderedPieces}). On our 2-core
     * machine with a core free, two threads took a 200 MB transpose from 0.41 to 0.35-0.36 s
     * replacing the file and from 0.29-0.35 to 0.245-0.30 s writing a new one (12 rounds in turns,
     * each order, load 1.5-2.4); with the machine busy (load 7-10) they took 0.81 s against 0.70,
     * as its threads then share one process group's turn on the cores and the second one's work
     * is added to it (bench/RESULTS.md, "Convert end to end"). 1 copies on the calling thread.
     */
    static final String THREADS = "tensorbuf.convert.threads";

    /** The most threads copying a scalar job's pieces; the calling thread writing them in order is the limit. */
    static final int MAX_THREADS = 4;

    /** {@return the threads copying pieces: those asked, one a core for 0, 1 for an engine of several threads} */
    static int threadsFor(CopyEngine engine, int asked, int cores) {
        if (engine.config().parallelism() > 1) {
            return 1;
        }
        return asked > 0 ? asked : Math.max(1, Math.min(MAX_THREADS, cores));
    }

    /**
     * {@return the engine for a one-shot job of {@code jobBytes}} A process that copies once knows
     * how much it will copy. Up to {@code scalarJobBytes} the scalar kernels run throughout: their
     * C2 code is ready within the first pieces, while a Vector API kernel's compilation and
     * warm-up cost about a second of CPU on a thread of its own (on two cores, the copy's time),
     * more than a vector kernel saves on a few hundred MB. With the launcher's per-kernel scalar
     * threshold alone a 200 MB transpose (411 MB moved) switched to vector warm-up after 256 MiB,
     * compiling code that ran for the last few pieces, if at all (bench/RESULTS.md, "Convert end to end").
     * Such a job also runs on the calling thread alone. With the Vector API module its pieces did
     * anyway (a batch of cold kernels under 64 MiB stays on the caller's thread); without the module
     * the engine split each piece across the helper threads, and the 200 MB transpose took 2.0 s of
     * CPU against 1.7 on one thread, no sooner (load 23, bench/peers/convert_e2e.sh), each
     * hand-off of a few MiB costing more than it gained.
     * A negative {@code scalarJobBytes} keeps {@code defaults}.
     */
    static CopyEngine engineFor(long jobBytes, long scalarJobBytes, CopyEngine defaults) {
        if (scalarJobBytes < 0 || jobBytes > scalarJobBytes) {
            return defaults;
        }
        return CopyEngine.of(defaults.config().withScalarFirstBytes(Long.MAX_VALUE).withParallelism(1));
    }

    /** {@return the engine this job's pieces are copied with} */
    CopyEngine engine() {
        return engine;
    }

    /** {@return whether views of this output shape are written here: whole-byte elements, row-major} */
    static boolean handles(ArrayShape target) {
        return !target.dtype().isSubByte()
                && target.requireLayout().equals(XlaLayout.packedDescending(target.dtype(), target.rank()));
    }

    /**
     * {@return the writer of {@code source}'s elements as the row-major bytes of {@code target}, of
     * the same dims} Pieces are copied and written in order, each reported to {@code progress}.
     */
    DenseTensor.DataWriter writer(TensorView source, ArrayShape target, Progress progress) {
        if (!source.dims().equals(target.dims()) || !handles(target)) {
            throw new IllegalArgumentException("cannot stage " + source + " as " + target);
        }
        return channel -> {
            try {
                List<TensorView> pieces = new ArrayList<>();
                pieces(source, target, 0, pieces);
                if (pieces.isEmpty()) {
                    return;
                }
                long largest = 0;
                for (TensorView piece : pieces) {
                    largest = Math.max(largest, byteSize(piece, target));
                }
                int copying = Math.min(threads, pieces.size() / 2);
                // Two buffers a copying thread: one being copied into while the other waits for its turn to be written.
                MemoryBuffer[] ring = stages(copying > 1 ? Math.min(pieces.size(), 2 * copying) : 1, largest);
                List<TensorView> into = destinations(pieces, target.dtype(), ring);
                if (copying > 1) {
                    new OrderedPieces(engine, pieces, into, ring.length).write(channel, progress, copying);
                } else {
                    for (int i = 0; i < pieces.size(); i++) {
                        engine.copy(pieces.get(i), into.get(i));
                        progress.advance(drain(into.get(i), channel));
                    }
                }
            } catch (IllegalArgumentException refused) {
                throw inTheTensor(source, target, refused);
            }
        };
    }

    /** Adds {@code v} (whose dims before {@code d} are all 1) to {@code out} in pieces of at most {@code stageBytes}, in order. */
    private void pieces(TensorView v, ArrayShape target, int d, List<TensorView> out) {
        long bytes = byteSize(v, target);
        if (bytes == 0) {
            return;
        }
        if (bytes <= stageBytes || d >= v.rank()) {
            out.add(v);
            return;
        }
        long n = v.dims().get(d);
        long inner = bytes / n;
        long step = Math.max(1, stageBytes / inner);
        for (long i = 0; i < n; i += step) {
            TensorView piece = slice(v, d, i, Math.min(n, i + step));
            if (inner > stageBytes) {
                pieces(piece, target, d + 1, out);
            } else {
                out.add(piece);
            }
        }
    }

    /**
     * {@return {@code count} buffers of at least {@code bytes} each} They are slices of one region,
     * a direct buffer's memory, zeroed by one native fill: an arena's native segment is zeroed by a
     * Java loop, which in a fresh JVM runs interpreted, 10-12 ms for one buffer of 2 MiB (JFR,
     * bench/RESULTS.md "Convert end to end"). A region too large for a direct buffer comes from
     * the arena. With {@value #HUGE_PAGE_STAGES} the region starts on a 2 MiB boundary, so that
     * where malloc advises its mappings for transparent huge pages (the launcher's
     * {@code GLIBC_TUNABLES=glibc.malloc.hugetlb=1}) the ring is a few huge pages: its 8 MiB cost
     * 2,048 page faults otherwise, 23-39 ms of the calling thread on a machine whose faults cost
     * 10-20 us each, against 6.5-7 ms so.
     */
    MemoryBuffer[] stages(int count, long bytes) {
        if (stages.length >= count && stageSize >= bytes) {
            return stages;
        }
        long size = Math.max(bytes, stageSize);
        int n = Math.max(count, stages.length);
        long stride = Math.addExact(size, STAGE_ALIGNMENT - 1) & -STAGE_ALIGNMENT;
        MemoryBuffer region = region(Math.multiplyExact(stride, n), ringAlignment);
        MemoryBuffer[] grown = new MemoryBuffer[n];
        for (int i = 0; i < n; i++) {
            grown[i] = region.slice(i * stride, size);
        }
        stages = grown;
        stageSize = size;
        return stages;
    }

    private MemoryBuffer region(long bytes, long alignment) {
        if (bytes > Integer.MAX_VALUE - alignment) {
            return arena.allocate(bytes, alignment);
        }
        MemorySegment direct = MemorySegment.ofBuffer(ByteBuffer.allocateDirect((int) (bytes + alignment)));
        long skip = -direct.address() & (alignment - 1);
        return MemoryBuffer.foreign(direct.asSlice(skip, bytes), MemorySpace.HOST, "convert's stages", NOTHING_TO_FREE);
    }

    /**
     * The property that starts the ring on a huge page boundary (default false: without huge pages
     * behind malloc the extra 2 MiB would only be faulted and zeroed). The launcher sets it for
     * {@code convert} along with the glibc tunable that makes malloc's mappings huge pages.
     */
    static final String HUGE_PAGE_STAGES = "tensorbuf.convert.hugePageStages";
    static final long HUGE_PAGE_BYTES = 2L << 20;
    /** A cache line: a direct buffer's memory is only 8- or 16-byte aligned (malloc). */
    static final int STAGE_ALIGNMENT = 64;
    /** A direct buffer's memory is freed when the buffer is collected. */
    private static final Runnable NOTHING_TO_FREE = () -> { };

    /**
     * {@return each piece's destination: its elements row-major from the start of buffer
     * {@code ring[i % ring.length]}} Pieces of the same dims in the same buffer share one view, so
     * that the destination's map, which a view builds at its first copy and keeps, is built once:
     * built for each of 128 pieces it cost 20-25 ms of a 200 MB transpose, interpreted (JFR,
     * bench/RESULTS.md "Convert end to end").
     */
    static List<TensorView> destinations(List<TensorView> pieces, DType dtype, MemoryBuffer[] ring) {
        Map<List<Object>, TensorView> made = new HashMap<>();
        List<TensorView> into = new ArrayList<>(pieces.size());
        for (int i = 0; i < pieces.size(); i++) {
            List<Long> dims = pieces.get(i).dims();
            List<Object> key = List.of(i % ring.length, dims);
            TensorView view = made.get(key);
            if (view == null) {
                long[] d = Extents.toArray(dims);
                ArrayShape shape = ArrayShape.of(dtype, d).withLayout(XlaLayout.packedDescending(dtype, d.length));
                view = TensorView.of(ring[i % ring.length].slice(0, shape.arraySize()), shape);
                made.put(key, view);
            }
            into.add(view);
        }
        return into;
    }

    /** Writes {@code view}'s buffer, a destination of {@link #destinations}, to {@code channel}; {@return its bytes} */
    static long drain(TensorView view, WritableByteChannel channel) throws IOException {
        MemorySegment data = view.buffer().segment();
        long bytes = data.byteSize();
        for (long done = 0; done < bytes; ) {
            int n = (int) Math.min(1 << 30, bytes - done);
            ByteBuffer b = data.asSlice(done, n).asByteBuffer();
            while (b.hasRemaining()) {
                channel.write(b);
            }
            done += n;
        }
        return bytes;
    }

    static long byteSize(TensorView v, ArrayShape target) {
        long count = 1;
        for (long d : v.dims()) {
            count = Math.multiplyExact(count, d);
        }
        return Math.multiplyExact(count, target.dtype().byteWidth());
    }

    private static TensorView slice(TensorView v, int d, long from, long to) {
        List<Long> dims = v.dims();
        long[] lo = new long[dims.size()];
        long[] hi = Extents.toArray(dims);
        long[] step = new long[dims.size()];
        Arrays.fill(step, 1);
        lo[d] = from;
        hi[d] = to;
        return Ops.slice(v, lo, hi, step);
    }

    /**
     * {@return the refusal of a piece (a value the output type cannot hold) as the whole tensor's
     * copy words it} The piece's message names the index in the piece; copying the whole source
     * names it in the tensor, as a copy without pieces would. Where there is no memory for that,
     * the piece's message stands.
     */
    private IllegalArgumentException inTheTensor(TensorView source, ArrayShape target, IllegalArgumentException refused) {
        try (Allocator whole = Allocators.shared()) {
            engine.copy(source, TensorView.of(whole.allocate(Math.max(1, target.arraySize())), target));
        } catch (IllegalArgumentException named) {
            return named;
        } catch (RuntimeException | OutOfMemoryError noRoom) {
            return refused;
        }
        return refused;
    }

    @Override
    public void close() {
        arena.close();
    }
}
