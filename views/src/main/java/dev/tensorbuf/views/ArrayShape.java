package dev.tensorbuf.views;

import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.internal.Errors;
import dev.tensorbuf.views.internal.TiledLayoutMaps;
import dev.tensorbuf.views.internal.TiledLayoutMath;
import dev.tensorbuf.views.internal.XlaShapePrinter;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import dev.tensorbuf.views.internal.Extents;

/**
 * An XLA array shape: element type, dimension sizes (static, bounded dynamic {@code <=N}, or
 * unbounded {@code ?}) and, usually, a layout. Sizes, linear indices and the tiled physical
 * shape are computed by one implementation of XLA's nested tiling (seed 000), including
 * combined dimensions ({@code *}).
 * {@snippet :
 * ArrayShape a = ArrayShape.parse("f32[3,5]{1,0:T(2,2)}");
 * a.linearIndex(2, 3);        // 17
 * a.physicalDims();           // [2, 3, 2, 2]
 * a.physicalElementCount();   // 24
 * a.arraySize();              // 96 bytes
 * a.logicalIndex(9);          // Optional.empty(): slot 9 is padding
 * }
 *
 * @param dtype the element type; not token or opaque (see {@link XlaShape.Token}, {@link XlaShape.Opaque})
 * @param dims sizes per logical dimension; for a dynamic dimension its bound, or
 *     {@link #UNBOUNDED} for {@code ?}
 * @param dynamicDims per dimension, whether it is dynamic ({@code <=N} or {@code ?})
 * @param layout the layout; empty only for shapes built without one
 */
