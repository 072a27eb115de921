package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import dev.tensorbuf.views.internal.DomainBoxes.Box;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;

/**
 * The boxes of a copy over pieces cut past {@link dev.tensorbuf.views.internal.DomainBoxes#CEILING}
 * ({@link PiecePairs#table}), as primitive arrays in row-major order of their first index: per box
 * its start, its shape (counts and steps, and each side's strides where that side is several
 * pieces), both sides' pieces and, where a side is several pieces, its element offset. No box,
 * pair, view or lambda is held per box, so a cut of some hundred thousand boxes is kept between
 * copies in a few MiB (at most {@link #MAX_BYTES}) instead of being cut again each time. What a
 * table holds depends on the pieces' maps and the dims alone: a side of one piece is read per copy
 * (its layout's strides times a shape's steps, its offset at each box's start), as are the
 * buffers, the fills and read-only memory ({@link Pass}).
 *
 * <p>A box whose piece's map is not affine over it on a side of several pieces (no strides to
 * keep) is kept as its map over the box ({@code PiecePairs.Part}) and planned as a copy of its
 * own; such boxes are few (a cut whose maps are affine in its boxes is the staircase this is for).
 * {@snippet :
 * BoxTable table = PiecePairs.table(src, dst);          // cut once, kept
 * BoxTable.Pass pass = table.pass(src, dst, new BoxRuns(executor.thresholdBytes()));
 * for (int i = 0; i < table.size(); i++) {
 *     BoxRuns.Resolved loops = pass.loops(i);           // null: plan the box as a copy of its own
 * }
 * }
 */
public final class BoxTable {
    /**
     * The most bytes a kept table holds (about 1.5 million boxes of rank 2): a cut past it is cut
     * and copied a band at a time each copy ({@link PiecePairs#forEachBand}), nothing kept.
     */
    public static final long MAX_BYTES = 64L << 20;
    /** A cap below {@link #MAX_BYTES} for the copies run within {@link #cappedAt}: tests of the banded path. */
    private static final ScopedValue<Long> CAP = ScopedValue.newInstance();

    /** {@return the most bytes a table made now may hold: {@link #MAX_BYTES}, or a test's cap} */
    public static long maxBytes() {
        return CAP.orElse(MAX_BYTES);
    }

    /**
     * Runs {@code body} with tables capped at {@code bytes}, on this thread: a test copies a cut
     * past it a band at a time each copy, as a cut past {@link #MAX_BYTES} is, without some
     * 1.5 million boxes. A cut found too large under the cap is remembered as such.
     */
    static void cappedAt(long bytes, Runnable body) {
        if (bytes < 0 || bytes > MAX_BYTES) {
            throw new IllegalArgumentException("a table cap of " + bytes + " bytes: it must be in [0, " + MAX_BYTES + "]");
        }
        ScopedValue.where(CAP, bytes).run(body);
    }

    /** What a box kept as its maps is counted as, towards {@link #MAX_BYTES}. */
    private static final long GENERAL_BYTES = 1024;

    private final long[] dims;
    private final int rank;
    private final int size;
    private final long[] starts;
    /** Per box: its shape, or {@code -1 - k} for {@code general.get(k)}. */
    private final int[] shapes;
    private final int[] sourcePieces;
    private final int[] destinationPieces;
    private final long[] sourceOffsets;
    private final long[] destinationOffsets;
    /** Per shape: counts, steps, the source's strides, the destination's ({@code 4 * rank}); strides 0 on a side of one piece. */
    private final long[][] shapeNumbers;
    private final List<PiecePairs.Part> general;
    private final long bytes;

