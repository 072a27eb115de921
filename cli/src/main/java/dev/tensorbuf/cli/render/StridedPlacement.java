package dev.tensorbuf.cli.render;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A strided layout's placement. The memory strip covers slots {@code [0, maxOffset]}; a slot no
 * element reaches is padding. Broadcast dims (stride 0, size above 1) are never enumerated: they
 * multiply every slot's count and print as {@code *} in strip labels. The strip needs only the
 * first {@link LayoutPicture#FULL_STRIP} occupied slots, found by an enumeration that stops
 * descending once offsets pass the largest slot kept (strides are non-negative then).
 * {@snippet :
 * StridedPlacement p = StridedPlacement.of(DType.F32, StridedLayout.of(new long[] {3, 4}, new long[] {0, 1}));
 * p.offsetOf(new long[] {2, 3});    // 3
 * p.sharing(new long[] {2, 3});     // 3: rows share their slots
 * p.slot(3, 0, 1).label();          // "*,3"
 * p.paddingSlots();                 // 0
 * }
 */
public final class StridedPlacement implements Placement {
    /** Overlapping layouts are counted slot by slot up to this many (non-broadcast) elements. */
    static final long OVERLAP_LIMIT = 1L << 20;
    /** Enumeration steps allowed to find the first strip slots. */
    static final long VISIT_LIMIT = 1L << 22;

    private final DType type;
    private final StridedLayout layout;
    private final int[] walked;
    private final long broadcast;
    private final Map<Long, Long> overlapCounts;
    private final TreeMap<Long, long[]> firstSlots;
    private final long distinct;
    private final boolean nonNegative;

    private StridedPlacement(DType type, StridedLayout layout) {
        this.type = type;
        this.layout = layout;
        this.nonNegative = layout.strides().stream().allMatch(s -> s >= 0);
        List<Integer> dims = new ArrayList<>();
        long mult = 1;
        long walkedCount = 1;
        for (int d = 0; d < layout.rank(); d++) {
            long size = layout.sizes().get(d);
            if (layout.strides().get(d) == 0) {
                mult *= size;
            } else if (size > 1) {
                dims.add(d);
                walkedCount *= size;
            }
        }
        this.walked = dims.stream().mapToInt(Integer::intValue).toArray();
        this.broadcast = mult;
        boolean overlapping = walkedLayout().isOverlapping();
        if (overlapping && walkedCount > OVERLAP_LIMIT) {
            throw new IllegalArgumentException("cannot draw " + describe() + ": its strides overlap and "
                    + walkedCount + " elements are more than the " + OVERLAP_LIMIT + " counted slot by slot");
        }
        this.overlapCounts = overlapping ? countAll() : null;
        this.distinct = overlapping ? overlapCounts.size() : walkedCount;
        this.firstSlots = firstSlots(LayoutPicture.FULL_STRIP + 1);
    }

    /**
     * {@return the placement of a strided layout of {@code type} elements}
     *
     * @throws IllegalArgumentException if it has no elements or overlaps beyond {@link #OVERLAP_LIMIT} elements
     */
    public static StridedPlacement of(DType type, StridedLayout layout) {
        if (layout.elementCount() == 0) {
            throw new IllegalArgumentException("nothing to draw: " + layout + " has no elements");
        }
        return new StridedPlacement(type, layout);
    }

    private String describe() {
        return type + " " + layout;
    }

    private StridedLayout walkedLayout() {
        long[] sizes = new long[walked.length];
        long[] strides = new long[walked.length];
        for (int i = 0; i < walked.length; i++) {
            sizes[i] = layout.sizes().get(walked[i]);
            strides[i] = Math.abs(layout.strides().get(walked[i]));
        }
        return StridedLayout.of(sizes, strides);
    }

    private Map<Long, Long> countAll() {
        Map<Long, Long> counts = new HashMap<>();
        walk(0, layout.offset(), new long[layout.rank()], Long.MAX_VALUE, (offset, index) -> {
            counts.merge(offset, 1L, Long::sum);
            return Long.MAX_VALUE;
        }, new long[] {0});
        return counts;
    }

    /** The {@code keep} smallest occupied slots, each with the lexicographically first index there. */
    private TreeMap<Long, long[]> firstSlots(int keep) {
        TreeMap<Long, long[]> slots = new TreeMap<>();
        walk(0, layout.offset(), new long[layout.rank()], Long.MAX_VALUE, (offset, index) -> {
            slots.putIfAbsent(offset, index.clone());
            if (slots.size() > keep) {
                slots.pollLastEntry();
            }
            return slots.size() == keep ? slots.lastKey() : Long.MAX_VALUE;
        }, new long[] {0});
        return slots;
    }

    /** Receives each element; returns the largest offset still of interest. */
    private interface Visitor {
        long visit(long offset, long[] index);
    }

    private long walk(int i, long offset, long[] index, long bound, Visitor visitor, long[] steps) {
        if (++steps[0] > VISIT_LIMIT) {
            throw new IllegalArgumentException("cannot draw " + describe() + ": finding its first slots takes more than "
                    + VISIT_LIMIT + " steps");
        }
        if (i == walked.length) {
            return visitor.visit(offset, index);
        }
        int d = walked[i];
        long stride = layout.strides().get(d);
        for (long k = 0; k < layout.sizes().get(d); k++) {
            long at = offset + k * stride;
            if (nonNegative && at > bound) {
                break;
            }
            index[d] = k;
            bound = walk(i + 1, at, index, bound, visitor, steps);
        }
        index[d] = 0;
        return bound;
    }

    @Override
    public String title() {
        return describe();
    }

    @Override
    public String subtitle() {
        List<String> kinds = new ArrayList<>();
        if (layout.isPacked()) {
            kinds.add("packed");
        }
        if (layout.isBroadcast()) {
            kinds.add("broadcast");
        }
        if (layout.isPadded()) {
            kinds.add("padded");
        }
        if (layout.isOverlapping()) {
            kinds.add("overlapping");
        }
        return layout.elementCount() + " elements in " + slotCount() + " slots (" + paddingSlots() + " unused), "
                + String.join(", ", kinds) + ", buffer " + layout.bufferBytes(type) + " bytes";
    }

    @Override
    public List<Long> dims() {
        return layout.sizes();
    }

    @Override
    public List<Long> gridDims() {
        return layout.sizes();
    }

    @Override
    public long offsetOf(long[] gridIndex) {
        return layout.offsetOf(gridIndex);
    }

    @Override
    public long sharing(long[] index) {
        return broadcast * (overlapCounts == null ? 1 : overlapCounts.get(layout.offsetOf(index)));
    }

    @Override
    public int tileLevels() {
        return 0;
    }

    @Override
    public List<String> tileNames() {
        return List.of();
    }

    @Override
    public long[] tileIds(long[] gridIndex) {
        return new long[0];
    }

    @Override
    public long colourKey(long[] gridIndex, int rowDim, int colDim) {
        int slower = slowerDim(rowDim, colDim);
        return slower < 0 ? 0 : gridIndex[slower];
    }

    @Override
    public String colourMeaning(int rowDim, int colDim) {
        int slower = slowerDim(rowDim, colDim);
        return slower < 0 ? "one fill: no drawn dim moves in memory" : "one fill per index of dim " + slower
                + ", the drawn dim with the larger stride";
    }

    @Override
    public String paddingWord() {
        return "unused";
    }

    /** The panel dim with the larger stride, if it is not 0; -1 when no panel dim moves in memory. */
    private int slowerDim(int rowDim, int colDim) {
        long colStride = Math.abs(layout.strides().get(colDim));
        long rowStride = rowDim < 0 ? 0 : Math.abs(layout.strides().get(rowDim));
        if (rowStride == 0 && colStride == 0) {
            return -1;
        }
        return rowStride >= colStride ? rowDim : colDim;
    }

    @Override
    public long slotCount() {
        return layout.maxOffset() + 1;
    }

    @Override
    public long paddingSlots() {
        return slotCount() - distinct;
    }

    @Override
    public long nextOccupied(long slot, long budget) {
        Long next = firstSlots.ceilingKey(slot);
        if (next != null) {
            return next;
        }
        // past the slots kept: the strip stops before it gets here unless every kept slot was shown
        return firstSlots.size() <= LayoutPicture.FULL_STRIP ? slotCount() : -1;
    }

    @Override
    public StripItem.Slot slot(long slot, int rowDim, int colDim) {
        long[] index = firstSlots.get(slot);
        if (index == null) {
            return new StripItem.Slot(slot, null, "", 0, -1, new long[0]);
        }
        long count = broadcast * (overlapCounts == null ? 1 : overlapCounts.get(slot));
        long shownByStars = broadcast;
        StringBuilder label = new StringBuilder();
        for (int d = 0; d < index.length; d++) {
            if (d > 0) {
                label.append(',');
            }
            boolean star = layout.strides().get(d) == 0 && layout.sizes().get(d) > 1;
            label.append(star ? "*" : Long.toString(index[d]));
        }
        if (count > shownByStars) {
            label.append(" ×").append(count / shownByStars);
        }
        return new StripItem.Slot(slot, Placement.indexText(index), label.toString(), count,
                colourKey(index, rowDim, colDim), new long[0]);
    }
}
