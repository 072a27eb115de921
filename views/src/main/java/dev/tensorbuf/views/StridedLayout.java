package dev.tensorbuf.views;

import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Variable;
import dev.tensorbuf.views.internal.Errors;
import dev.tensorbuf.views.internal.StrideAnalysis;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Locale;
import dev.tensorbuf.views.internal.Extents;

/**
 * A strided layout: element {@code (i_0, ..., i_n-1)} lives at element offset
 * {@code offset + sum(i_k * strides[k])}, as in DirectML, NumPy (in elements) and DLPack.
 *
 * <p>Any rank, 0 included (one element at {@code offset}). Sizes are at least 0. A stride of 0
 * broadcasts; negative strides (flips) are allowed here, but DirectML cannot express them
 * ({@link #isDirectMLExpressible()}). Every element offset must be at least 0.
 *
 * <p>The four properties follow DirectML's definitions, on the span
 * {@code P = max offset - min offset + 1} (so the offset does not change them) and the element
 * count {@code N}: <em>packed</em> when {@code P == N} and no two elements share an offset;
 * <em>broadcast</em> when a dim of size above 1 has stride 0; <em>padded</em> when some offset
 * in the span is addressed by no index (for layouts that overlap at most by broadcasting, this
 * is DirectML's "{@code P} exceeds the product of the sizes of the dims that do not broadcast";
 * {@code sizes [4, 4] strides [2, 2]} overlaps and is padded: offsets 1, 3, ..., 11 are unused);
 * <em>overlapping</em> when two distinct indices share an offset (every broadcast is one;
 * {@code sizes [3, 3] strides [1, 1]} is one too). Overlap and padding are decided exactly
 * without visiting elements; the cost is bounded in
 * {@link dev.tensorbuf.views.internal.StrideAnalysis}.
 * {@snippet :
 * StridedLayout nhwc = StridedLayout.of(TensorFormat.NHWC, 1, 3, 224, 224);
 * nhwc.strides();                       // [150528, 1, 672, 3]
 * nhwc.offsetOf(0, 2, 223, 223);        // 150527
 * nhwc.bufferBytes(DType.F32);          // 602112
 * StridedLayout bias = StridedLayout.of(new long[] {1, 3, 224, 224}, new long[] {0, 1, 0, 0});
 * bias.isBroadcast();                   // true
 * bias.bufferBytes(DType.F32);          // 12
 * StridedLayout window = StridedLayout.of(new long[] {2, 3}, new long[] {5, 1});
 * window.isPadded();                    // true: 8 slots for 6 elements
 * window.bufferBytes(DType.S8);         // 8
 * }
 *
 * @param sizes the size of each dim, in logical order
 * @param strides the element stride of each dim, same order
 * @param offset the element offset of index {@code (0, ..., 0)}
 */
public record StridedLayout(List<Long> sizes, List<Long> strides, long offset) {
    /**
     * @throws IllegalArgumentException when the ranks differ, a size or the offset is negative, an
     *         offset would be negative or the element count or an offset overflows a long; the
     *         message names the numbers
     */
    public StridedLayout {
        sizes = List.copyOf(sizes);
        strides = List.copyOf(strides);
        if (sizes.size() != strides.size()) {
            throw new IllegalArgumentException("rank mismatch: " + sizes.size() + " sizes " + sizes + " but "
                    + strides.size() + " strides " + strides);
        }
        for (int d = 0; d < sizes.size(); d++) {
            if (sizes.get(d) < 0) {
                throw Errors.negativeSize(sizes.get(d), d, "sizes " + sizes);
            }
        }
        if (offset < 0) {
            throw new IllegalArgumentException("offset " + offset + " is negative");
        }
        if (Extents.elementCount("sizes", sizes) > 0) {
            long low = offset;
            long high = offset;
            for (int d = 0; d < sizes.size(); d++) {
                try {
                    long reach = Math.multiplyExact(sizes.get(d) - 1, strides.get(d));
                    if (reach < 0) {
                        low = Math.addExact(low, reach);
                    } else {
                        high = Math.addExact(high, reach);
                    }
                } catch (ArithmeticException e) {
                    throw new IllegalArgumentException("element offsets overflow a long at dim " + d + ": offset "
                            + offset + " + (size " + sizes.get(d) + " - 1) * stride " + strides.get(d)
                            + " in sizes " + sizes + " strides " + strides, e);
                }
            }
            if (low < 0) {
                long need = offset - low; // exact as unsigned: at most 2^63 - 1 + 2^63
                throw new IllegalArgumentException("negative strides " + strides + " reach element offset " + low
                        + " for sizes " + sizes + " from offset " + offset + (need >= 0
                                ? ": the offset must be at least " + need
                                : ": they reach back " + Long.toUnsignedString(need) + " elements, more than any offset"
                                        + " (at most " + Long.MAX_VALUE + ") makes up"));
            }
        }
    }

