package dev.tensorbuf.views;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.internal.Linear;
import dev.tensorbuf.views.internal.ViewBounds;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import dev.tensorbuf.views.internal.Extents;

/**
 * Making a {@link TensorView}: the checks at creation (the map's reach against each buffer, the
 * element storage of an XLA layout) and the fields element access reads (host access, the one
 * buffer, the strides of an affine map); the bodies of {@code TensorView}'s factories, a rank-0
 * scalar's own memory included.
 */
final class ViewFactory {
    private ViewFactory() {
    }

    /** {@return the view of {@link TensorView#of(MemoryBuffer, ArrayShape)}} */
    static TensorView of(MemoryBuffer buffer, ArrayShape shape) {
        buffer.address(); // a closed buffer fails here, naming itself, not at the first element read
        if (!shape.isStatic()) {
            throw new IllegalArgumentException("view of " + shape + ": dynamic dimensions need their sizes; views take static shapes");
        }
        ArrayShape laidOut = shape.laidOut();
        ElementAccess access = ElementAccess.of(laidOut);
        long[] dims = Extents.toArray(laidOut.dims());
        long capacity = capacity(buffer, access);
        long[] strides = ViewRemaps.packedStrides(dims, laidOut.requireLayout(), capacity);
        boolean host = buffer.memorySpace().hostAccessible();
        if (strides != null) {
            // Untiled and inside the buffer: the layout's map is built on first need.
            return new TensorView(laidOut, dims, access, host, buffer, strides, 0, null, new PendingMap.Layout());
        }
        boolean within = tiledWithin(laidOut, dims, capacity);
        if (!within || laidOut.requireLayout().tailPaddingAlignment() != 1) {
            // Every slot inside the buffer is ArraySize or more unless L(n) pads the tail; only
            // then is ArraySize worth its tiling plan (a few hundred ns).
            checkTiledBufferSize(laidOut, buffer);
        }
        if (within) {
            // Tiled and inside the buffer: lowering the tiles to a map and simplifying it (1-15 us)
            // waits for the first need, so views and bitcasts to tiled shapes cost O(rank).
            return new TensorView(laidOut, dims, access, host, buffer, null, 0, null, new PendingMap.Layout());
        }
        checkNestedTilesFit(laidOut, buffer);
        // Beyond the buffer, or split: the map is built now and its check names the first index out.
        return checked(laidOut, new ViewMap.Single(buffer, laidOut.toIndexingMap(), true, layoutBytes(laidOut, buffer)),
                access);
    }

    /**
     * {@return the bytes of {@code buffer} that {@code shape}'s layout takes: every slot its tiles
     * address, or XLA's {@code ArraySize} when larger (tail padding), at most the buffer} The
     * view owns those ({@link ViewMap.Single#layoutBytes()}); a longer buffer's rest is not its.
     */
    static long layoutBytes(ArrayShape shape, MemoryBuffer buffer) {
        try {
            return Math.min(buffer.byteSize(), Math.max(shape.physicalByteSize(), shape.arraySize()));
        } catch (IllegalArgumentException | ArithmeticException unsized) {
            return buffer.byteSize();
        }
    }

    /** {@return the array shape {@link TensorView#of(MemoryBuffer, String)} reads from the text} */
    static ArrayShape arrayShape(String shapeText) {
        XlaShape parsed = XlaShape.parse(shapeText);
        if (!(parsed instanceof ArrayShape array)) {
            throw new IllegalArgumentException("a view needs an array shape, not " + parsed);
        }
        return array;
    }

    /**
     * A tiled buffer is {@code ArraySize} bytes, its tiles' padding included. The elements alone
     * may fit in less, but the copy engine writes the padding (zeroed), so a view over less would
     * be refused only at its first copy.
     */
    private static void checkTiledBufferSize(ArrayShape shape, MemoryBuffer buffer) {
        XlaLayout layout = shape.requireLayout();
        if (layout.tiles().isEmpty() || !layout.splitConfigs().isEmpty()) {
            return;
        }
        long arraySize = shape.arraySize();
        if (buffer.byteSize() < arraySize) {
            throw new IllegalArgumentException("view of " + shape + ": a buffer of " + buffer.byteSize()
                    + " bytes is too small; XLA's ArraySize for the shape is " + arraySize + " bytes, tile padding included");
        }
    }

