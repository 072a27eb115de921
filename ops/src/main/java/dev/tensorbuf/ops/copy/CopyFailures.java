package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.ops.copy.internal.FirstRefused;
import dev.tensorbuf.ops.copy.internal.RefusedValue;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.internal.ConfinedMemory;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * How a copy's failures are told: FFM's "Already closed" and "Attempted access outside owning
 * thread" name no side, so these name the side (an {@link Access} by type, dims and size, a view
 * by its text); a value the destination type cannot hold is named with its element's index; and
 * the holds a view copy took all end, whatever one of them throws.
 */
final class CopyFailures {
    /**
     * The logger, made on first use: every copy loads this class, and System.getLogger at its
     * initialisation started java.util.logging (its LogManager, logging.properties, about 30 classes) in
     * each process, a few ms of a one-shot command's start, for a line that is almost never written.
     */
    private static final class Log {
        static final System.Logger LOG = System.getLogger(CopyEngine.class.getName());
    }

    private CopyFailures() {
    }

    /** FFM's "Attempted access outside owning thread" does not say which side either. */
    static WrongThreadException namingAConfinedSegment(WrongThreadException e, CopyPlan plan) {
        for (Access side : List.of(AccessCopies.src(plan), AccessCopies.dst(plan))) {
            if (!side.segment().isAccessibleBy(Thread.currentThread())) {
                return ConfinedMemory.wrongThread("the copy cannot " + (side == AccessCopies.src(plan) ? "read its source "
                        : "write its destination ") + describe(side), e);
            }
        }
        return e;
    }

    /** FFM's "Already closed" says nothing of which memory went; the plan knows its two sides. */
    static IllegalStateException namingAClosedSegment(IllegalStateException e, CopyPlan plan) {
        for (Access side : List.of(AccessCopies.src(plan), AccessCopies.dst(plan))) {
            if (!side.segment().scope().isAlive()) {
                return new IllegalStateException("the " + (side == AccessCopies.src(plan) ? "source" : "destination") + " of the copy "
                        + describe(side) + " lost its memory: its arena is closed", e);
            }
        }
        return e;
    }

    /**
     * {@return the refusal of the first element of the plan's source, in logical order, that its
     * destination type cannot hold, named by its index, with {@code e} as the cause} The kernels
     * know byte offsets, and a parallel copy may meet a later element first: the source is
     * searched again here, on the failure path only. {@code e} itself if none is found (the
     * source changed since).
     */
    static IllegalArgumentException namingTheRefusedElement(RefusedValue e, CopyPlan plan) {
        Access src = AccessCopies.src(plan);
        return named(e, e, () -> FirstRefused.in(src, AccessCopies.dst(plan).dtype()),
                src.dtype().xlaName() + src.dims().toString().replace(" ", ""));
    }

    /**
     * {@return as {@link #namingTheRefusedElement(RefusedValue, CopyPlan)}, naming the source
     * view} {@code e} itself when it is no refused value (a copy's other refusals: dims, overlap,
     * read-only). A copy through a temporary (views that share memory) has had its refusal named
     * with the temporary: this names the caller's source instead, at the same index.
     */
    static IllegalArgumentException namingTheRefusedElement(IllegalArgumentException e, TensorView src,
                                                            TensorView dst) {
        RefusedValue refused = e instanceof RefusedValue r ? r : e.getCause() instanceof RefusedValue r ? r : null;
        if (refused == null) {
            return e;
        }
        return named(e, refused, () -> FirstRefused.in(src, dst.dtype()), src.toString());
    }

    /**
     * {@return the first refused element's refusal, at its index in {@code source}, caused by
     * {@code refused} (the value the copy met)}; {@code thrown} (what the copy threw) when the
     * search finds none or fails
     */
    private static IllegalArgumentException named(IllegalArgumentException thrown, RefusedValue refused,
                                                  Supplier<Optional<FirstRefused.Found>> search, String source) {
        Optional<FirstRefused.Found> found;
        try {
            found = search.get();
        } catch (RuntimeException searchFailed) {
            thrown.addSuppressed(searchFailed);
            return thrown;
        }
        if (found.isEmpty()) {
            return thrown;
        }
        long[] index = found.get().index();
        return new IllegalArgumentException(found.get().refusal().at("at index " + Arrays.toString(index) + " of "
                + source), refused);
    }

