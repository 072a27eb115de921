package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.XlaLayout;

import java.util.ArrayList;
import java.util.List;

/**
 * The one planner: lowers both sides to digits with strides (a strided layout has one digit per
 * dimension, a tiled layout several), splits the logical space into boxes that are data on the
 * tiled side, and hands each box to {@link LoopNest}. A mapped side strided over split
 * dimensions ({@link SplitDims}) becomes digits too, cut together with the other side's. Sides
 * with no strided form make the whole copy a {@link Step.Gather}.
 */
public final class Planner {
    private Planner() {
    }

    /** A side as strides per logical dimension, as tiled digits, as split strided digits, or none of them (with the reason). */
    private sealed interface Form permits Flat, Digits, Split, None {
    }

    private record Flat(long[] strides, long offset) implements Form {
    }

    private record Digits(TiledDigits digits) implements Form {
    }

    private record None(String reason) implements Form {
    }

    /** A mapped side that is strided over split dimensions ({@link SplitDims}). */
    private record Split(SplitDims.Split split) implements Form {
    }

    /**
     * {@return the steps copying {@code src} into {@code dst}; both checked by the caller} The
     * same copy planned before returns the same steps ({@link PlanCache}).
     *
     * @throws IllegalArgumentException if {@code dst} writes one slot from two indices
     */
    public static List<Step> plan(Access src, Access dst, ChannelAffine affine) {
        return prepared(src, dst, affine).steps();
    }

    /**
     * {@return the steps as {@link #plan} returns them, with the spans their bounds checks need}
     * A destination is checked to write each slot once ({@link SelfOverlap}) before its plan is
     * made: the check reads the addressing alone, so a cached plan needs it no more.
     */
    public static PlannedSteps prepared(Access src, Access dst, ChannelAffine affine) {
        return PlanCache.steps(src, dst, affine, () -> {
            SelfOverlap.check(dst);
            return PlannedSteps.of(planUncached(src, dst, affine), dst);
        });
    }

    /**
     * {@return the steps as {@link #plan} makes them on a miss; for tests that compare the two}
     * The elements' steps, then the padding {@code dst} owns ({@link #ownedPadding}).
     */
    public static List<Step> planUncached(Access src, Access dst, ChannelAffine affine) {
        List<Step> steps = elementSteps(src, dst, affine);
        if (src.elementCount() > 0) {
            steps.addAll(ownedPadding(dst));
        }
        return steps;
    }

    /**
     * {@return the steps zeroing the bytes {@code dst} owns ({@link Access#ownedBytes()}) that
     * the steps writing its elements leave as they were; empty when none} Two cases. A tiled
     * addressing's tiles are zeroed by its padding boxes, but the shape read off a view's map may
     * end before the view's own layout: the map is the same either way, so the slots past it hold
     * no element (in {@code bf16[3,9]{1,0:T(8,128)(2,1)}}, read as {@code T(4,128)(2,1)}, bytes
     * 1,024 to 2,048), and XLA's tail padding {@code L(n)} is there too. A strided addressing
     * with gaps no tiled shape here names (elements two slots apart,
     * {@code bf16[6,10,1]{1,2,0:T(4,16)(2,1)}}) has each gap zeroed by a loop nest of its own,
     * from the strides, and its tail up to the owned end. Nothing past the owned bytes.
     */
    static List<Step.Zero> ownedPadding(Access dst) {
        List<Step.Zero> steps = new ArrayList<>();
        int width = dst.dtype().byteWidth();
        long end = dst.ownedBytes() / Math.max(1, width);
        if (end == 0) {
            return steps;
        }
        switch (dst.addressing()) {
            case Access.Tiled(ArrayShape shape) -> {
                long bits = shape.requireLayout().elementSizeInBits();
                long from = shape.physicalByteSize();
                if ((bits == 0 || bits >= 8) && from % width == 0 && end > from / width) {
                    steps.add(new Step.Zero(from / width, List.of(new Loop(end - from / width, 0, 1))));
                }
            }
            case Access.Strided(StridedLayout layout) -> {
                int[] order = ViewAdapter.stridedGaps(layout, end);
                if (order == null) {
                    break;
                }
                // Below each element (its slot's stride minus one), above each level (the next
                // stride minus the level's extent), and past the top level up to the layout's end.
                int levels = order.length;
                if (levels == 0) {
                    steps.add(new Step.Zero(1, List.of(new Loop(end - 1, 0, 1)))); // one element, at 0
                }
                for (int k = levels == 0 ? 0 : -1; k < levels; k++) {
                    long lo = k < 0 ? 1 : layout.sizes().get(order[k]) * layout.strides().get(order[k]);
                    long hi = k < 0 ? layout.strides().get(order[0]) : k + 1 < levels ? layout.strides().get(order[k + 1]) : end;
                    if (hi <= lo) {
                        continue;
                    }
                    List<Loop> loops = new ArrayList<>();
                    for (int j = levels - 1; j > k; j--) {
                        loops.add(new Loop(layout.sizes().get(order[j]), 0, layout.strides().get(order[j])));
                    }
                    loops.add(new Loop(hi - lo, 0, 1));
                    steps.add(new Step.Zero(lo, loops));
                }
            }
            case Access.Mapped m -> {
            }
        }
        return steps;
    }