    /**
     * XLA sizes a tiled buffer by its first tile alone ({@code ArraySize}: "sub-tiles won't cause
     * additional padding"), so a later tile that does not divide what it tiles addresses slots
     * past that size. A buffer of exactly that size is then too small for reasons the first
     * out-of-bounds index would not explain; this says them.
     */
    private static void checkNestedTilesFit(ArrayShape shape, MemoryBuffer buffer) {
        XlaLayout layout = shape.requireLayout();
        if (layout.tiles().size() < 2 || !layout.splitConfigs().isEmpty()) {
            return;
        }
        long slots;
        long slotBytes;
        long arraySize;
        try {
            slots = shape.physicalElementCount();
            slotBytes = shape.physicalByteSize();
            arraySize = shape.arraySize();
        } catch (IllegalArgumentException overflow) {
            return;
        }
        if (slotBytes > buffer.byteSize() && arraySize <= buffer.byteSize()) {
            throw new IllegalArgumentException(shape + ": its tiles address " + slots + " element slots (" + slotBytes
                    + " bytes), but XLA sizes a buffer by the first tile alone (ArraySize " + arraySize
                    + " bytes, this buffer " + buffer.byteSize() + "): a later tile pads inside the tiles before it;"
                    + " each tile must divide the dimensions it tiles");
        }
    }

    /**
     * {@return whether a tiled layout without splits keeps every element of non-empty {@code dims}
     * inside {@code capacity}}: its offsets lie in {@code [0, physicalElementCount)}, the tiles'
     * padding included ({@link ArrayShape#linearIndex})
     */
    private static boolean tiledWithin(ArrayShape shape, long[] dims, long capacity) {
        XlaLayout layout = shape.requireLayout();
        if (layout.tiles().isEmpty() || !layout.splitConfigs().isEmpty() || ViewRemaps.hasZeroDim(dims)) {
            return false;
        }
        try {
            return shape.physicalElementCount() <= capacity;
        } catch (ArithmeticException | IllegalArgumentException overflow) {
            return false;
        }
    }

    /**
     * {@return a view of {@code map}, each piece checked against its buffer}
     *
     * @throws IllegalArgumentException if a piece's map has not one dimension per logical one,
     *     or reaches outside its buffer (naming the first index that does)
     */
    static TensorView checked(ArrayShape logical, ViewMap map, ElementAccess access) {
        for (ViewMap.Single piece : map.pieces()) {
            piece.buffer().address(); // a closed buffer fails when the view is made
            IndexingMap m = piece.map();
            if (m.dims().size() != logical.rank()) {
                throw new IllegalArgumentException("map " + m + " has " + m.dims().size() + " dimension(s) but "
                        + logical + " has " + logical.rank());
            }
            long capacity = capacity(piece.buffer(), access);
            ViewBounds.check(m, capacity, logical::toString, () -> capacity + " elements (" + piece.buffer().byteSize() + " bytes)");
        }
        return fromMap(logical, map, access);
    }

    /** {@return the view of {@link TensorView#over}}: a one-buffer map must place every index */
    static TensorView over(ViewMap map, ElementAccess access, long[] dims) {
        if (map instanceof ViewMap.Single single && !single.map().constraints().isEmpty()) {
            throw new IllegalArgumentException("map " + single.map() + " has constraints: a one-buffer view reads"
                    + " every index; make it a piece of a ViewMap.Padded or ViewMap.Concatenated for a partial map");
        }
        ArrayShape logical = ArrayShape.of(access.type(), dims).withoutLayout();
        return checked(logical, map, access);
    }

    /** {@return the view of {@link TensorView#strided(MemoryBuffer, ElementAccess, StridedLayout)}, of the layout's sizes} */
    static TensorView strided(MemoryBuffer buffer, ElementAccess access, StridedLayout layout) {
        long[] sizes = Extents.toArray(layout.sizes());
        ArrayShape logical = ArrayShape.of(access.type(), sizes).withoutLayout();
        return strided(logical, buffer, access, layout);
    }

