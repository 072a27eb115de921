package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.internal.Sizes;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.Buffer;
import dev.tensorbuf.ops.copy.internal.CopyExecutor;
import dev.tensorbuf.ops.copy.internal.PieceCopies;
import dev.tensorbuf.ops.copy.internal.Reach;
import dev.tensorbuf.ops.copy.internal.RefusedValue;
import dev.tensorbuf.ops.copy.internal.SubByteStaging;
import dev.tensorbuf.ops.copy.internal.ViewAdapter;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Copies and converts between any two layouts: plans once ({@link CopyPlan}), then runs the
 * plan's kernels, on several threads for steps above
 * {@value dev.tensorbuf.ops.copy.internal.CopyExecutor#PARALLEL_THRESHOLD_BYTES} bytes (system
 * property {@code tensorbuf.copy.parallelThresholdBytes}). The Vector API kernels run when the
 * JVM has {@code --add-modules jdk.incubator.vector}, else the scalar ones (system property
 * {@code tensorbuf.copy.vector=false} forces scalar). An engine's helper threads are daemon
 * threads named {@code tensorbuf-copy-E-I}: E numbers the engines in the order they were made
 * (0 is {@link #defaults()}), I the helper. They start at the engine's first parallel copy and end
 * after 30 s without work. A helper that cannot start (a thread limit) leaves its share to the
 * threads that did, and is tried again a second later.
 * {@snippet :
 * try (Arena arena = Arena.ofConfined()) {
 *     MemorySegment a = arena.allocate(4L * 32 * 64 * 112 * 112);
 *     MemorySegment b = arena.allocate(4L * 32 * 64 * 112 * 112);
 *     CopyEngine engine = CopyEngine.of(2);
 *     engine.copy(Access.strided(a, DType.F32, StridedLayout.of(TensorFormat.NCHW, 32, 64, 112, 112)),
 *                 Access.strided(b, DType.F32, StridedLayout.of(TensorFormat.NHWC, 32, 64, 112, 112)));
 *     // b now holds a in NHWC order: 16x16 register-shuffle transposes on two threads
 * }
 * }
 */
public final class CopyEngine {
    /** The most threads an engine may have; {@link #of(int)} refuses more. */
    public static final int MAX_PARALLELISM = CopyExecutor.MAX_PARALLELISM;

    private static final CopyEngine DEFAULT = of(Math.min(MAX_PARALLELISM, Runtime.getRuntime().availableProcessors()));

    private final CopyExecutor executor;
    private final int parallelism;

    private CopyEngine(int parallelism, boolean vector, long thresholdBytes) {
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be >= 1, got " + parallelism);
        }
        if (parallelism > MAX_PARALLELISM) {
            throw new IllegalArgumentException("parallelism " + parallelism + " is above the most an engine may have, "
                    + MAX_PARALLELISM + " (one thread each; more than any machine's cores only slows a copy)");
        }
        if (thresholdBytes < 0) {
            throw new IllegalArgumentException("parallel threshold must be >= 0 bytes, got " + thresholdBytes);
        }
        this.parallelism = parallelism;
        this.executor = new CopyExecutor(parallelism, vector, thresholdBytes);
    }

    /** {@return the shared engine: all cores, Vector API kernels where available} */
    public static CopyEngine defaults() {
        return DEFAULT;
    }

    /**
     * {@return an engine running large copies on {@code parallelism} threads}
     *
     * @throws IllegalArgumentException if {@code parallelism < 1} or above {@link #MAX_PARALLELISM}
     */
    public static CopyEngine of(int parallelism) {
        return of(parallelism, true);
    }

    /**
     * {@return an engine with {@code parallelism} threads, using the Vector API kernels only if
     * {@code vectorKernels} and the module is present}
     *
     * @throws IllegalArgumentException if {@code parallelism < 1} or above {@link #MAX_PARALLELISM}
     */
    public static CopyEngine of(int parallelism, boolean vectorKernels) {
        return new CopyEngine(parallelism, vectorKernels, CopyExecutor.PARALLEL_THRESHOLD_BYTES);
    }

    /**
     * {@return an engine as {@link #of(int, boolean)} that splits steps of at least
     * {@code parallelThresholdBytes} bytes (read plus written) across its threads}
     *
     * @throws IllegalArgumentException if {@code parallelism < 1} or above {@link #MAX_PARALLELISM},
     *     or the threshold is negative
     */
    public static CopyEngine of(int parallelism, boolean vectorKernels, long parallelThresholdBytes) {
        return new CopyEngine(parallelism, vectorKernels, parallelThresholdBytes);
    }

    /**
     * {@return the scratch memory held by the copy engines of this process, outside any
     * {@link Allocator}} Large transposes that write their destination in strided passes
     * (NCHW -> NHWC) use one 6 MiB buffer per copying thread, kept for reuse, at most one per core.
     */
    public static ScratchMemory scratchMemory() {
        return CopyExecutor.scratchMemory();
    }

    /**
     * Frees the scratch buffers kept for reuse (see {@link #scratchMemory()}); buffers that running
     * copies are writing through stay theirs and are kept when those copies end. A later copy
     * allocates again as it needs. {@return the bytes freed}
     */
    public static long releaseScratch() {
        return CopyExecutor.releaseScratch();
    }

    /** {@return the threads a large copy uses} */
    public int parallelism() {
        return parallelism;
    }

    /**
     * {@return the threads a copy moving {@code bytes} (read plus written) runs on:
     * {@link #parallelism()} from the engine's parallel threshold (4 MiB by default), else 1, the caller}
     */
    public int threadsFor(long bytes) {
        return executor.threadsFor(bytes);
    }

    /**
     * {@return whether the Vector API kernels run} From the first copy, unless
     * {@code -Dtensorbuf.copy.scalarFirstBytes=N} holds each kernel to its scalar version until it
     * has moved N bytes: before C2 has compiled it a Vector API kernel is slower than scalar code,
     * which a process that copies once notices (bench/RESULTS.md, "First copies"; the launcher
     * sets 256 MiB for {@code convert} and {@code run}). And until a kernel's vector version is
     * compiled, its steps run scalar while a daemon thread, {@code tensorbuf-copy-warmup}, runs
     * the vector version on a copy of the first step's loops until it is as fast
     * ({@code -Dtensorbuf.copy.warmup=false}: vector from the first copy).
     */
    public boolean vectorKernels() {
        return executor.vector();
    }

    /** {@return the plan, see {@link CopyPlan#of(Access, Access)}} */
    public CopyPlan plan(Access src, Access dst) {
        return CopyPlan.of(src, dst);
    }

    /** {@return the plan, see {@link CopyPlan#of(Access, Access, ChannelAffine)}} */
    public CopyPlan plan(Access src, Access dst, ChannelAffine affine) {
        return CopyPlan.of(src, dst, affine);
    }

    /**
     * Runs a plan. A conversion that meets a value the destination type cannot hold (an integer
     * out of range, NaN to an integer) throws part way, leaving the destination partly written:
     * each element holds either its copied value or what it held before. The same holds when a
     * segment's arena or pool closes during the copy. Either way every thread of the copy has
     * stopped before the exception reaches the caller, so nothing is written afterwards.
     * {@snippet :
     * // f32[2,3] {0, 1, 2, 3, 4, 300} into u8[2,3]
     * engine.copy(src, dst);
     * // IllegalArgumentException: value 300.0 at index [1, 2] of f32[2,3] out of range [0, 255] for u8
     * }
     *
     * @throws IllegalArgumentException for a value the destination type cannot hold, naming the
     *     first such element in logical (row-major) order, whichever a parallel copy met first;
     *     the refusal the copy met is its cause
     * @throws IllegalStateException if a segment's arena is closed, naming the side
     * @throws WrongThreadException if a segment belongs to a confined arena of another thread,
     *     naming the side
     */
    public void execute(CopyPlan plan) {
        try {
            executor.execute(plan);
        } catch (IllegalStateException e) {
            throw CopyFailures.namingAClosedSegment(e, plan);
        } catch (WrongThreadException e) {
            throw CopyFailures.namingAConfinedSegment(e, plan);
        } catch (RefusedValue e) {
            throw CopyFailures.namingTheRefusedElement(e, plan);
        }
    }

    /** Plans and runs a copy. @throws IllegalArgumentException, IndexOutOfBoundsException as {@link CopyPlan#of(Access, Access)} */
    public void copy(Access src, Access dst) {
        execute(plan(src, dst));
    }

    /** Plans and runs a copy with a per-channel scale and bias. */
    public void copy(Access src, Access dst, ChannelAffine affine) {
        execute(plan(src, dst, affine));
    }

    /**
     * A newly allocated copy and the buffer that owns it; close the buffer to free it.
     *
     * @param buffer the new memory
     * @param access the copy, addressed in the requested layout
     */
    public record Materialized(Buffer buffer, Access access) {
    }

    /**
     * {@return a copy of {@code src} in a new buffer laid out by {@code layout}, converted to
     * {@code dtype}} The buffer is closed if the copy fails.
     *
     * @throws IllegalArgumentException if the layout's sizes are not the source's dims or it has
     *     a negative offset reach
     */
    public Materialized materialize(Access src, DType dtype, StridedLayout layout, Allocator allocator) {
        if (!layout.sizes().equals(src.dims())) {
            throw new IllegalArgumentException("layout sizes " + layout.sizes() + " differ from source dims " + src.dims());
        }
        if (layout.minOffset() < 0) {
            throw new IllegalArgumentException("layout " + layout + " reaches element offset " + layout.minOffset()
                    + " below 0");
        }
        long bytes = layout.elementCount() == 0 ? 0
                : Sizes.multiply(layout.maxOffset() + 1, dtype.byteWidth(), () -> "bytes of " + layout);
        Buffer buffer = allocator.allocate(Math.max(1, bytes));
        return closedIfItFails(buffer, () -> {
            Access dst = Access.strided(buffer.segment(), dtype, layout);
            copy(src, dst);
            return new Materialized(buffer, dst);
        });
    }

    /**
     * {@return a copy of {@code src} in a new buffer laid out by {@code shape}'s XLA layout
     * (tiles and padding; padding written as zero), converted to the shape's type} The buffer is
     * closed if the copy fails.
     *
     * @throws IllegalArgumentException if the shape's dims are not the source's
     */
    public Materialized materialize(Access src, ArrayShape shape, Allocator allocator) {
        if (!shape.dims().equals(src.dims())) {
            throw new IllegalArgumentException("shape " + shape + " differs from source dims " + src.dims());
        }
        Buffer buffer = allocator.allocate(bufferBytes(shape));
        return closedIfItFails(buffer, () -> {
            zeroWhatTheCopySkips(buffer, shape);
            Access dst = Access.tiled(buffer.segment(), shape);
            copy(src, dst);
            return new Materialized(buffer, dst);
        });
    }

    /**
     * Copies every element of {@code src} into {@code dst} (same dims; types may differ): one
     * planned copy when both views live in one buffer each; views over several buffers (pads and
     * concatenations, and transposes, reverses, slices and reshapes of them) as one planned copy
     * per part (each part of a concatenation into its slice of the other side; a pad's fill, then
     * its source's window). Packed sub-byte storage ({@code s4} under {@code E(4)}, 2- and 1-bit
     * types) is staged through a byte-a-slot temporary read or written through the same map by the
     * planned kernels, then packed back. Element by element otherwise: a padded destination, a
     * broadcast or strided slice of a concatenation, a packed view reaching far more slots than it
     * has elements (a few elements of a large buffer). A
     * destination laid out by a tiled XLA shape ({@link TensorView#laidOutShape()}: made from one by
     * {@link TensorView#of}, or a transpose of such a view, or a slice of all of it) has every slot
     * of its tiles written, the padding as zero, whichever of those ways it was made; tail padding
     * {@code L(n)} past the slots is zeroed only for packed sub-byte types (staged or copied one
     * by one), and by {@code materialize} in the buffer it makes. Other views of tiled
     * memory (a reverse, a slice of part of it, a reshape) write their elements and nothing else.
     * Views that share
     * bytes ({@code copy(Ops.reverse(v, 0), v)}) copy through a temporary, as NumPy does; views of
     * one buffer that address different bytes (two halves of an image) copy directly.
     *
     * {@snippet :
     * TensorView nchw = TensorView.of(in, "f32[1,3,4,4]{3,2,1,0}");
     * TensorView nhwc = TensorView.of(out, "f32[1,4,4,3]{3,2,1,0}");
     * CopyEngine.defaults().copy(Ops.transpose(nchw, 0, 2, 3, 1), nhwc); // one INTERLEAVE kernel: 3 planes into NHWC
     * }
     *
     * <p>The copy holds every buffer of both views ({@link Buffer#hold()}) while it runs, so a
     * buffer another thread closes meanwhile keeps its memory until the copy ends, and is given
     * back then, on this thread: a foreign deleter runs here. What such a deleter throws belongs
     * to that close, not to this copy: it is added as suppressed to the copy's own exception when
     * the copy failed, and logged ({@link System.Logger}, WARNING) when it completed. Every hold
     * ends either way.
     *
     * @throws IllegalArgumentException if the dims differ, the destination is read-only, or a
     *     value cannot be converted: the first such element in logical order is named, e.g.
     *     {@code value 300.0 at index [1, 2] of f32[2,3]{1,0} strides [3, 1] out of range [0, 255] for u8}
     * @throws UnsupportedOperationException if either view is in memory Java cannot touch
     * @throws IllegalStateException if a buffer of either view is closed, or its allocator closes
     *     during the copy, naming the side
     * @throws WrongThreadException if either view is in a confined arena of another thread,
     *     naming the view, the side and the thread
     */
    public void copy(TensorView src, TensorView dst) {
        copyViews(src, dst, null);
    }

    /**
     * Copies every element of {@code src} into {@code dst} as {@link #copy(TensorView, TensorView)}
     * does, applying a per-channel scale and bias: image staging between views.
     * {@snippet :
     * TensorView pixels = TensorView.of(in, "u8[1,224,224,3]{3,2,1,0}");   // NHWC, as decoded
     * TensorView input = TensorView.of(out, "f32[1,3,224,224]{3,2,1,0}");  // NCHW, what the model takes
     * engine.copy(Ops.transpose(pixels, 0, 3, 1, 2), input, new ChannelAffine(1,
     *         List.of(1 / 58.395f, 1 / 57.12f, 1 / 57.375f), List.of(-123.675f / 58.395f, -116.28f / 57.12f, -103.53f / 57.375f)));
     * }
     *
     * @throws IllegalArgumentException as {@link #copy(TensorView, TensorView)}, or as
     *     {@link CopyPlan#of(Access, Access, ChannelAffine)} for the scale and bias
     */
    public void copy(TensorView src, TensorView dst, ChannelAffine affine) {
        copyViews(src, dst, Objects.requireNonNull(affine, "affine"));
    }

    private void copyViews(TensorView src, TensorView dst, ChannelAffine affine) {
        if (!src.dims().equals(dst.dims())) {
            throw new IllegalArgumentException("cannot copy " + src + " into " + dst + ": dims " + src.dims()
                    + " differ from " + dst.dims());
        }
        // The kernels keep raw segments: held, a buffer closed meanwhile (a pool's, say) keeps its
        // memory until the copy ends, instead of going to a next owner the copy would write over.
        List<Buffer> held = new ArrayList<>(2);
        List<Buffer.Hold> holds = new ArrayList<>(2);
        Throwable failure = null;
        try {
            for (TensorView side : List.of(src, dst)) {
                for (Buffer b : side.buffers()) {
                    try {
                        holds.add(b.hold());
                    } catch (IllegalStateException closed) {
                        throw new IllegalStateException("the " + (side == src ? "source " : "destination ") + side
                                + " cannot be copied: " + closed.getMessage(), closed);
                    }
                    held.add(b);
                }
            }
            try {
                copyHeld(src, dst, affine);
            } catch (IllegalStateException e) {
                throw CopyFailures.namingAClosedSide(e, src, dst);
            } catch (WrongThreadException e) {
                throw CopyFailures.namingAConfinedSide(e, src, dst);
            } catch (IllegalArgumentException e) {
                throw CopyFailures.namingTheRefusedElement(e, src, dst);
            }
        } catch (RuntimeException | Error e) {
            failure = e;
            throw e;
        } finally {
            CopyFailures.endHolds(held, holds, failure);
        }
    }

    private void copyHeld(TensorView src, TensorView dst, ChannelAffine affine) {
        for (TensorView side : List.of(src, dst)) {
            if (!side.isHostAccessible()) {
                throw new UnsupportedOperationException("the copy engine moves host memory only, and the "
                        + (side == src ? "source " : "destination ") + side + " is in memory Java cannot touch ("
                        + describeSpaces(side) + "): move it with the device's own copy (CudaRuntime.download and"
                        + " upload for CUDA)");
            }
        }
        var from = ViewAdapter.access(src);
        var to = ViewAdapter.destination(dst);
        boolean shared = from.isPresent() && to.isPresent() ? Reach.overlap(from.get(), to.get())
                : ViewAdapter.shareBuffers(src, dst);
        boolean planned = from.isPresent() && to.isPresent();
        if (src.elementCount() > 0 && (shared || (affine != null && !planned))) {
            // As NumPy's copyto: the source is read whole before any of it is overwritten. The
            // scale and bias run in planned copies only, so a source or destination over several
            // pieces (or packed sub-byte) goes through dense temporaries too.
            try (Allocator temporary = Allocators.shared()) {
                long[] dims = Extents.toArray(src.dims());
                TensorView dense = materialize(src, src.dtype(), StridedLayout.packed(dims), temporary);
                if (affine == null) {
                    copy(dense, dst);
                } else if (to.isPresent()) {
                    copy(ViewAdapter.access(dense).orElseThrow(), to.get(), affine);
                } else {
                    long bytes = Sizes.multiply(dense.elementCount(), dst.dtype().byteWidth(), () -> "bytes of " + dst);
                    TensorView scaled = TensorView.strided(temporary.allocate(Math.max(1, bytes)), dst.dtype(),
                            StridedLayout.packed(dims));
                    copy(ViewAdapter.access(dense).orElseThrow(), ViewAdapter.access(scaled).orElseThrow(), affine);
                    copy(scaled, dst);
                }
            }
        } else if (planned) {
            // Not execute(): its failures name the Access sides, and copyViews names the views.
            executor.execute(CopyPlan.of(from.get(), to.get(), affine));
        } else if (affine == null && PieceCopies.copy(src, dst, (s, d) -> copyHeld(s, d, null))) {
            // Pads and concatenations, and ops over them, have gone part by part, each part planned.
        } else if (!SubByteStaging.copy(src, dst, from, to, executor)) {
            ViewAdapter.copyElements(src, dst);
        }
    }

    private static String describeSpaces(TensorView view) {
        return view.buffers().stream().map(b -> b.memorySpace().describe()).distinct()
                .collect(Collectors.joining(", "));
    }

    /**
     * {@return a new view holding a copy of {@code src} laid out by {@code shape}'s XLA layout
     * (tiles and padding, padding zeroed) and converted to its type}; close its buffer to free it
     *
     * @throws IllegalArgumentException if the shape's dims are not the source's
     */
    public TensorView materialize(TensorView src, ArrayShape shape, Allocator allocator) {
        if (!shape.dims().equals(src.dims())) {
            throw new IllegalArgumentException("shape " + shape + " differs from source dims " + src.dims());
        }
        Buffer buffer = allocator.allocate(bufferBytes(shape));
        return closedIfItFails(buffer, () -> {
            zeroWhatTheCopySkips(buffer, shape);
            TensorView dst = TensorView.of(buffer, shape);
            copy(src, dst);
            return dst;
        });
    }

    /**
     * Zeroes a new buffer for {@code shape} where a copy into it leaves bytes as they were: packed
     * sub-byte elements' last byte, tail padding {@code L(n)} past the slots. Otherwise the copy
     * writes every slot, tile padding as zero, and a fill first would write every byte twice. An
     * allocator's memory may hold a previous owner's bytes (a pool's does), so both materialize
     * overloads call this: the bytes they give are the same.
     */
    private static void zeroWhatTheCopySkips(Buffer buffer, ArrayShape shape) {
        if (ElementAccess.of(shape).storageBits() < 8 || shape.physicalByteSize() != bufferBytes(shape)) {
            buffer.segment().fill((byte) 0);
        }
    }

    /**
     * Every slot the tiles address, or XLA's {@code ArraySize} when larger (tail padding): a later
     * tile that pads inside an earlier one addresses more than {@code ArraySize} counts.
     */
    private static long bufferBytes(ArrayShape shape) {
        return Math.max(1, Math.max(shape.physicalByteSize(), shape.arraySize()));
    }

    /**
     * {@return a new view holding a copy of {@code src} in {@code layout}, converted to
     * {@code dtype}}; close its buffer to free it
     *
     * @throws IllegalArgumentException if the layout's sizes are not the source's dims
     */
    public TensorView materialize(TensorView src, DType dtype, StridedLayout layout, Allocator allocator) {
        if (!layout.sizes().equals(src.dims())) {
            throw new IllegalArgumentException("layout sizes " + layout.sizes() + " differ from source dims " + src.dims());
        }
        if (layout.minOffset() < 0) {
            throw new IllegalArgumentException("layout " + layout + " reaches element offset " + layout.minOffset()
                    + " below 0");
        }
        // One element per byte or more, as TensorView.strided reads it (sub-byte types unpacked).
        long bytes = layout.elementCount() == 0 ? 1
                : Sizes.multiply(layout.maxOffset() + 1, dtype.byteWidth(), () -> "bytes of " + layout);
        Buffer buffer = allocator.allocate(bytes);
        return closedIfItFails(buffer, () -> {
            TensorView dst = TensorView.strided(buffer, dtype, layout);
            copy(src, dst);
            return dst;
        });
    }

    /**
     * {@return what {@code copy} made of a new buffer} The buffer is closed if it fails: every
     * materialize goes through here, as the caller never gets the buffer to close.
     */
    private static <T> T closedIfItFails(Buffer buffer, Supplier<T> copy) {
        try {
            return copy.get();
        } catch (RuntimeException | Error e) {
            try {
                buffer.close();
            } catch (RuntimeException | Error notClosed) {
                e.addSuppressed(notClosed);
            }
            throw e;
        }
    }
}