    /** {@return the steps writing the elements of {@code dst} from {@code src}} */
    private static List<Step> elementSteps(Access src, Access dst, ChannelAffine affine) {
        if (src.elementCount() == 0) {
            // Nothing to move, and a dimension of size 0 is no loop count (a tiled side then has no slots either).
            return new ArrayList<>();
        }
        DType from = src.dtype();
        DType to = dst.dtype();
        boolean scaled = affine != null;
        Form sf = form(src);
        Form df = form(dst);
        List<Step> steps = new ArrayList<>();
        if (sf instanceof None(String reason)) {
            return gather(dst, df, reason);
        }
        if (df instanceof None(String reason)) {
            return gather(dst, df, reason);
        }
        int rank = src.rank();
        int channel = affine == null ? -1 : affine.channelDim();
        if ((sf instanceof Split || df instanceof Split) && !(sf instanceof Digits || df instanceof Digits)) {
            Object run = commonDigits(src.dims(), digits(sf, src.dims()), digits(df, dst.dims()), channel, from, to,
                    scaled);
            if (run instanceof String reason) {
                return gather(dst, df, reason);
            }
            steps.add((Step.Run) run);
            return steps;
        }
        if (sf instanceof Flat(long[] ss, long so) && df instanceof Flat(long[] ds, long dO)) {
            List<Loop> loops = new ArrayList<>();
            for (int i = 0; i < rank; i++) {
                loops.add(new Loop(src.dims().get(i), ss[i], ds[i]));
            }
            if (src.elementCount() > 0) {
                steps.add(LoopNest.plan(loops, so, dO, channel, from, to, scaled));
            }
            return steps;
        }
        TiledDigits digits;
        Form other;
        boolean dstTiled = df instanceof Digits;
        if (dstTiled) {
            digits = ((Digits) df).digits();
            other = sf;
        } else {
            digits = ((Digits) sf).digits();
            other = df;
        }
        long[] otherStride = new long[digits.digits().size()];
        long otherOffset = 0;
        switch (other) {
            case Flat(long[] strides, long offset) -> {
                otherOffset = offset;
                for (int j = 0; j < otherStride.length; j++) {
                    TiledDigits.Digit d = digits.digits().get(j);
                    otherStride[j] = d.dim() < rank ? Math.multiplyExact(strides[d.dim()], d.factor()) : 0;
                }
            }
            case Digits(TiledDigits o) -> {
                if (!o.digits().stream().map(d -> List.of(d.dim(), d.radix(), d.factor())).toList()
                        .equals(digits.digits().stream().map(d -> List.of(d.dim(), d.radix(), d.factor())).toList())) {
                    return gather(dst, df, "source and destination are tiled differently");
                }
                for (int j = 0; j < otherStride.length; j++) {
                    otherStride[j] = o.digits().get(j).stride();
                }
            }
            case Split(SplitDims.Split split) -> {
                String reason = cutInside(split, digits, rank);
                if (reason != null) {
                    return gather(dst, df, reason);
                }
                otherOffset = split.offset();
                for (int j = 0; j < otherStride.length; j++) {
                    TiledDigits.Digit d = digits.digits().get(j);
                    otherStride[j] = d.dim() < rank ? strideAt(split, d.dim(), d.factor()) : 0;
                }
            }
            case None n -> throw new AssertionError(n);
        }
        if (channel >= 0 && digits.digitsOf(channel).length > 1) {
            return gather(dst, df, "the channel dimension " + channel + " is tiled");
        }
        // A channel dimension of size 1 has no digit (radix-1 digits are dropped): channel 0 throughout.
        int channelDigit = channel >= 0 && digits.digitsOf(channel).length == 1 ? digits.digitsOf(channel)[0] : -1;
        int dims = digits.sizes().length;
        List<List<List<TiledDigits.Range>>> valid = new ArrayList<>();
        for (int i = 0; i < dims; i++) {
            valid.add(digits.validPieces(i));
        }
        for (List<TiledDigits.Range> box : product(valid)) {
            List<Loop> loops = new ArrayList<>();
            long tiledOff = 0;
            long otherOff = otherOffset;
            int ch = -1;
            for (TiledDigits.Range r : box) {
                long ts = digits.digits().get(r.digit()).stride();
                long os = otherStride[r.digit()];
                tiledOff += r.lo() * ts;
                otherOff += r.lo() * os;
                if (r.digit() == channelDigit) {
                    ch = loops.size();
                }
                loops.add(dstTiled ? new Loop(r.count(), os, ts) : new Loop(r.count(), ts, os));
            }
            steps.add(dstTiled ? LoopNest.plan(loops, otherOff, tiledOff, ch, from, to, scaled)
                    : LoopNest.plan(loops, tiledOff, otherOff, ch, from, to, scaled));
        }
        if (dstTiled) {
            for (int i = 0; i < dims; i++) {
                for (List<TiledDigits.Range> pad : digits.padPieces(i)) {
                    steps.add(zero(digits, pad));
                }
            }
        }
        return steps;
    }

