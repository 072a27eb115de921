package dev.tensorbuf.views.internal;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.XlaLayout.SplitConfig;
import dev.tensorbuf.views.XlaLayout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Sizes and indices of XLA array shapes. Index math goes through {@link TilingPlan}; the byte
 * sizes follow {@code shape_util.cc} ({@code ByteSizeOfElements}, {@code ArraySize},
 * {@code ArrayDataSize}) and {@code layout_util.cc} ({@code MaxSplitSize}).
 */
public final class TiledLayoutMath {
    private static final int BITS_PER_BYTE = 8;

    private TiledLayoutMath() {
    }

    /** Checks a layout against a shape's rank, with XLA's {@code ValidateLayoutForShape} messages. */
    public static void validateLayoutForShape(XlaLayout layout, DType dtype, List<Long> dims, List<Boolean> dynamic) {
        int rank = dims.size();
        List<Integer> m2m = layout.minorToMajor();
        if (m2m.size() != rank) {
            throw new IllegalArgumentException("layout minor_to_major field contains " + m2m.size()
                    + " elements, but shape has " + rank + " dimensions: " + Errors.braced(m2m) + "; shape: "
                    + XlaShapePrinter.arrayWithoutLayout(dtype, dims, dynamic));
        }
        String text = XlaShapePrinter.arrayWithoutLayout(dtype, dims, dynamic) + layout;
        for (int d : m2m) {
            if (d >= rank) {
                throw new IllegalArgumentException(Errors.minorToMajorOutOfBounds(m2m, text));
            }
        }
        if (layout.indexPrimitiveType().isPresent()) {
            throw new IllegalArgumentException("layout has a index_primitive_type, but is not a sparse array: " + text);
        }
        if (layout.pointerPrimitiveType().isPresent()) {
            throw new IllegalArgumentException("layout has a pointer_primitive_type, but is not a sparse array: " + text);
        }
        for (SplitConfig sc : layout.splitConfigs()) {
            if (sc.dimension() >= rank) {
                throw new IllegalArgumentException("layout split config dimension " + sc.dimension()
                        + " is out of bounds [0, " + rank + "): " + text);
            }
        }
    }

    /** {@return XLA's {@code ElementsIn}: the product of the sizes (bounds for dynamic dims)} */
    public static long elementCount(ArrayShape shape) {
        for (int i = 0; i < shape.rank(); i++) {
            staticSize(shape, i);
        }
        return Extents.elementCount("shape", shape.dims());
    }

    /** {@return the size of logical dim {@code i}: its bound when dynamic; unbounded dims have none} */
    static long staticSize(ArrayShape shape, int i) {
        long d = shape.dim(i);
        if (d == ArrayShape.UNBOUNDED) {
            throw new IllegalArgumentException("dimension " + i + " of " + shape + " is unbounded ('?'): it has no size");
        }
        return d;
    }

    public static List<Long> physicalDims(ArrayShape shape) {
        return TilingPlan.of(shape).physicalDims();
    }

    public static long product(List<Long> dims, ArrayShape shape) {
        if (dims.contains(0L)) {
            return 0;
        }
        long n = 1;
        for (long d : dims) {
            n = multiply(n, d, shape, "physical element count");
        }
        return n;
    }

    public static long physicalByteSize(ArrayShape shape) {
        long slots = shape.physicalElementCount();
        long bits = shape.requireLayout().elementSizeInBits();
        return bits == 0 ? multiply(slots, shape.dtype().byteWidth(), shape, "physical byte size")
                : Math.ceilDiv(multiply(slots, bits, shape, "physical bit size"), 8L);
    }

    public static long linearIndex(ArrayShape shape, long[] index) {
        checkIndex(shape, index);
        return TilingPlan.of(shape).linearIndex(index);
    }

    public static Optional<List<Long>> logicalIndex(ArrayShape shape, long offset) {
        TilingPlan plan = TilingPlan.of(shape);
        if (offset < 0 || offset >= plan.slots()) {
            throw new IndexOutOfBoundsException("element offset " + offset + " out of bounds [0, " + plan.slots()
                    + ") of " + shape);
        }
        long[] logical = plan.logicalIndex(offset);
        return logical == null ? Optional.empty() : Optional.of(Arrays.stream(logical).boxed().toList());
    }

    /** Checks one index per dimension, each inside its dimension. */
    public static void checkIndex(ArrayShape shape, long[] index) {
        if (index.length != shape.rank()) {
            throw Errors.indexRank(index, shape, shape.rank());
        }
        for (int i = 0; i < index.length; i++) {
            long size = staticSize(shape, i);
            if (index[i] < 0 || index[i] >= size) {
                throw Errors.indexOutOfBounds(index[i], size, i, shape);
            }
        }
    }