    /**
     * Ends every hold, also after one whose end throws: the last hold on a buffer closed during
     * the copy gives its memory back, which runs a foreign deleter here, and a deleter may throw.
     * One hold left unended would keep its buffer's memory (a pooled block) from ever going back.
     * The deleter's failure belongs to the close another thread made: it goes onto the copy's own
     * failure, or to the log when the copy completed; an {@link Error} is rethrown once every
     * hold has ended.
     */
    static void endHolds(List<MemoryBuffer> held, List<MemoryBuffer.Hold> holds, Throwable failure) {
        Error error = null;
        for (int i = 0; i < holds.size(); i++) {
            try {
                holds.get(i).close();
            } catch (RuntimeException | Error e) {
                if (failure != null) {
                    failure.addSuppressed(e);
                } else if (error != null) {
                    error.addSuppressed(e);
                } else if (e instanceof Error fatal) {
                    error = fatal;
                } else {
                    Log.LOG.log(System.Logger.Level.WARNING, "a copy completed, but " + held.get(i) + ", closed by another"
                            + " thread during it, was given back as the copy ended, and its deleter threw", e);
                }
            }
        }
        if (error != null) {
            throw error;
        }
    }

    /** FFM's "Attempted access outside owning thread" names no view; this names the view and the side. */
    static WrongThreadException namingAConfinedSide(WrongThreadException e, TensorView src, TensorView dst) {
        for (TensorView side : List.of(src, dst)) {
            for (MemoryBuffer b : side.buffers()) {
                boolean refused;
                try {
                    refused = !b.segment().isAccessibleBy(Thread.currentThread());
                } catch (WrongThreadException byTheBuffer) {
                    refused = true; // a host buffer checks the thread itself before handing out its segment
                } catch (IllegalStateException | UnsupportedOperationException gone) {
                    continue; // closed meanwhile, or device memory: not what the thread was refused
                }
                if (refused) {
                    return ConfinedMemory.wrongThread("the copy cannot " + (side == src ? "read its source "
                            : "write its destination ") + side, e);
                }
            }
        }
        return e;
    }

    /**
     * A hold cannot keep an allocator open: closed under a copy, its arena makes the copy fail
     * with FFM's bare "Already closed". This names the side and the buffer that closed.
     */
    static IllegalStateException namingAClosedSide(IllegalStateException e, TensorView src, TensorView dst) {
        for (TensorView side : List.of(src, dst)) {
            for (MemoryBuffer buffer : side.buffers()) {
                String closed = null;
                try {
                    // A foreign buffer's arena closes without the buffer knowing: ask the
                    // segment's scope too. The buffer still calls itself alive then, so it is
                    // described by its size and owner only.
                    if (!buffer.segment().scope().isAlive()) {
                        closed = "the arena of its buffer (" + buffer.byteSize() + " bytes from " + buffer.owner()
                                + ") closed";
                    }
                } catch (IllegalStateException why) {
                    closed = why.getMessage();
                } catch (UnsupportedOperationException | WrongThreadException notThisOne) {
                    continue; // device memory, which the copy never reached, or another thread's: not closed
                }
                if (closed != null) {
                    return new IllegalStateException("the " + (side == src ? "source " : "destination ") + side
                            + " lost its memory during the copy: " + closed, e);
                }
            }
        }
        return e;
    }

    /** {@return e.g. {@code "(f32[64], 256 bytes)"}} */
    private static String describe(Access side) {
        return "(" + side.dtype().xlaName() + side.dims().toString().replace(" ", "") + ", " + side.segment().byteSize()
                + " bytes)";
    }
}