    private BoxTable(Builder b) {
        dims = b.dims;
        rank = b.rank;
        size = b.size;
        starts = Arrays.copyOf(b.starts, size * rank);
        shapes = Arrays.copyOf(b.shapes, size);
        sourcePieces = Arrays.copyOf(b.sourcePieces, size);
        destinationPieces = Arrays.copyOf(b.destinationPieces, size);
        sourceOffsets = Arrays.copyOf(b.sourceOffsets, size);
        destinationOffsets = Arrays.copyOf(b.destinationOffsets, size);
        shapeNumbers = b.shapeList.toArray(new long[0][]);
        general = List.copyOf(b.general);
        bytes = b.bytes;
    }

    /** {@return the boxes} */
    public int size() {
        return size;
    }

    /** {@return the bytes the table holds, about} */
    public long bytes() {
        return bytes;
    }

    /** {@return the shapes its boxes come in: counts, steps and the strides of sides of several pieces} */
    public int shapes() {
        return shapeNumbers.length;
    }

    /** {@return box {@code i}'s source piece, in lookup order} */
    public int sourcePiece(int i) {
        return sourcePieces[i];
    }

    /** {@return box {@code i}'s destination piece} */
    public int destinationPiece(int i) {
        return destinationPieces[i];
    }

    /** {@return box {@code i}} */
    public Box box(int i) {
        int s = shapes[i];
        if (s < 0) {
            return general.get(-1 - s).box();
        }
        long[] n = shapeNumbers[s];
        return new Box(Arrays.copyOfRange(starts, i * rank, (i + 1) * rank), Arrays.copyOfRange(n, rank, 2 * rank),
                Arrays.copyOfRange(n, 0, rank));
    }

    /** {@return the index box {@code i} starts at} */
    long[] start(int i) {
        return Arrays.copyOfRange(starts, i * rank, (i + 1) * rank);
    }

    /**
     * {@return a copy of it over {@code src} and {@code dst} (views with the pieces' maps and dims
     * it was cut from)} Refuses first, before the caller writes anything: a destination whose pieces
     * write one slot from two indices, and the first box (in row-major order) of a destination
     * piece that is a pad's fill or read-only memory, at its first index, in the element path's words.
     *
     * @throws IllegalArgumentException for a refused destination index
     */
    public Pass pass(TensorView src, TensorView dst, BoxRuns forms) {
        PiecePairs.refuseSharedSlots(dst);
        boolean[] refused = PiecePairs.refusedPieces(dst);
        if (refused != null) {
            // In row-major order of their starts: the first refused box starts at the first refused index.
            for (int i = 0; i < size; i++) {
                if (refused[destinationPieces[i]]) {
                    throw PiecePairs.refusal(dst, destinationPieces[i], start(i));
                }
            }
        }
        return new Pass(src, dst, forms);
    }

    /**
     * One copy over the table: the views' buffers and one-piece layouts read for it, each shape's
     * loops resolved ({@link BoxRuns}) at its first box, then every box of it moved to its offsets.
     */
    public final class Pass implements BoxFamilies.Boxes {
        private final TensorView src;
        private final TensorView dst;
        private final BoxRuns forms;
        private final Side from;
        private final Side to;
        private final boolean[] sourceFills;
        /** Per shape: its resolved loops, or {@link #OWN} for boxes planned as copies of their own; null until met. */
        private final BoxRuns.Resolved[] resolved;
        /** Per shape: its resolved loops ready for the executor, as {@link #resolved}. */
        private final CopyExecutor.Prepared[] prepared;
        /** Both sides for the boxes planned on their own, made at the first such box. */
        private PiecePairs.StridedSide fromSide;
        private PiecePairs.StridedSide toSide;

        private Pass(TensorView src, TensorView dst, BoxRuns forms) {
            this.src = src;
            this.dst = dst;
            this.forms = forms;
            this.from = new Side(src, true);
            this.to = new Side(dst, false);
            this.sourceFills = PiecePairs.fills(src);
            this.resolved = new BoxRuns.Resolved[shapeNumbers.length];
            this.prepared = new CopyExecutor.Prepared[shapeNumbers.length];
        }

