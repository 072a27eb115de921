package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Copies between raw {@link Access} sides (a segment, a type and an addressing, no
 * {@link MemoryBuffer}), and a {@link CopyPlan}'s sides and steps: what the public
 * {@code ops.copy} types do not show, because {@code Access} and {@code Step} are not API. For
 * this module and its friends (interop's {@code Npy}, bench's copy cases, cli's demo), which
 * copy over bare segments; users copy {@link dev.tensorbuf.views.TensorView}s.
 * {@snippet :
 * Access nchw = Access.strided(a, DType.F32, StridedLayout.of(TensorFormat.NCHW, 2, 3, 4, 5));
 * Access nhwc = Access.strided(b, DType.F32, StridedLayout.of(TensorFormat.NHWC, 2, 3, 4, 5));
 * CopyPlan p = AccessCopies.plan(nchw, nhwc);
 * AccessCopies.steps(p);   // [Run[kernel=INTERLEAVE, srcOffset=0, dstOffset=0, loops=[...], channelLoop=-1]]
 * CopyEngine.of(2).execute(p);
 * }
 * The plan's fields stay private to {@code ops.copy}: {@code CopyPlan}'s class initializer
 * lends them here ({@link Lender}), as the JDK's shared secrets do.
 */
public final class AccessCopies {
    private AccessCopies() {
    }

    /** What {@code ops.copy} lends: set once, by {@code CopyPlan}'s class initializer. */
    public interface Lender {
        /** {@return the checked plan} */
        CopyPlan plan(Access src, Access dst, ChannelAffine affine);

        /** {@return a plan of given steps, unchecked} */
        CopyPlan of(Access src, Access dst, Optional<ChannelAffine> affine, List<Step> steps);

        /** {@return the plan's source} */
        Access src(CopyPlan plan);

        /** {@return the plan's destination} */
        Access dst(CopyPlan plan);

        /** {@return the plan's steps} */
        List<Step> steps(CopyPlan plan);

        /** {@return see {@link AccessCopies#materialize(CopyEngine, Access, DType, StridedLayout, Allocator)}} */
        Materialized materialize(CopyEngine engine, Access src, DType dtype, StridedLayout layout, Allocator allocator);

        /** {@return see {@link AccessCopies#materialize(CopyEngine, Access, ArrayShape, Allocator)}} */
        Materialized materialize(CopyEngine engine, Access src, ArrayShape shape, Allocator allocator);
    }

    private static volatile Lender lender;

    /**
     * Takes {@code ops.copy}'s lender.
     *
     * @throws IllegalStateException if one was lent already, or it is not {@code ops.copy}'s
     */
    public static void lend(Lender l) {
        if (lender != null || !l.getClass().getPackageName().equals(CopyPlan.class.getPackageName())) {
            throw new IllegalStateException("only dev.tensorbuf.ops.copy lends, once");
        }
        lender = l;
    }

    private static Lender lender() {
        Lender l = lender;
        if (l == null) {
            try {
                Class.forName(CopyPlan.class.getName(), true, CopyPlan.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new AssertionError(e);
            }
            l = lender;
        }
        return l;
    }

    /**
     * A newly allocated copy and the buffer that owns it; close the buffer to free it.
     *
     * @param buffer the new memory
     * @param access the copy, addressed in the requested layout
     */
    public record Materialized(MemoryBuffer buffer, Access access) {
        /** @throws NullPointerException if an argument is null */
        public Materialized {
            Objects.requireNonNull(buffer, "buffer");
            Objects.requireNonNull(access, "access");
        }
    }

    /**
     * {@return the plan copying {@code src} into {@code dst}, converting the element type if they differ}
     *
     * @throws IllegalArgumentException if the dimensions differ, the types cannot convert, the
     *     destination is read-only, overlaps itself or the source
     * @throws IndexOutOfBoundsException if an element lies outside its segment
     */
    public static CopyPlan plan(Access src, Access dst) {
        return lender().plan(src, dst, null);
    }

    /**
     * {@return the plan copying {@code src} into {@code dst}, applying {@code affine} per channel (may be null)}
     *
     * @throws IllegalArgumentException as {@link #plan(Access, Access)}, or if the channel count
     *     does not match the channel dimension or the destination is not a floating-point type
     * @throws IndexOutOfBoundsException if an element lies outside its segment
     */
    public static CopyPlan plan(Access src, Access dst, ChannelAffine affine) {
        return lender().plan(src, dst, affine);
    }

    /** {@return a plan of {@code steps} between two sides, not checked: the caller planned them} */
    public static CopyPlan unchecked(Access src, Access dst, Optional<ChannelAffine> affine, List<Step> steps) {
        return lender().of(src, dst, affine, steps);
    }

    /** {@return the source of {@code plan}} */
    public static Access src(CopyPlan plan) {
        return lender().src(plan);
    }

    /** {@return the destination of {@code plan}} */
    public static Access dst(CopyPlan plan) {
        return lender().dst(plan);
    }

    /** {@return what {@code plan} runs, in order} */
    public static List<Step> steps(CopyPlan plan) {
        return lender().steps(plan);
    }

    /** {@return the steps of an explanation's planned copy; empty for other routes} */
    public static List<Step> steps(CopyPlan.Explanation e) {
        return e.plan().map(AccessCopies::steps).orElse(List.of());
    }

    /**
     * {@return the elementwise expression {@code plan} applies on the way, as its explanation
     * shows it: a per-channel affine's ({@link ChannelExpression}); empty for a plain copy}
     */
    public static Optional<CopyPlan.Explanation.Epilogue> epilogue(CopyPlan plan) {
        return plan.affine().map(a -> {
            DType from = src(plan).dtype();
            DType to = dst(plan).dtype();
            boolean fused = ChannelExpression.recognised(from, to) != null;
            String inner = fused ? "its fma form in typed loops " + AffineChunks.CHUNK
                    : "the expression evaluator " + ChannelExpression.CHUNK;
            String loops = from == DType.U8 && to == DType.F32
                    ? "the u8 -> f32 loops compute it directly, a channel loop innermost runs " + inner
                    : "the convert kernel runs " + inner;
            return new CopyPlan.Explanation.Epilogue(ChannelExpression.of(from, to).toString(), "%1 and %2 the scale and bias"
                    + " of the channel along dim " + a.channelDim() + ", in the planned loops: " + loops
                    + " elements at a time, IEEE arithmetic (denormals kept)");
        });
    }

    /** Plans and runs a copy on {@code engine}. @throws IllegalArgumentException, IndexOutOfBoundsException as {@link #plan(Access, Access)} */
    public static void copy(CopyEngine engine, Access src, Access dst) {
        engine.execute(plan(src, dst));
    }

    /** Plans and runs a copy with a per-channel scale and bias on {@code engine}. */
    public static void copy(CopyEngine engine, Access src, Access dst, ChannelAffine affine) {
        engine.execute(plan(src, dst, affine));
    }

    /**
     * {@return a copy of {@code src} in a new buffer laid out by {@code layout}, converted to
     * {@code dtype}} The buffer is closed if the copy fails.
     *
     * @throws IllegalArgumentException if the layout's sizes are not the source's dims or it has
     *     a negative offset reach
     */
    public static Materialized materialize(CopyEngine engine, Access src, DType dtype, StridedLayout layout,
                                           Allocator allocator) {
        return lender().materialize(engine, src, dtype, layout, allocator);
    }

    /**
     * {@return a copy of {@code src} in a new buffer laid out by {@code shape}'s XLA layout
     * (tiles and padding; padding written as zero), converted to the shape's type} The buffer is
     * closed if the copy fails.
     *
     * @throws IllegalArgumentException if the shape's dims are not the source's
     */
    public static Materialized materialize(CopyEngine engine, Access src, ArrayShape shape, Allocator allocator) {
        return lender().materialize(engine, src, shape, allocator);
    }
}