    public static long byteSizeOfElements(ArrayShape shape) {
        return bytes(shape, elementCount(shape));
    }

    /** {@return the bytes of {@code elements} elements: ceil(n * E / 8) under E(n), else n * byte width} */
    private static long bytes(ArrayShape shape, long elements) {
        long bits = shape.layout().map(XlaLayout::elementSizeInBits).orElse(0L);
        if (bits != 0) {
            long totalBits = multiply(elements, bits, shape, "size in bits");
            return totalBits / BITS_PER_BYTE + (totalBits % BITS_PER_BYTE == 0 ? 0 : 1);
        }
        return multiply(elements, shape.dtype().byteWidth(), shape, "size in bytes");
    }

    public static long arraySize(ArrayShape shape) {
        XlaLayout layout = shape.requireLayout();
        if (layout.tiles().isEmpty()) {
            return byteSizeOfElements(shape);
        }
        // Only the first tile pads (XLA assumes sub-tiles add none), over the largest split piece.
        long[] sizes = new long[shape.rank()];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = maxSplitSize(shape, i);
        }
        long n;
        try {
            n = TilingPlan.firstLevelOf(withSizes(shape, sizes)).slots();
        } catch (IllegalArgumentException e) {
            if (layout.splitConfigs().isEmpty()) {
                throw e;
            }
            // The pieces are a shape the user never wrote: name the one they did, and where the sizes came from.
            throw new IllegalArgumentException("the byte size of " + shape + " overflows a long: its largest split"
                    + " pieces are " + Arrays.toString(sizes) + " (" + e.getMessage() + ")", e);
        }
        long l = layout.tailPaddingAlignment();
        if (l != 1) {
            n = multiply(n / l + (n % l == 0 ? 0 : 1), l, shape, "tail-padded element count");
        }
        return bytes(shape, n);
    }

    public static long arrayDataSize(ArrayShape shape) {
        long count = elementCount(shape);
        if (count == 0) {
            return 0;
        }
        long[] last = new long[shape.rank()];
        for (int i = 0; i < last.length; i++) {
            last[i] = staticSize(shape, i) - 1;
        }
        // XLA's LayoutUtil::LinearIndex: first tile only, and a rank-1 index is its own offset.
        long lastOffset = last.length == 1 ? last[0] : TilingPlan.firstLevelOf(shape).linearIndex(last);
        return bytes(shape, lastOffset + 1);
    }

    public static long maxSplitSize(ArrayShape shape, int dim) {
        if (dim < 0 || dim >= shape.rank()) {
            throw new IndexOutOfBoundsException("dim " + dim + " out of bounds [0, " + shape.rank() + ") of " + shape);
        }
        long size = staticSize(shape, dim);
        XlaLayout layout = shape.requireLayout();
        for (SplitConfig sc : layout.splitConfigs()) {
            if (layout.majorDimension((int) sc.dimension()) == dim) {
                long max = 0;
                long last = 0;
                for (long index : sc.splitIndices()) {
                    max = Math.max(max, index - last);
                    last = index;
                }
                return Math.max(max, size - last);
            }
        }
        return size;
    }

    public static Optional<List<Long>> byteStrides(ArrayShape shape, boolean unpacked) {
        XlaLayout layout = shape.requireLayout();
        long stride;
        if (unpacked || layout.elementSizeInBits() == 0) {
            stride = shape.dtype().byteWidth();
        } else if (layout.elementSizeInBits() % BITS_PER_BYTE != 0) {
            return Optional.empty();
        } else {
            stride = layout.elementSizeInBits() / BITS_PER_BYTE;
        }
        long[] strides = new long[shape.rank()];
        for (int d : layout.minorToMajor()) {
            strides[d] = stride;
            stride = multiply(stride, staticSize(shape, d), shape, "byte stride");
        }
        return Optional.of(Arrays.stream(strides).boxed().toList());
    }

    /** {@code a * b}, or an IllegalArgumentException naming the numbers, what they are and the shape. */
    static long multiply(long a, long b, ArrayShape shape, String what) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            throw Errors.overflows(what + " of " + shape, a + " * " + b, e);
        }
    }

    private static ArrayShape withSizes(ArrayShape shape, long[] sizes) {
        List<Long> dims = new ArrayList<>(sizes.length);
        for (long s : sizes) {
            dims.add(s);
        }
        return new ArrayShape(shape.dtype(), dims, shape.dynamicDims(), shape.layout());
    }
}