        /**
         * {@return box {@code i}'s form's loops, resolved at the first box of its shape, or null
         * when the box is planned as a copy of its own ({@link #pair}): a side that is not
         * strided, a box too large to run on one thread, or a plan that is not one loop nest}
         */
        public BoxRuns.Resolved loops(int i) {
            int s = shapes[i];
            if (s < 0) {
                return null;
            }
            BoxRuns.Resolved r = resolved[s];
            if (r == null) {
                PiecePairs.Strides a = from.strides(i, s);
                PiecePairs.Strides b = to.strides(i, s);
                r = a == null || b == null ? null
                        : forms.resolve(Arrays.copyOfRange(shapeNumbers[s], 0, rank), a, src.dtype(), b, dst.dtype());
                resolved[s] = r == null ? OWN : r;
                return r;
            }
            return r == OWN ? null : r;
        }

        /**
         * Runs box {@code i} by its form's loops ({@link #loops} not null) on {@code executor},
         * checking the elements they reach against both pieces' segments.
         *
         * @throws IndexOutOfBoundsException if an element of the box lies outside its segment
         */
        public void run(int i, CopyExecutor executor) {
            int s = shapes[i];
            BoxRuns.Resolved r = resolved[s];
            CopyExecutor.Prepared p = prepared[s];
            if (p == null) {
                p = executor.prepare(r.run(), src.dtype(), dst.dtype());
                prepared[s] = p;
            }
            long a = Math.addExact(r.run().srcOffset(), Math.subtractExact(from.offset(i, s), r.srcOffset()));
            long b = Math.addExact(r.run().dstOffset(), Math.subtractExact(to.offset(i, s), r.dstOffset()));
            MemorySegment x = from.segment(i);
            MemorySegment y = to.segment(i);
            r.checkSpans(a, x, b, y, src.dtype(), dst.dtype());
            executor.runAt(p, x, a, y, b);
        }

        /** {@return box {@code i} of the table} */
        @Override
        public Box box(int i) {
            return BoxTable.this.box(i);
        }

        /** {@return box {@code i}'s source over it as strides, or null when that side is not strided} */
        @Override
        public PiecePairs.Strides sourceStrides(int i) {
            return shapes[i] < 0 ? null : from.strides(i, shapes[i]);
        }

        /** {@return box {@code i}'s destination over it as strides, or null when that side is not strided} */
        @Override
        public PiecePairs.Strides destinationStrides(int i) {
            return shapes[i] < 0 ? null : to.strides(i, shapes[i]);
        }

        /** {@return box {@code i}'s source piece, a pad's fill} */
        public boolean sourceFill(int i) {
            return sourceFills[sourcePieces[i]];
        }

        /** {@return box {@code i} as a pair of one-piece views, for a box planned as a copy of its own} */
        public PiecePairs.Pair pair(int i) {
            int s = shapes[i];
            Box box = box(i);
            PiecePairs.InBox fromMap;
            PiecePairs.InBox toMap;
            if (s < 0) {
                PiecePairs.Part part = general.get(-1 - s);
                fromMap = part.sourceMap();
                toMap = part.destinationMap();
            } else {
                fromMap = from.inBox(i, s);
                toMap = to.inBox(i, s);
            }
            if (fromSide == null) {
                fromSide = PiecePairs.StridedSide.of(src);
                toSide = PiecePairs.StridedSide.of(dst);
            }
            return PiecePairs.pair(src, fromSide, dst, toSide, box, sourcePieces[i], destinationPieces[i],
                    sourceFills[sourcePieces[i]], fromMap, toMap, dims);
        }

        /** A side of the copy as its boxes' strides need it, read for this copy. */
        private final class Side {
            private final boolean source;
            private final boolean several;
            /** Whether its boxes are strided over whole bytes: a strided view of one piece, or pieces of whole bytes. */
            private final boolean strided;
            private final MemoryBuffer[] buffers;
            private final MemorySegment[] segments;
            private final long[] layoutStrides;
            private final long layoutOffset;