    /** {@return a layout with offset 0} @see #StridedLayout(List, List, long) */
    public static StridedLayout of(long[] sizes, long[] strides) {
        return of(sizes, strides, 0);
    }

    /** {@return a layout} @see #StridedLayout(List, List, long) */
    public static StridedLayout of(long[] sizes, long[] strides, long offset) {
        return new StridedLayout(Extents.boxed(sizes), Extents.boxed(strides), offset);
    }

    /**
     * {@return the packed row-major layout (last dim fastest): DirectML's layout when its strides
     * are null; a size of 0 counts as 1 for the strides, as in NumPy}
     */
    public static StridedLayout packed(long... sizes) {
        long[] strides = new long[sizes.length];
        long step = 1;
        for (int d = sizes.length - 1; d >= 0; d--) {
            strides[d] = step;
            if (d > 0 && sizes[d] > 1) { // the outermost size sets no stride; the count is checked by the constructor
                try {
                    step = Math.multiplyExact(step, sizes[d]);
                } catch (ArithmeticException e) {
                    throw new IllegalArgumentException("row-major strides of sizes " + Arrays.toString(sizes)
                            + " overflow a long", e);
                }
            }
        }
        return of(sizes, strides);
    }

    /** {@return the packed layout of a named format, sizes in the format's logical order} */
    public static StridedLayout of(TensorFormat format, long... sizes) {
        return format.layout(sizes);
    }

    /** {@return the number of dims} */
    public int rank() {
        return sizes.size();
    }

    /** {@return the number of logical elements (1 for rank 0)} */
    public long elementCount() {
        return Extents.elementCount("sizes", sizes);
    }

    /**
     * {@return the element offset of a logical index}
     *
     * @throws IllegalArgumentException if the index has the wrong rank
     * @throws IndexOutOfBoundsException naming the index, dim and sizes when a coordinate is out of bounds
     */
    public long offsetOf(long... index) {
        if (index.length != sizes.size()) {
            throw Errors.indexRank(index, "sizes " + sizes, sizes.size());
        }
        long at = offset;
        for (int d = 0; d < index.length; d++) {
            if (index[d] < 0 || index[d] >= sizes.get(d)) {
                throw Errors.indexOutOfBounds(index[d], sizes.get(d), d, "sizes " + sizes + " (index "
                        + Arrays.toString(index) + ")");
            }
            at += index[d] * strides.get(d);
        }
        return at;
    }

    /** {@return the smallest element offset; the offset itself when there are no elements} */
    public long minOffset() {
        return extreme(false);
    }

    /** {@return the largest element offset; the offset itself when there are no elements} */
    public long maxOffset() {
        return extreme(true);
    }

    private long extreme(boolean max) {
        long at = offset;
        if (elementCount() == 0) {
            return at;
        }
        for (int d = 0; d < sizes.size(); d++) {
            long reach = (sizes.get(d) - 1) * strides.get(d);
            if ((reach > 0) == max) {
                at += reach;
            }
        }
        return at;
    }