    /**
     * {@return the steps dequantizing {@code src} into {@code dst}, or null when {@code dst} has no
     * loop form (a general element map), which the caller copies otherwise} The source is planned
     * as its f32 rows ({@link BlockSource#virtual()}) against any destination the planner lowers
     * (strided, transposed, tiled with its padding zeroed), and each run becomes a
     * {@link Step.Dequantize}: direct when its innermost loop is unit stride on both sides into
     * f32, bf16 or f16.
     *
     * @throws IllegalArgumentException if {@code dst} writes one slot from two indices
     */
    public static List<Step> planBlocks(BlockSource src, Access dst) {
        SelfOverlap.check(dst);
        Access virtual = src.virtual();
        if (virtual.elementCount() == 0) {
            return new ArrayList<>();
        }
        DType to = dst.dtype();
        boolean directType = to == DType.F32 || to == DType.BF16 || to == DType.F16;
        List<Step> steps = new ArrayList<>();
        for (Step step : planUncached(virtual, dst, null)) {
            switch (step) {
                case Step.Run r -> {
                    Loop inner = r.loops().getLast();
                    steps.add(new Step.Dequantize(src, r, to, directType && inner.srcStride() == 1 && inner.dstStride() == 1));
                }
                case Step.Zero z -> steps.add(z);
                case Step.Gather g -> {
                    return null;
                }
                case Step.Dequantize d -> throw new AssertionError(d);
                case Step.Epilogue p -> throw new AssertionError(p);
            }
        }
        if (dst.segment().isReadOnly()) {
            throw new IllegalArgumentException("cannot dequantize into " + to + dst.dims() + ": its segment ("
                    + dst.segment().byteSize() + " bytes) is read-only");
        }
        PlannedSteps reach = PlannedSteps.of(steps, dst);
        long slots = dst.segment().byteSize() / Math.max(1, to.byteWidth());
        if (reach.dstLo() <= reach.dstHi() && (reach.dstLo() < 0 || reach.dstHi() >= slots)) {
            throw new IndexOutOfBoundsException("destination elements [" + reach.dstLo() + ", " + reach.dstHi() + "] of "
                    + to + dst.dims() + " fall outside its segment of " + dst.segment().byteSize() + " bytes");
        }
        return steps;
    }