            Side(TensorView view, boolean source) {
                this.source = source;
                List<ViewMap.Single> pieces = view.map().pieces();
                several = !(view.map() instanceof ViewMap.Single);
                buffers = new MemoryBuffer[pieces.size()];
                segments = new MemorySegment[pieces.size()];
                for (int p = 0; p < buffers.length; p++) {
                    buffers[p] = pieces.get(p).buffer();
                    segments[p] = buffers[p].segment();
                }
                boolean bytes = view.access().storageBits() >= 8;
                StridedLayout layout = several || !bytes ? null : view.stridedLayout().orElse(null);
                if (layout != null) {
                    layoutStrides = new long[rank];
                    for (int d = 0; d < rank; d++) {
                        layoutStrides[d] = layout.strides().get(d);
                    }
                    layoutOffset = layout.offset();
                } else {
                    layoutStrides = null;
                    layoutOffset = 0;
                }
                strided = several ? bytes : layout != null;
            }

            private int piece(int i) {
                return several ? (source ? sourcePieces[i] : destinationPieces[i]) : 0;
            }

            MemorySegment segment(int i) {
                return segments[piece(i)];
            }

            /** {@return box {@code i}'s element offset on this side, its shape {@code s} strided here} */
            long offset(int i, int s) {
                if (several) {
                    return source ? sourceOffsets[i] : destinationOffsets[i];
                }
                long offset = layoutOffset;
                for (int d = 0; d < rank; d++) {
                    offset = Math.addExact(offset, Math.multiplyExact(layoutStrides[d], starts[i * rank + d]));
                }
                return offset;
            }

            /** {@return box {@code i} (shape {@code s}) on this side as strides, or null when not strided} */
            PiecePairs.Strides strides(int i, int s) {
                if (!strided) {
                    return null;
                }
                long[] n = shapeNumbers[s];
                long[] strides = new long[rank];
                if (several) {
                    System.arraycopy(n, (source ? 2 : 3) * rank, strides, 0, rank);
                } else {
                    for (int d = 0; d < rank; d++) {
                        strides[d] = Math.multiplyExact(layoutStrides[d], n[rank + d]);
                    }
                }
                return new PiecePairs.Strides(buffers[piece(i)], strides, offset(i, s));
            }

            /** {@return box {@code i}'s map on a side of several pieces (its strides), null on one piece (sliced)} */
            PiecePairs.InBox inBox(int i, int s) {
                if (!several) {
                    return null;
                }
                long[] n = shapeNumbers[s];
                return new PiecePairs.InBox.Strides(Arrays.copyOfRange(n, 0, rank),
                        Arrays.copyOfRange(n, (source ? 2 : 3) * rank, (source ? 3 : 4) * rank),
                        source ? sourceOffsets[i] : destinationOffsets[i]);
            }
        }
    }

    /** Marks a shape whose boxes are planned as copies of their own. */
    private static final BoxRuns.Resolved OWN = new BoxRuns.Resolved(null, 0, 0, 0, 0, 0, 0);

    /** Thrown when a table would pass its bytes: the copy is cut a band at a time instead. */
    static final class TooLarge extends RuntimeException {
        @java.io.Serial
        private static final long serialVersionUID = 1L;

        TooLarge() {
            super(null, null, false, false);
        }
    }

    /** Collects a cut's parts, band after band, in row-major order. */
    static final class Builder {
        private final long[] dims;
        private final int rank;
        private final long maxBytes;
        private final long perBox;
        private int size;
        private long bytes;
        private long[] starts;
        private int[] shapes;
        private int[] sourcePieces;
        private int[] destinationPieces;
        private long[] sourceOffsets;
        private long[] destinationOffsets;
        private final HashMap<BoxRuns.Key, Integer> shapeIndex = new HashMap<>();
        private final List<long[]> shapeList = new ArrayList<>();
        private final List<PiecePairs.Part> general = new ArrayList<>();