public record ArrayShape(DType dtype, List<Long> dims, List<Boolean> dynamicDims, Optional<XlaLayout> layout)
        implements XlaShape {

    /** The size of an unbounded dynamic dimension ({@code ?}), XLA's {@code Shape::kUnboundedSize}. */
    public static final long UNBOUNDED = Long.MIN_VALUE;

    /** @throws IllegalArgumentException naming the dimension or layout field that is not valid */
    public ArrayShape {
        Objects.requireNonNull(dtype, "dtype");
        dims = List.copyOf(dims);
        dynamicDims = List.copyOf(dynamicDims);
        Objects.requireNonNull(layout, "layout");
        if (!dtype.isArrayType()) {
            throw new IllegalArgumentException(dtype + " is not an array element type; use "
                    + (dtype == DType.TOKEN ? "XlaShape.Token" : "XlaShape.Opaque"));
        }
        if (dims.size() != dynamicDims.size()) {
            throw new IllegalArgumentException("dynamic dimensions size " + dynamicDims.size()
                    + " does not match number of dimensions " + dims.size());
        }
        boolean unbounded = false;
        for (int i = 0; i < dims.size(); i++) {
            long d = dims.get(i);
            if (d == UNBOUNDED) {
                if (!dynamicDims.get(i)) {
                    throw new IllegalArgumentException("dimension " + i + " is unbounded but not marked dynamic");
                }
                unbounded = true;
            } else if (d < 0) {
                throw Errors.negativeSize(d, i, dtype.toString() + dims);
            }
        }
        // XLA's ExtentProduct skips '?': it has no size. (Views make shapes per op, so the list
        // without them is made only when there are some.)
        List<Long> bounded = unbounded ? dims.stream().filter(d -> d != UNBOUNDED).toList() : dims;
        // Extents' rule: a zero dimension empties the shape whatever its order, so f32[2^63 - 1, 0]
        // holds no bytes; otherwise the elements and their bytes must fit in a long.
        try {
            Math.multiplyExact(Extents.elementCount("", bounded), (long) Math.max(1, dtype.byteWidth()));
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new IllegalArgumentException("overflow in static extent product: dims=" + dims
                    + " of " + dtype.byteWidth() + "-byte " + dtype, e);
        }
        if (layout.isPresent()) {
            TiledLayoutMath.validateLayoutForShape(layout.get(), dtype, dims, dynamicDims);
        }
    }

    /**
     * {@return the array shape written in XLA's text}, as {@link XlaShape#parse(String)} reads it,
     * for the many calls that need an array and would otherwise cast
     * {@snippet :
     * ArrayShape s = ArrayShape.parse("bf16[8,128]{1,0:T(8,128)(2,1)}");
     * s.arraySize(); // 2048
     * ArrayShape.parse("(f32[2], s32[])"); // IllegalArgumentException: "an array shape is needed, not the tuple (f32[2]{0}, s32[])"
     * }
     *
     * @throws dev.tensorbuf.views.text.TextFormatException naming what was wrong and where
     * @throws IllegalArgumentException if the text is a tuple, token or opaque shape
     */
    public static ArrayShape parse(String text) {
        XlaShape shape = XlaShape.parse(text);
        if (!(shape instanceof ArrayShape array)) {
            String kind = switch (shape) {
                case XlaShape.Tuple t -> "the tuple ";
                case XlaShape.Token t -> "the token ";
                default -> "";
            };
            throw new IllegalArgumentException("an array shape is needed, not " + kind + shape);
        }
        return array;
    }

    /** {@return a static-shaped array of these sizes with XLA's default descending layout} */
    public static ArrayShape of(DType dtype, long... dims) {
        List<Long> list = new ArrayList<>(dims.length);
        for (long d : dims) {
            list.add(d);
        }
        return new ArrayShape(dtype, list, Collections.nCopies(dims.length, false),
                Optional.of(XlaLayout.descending(dims.length)));
    }

    /** {@return this shape with {@code newLayout}} */
    public ArrayShape withLayout(XlaLayout newLayout) {
        return new ArrayShape(dtype, dims, dynamicDims, Optional.of(newLayout));
    }

    /**
     * {@return this shape, given XLA's default layout (descending, row-major) when it has none}:
     * how XLA lays out a shape written without one
     * {@snippet :
     * ArrayShape.parse("f32[2,3]").withoutLayout().laidOut(); // f32[2,3]{1,0}
     * }
     */
    public ArrayShape laidOut() {
        return layout.isPresent() ? this : withLayout(XlaLayout.descending(dims.size()));
    }

    /** {@return this shape without a layout, as XLA's {@code ClearLayout}} */
    public ArrayShape withoutLayout() {
        return new ArrayShape(dtype, dims, dynamicDims, Optional.empty());
    }

    /**
     * {@return the layout}
     *
     * @throws IllegalArgumentException if the shape has none
     */
    public XlaLayout requireLayout() {
        return layout.orElseThrow(() -> new IllegalArgumentException("shape " + this + " does not have a layout"));
    }

    /** {@return the number of dimensions} */
    public int rank() {
        return dims.size();
    }

    /** {@return the size (or bound) of dimension {@code i}; {@link #UNBOUNDED} for {@code ?}} */
    public long dim(int i) {
        return dims.get(i);
    }

    /** {@return whether dimension {@code i} is dynamic ({@code <=N} or {@code ?})} */
    public boolean isDynamic(int i) {
        return dynamicDims.get(i);
    }

    /** {@return whether no dimension is dynamic} */
    public boolean isStatic() {
        return !dynamicDims.contains(true);
    }

    /**
     * {@return the number of logical elements (XLA's {@code ElementsIn}; bounds for dynamic dims)}
     *
     * @throws IllegalArgumentException if a dimension is unbounded
     */
    public long elementCount() {
        return TiledLayoutMath.elementCount(this);
    }

    /**
     * {@return the fully tiled physical shape, major to minor, after every tile level (padding
     * included)}; the untiled physical order when there are no tiles
     *
     * @throws IllegalArgumentException if there is no layout, a dim is unbounded, a {@code *} has no
     *     dimension to combine with, or the sizes overflow
     */
    public List<Long> physicalDims() {
        return TiledLayoutMath.physicalDims(this);
    }

    /** {@return the element slots of the tiled buffer: the product of {@link #physicalDims()}, padding included} */
    public long physicalElementCount() {
        return TiledLayoutMath.product(physicalDims(), this);
    }

    /**
     * {@return the bytes those slots take: {@link #physicalElementCount()} times the byte width,
     * or {@code ceil(slots * n / 8)} under {@code E(n)}} It exceeds {@link #arraySize()} when a
     * later tile pads inside an earlier one ({@code f32[2,3]{1,0:T(2,3)(1,2)}}: 32 bytes against
     * 24), and falls short of it under tail padding {@code L(n)}.
     *
     * @throws IllegalArgumentException as {@link #physicalElementCount()}, or if the bytes overflow
     */
    public long physicalByteSize() {
        return TiledLayoutMath.physicalByteSize(this);
    }

    /**
     * {@return the element offset of a logical index in the tiled buffer, applying every tile
     * level and combined dimensions (XLA's {@code LinearIndexForNestedTiling})}
     *
     * @param index one value per logical dimension
     * @throws IndexOutOfBoundsException if an index is outside its dimension
     */
    public long linearIndex(long... index) {
        return TiledLayoutMath.linearIndex(this, index);
    }

    /**
     * {@return the logical index stored at element offset {@code offset}, or empty when that slot
     * is padding (the inverse of {@link #linearIndex(long...)})}
     *
     * @throws IndexOutOfBoundsException if {@code offset} is outside {@code [0, physicalElementCount())}
     */
    public Optional<List<Long>> logicalIndex(long offset) {
        return TiledLayoutMath.logicalIndex(this, offset);
    }

    /** {@return XLA's {@code ByteSizeOfElements}: elements times byte width, or ceil(elements * E / 8) under {@code E(n)}} */
    public long byteSizeOfElements() {
        return TiledLayoutMath.byteSizeOfElements(this);
    }

    /**
     * {@return XLA's {@code ShapeUtil::ArraySize} in bytes: dims (largest split piece) rounded up
     * by the first tile only, then to a multiple of {@code L}, times the element width}
     */
    public long arraySize() {
        return TiledLayoutMath.arraySize(this);
    }

    /** {@return XLA's {@code ShapeUtil::ArrayDataSize} in bytes: up to and including the last element, by the first tile} */
    public long arrayDataSize() {
        return TiledLayoutMath.arrayDataSize(this);
    }

    /** {@return XLA's {@code LayoutUtil::MaxSplitSize}: the largest piece of logical dim {@code dim} under its split config} */
    public long maxSplitSize(int dim) {
        return TiledLayoutMath.maxSplitSize(this, dim);
    }

    /**
     * {@return byte strides per logical dimension ignoring tiles (XLA's {@code ByteStrides}),
     * or empty when {@code E(n)} is not a whole number of bytes}
     */
    public Optional<List<Long>> byteStrides() {
        return TiledLayoutMath.byteStrides(this, false);
    }

    /** {@return byte strides counting a sub-byte element as one byte (XLA's {@code UnpackedByteStrides})} */
    public List<Long> unpackedByteStrides() {
        return TiledLayoutMath.byteStrides(this, true).orElseThrow();
    }

    /**
     * {@return the layout as an indexing map from the logical index to the element offset, with
     * domain {@code d_i in [0, dim_i - 1]}: the floordiv/mod form of the tiling formula}
     * {@snippet :
     * ArrayShape.parse("f32[3,5]{1,0:T(2,2)}").toIndexingMap().toString();
     * // "(d0, d1) -> (d1 mod 2 + (d0 mod 2) * 2 + (d1 / 2) * 4 + (d0 / 2) * 12), domain: d0 in [0, 2], d1 in [0, 4]"
     * }
     *
     * @throws IllegalArgumentException if there is no layout or a dimension is unbounded
     */
    public IndexingMap toIndexingMap() {
        return TiledLayoutMaps.toIndexingMap(this);
    }

    /** {@return the canonical text, e.g. {@code "f32[3,<=5,?]{2,1,0:T(2,2)}"}} */
    @Override
    public String toString() {
        return XlaShapePrinter.shape(this, true);
    }
}