    /** A padding box: the padded digits of one dimension, every other digit over its full radix. */
    private static Step.Zero zero(TiledDigits digits, List<TiledDigits.Range> pad) {
        List<Loop> loops = new ArrayList<>();
        long off = 0;
        for (int j = 0; j < digits.digits().size(); j++) {
            TiledDigits.Digit d = digits.digits().get(j);
            long lo = 0;
            long count = d.radix();
            for (TiledDigits.Range r : pad) {
                if (r.digit() == j) {
                    lo = r.lo();
                    count = r.count();
                }
            }
            off += lo * d.stride();
            loops.add(new Loop(count, 0, d.stride()));
        }
        Step.Run shaped = LoopNest.plan(loops, 0, off, -1, DType.U8, DType.U8, false);
        return new Step.Zero(shaped.dstOffset(), shaped.loops());
    }

    private static List<Step> gather(Access dst, Form df, String reason) {
        List<Step> steps = new ArrayList<>();
        if (dst.addressing() instanceof Access.Tiled(ArrayShape shape) && shape.physicalElementCount() > 0) {
            long bits = shape.requireLayout().elementSizeInBits();
            // Packed sub-byte elements: zero whole bytes (one-byte "elements" of the unpacked type).
            long slots = bits == 0 || bits >= 8 ? shape.physicalElementCount()
                    : Math.ceilDiv(Math.multiplyExact(shape.physicalElementCount(), bits), 8L);
            steps.add(new Step.Zero(0, List.of(new Loop(slots, 0, 1))));
        }
        steps.add(new Step.Gather(reason));
        return steps;
    }

    private static Form form(Access a) {
        return switch (a.addressing()) {
            case Access.Strided(StridedLayout l) -> new Flat(Extents.toArray(l.strides()),
                    l.offset());
            case Access.Tiled(ArrayShape shape) -> tiledForm(shape);
            case Access.Mapped m -> SplitDims.of(m.map(), a.elementCount()).<Form>map(Split::new)
                    .orElseGet(() -> new None("a general element map"));
        };
    }

    /** {@return a flat or split side as digits: a flat side has one per dimension of size above 1} */
    private static SplitDims.Split digits(Form form, List<Long> dims) {
        return switch (form) {
            case Split(SplitDims.Split split) -> split;
            case Flat(long[] strides, long offset) -> {
                List<TiledDigits.Digit> digits = new ArrayList<>();
                for (int i = 0; i < strides.length; i++) {
                    if (dims.get(i) != 1) {
                        digits.add(new TiledDigits.Digit(i, dims.get(i), 1, strides[i]));
                    }
                }
                yield new SplitDims.Split(digits, offset);
            }
            default -> throw new AssertionError(form);
        };
    }

