package dev.tensorbuf.ops.copy;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.ops.copy.internal.AccessCopies;
import dev.tensorbuf.ops.copy.internal.Step;
import dev.tensorbuf.ops.internal.Sizes;
import dev.tensorbuf.ops.copy.internal.PlannedSteps;
import dev.tensorbuf.ops.copy.internal.Planner;
import dev.tensorbuf.ops.internal.Errors;
import dev.tensorbuf.ops.copy.internal.Reach;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.internal.ViewBounds;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a copy will do, decided once and checked once: the steps (loop nests with their kernels,
 * padding to zero, or a per-element gather), in the destination's physical order. Planning reads
 * no element and writes nothing; {@link CopyEngine#execute(CopyPlan)} runs a plan, and
 * {@link #explain()} shows it. Its sides and steps are the engine's own (not API): a copy of
 * {@link dev.tensorbuf.views.TensorView}s plans and explains through {@link CopyEngine}.
 * {@snippet :
 * TensorView nchw = TensorView.of(in, "f32[2,3,4,5]{3,2,1,0}");
 * TensorView nhwc = TensorView.of(out, "f32[2,4,5,3]{3,2,1,0}");
 * CopyPlan.Explanation e = CopyEngine.of(1).explain(Ops.transpose(nchw, 0, 2, 3, 1), nhwc);
 * e.plan().orElseThrow().bytesMoved();   // 960
 * e.toString();   // ...   run INTERLEAVE: 120 elements, src +0, dst +0, loops [2: 60/60, 20: 1/3, 3: 20/1]
 * }
 * (Three channels interleave three planes, one vector each; 64 channels plan a transpose.)
 */
public final class CopyPlan {
    static {
        AccessCopies.lend(new Lent());
    }

    private final Access src;
    private final Access dst;
    private final Optional<ChannelAffine> affine;
    private final List<Step> steps;

    private CopyPlan(Access src, Access dst, Optional<ChannelAffine> affine, List<Step> steps) {
        this.src = Objects.requireNonNull(src, "src");
        this.dst = Objects.requireNonNull(dst, "dst");
        this.affine = Objects.requireNonNull(affine, "affine");
        this.steps = List.copyOf(steps);
    }

    /** What {@link AccessCopies} reaches: the plan's sides and steps, which are not API. */
    private static final class Lent implements AccessCopies.Lender {
        @Override
        public CopyPlan plan(Access src, Access dst, ChannelAffine affine) {
            return CopyPlan.of(src, dst, affine);
        }

        @Override
        public CopyPlan of(Access src, Access dst, Optional<ChannelAffine> affine, List<Step> steps) {
            return new CopyPlan(src, dst, affine, steps);
        }

        @Override
        public Access src(CopyPlan plan) {
            return plan.src;
        }

        @Override
        public Access dst(CopyPlan plan) {
            return plan.dst;
        }

        @Override
        public List<Step> steps(CopyPlan plan) {
            return plan.steps;
        }

        @Override
        public AccessCopies.Materialized materialize(CopyEngine engine, Access src, DType dtype, StridedLayout layout,
                                                     Allocator allocator) {
            return engine.materialize(src, dtype, layout, allocator);
        }

        @Override
        public AccessCopies.Materialized materialize(CopyEngine engine, Access src, ArrayShape shape,
                                                     Allocator allocator) {
            return engine.materialize(src, shape, allocator);
        }
    }

    /** {@return the sides, the scale and bias, and the steps, for failure messages and logs} */
    @Override
    public String toString() {
        return "CopyPlan[src=" + src + ", dst=" + dst + ", affine=" + affine + ", steps=" + steps + "]";
    }

    /** {@return the per-channel scale and bias, if any} */
    public Optional<ChannelAffine> affine() {
        return affine;
    }

    /**
     * {@return the plan copying {@code src} into {@code dst}, applying {@code affine} per channel (may be null)}
     *
     * @throws IllegalArgumentException if the dimensions differ, the types cannot convert, the
     *     destination is read-only, overlaps itself or the source; or if the channel count
     *     does not match the channel dimension or the destination is not a floating-point type
     * @throws IndexOutOfBoundsException if an element lies outside its segment
     */
    static CopyPlan of(Access src, Access dst, ChannelAffine affine) {
        check(src, dst, affine);
        // Planned before the checks against the segments: a cached plan carries its spans and its
        // destination's self-overlap verdict, which depend on the addressing alone.
        PlannedSteps planned = Planner.prepared(src, dst, affine);
        if (Reach.overlap(src, dst)) {
            throw new IllegalArgumentException("the source " + src.dtype() + src.dims() + " and the destination "
                    + dst.dtype() + dst.dims() + " address overlapping bytes of one segment: copy through a temporary"
                    + " (CopyEngine.copy of two TensorViews does)");
        }
        if (dst.segment().byteSize() < planned.dstSlotBytes() && dst.addressing() instanceof Access.Tiled(ArrayShape s)) {
            throw new IndexOutOfBoundsException(s + " needs " + planned.dstSlotBytes()
                    + " bytes but the destination segment has " + dst.segment().byteSize());
        }
        // A mapped side is checked by its map, loops or not: the check names the first index
        // outside the segment, where a span could only name the elements.
        boolean srcByMap = planned.gathers() || src.addressing() instanceof Access.Mapped;
        boolean dstByMap = planned.gathers() || dst.addressing() instanceof Access.Mapped;
        if (planned.srcLo() <= planned.srcHi() && !srcByMap) {
            checkSpan("source", src, planned.srcLo(), planned.srcHi());
        }
        if (planned.dstLo() <= planned.dstHi() && !dstByMap) {
            checkSpan("destination", dst, planned.dstLo(), planned.dstHi());
        }
        if (srcByMap) {
            checkByMap("source", src);
        }
        if (dstByMap) {
            checkByMap("destination", dst);
        }
        return new CopyPlan(src, dst, Optional.ofNullable(affine), planned.steps());
    }

    /**
     * {@return what this plan does, as the shared engine ({@link CopyEngine#defaults()}) runs it:
     * its steps, threads and bytes} {@link CopyEngine#explain(CopyPlan)} gives another engine's threads.
     */
    public Explanation explain() {
        return CopyEngine.defaults().explain(this);
    }

    /**
     * What a copy does, worked out without reading or writing an element, as a database's
     * {@code EXPLAIN} shows a query's plan: the route it takes, the steps of each planned copy
     * (kernel, loops), the threads, the temporaries and staging, the bytes moved. A copy split
     * into parts has one explanation per part, in the order they run. {@link #toString()} is a
     * readable tree, {@link #toJson()} the same as one JSON object.
     * {@snippet :
     * TensorView nchw = TensorView.of(in, "f32[2,3,4,5]{3,2,1,0}");
     * TensorView nhwc = TensorView.of(out, "f32[2,4,5,3]{3,2,1,0}");
     * CopyPlan.Explanation e = CopyEngine.of(1).explain(Ops.transpose(nchw, 0, 2, 3, 1), nhwc);
     * e.route();   // PLANNED
     * e.toString();
     * // planned copy f32[2,4,5,3] ... -> f32[2,4,5,3]{3,2,1,0}: 120 elements, 960 bytes, 1 thread
     * //   run INTERLEAVE: 120 elements, src +0, dst +0, loops [2: 60/60, 20: 1/3, 3: 20/1]
     * }
     *
     * @param route how the copy goes
     * @param source the source, as its view prints
     * @param destination the destination, as its view prints
     * @param elements the elements copied
     * @param bytes bytes read plus bytes written by every step, temporaries, staging and zeroing included
     * @param threads the most threads a step runs on
     * @param plan a planned copy's plan, whose {@link #toString()} shows its steps; empty for other routes
     * @param temporaries the memory allocated for the copy and freed after it
     * @param staging packed sub-byte sides staged through byte-a-slot temporaries
     * @param zeroedBytes bytes of a tiled destination zeroed besides the steps (its tile padding)
     * @param pieces a copy of views over several pieces: the box of logical indices each part
     *     copies and the piece of each side holding it, one per part, in the same order; empty for
     *     other routes
     * @param parts the copies this one is made of, in the order they run
     * @param reason why this route, in words
     * @param epilogue the elementwise expression applied to each element on its way, and the
     *     kernel that evaluates it; empty for a plain copy
     */
    public record Explanation(Route route, String source, String destination, long elements, long bytes, int threads,
                              Optional<CopyPlan> plan, List<Temporary> temporaries, List<Staged> staging, long zeroedBytes,
                              List<Piece> pieces, List<Explanation> parts, String reason, Optional<Epilogue> epilogue) {

        /**
         * An explanation of a copy that applies no expression: {@link #epilogue()} empty.
         *
         * @throws NullPointerException if an argument is null
         */
        public Explanation(Route route, String source, String destination, long elements, long bytes, int threads,
                           Optional<CopyPlan> plan, List<Temporary> temporaries, List<Staged> staging, long zeroedBytes,
                           List<Piece> pieces, List<Explanation> parts, String reason) {
            this(route, source, destination, elements, bytes, threads, plan, temporaries, staging, zeroedBytes, pieces,
                    parts, reason, Optional.empty());
        }

        /**
         * The elementwise expression a copy applies to each element between reading its operands
         * and writing the destination ({@code tensorbuf run} fuses pointwise HLO into its copies
         * so), and the kernel that evaluates it.
         * {@snippet :
         * // u8 NHWC normalised per channel into f32 NCHW: (x + -mean) * (1 / std), as XLA rewrites it
         * Explanation.Epilogue p = explanation.epilogue().orElseThrow();
         * p.expression();   // "multiply(add(convert<f32>(%0), negate(%1)), reciprocal(%2))"
         * p.kernel();       // "lookup table 3x256 (channels along dim 1) of operand %0"
         * }
         *
         * @param expression the expression, its operands numbered {@code %0, %1, ...} as the
         *     copy's sources are listed
         * @param kernel what evaluates it: a lookup table for one 8-bit operand with per-channel
         *     constants, else the block evaluator
         */
        public record Epilogue(String expression, String kernel) {
            /** @throws NullPointerException if an argument is null */
            public Epilogue {
                Objects.requireNonNull(expression, "expression");
                Objects.requireNonNull(kernel, "kernel");
            }
        }

        /** The ways a copy goes. */
        public enum Route {
            /** One planned copy: loop nests run by the kernels. */
            PLANNED,
            /**
             * Views over several pieces (pads, concatenations, ops over them): their domains cut into
             * boxes of one piece each side, one copy per box.
             */
            PIECES,
            /** Packed sub-byte storage unpacked into byte-a-slot temporaries, a planned copy, packed back. */
            STAGED,
            /** The source copied whole into a temporary first: the sides share memory (as NumPy's {@code copyto}). */
            THROUGH_TEMPORARY,
            /** Every logical index read and written through the views' maps, one at a time, on the calling thread. */
            ELEMENTS,
            /**
             * An elementwise expression ({@link Explanation#epilogue()}) evaluated block by block:
             * each operand's block copied into a dense scratch ({@link Explanation#parts()} explain
             * the first block's copies), the expression applied, the result stored. The plan is
             * that one pass, a {@code pointwise} step whose blocks the engine's threads share.
             */
            BLOCKS
        }

        /**
         * A temporary buffer of the copy.
         *
         * @param holds what it holds, in words
         * @param dtype its element type
         * @param dims its dims (row-major, dense)
         * @param bytes its size
         */
        public record Temporary(String holds, DType dtype, List<Long> dims, long bytes) {
            /** @throws NullPointerException if an argument is null */
            public Temporary {
                Objects.requireNonNull(holds, "holds");
                Objects.requireNonNull(dtype, "dtype");
                dims = List.copyOf(dims);
            }
        }

        /**
         * One packed side of a staged copy.
         *
         * @param side {@code "source"} or {@code "destination"}
         * @param bits the storage bits of a slot
         * @param firstSlot the first slot staged
         * @param slots the slots staged, a byte each in the temporary
         * @param unpacked the slots unpacked into the temporary before the copy (none for a
         *     destination: its slots are marked unwritten instead)
         * @param packedBack whether the temporary is packed back into the side afterwards: only the
         *     slots the copy wrote, a byte written in part merged with its bits at that time
         * @param gather empty when the temporary holds the slots {@code [firstSlot, firstSlot + slots)}
         *     whole; else how the side's own slots are found, {@code "strides"} or {@code "map"}: the
         *     temporary holds its {@code slots} elements in row-major order, each gathered from its
         *     slot (a source) or scattered back into it (a destination), {@code firstSlot} the lowest
         *     slot reached. A view reaching far more slots than it has elements is staged so.
         */
        public record Staged(String side, int bits, long firstSlot, long slots, long unpacked, boolean packedBack,
                             String gather) {
            /** @throws NullPointerException if {@code side} or {@code gather} is null */
            public Staged {
                Objects.requireNonNull(side, "side");
                Objects.requireNonNull(gather, "gather");
            }

            /** A side whose span of slots is staged whole: {@code gather} empty. */
            public Staged(String side, int bits, long firstSlot, long slots, long unpacked, boolean packedBack) {
                this(side, bits, firstSlot, slots, unpacked, packedBack, "");
            }
        }

        /**
         * One box of a copy of views over several pieces: dimension {@code d} takes
         * {@code start[d] + step[d] * k} for {@code k < count[d]}.
         *
         * @param start the first index, per dimension
         * @param step the distance between indices, per dimension
         * @param count the indices, per dimension
         * @param sourcePiece the source's piece that holds the box, in {@code map().pieces()} order
         * @param destinationPiece the destination's piece that holds it
         * @param sourceFill whether the source's piece is a pad's fill (read as a broadcast)
         */
        public record Piece(List<Long> start, List<Long> step, List<Long> count, int sourcePiece, int destinationPiece,
                            boolean sourceFill) {
            /** @throws NullPointerException if a list is null */
            public Piece {
                start = List.copyOf(start);
                step = List.copyOf(step);
                count = List.copyOf(count);
            }

            /** {@return the box as {@code [start:end:step, ...]}, the end exclusive, a step of 1 left out} */
            public String box() {
                StringBuilder sb = new StringBuilder("[");
                for (int d = 0; d < start.size(); d++) {
                    long end = start.get(d) + step.get(d) * (count.get(d) - 1) + 1;
                    sb.append(d == 0 ? "" : ", ").append(start.get(d)).append(':').append(end);
                    if (step.get(d) != 1) {
                        sb.append(':').append(step.get(d));
                    }
                }
                return sb.append(']').toString();
            }
        }

        /** @throws NullPointerException if an argument is null */
        public Explanation {
            Objects.requireNonNull(route, "route");
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(destination, "destination");
            Objects.requireNonNull(plan, "plan");
            temporaries = List.copyOf(temporaries);
            staging = List.copyOf(staging);
            pieces = List.copyOf(pieces);
            parts = List.copyOf(parts);
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(epilogue, "epilogue");
        }

        /** {@return whether this copy or any part of it takes {@code r}} */
        public boolean uses(Route r) {
            return route == r || parts.stream().anyMatch(p -> p.uses(r));
        }

        /**
         * {@return the tree, one line per copy, step, temporary and staged side; parts indented under
         * their copy} A copy of more than 32 parts (a staircase cut into tens of thousands of boxes)
         * is summarised: its parts counted per form (route, kernels and loops, offsets left out),
         * most first, then its first 8 parts and {@code "... N more parts"}; the record keeps them all.
         */
        @Override
        public String toString() {
            return ExplanationText.text(this);
        }

        /** {@return the same as one JSON object: keys as the components, in snake_case; steps with a {@code "step"} kind;
         * {@code "epilogue"} only where there is one} Summarised as {@link #toString()} is: past 32
         * parts, {@code "pieces"} and {@code "parts"} hold the first 8, and {@code "parts_total"},
         * {@code "pieces_total"} and {@code "forms"} (each form's words, parts and elements) are added. */
        public String toJson() {
            return ExplanationText.json(this);
        }
    }

    /** {@return bytes read plus bytes written, padding of the destination included} */
    public long bytesMoved() {
        long n = src.elementCount();
        long total = Sizes.multiply(n, src.dtype().byteWidth(), "bytes read");
        long written = dst.addressing() instanceof Access.Tiled(ArrayShape s) ? s.physicalElementCount() : n;
        return total + Sizes.multiply(written, dst.dtype().byteWidth(), "bytes written");
    }

    private static void check(Access src, Access dst, ChannelAffine affine) {
        if (!src.dims().equals(dst.dims())) {
            throw new IllegalArgumentException("cannot copy " + src.dtype() + src.dims() + " into " + dst.dtype()
                    + dst.dims() + ": the dimensions differ");
        }
        if (dst.segment().isReadOnly()) {
            throw new IllegalArgumentException("cannot copy into " + dst.dtype() + dst.dims() + ": its segment ("
                    + dst.segment().byteSize() + " bytes) is read-only");
        }
        for (DType t : List.of(src.dtype(), dst.dtype())) {
            if (!t.isArrayType()) {
                throw new IllegalArgumentException("cannot copy " + src.dtype() + " to " + dst.dtype() + ": " + t
                        + " has no elements");
            }
        }
        if (src.dtype().kind() == DType.Kind.COMPLEX && dst.dtype().kind() != DType.Kind.COMPLEX) {
            throw Errors.imaginaryPartsLost(src.dtype(), dst.dtype());
        }
        if (affine != null) {
            affine.checkFits(src.dims(), dst.dtype());
            if (src.dtype().kind() == DType.Kind.COMPLEX) {
                throw new IllegalArgumentException("a per-channel scale and bias needs a real source, got " + src.dtype());
            }
        }
    }

    /**
     * A side a gather addresses, and a mapped side, is checked before any element moves, as the
     * loop nests are: otherwise the gather would stop at the first element outside the segment
     * with the destination partly written. A map's range decides at once; only a map that may
     * leave the segment is searched, and the first index that does is named. (A tiled
     * destination is checked against its slot count in {@code check}.)
     */
    private static void checkByMap(String side, Access a) {
        if (a.elementCount() > 0 && a.addressing() instanceof Access.Strided(StridedLayout l)) {
            checkSpan(side, a, l.minOffset(), l.maxOffset());
        }
        IndexingMap map = switch (a.addressing()) {
            case Access.Mapped(IndexingMap m) -> m;
            // A tiled side shorter than its slots (a source: destinations are checked in check)
            // may still hold every element, as XLA's ArraySize does for nested tiles.
            case Access.Tiled(ArrayShape s) when a.segment().byteSize() < s.physicalByteSize() -> s.toIndexingMap();
            default -> null;
        };
        if (map != null) {
            long capacity = (a.addressing() instanceof Access.Tiled(ArrayShape s) ? ElementAccess.of(s)
                    : ElementAccess.of(a.dtype())).capacity(a.segment().byteSize());
            try {
                ViewBounds.check(map, capacity, () -> side + " " + a.dtype() + a.dims(), () -> capacity + " elements ("
                        + a.segment().byteSize() + " bytes)");
            } catch (IllegalArgumentException outside) {
                throw new IndexOutOfBoundsException(outside.getMessage());
            }
        }
    }

    /**
     * Throws unless elements {@code lo} to {@code hi} of {@code a} lie inside its segment. Compared
     * as element counts, not byte ends: {@code (hi + 1) * width} wraps for an element offset near
     * 2^63, which is outside every segment and is told so with its own numbers.
     */
    private static void checkSpan(String side, Access a, long lo, long hi) {
        if (lo < 0 || hi >= a.segment().byteSize() / a.dtype().byteWidth()) {
            throw new IndexOutOfBoundsException(side + " elements [" + lo + ", " + hi + "] of " + a.dtype()
                    + a.dims() + " fall outside its segment of " + a.segment().byteSize() + " bytes");
        }
    }
}