        /** @param maxBytes past these bytes {@link #add} throws {@link TooLarge} */
        Builder(long[] dims, long maxBytes) {
            this.dims = dims.clone();
            this.rank = dims.length;
            this.maxBytes = maxBytes;
            this.perBox = 8L * rank + 3 * 4 + 2 * 8;
            this.scratch = new long[4 * rank];
            int capacity = 1024;
            starts = new long[capacity * rank];
            shapes = new int[capacity];
            sourcePieces = new int[capacity];
            destinationPieces = new int[capacity];
            sourceOffsets = new long[capacity];
            destinationOffsets = new long[capacity];
        }

        /** The numbers of the box being added. */
        private final long[] scratch;
        /** The shape of the box added last, or -1. */
        private int last = -1;

        /** Adds {@code parts} (a band's, sorted by their start) after those added before. */
        void addAll(List<PiecePairs.Part> parts) {
            for (PiecePairs.Part part : parts) {
                add(part);
            }
        }

        private void add(PiecePairs.Part part) {
            if (size == shapes.length) {
                int capacity = Math.multiplyExact(size, 2);
                starts = Arrays.copyOf(starts, Math.multiplyExact(capacity, rank));
                shapes = Arrays.copyOf(shapes, capacity);
                sourcePieces = Arrays.copyOf(sourcePieces, capacity);
                destinationPieces = Arrays.copyOf(destinationPieces, capacity);
                sourceOffsets = Arrays.copyOf(sourceOffsets, capacity);
                destinationOffsets = Arrays.copyOf(destinationOffsets, capacity);
            }
            Box box = part.box();
            PiecePairs.InBox a = part.sourceMap();
            PiecePairs.InBox b = part.destinationMap();
            int i = size;
            System.arraycopy(box.start(), 0, starts, i * rank, rank);
            sourcePieces[i] = part.sourcePiece();
            destinationPieces[i] = part.destinationPiece();
            bytes += perBox;
            if (a instanceof PiecePairs.InBox.General || b instanceof PiecePairs.InBox.General) {
                shapes[i] = -1 - general.size();
                general.add(part);
                bytes += GENERAL_BYTES;
            } else {
                long[] numbers = scratch;
                for (int d = 0; d < rank; d++) {
                    boolean one = box.count()[d] == 1;
                    numbers[d] = box.count()[d];
                    // A dimension of one index moves nothing: its step and strides are no part of the shape.
                    numbers[rank + d] = one ? 1 : box.step()[d];
                    numbers[2 * rank + d] = one || a == null ? 0 : ((PiecePairs.InBox.Strides) a).strides()[d];
                    numbers[3 * rank + d] = one || b == null ? 0 : ((PiecePairs.InBox.Strides) b).strides()[d];
                }
                // Neighbouring boxes are mostly of one shape: no lookup (and no key made) for them.
                int s = last;
                if (s < 0 || !Arrays.equals(numbers, shapeList.get(s))) {
                    // A key over the scratch for the lookup; only a new shape's numbers are copied and kept.
                    Integer known = shapeIndex.get(new BoxRuns.Key(numbers));
                    if (known == null) {
                        s = shapeList.size();
                        long[] kept = numbers.clone();
                        shapeIndex.put(new BoxRuns.Key(kept), s);
                        shapeList.add(kept);
                        bytes += 32L * rank + 64;
                    } else {
                        s = known;
                    }
                    last = s;
                }
                shapes[i] = s;
                sourceOffsets[i] = a == null ? 0 : ((PiecePairs.InBox.Strides) a).offset();
                destinationOffsets[i] = b == null ? 0 : ((PiecePairs.InBox.Strides) b).offset();
            }
            size++;
            if (bytes > maxBytes) {
                throw new TooLarge();
            }
        }

        /** {@return the table of the parts added} */
        BoxTable build() {
            return new BoxTable(this);
        }
    }
}