    /**
     * {@return the physical size in elements, {@code maxOffset - minOffset + 1}; 0 when there are no elements}
     *
     * @throws IllegalArgumentException when the span overflows a long (both extreme offsets fit,
     *     e.g. sizes {@code [2]} with stride {@code Long.MAX_VALUE})
     */
    public long spanElements() {
        long span = span();
        if (span < 0) {
            throw new IllegalArgumentException("the span from offset " + minOffset() + " to " + maxOffset()
                    + " overflows a long in elements");
        }
        return span;
    }

    /** {@return the span, or -1 when it overflows a long} */
    private long span() {
        if (elementCount() == 0) {
            return 0;
        }
        long max = maxOffset();
        long min = minOffset();
        // Offsets are never negative (the constructor refuses them), so max - min cannot overflow; + 1 can.
        return max - min == Long.MAX_VALUE ? -1 : max - min + 1;
    }

    /** {@return whether the elements fill their span exactly once} */
    public boolean isPacked() {
        return span() == elementCount() && !isOverlapping();
    }

    /** {@return whether a dim of size above 1 has stride 0} */
    public boolean isBroadcast() {
        for (int d = 0; d < sizes.size(); d++) {
            if (sizes.get(d) > 1 && strides.get(d) == 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@return whether some offset between {@link #minOffset()} and {@link #maxOffset()} is
     * addressed by no index} Exact for overlapping layouts too, where counting elements cannot
     * tell.
     * {@snippet :
     * StridedLayout.of(new long[] {2, 3}, new long[] {5, 1}).isPadded();  // true: offsets 3, 4 unused
     * StridedLayout.of(new long[] {3, 3}, new long[] {1, 1}).isPadded();  // false: 9 elements fill 0..4
     * StridedLayout.of(new long[] {4, 4}, new long[] {2, 2}).isPadded();  // true: only even offsets 0..12
     * }
     */
    public boolean isPadded() {
        return StrideAnalysis.leavesGaps(Extents.toArray(sizes), Extents.toArray(strides));
    }

    /** {@return whether two distinct logical indices share an element offset} */
    public boolean isOverlapping() {
        return StrideAnalysis.overlaps(Extents.toArray(sizes), Extents.toArray(strides));
    }

    /** {@return whether some stride is negative} */
    public boolean hasNegativeStrides() {
        return strides.stream().anyMatch(s -> s < 0);
    }

    /**
     * {@return whether a {@code DML_BUFFER_TENSOR_DESC} can describe the layout: rank 1 to 8, sizes
     * 1 to 2^32 - 1, strides 0 to 2^32 - 1 (no flips), at most 2^32 - 1 elements}
     */
    public boolean isDirectMLExpressible() {
        long uintMax = 0xffff_ffffL;
        if (rank() < 1 || rank() > 8 || elementCount() > uintMax) {
            return false;
        }
        for (int d = 0; d < sizes.size(); d++) {
            if (sizes.get(d) < 1 || sizes.get(d) > uintMax || strides.get(d) < 0 || strides.get(d) > uintMax) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@return the buffer bytes the layout needs, as DirectML's {@code DMLCalcBufferTensorSize}:
     * {@code (maxOffset + 1) * bits} rounded up to bytes, then to a multiple of 4; 0 without elements}
     * Sub-byte types count by bits ({@code s4}: 5 elements are 3 bytes, then 4), as DirectML and
     * {@link ElementAccess#packed} store them; {@link TensorView#strided(dev.tensorbuf.memory.MemoryBuffer,
     * DType, StridedLayout)} stores them a byte each, as NumPy does, and needs
     * {@code minBytes(DType.S8)}. With offset 0 and strides DirectML accepts this is exactly
     * DirectML's number; the offset counts as part of the buffer.
     *
     * @throws IllegalArgumentException for types without elements, or when the size overflows a long
     */
    public long bufferBytes(DType type) {
        long bytes = minBytes(type);
        long rounded = bytes + (-bytes & 3);
        if (rounded < bytes) {
            throw new IllegalArgumentException(bytes + " bytes (" + type + ") rounded up to a multiple of 4 overflow a long");
        }
        return rounded;
    }

    /**
     * {@return the fewest bytes that hold every element, {@code ceil((maxOffset + 1) * bits / 8)},
     * without DirectML's rounding to 4; 0 without elements} Sub-byte types count packed, as in
     * {@link #bufferBytes}.
     *
     * @throws IllegalArgumentException for types without elements, or when the size overflows a long
     */
    public long minBytes(DType type) {
        if (!type.isArrayType()) {
            throw Errors.noElements(type, "size");
        }
        if (elementCount() == 0) {
            return 0;
        }
        long max = maxOffset();
        long slots;
        long bits = type.bitWidth();
        try {
            slots = Math.addExact(max, 1);
            // Whole bytes of each 8 slots, then the rest: a size in bits could overflow where the bytes fit.
            return Math.addExact(Math.multiplyExact(slots / 8, bits), Math.ceilDiv(slots % 8 * bits, 8L));
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("(max offset " + max + " + 1) elements of " + bits + " bits ("
                    + type + ") overflow a long in bytes", e);
        }
    }

    /** {@return the first named format whose packed strides these are; see {@link TensorFormat#of(StridedLayout)}} */
    public Optional<TensorFormat> format() {
        return TensorFormat.of(this);
    }

    /**
     * {@return the layout as an indexing map from the logical index to the element offset:
     * {@code (d0, ..., dn-1) -> (offset + sum(strides[i] * d_i))}, {@code d_i in [0, sizes[i] - 1]}}
     * A size of 0 gives a known-empty map.
     * {@snippet :
     * StridedLayout.of(new long[] {2, 3}, new long[] {5, 1}, 7).toIndexingMap().toString();
     * // "(d0, d1) -> (d0 * 5 + d1 + 7), domain: d0 in [0, 1], d1 in [0, 2]"
     * }
     */
    public IndexingMap toIndexingMap() {
        List<Variable> dims = new ArrayList<>(rank());
        AffineExpr result = AffineExpr.constant(offset);
        for (int d = 0; d < rank(); d++) {
            dims.add(Variable.of(0, sizes.get(d) - 1));
            result = result.plus(AffineExpr.dim(d).times(strides.get(d)));
        }
        return IndexingMap.of(dims, List.of(), List.of(result));
    }

    /** {@return the same layout at another offset} */
    public StridedLayout withOffset(long newOffset) {
        return new StridedLayout(sizes, strides, newOffset);
    }

    @Override
    public String toString() {
        return "sizes " + sizes + " strides " + strides + (offset == 0 ? "" : " offset " + offset);
    }

    /**
     * A named packed layout: the letters of its logical order (how sizes are given) and of its
     * physical order (outermost first in memory), as DirectML names them.
     *
     * <p>Sizes always come in the logical order: NCHW for NHWC too, CHW for HWC, DHW for WHD, HW for
     * WH (DirectML expresses NHWC only through strides, its sizes stay NCHW). The stride of a dim is
     * the product of the sizes of the dims after it in the physical order (a size of 0 counts as 1, as
     * in NumPy, so an empty tensor still has distinct strides).
     * {@snippet :
     * TensorFormat.NHWC.packedStrides(1, 3, 1, 2);   // [6, 1, 6, 3]: memory R G B R G B
     * TensorFormat.WH.packedStrides(2, 3);           // [1, 2]: column-major
     * TensorFormat.of(StridedLayout.of(new long[] {1, 1, 3, 5}, new long[] {15, 1, 5, 1})); // Optional[NHWC]
     * }
     *
     * <p>Ambiguity: the name from strides ({@link #of(StridedLayout)}) compares strides exactly, so
     * dims of size 1 still matter ({@code [1, 1, 3, 5]} with NCHW strides {@code [15, 15, 5, 1]} is
     * NCHW and with {@code [15, 1, 5, 1]} is NHWC, though both are the same memory). Several formats
     * match when their stride formulas agree: CHW and DHW always (both row-major), and e.g. NCHW and
     * NHWC when C = H * W = 1. {@link #matching(StridedLayout)} lists every match; {@link #of}
     * returns the first in declaration order (NCHW, NHWC, NCDHW, NDHWC, CHW, HWC, HW, WH, DHW, WHD).
     * The offset plays no part.
     */
    public enum TensorFormat {
        NCHW("NCHW", "NCHW"),
        NHWC("NCHW", "NHWC"),
        NCDHW("NCDHW", "NCDHW"),
        NDHWC("NCDHW", "NDHWC"),
        CHW("CHW", "CHW"),
        HWC("CHW", "HWC"),
        HW("HW", "HW"),
        WH("HW", "WH"),
        DHW("DHW", "DHW"),
        WHD("DHW", "WHD");

        /** The dim letters in the order sizes are given, e.g. {@code "NCHW"} for NHWC. */
        private final String logicalOrder;
        /** The dim letters from outermost to innermost in memory, e.g. {@code "NHWC"}. */
        private final String physicalOrder;

        TensorFormat(String logicalOrder, String physicalOrder) {
            this.logicalOrder = logicalOrder;
            this.physicalOrder = physicalOrder;
        }


        /** {@return the number of dims} */
        public int rank() {
            return logicalOrder.length();
        }

        /**
         * {@return the packed strides for sizes in the logical order}
         *
         * @throws IllegalArgumentException if the number of sizes is not the rank, or the element count overflows
         */
        public long[] packedStrides(long... sizes) {
            if (sizes.length != rank()) {
                throw new IllegalArgumentException(name() + " needs " + rank() + " sizes (" + logicalOrder + "), got "
                        + sizes.length + ": " + Arrays.toString(sizes));
            }
            long[] strides = new long[sizes.length];
            long step = 1;
            for (int p = physicalOrder.length() - 1; p >= 0; p--) {
                int d = logicalOrder.indexOf(physicalOrder.charAt(p));
                strides[d] = step;
                try {
                    step = Math.multiplyExact(step, Math.max(sizes[d], 1));
                } catch (ArithmeticException e) {
                    throw Errors.overflows("element count of " + name() + " sizes " + Arrays.toString(sizes), e);
                }
            }
            return strides;
        }

        /** {@return the packed layout of this format, sizes in the logical order, offset 0} */
        public StridedLayout layout(long... sizes) {
            return StridedLayout.of(sizes, packedStrides(sizes));
        }

        /** {@return every format whose packed strides for the layout's sizes equal its strides, in declaration order} */
        public static List<TensorFormat> matching(StridedLayout layout) {
            List<TensorFormat> out = new ArrayList<>();
            long[] sizes = Extents.toArray(layout.sizes());
            for (TensorFormat f : values()) {
                if (f.rank() == sizes.length && f.packsTo(sizes, layout.strides())) {
                    out.add(f);
                }
            }
            return out;
        }

        private boolean packsTo(long[] sizes, List<Long> strides) {
            try {
                return Extents.boxed(packedStrides(sizes)).equals(strides);
            } catch (IllegalArgumentException overflow) {
                return false; // an empty tensor whose other sizes multiply past a long: no packed strides exist
            }
        }

        /** {@return the first format matching the layout, empty when none does} See the ambiguity note above. */
        public static Optional<TensorFormat> of(StridedLayout layout) {
            return matching(layout).stream().findFirst();
        }

        /**
         * {@return the format with this name, any case}
         *
         * @throws IllegalArgumentException naming the unknown name and the known ones
         */
        public static TensorFormat fromName(String name) {
            for (TensorFormat f : values()) {
                if (f.name().equals(name.toUpperCase(Locale.ROOT))) {
                    return f;
                }
            }
            throw Errors.unknown("tensor format", name, "one of " + Arrays.toString(values()));
        }
    }
}