    /**
     * {@return the view of {@link TensorView#strided(MemoryBuffer, ElementAccess, StridedLayout)}}: an
     * empty layout's map is known empty and keeps no strides, so the view takes the layout's own
     */
    static TensorView strided(ArrayShape logical, MemoryBuffer buffer, ElementAccess access, StridedLayout layout) {
        buffer.address(); // a closed buffer fails here, naming itself
        long[] dims = Extents.toArray(logical.dims());
        long[] strides = Extents.toArray(layout.strides());
        if (layout.elementCount() > 0 && layout.maxOffset() < capacity(buffer, access)) {
            // Inside the buffer by its extreme offsets (minOffset is never negative): the map is
            // built on first need, and the layout is read off the strides, as for an op's view.
            return new TensorView(logical, dims, access, buffer.memorySpace().hostAccessible(), buffer, strides,
                    layout.offset(), null, PendingMap.Strided.PART);
        }
        // Beyond the buffer (the map's check names the first index out), or empty.
        TensorView view = checked(logical, new ViewMap.Single(buffer, layout.toIndexingMap()), access);
        if (layout.elementCount() > 0) {
            return view;
        }
        return new TensorView(logical, dims, access, view.isHostAccessible(), buffer, strides, layout.offset(), view.map(),
                null);
    }

    /** {@return the view of {@link TensorView#scalar(DType, double)}} */
    static TensorView scalar(DType dtype, double value) {
        MemorySegment one = Arena.ofAuto().allocate(16, 16);
        ElementAccess access = ElementAccess.of(dtype);
        if (dtype.kind() == DType.Kind.COMPLEX) {
            access.setComplex(one, 0, value, 0);
        } else {
            access.setDouble(one, 0, value);
        }
        return scalarOf(one, dtype);
    }

    /** {@return the view of {@link TensorView#scalar(DType, long)}} */
    static TensorView scalar(DType dtype, long value) {
        DType.Kind kind = dtype.kind();
        if (kind == DType.Kind.FLOAT || kind == DType.Kind.COMPLEX) {
            return scalar(dtype, (double) value);
        }
        MemorySegment one = Arena.ofAuto().allocate(16, 16);
        ElementAccess.of(dtype).setLong(one, 0, value);
        return scalarOf(one, dtype);
    }

    private static TensorView scalarOf(MemorySegment one, DType dtype) {
        MemoryBuffer b = MemoryBuffer.foreign(one, MemorySpace.HOST, "scalar", () -> { });
        return of(b.asReadOnly(), ArrayShape.of(dtype));
    }

    /** {@return a view of a map already known to be in bounds: host access, buffer and strides read off the map} */
    static TensorView fromMap(ArrayShape shape, ViewMap map, ElementAccess access) {
        long[] dims = Extents.toArray(shape.dims());
        boolean host = true;
        for (ViewMap.Single piece : map.pieces()) {
            host &= piece.buffer().memorySpace().hostAccessible();
        }
        if (!(map instanceof ViewMap.Single single)) {
            return new TensorView(shape, dims, access, host, null, null, 0, map, null);
        }
        long[] constant = new long[1];
        long[] coefficients = affineStrides(single.map(), dims.length, constant);
        return new TensorView(shape, dims, access, host, single.buffer(), coefficients, constant[0], map, null);
    }

    /**
     * {@return the coefficients of a map whose one result is affine in the dimensions with no
     * constraints, the constant in {@code constant[0]}; else null}. Read off the text of the map,
     * not simplified, so a view made from a map and a view of the same map print alike.
     */
    static long[] affineStrides(IndexingMap m, int rank, long[] constant) {
        long[] coefficients = new long[rank];
        boolean affine = m.constraints().isEmpty() && !m.isKnownEmpty()
                && Linear.extract(m.results().getFirst(), coefficients, constant);
        if (!affine) {
            constant[0] = 0;
            return null;
        }
        return coefficients;
    }

    /** {@return how many elements of {@code access} the buffer holds} */
    static long capacity(MemoryBuffer buffer, ElementAccess access) {
        return access.capacity(buffer.byteSize());
    }

    /** Static flags for the ranks views commonly have, made once: {@code ArrayShape} keeps an immutable list as it is. */
    private static final List<List<Boolean>> STATIC_DIMS = IntStream.rangeClosed(0, 16)
            .mapToObj(rank -> List.copyOf(Collections.nCopies(rank, false))).toList();

    /** {@return a layout-free shape, without building and then dropping the default layout} */
    static ArrayShape logicalShape(DType dtype, long[] dims) {
        Long[] boxed = new Long[dims.length];
        for (int i = 0; i < dims.length; i++) {
            boxed[i] = dims[i];
        }
        List<Boolean> fixed = dims.length < STATIC_DIMS.size() ? STATIC_DIMS.get(dims.length)
                : Collections.nCopies(dims.length, false);
        return new ArrayShape(dtype, List.of(boxed), fixed, Optional.empty());
    }
}