    /**
     * {@return one loop nest over the digits both sides' radices refine to, or a String saying why
     * there is none} Per dimension the cut points (each digit's factor and factor times radix) of both
     * sides, sorted, must each divide the next: then every refined digit lies inside one digit
     * of each side, where its stride is that digit's times the ratio of their factors. A
     * flattened transpose meeting a dense destination cuts the destination's one digit where the
     * source's digits are cut. The channel of a scale and bias must stay one digit.
     */
    private static Object commonDigits(List<Long> dims, SplitDims.Split src, SplitDims.Split dst, int channel,
                                         DType from, DType to, boolean scaled) {
        List<Loop> loops = new ArrayList<>();
        int ch = -1;
        for (int i = 0; i < dims.size(); i++) {
            java.util.TreeSet<Long> cuts = new java.util.TreeSet<>(List.of(1L, dims.get(i)));
            for (SplitDims.Split side : List.of(src, dst)) {
                for (TiledDigits.Digit d : side.digits()) {
                    if (d.dim() == i) {
                        cuts.add(d.factor());
                        cuts.add(Math.multiplyExact(d.factor(), d.radix()));
                    }
                }
            }
            Long[] at = cuts.descendingSet().toArray(Long[]::new);
            if (i == channel && at.length > 2) {
                return "the channel dimension " + channel + " is split by a general element map";
            }
            for (int k = 1; k < at.length; k++) {
                if (at[k - 1] % at[k] != 0) {
                    return "the two sides split dimension " + i + " in radices that do not nest";
                }
                if (i == channel) {
                    ch = loops.size();
                }
                loops.add(new Loop(at[k - 1] / at[k], strideAt(src, i, at[k]), strideAt(dst, i, at[k])));
            }
        }
        return LoopNest.plan(loops, src.offset(), dst.offset(), ch, from, to, scaled);
    }

    /**
     * {@return why a split side cannot meet a tiled one, or null when each tiled digit lies inside
     * one split digit} The tiled side's digits are cut into boxes of data and padding, so they are
     * not cut further: every cut point of the split side must be a factor of a tiled digit of
     * its dimension (or the dimension's size), and each tiled digit then takes its stride from
     * the split digit around it. A flattened transpose materialized into {@code T(8,128)} tiles
     * whose rows hold whole runs of it, for one.
     */
    private static String cutInside(SplitDims.Split split, TiledDigits tiled, int rank) {
        for (int i = 0; i < rank; i++) {
            java.util.Set<Long> tiledCuts = new java.util.HashSet<>(List.of(1L, tiled.sizes()[i]));
            for (TiledDigits.Digit d : tiled.digits()) {
                if (d.dim() == i) {
                    tiledCuts.add(d.factor());
                }
            }
            for (TiledDigits.Digit d : split.digits()) {
                if (d.dim() == i && !(tiledCuts.contains(d.factor())
                        && tiledCuts.contains(Math.multiplyExact(d.factor(), d.radix())))) {
                    return "a general element map cuts dimension " + i + " inside a tile";
                }
            }
        }
        return null;
    }

    /**
     * {@return the stride of the digit of dimension {@code dim} with factor {@code factor}: the
     * stride of the side's digit that holds it, times the ratio of their factors} A factor no digit
     * holds is one past the dimension's size (a size-1 dimension, or a tile wider than the
     * dimension): that digit only ever takes 0 over data, so its stride is 0.
     */
    private static long strideAt(SplitDims.Split side, int dim, long factor) {
        for (TiledDigits.Digit d : side.digits()) {
            if (d.dim() == dim && d.factor() <= factor && factor / d.factor() < d.radix()) {
                return Math.multiplyExact(d.stride(), factor / d.factor());
            }
        }
        return 0;
    }

    private static Form tiledForm(ArrayShape shape) {
        XlaLayout layout = shape.requireLayout();
        Object digits = TiledDigits.of(shape);
        if (digits instanceof String reason) {
            return new None(reason);
        }
        TiledDigits td = (TiledDigits) digits;
        if (layout.tiles().isEmpty()) {
            long[] strides = new long[shape.rank()];
            for (TiledDigits.Digit d : td.digits()) {
                strides[d.dim()] = d.stride();
            }
            return new Flat(strides, 0);
        }
        return new Digits(td);
    }

    private static <T> List<List<T>> product(List<List<List<T>>> perDim) {
        List<List<T>> acc = new ArrayList<>();
        acc.add(List.of());
        for (List<List<T>> options : perDim) {
            List<List<T>> next = new ArrayList<>();
            for (List<T> prefix : acc) {
                for (List<T> option : options) {
                    List<T> joined = new ArrayList<>(prefix);
                    joined.addAll(option);
                    next.add(joined);
                }
            }
            acc = next;
        }
        return acc;
    }
}
