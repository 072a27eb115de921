package dev.tensorbuf.interop;

import dev.tensorbuf.interop.internal.Errors;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The fields of DirectML's {@code DML_BUFFER_TENSOR_DESC} for a strided view, plus the offset its
 * buffer binding needs ({@code DML_BUFFER_BINDING.Offset}). Sizes and strides are in elements, in
 * the view's logical order; strides are empty when packed row-major (DirectML's NULL);
 * {@code TotalTensorSizeInBytes} is {@code DMLCalcBufferTensorSize}
 * ({@link StridedLayout#bufferBytes}, counted from the first element).
 *
 * <p>DirectML binds buffer tensors at offsets that are multiples of 16 bytes (or of
 * {@code GuaranteedBaseOffsetAlignment} when larger), so a view whose first element is not
 * 16-byte aligned in its buffer is refused with the offset named: copy it, or bind the parent
 * buffer and slice with a DirectML operator.
 * {@snippet :
 * DirectMLTensorDesc d = DirectMLTensorDesc.of(DType.F32, StridedLayout.of(TensorFormat.NHWC, 1, 3, 224, 224));
 * d.dataTypeName();              // "FLOAT32"
 * d.strides();                   // Optional[[150528, 1, 672, 3]]
 * d.totalTensorSizeInBytes();    // 602112
 * DirectMLTensorDesc.of(DType.F32, StridedLayout.of(new long[] {1, 1, 3, 3}, new long[] {25, 25, 5, 1}, 6));
 * // IllegalArgumentException: "binding offset 24 bytes (element offset 6 of f32) is not a multiple of 16: ..."
 * }
 *
 * @param dataType the element type; must have a {@code DML_TENSOR_DATA_TYPE} ({@link DType#directMLName()})
 * @param flags {@link #FLAG_NONE} or {@link #FLAG_OWNED_BY_DML}
 * @param sizes the size of each dimension, 1 to 2^32 - 1, 1 to 8 dimensions
 * @param strides the element strides, 0 to 2^32 - 1; empty for packed row-major
 * @param totalTensorSizeInBytes at least {@code DMLCalcBufferTensorSize} of sizes and strides
 * @param guaranteedBaseOffsetAlignment 0 (none) or a power of two at least the element size
 * @param bindingOffsetBytes where the first element is in the bound buffer
 */
public record DirectMLTensorDesc(DType dataType, int flags, List<Long> sizes, Optional<List<Long>> strides,
        long totalTensorSizeInBytes, int guaranteedBaseOffsetAlignment, long bindingOffsetBytes) {

    /** {@code DML_TENSOR_FLAG_NONE}. */
    public static final int FLAG_NONE = 0;
    /** {@code DML_TENSOR_FLAG_OWNED_BY_DML}: weights DirectML copies at operator initialisation. */
    public static final int FLAG_OWNED_BY_DML = 1;
    /** {@code DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT}: binding offsets are multiples of this. */
    public static final int MINIMUM_BUFFER_TENSOR_ALIGNMENT = 16;
    /** {@code DML_TENSOR_DIMENSION_COUNT_MAX1} (feature level 3.0 and later). */
    public static final int DIMENSION_COUNT_MAX = 8;

    private static final long UINT_MAX = 0xffff_ffffL;

    /** @throws IllegalArgumentException naming the field and value that DirectML would reject */
    public DirectMLTensorDesc {
        Objects.requireNonNull(dataType, "dataType");
        sizes = List.copyOf(Objects.requireNonNull(sizes, "sizes"));
        strides = Objects.requireNonNull(strides, "strides (Optional.empty() for packed row-major)").map(List::copyOf);
        if (dataType.directMLName().isEmpty()) {
            throw new IllegalArgumentException(dataType + " has no DML_TENSOR_DATA_TYPE (DirectML has no pred, bf16,"
                    + " f8, f6, f4, complex or 1- and 2-bit integers)");
        }
        if (flags != FLAG_NONE && flags != FLAG_OWNED_BY_DML) {
            throw new IllegalArgumentException("DML_TENSOR_FLAGS " + flags + ": expected 0 (NONE) or 1 (OWNED_BY_DML)");
        }
        if (sizes.isEmpty() || sizes.size() > DIMENSION_COUNT_MAX) {
            throw new IllegalArgumentException("DimensionCount " + sizes.size() + " of sizes " + sizes
                    + ": DirectML takes 1 to " + DIMENSION_COUNT_MAX);
        }
        for (int d = 0; d < sizes.size(); d++) {
            if (sizes.get(d) < 1 || sizes.get(d) > UINT_MAX) {
                throw new IllegalArgumentException("size " + sizes.get(d) + " of dim " + d + " in " + sizes
                        + ": DirectML sizes are 1 to 2^32 - 1");
            }
        }
        if (strides.isPresent()) {
            List<Long> s = strides.get();
            if (s.size() != sizes.size()) {
                throw new IllegalArgumentException(s.size() + " strides " + s + " for " + sizes.size() + " sizes " + sizes);
            }
            long last = 0;
            for (int d = 0; d < s.size(); d++) {
                if (s.get(d) < 0 || s.get(d) > UINT_MAX) {
                    throw Errors.directMLStride(s.get(d), d, s);
                }
                // Both factors are below 2^32, so the product is exact as an unsigned long; up to
                // 8 terms below 2^60 sum without overflow, and -1 stands for "larger".
                long step = (sizes.get(d) - 1) * s.get(d);
                last = last < 0 || Long.compareUnsigned(step, 1L << 60) >= 0 ? -1 : last + step;
            }
            if (last < 0 || last > UINT_MAX) {
                throw new IllegalArgumentException("the last element is at index "
                        + (last < 0 ? "beyond 2^32" : String.valueOf(last)) + " of sizes " + sizes
                        + " strides " + s + ": DirectML computes element indices in 32 bits (DMLCalcBufferTensorSize),"
                        + " so they must stay below 2^32");
            }
        }
        long elements = layoutOf(sizes, strides).elementCount();
        if (elements > UINT_MAX) {
            throw new IllegalArgumentException(elements + " elements in sizes " + sizes + ": DirectML allows at most 2^32 - 1");
        }
        long minimum = layoutOf(sizes, strides).bufferBytes(dataType);
        if (totalTensorSizeInBytes < minimum) {
            throw new IllegalArgumentException("TotalTensorSizeInBytes " + totalTensorSizeInBytes
                    + " is below DMLCalcBufferTensorSize " + minimum + " for " + dataType + " sizes " + sizes
                    + strides.map(s -> " strides " + s).orElse(""));
        }
        if (guaranteedBaseOffsetAlignment != 0 && (Integer.bitCount(guaranteedBaseOffsetAlignment) != 1
                || guaranteedBaseOffsetAlignment < dataType.byteWidth())) {
            throw new IllegalArgumentException("GuaranteedBaseOffsetAlignment " + guaranteedBaseOffsetAlignment
                    + " must be 0 or a power of two of at least the element size " + dataType.byteWidth());
        }
        if (bindingOffsetBytes < 0) {
            throw new IllegalArgumentException("binding offset " + bindingOffsetBytes + " bytes is negative:"
                    + " DML_BUFFER_BINDING.Offset counts bytes from the start of the buffer");
        }
        if (bindingOffsetBytes % MINIMUM_BUFFER_TENSOR_ALIGNMENT != 0) {
            throw Errors.bindingOffset(bindingOffsetBytes + " bytes", MINIMUM_BUFFER_TENSOR_ALIGNMENT);
        }
        if (guaranteedBaseOffsetAlignment != 0 && bindingOffsetBytes % guaranteedBaseOffsetAlignment != 0) {
            throw new IllegalArgumentException("binding offset " + bindingOffsetBytes + " bytes is not a multiple of "
                    + guaranteedBaseOffsetAlignment + ", the GuaranteedBaseOffsetAlignment this description promises");
        }
    }

    /**
     * {@return the description of elements laid out by {@code layout} from the start of a buffer
     * bound at offset 0: the layout's own offset becomes the binding offset} A dimension of size 1
     * never steps, so a stride there that DirectML cannot hold (negative, 2^32 or more) becomes 0.
     *
     * @throws IllegalArgumentException if DirectML cannot describe it (type, rank, size 0,
     *     negative strides where a dimension steps) or the first element is not at a 16-byte
     *     multiple, naming the value
     */
    public static DirectMLTensorDesc of(DType type, StridedLayout layout) {
        layout = withUnusedStridesZeroed(layout);
        // A flip first: no binding offset can fix it, so naming the offset would mislead.
        for (int d = 0; d < layout.rank(); d++) {
            if (layout.strides().get(d) < 0) {
                throw Errors.directMLStride(layout.strides().get(d), d, layout.strides());
            }
        }
        long bits;
        try {
            bits = Math.multiplyExact(layout.offset(), (long) type.bitWidth());
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("element offset " + layout.offset() + " of " + type
                    + " is beyond any buffer: its byte offset overflows a long", e);
        }
        if (bits % 8 != 0) {
            throw new IllegalArgumentException("element offset " + layout.offset() + " of " + type
                    + " starts inside a byte: DirectML binds whole bytes at 16-byte aligned offsets");
        }
        long offsetBytes = bits / 8;
        if (offsetBytes % MINIMUM_BUFFER_TENSOR_ALIGNMENT != 0) {
            throw Errors.bindingOffset(offsetBytes + " bytes (element offset " + layout.offset() + " of " + type + ")",
                    MINIMUM_BUFFER_TENSOR_ALIGNMENT);
        }
        StridedLayout fromFirst = layout.withOffset(0);
        long[] sizes = Extents.toArray(fromFirst.sizes());
        boolean rowMajor = StridedLayout.packed(sizes).strides().equals(fromFirst.strides());
        return new DirectMLTensorDesc(type, FLAG_NONE, fromFirst.sizes(),
                rowMajor ? Optional.empty() : Optional.of(fromFirst.strides()),
                requireNonEmpty(fromFirst, type).bufferBytes(type), MINIMUM_BUFFER_TENSOR_ALIGNMENT, offsetBytes);
    }

    /**
     * {@return the description of a strided view, its buffer bound at offset 0}
     *
     * @throws IllegalArgumentException if the view is not strided (with the reason), stores
     *     4-bit elements a byte each (DirectML's INT4/UINT4 are packed), or as {@link #of(DType, StridedLayout)}
     */
    public static DirectMLTensorDesc of(TensorView view) {
        StridedLayout layout = view.stridedLayout().orElseThrow(() -> new IllegalArgumentException(
                "DML_BUFFER_TENSOR_DESC of " + view + ": DirectML describes strided views only, and "
                        + view.form().whyNotStrided().orElse("it is not strided")));
        if (view.dtype().isSubByte() && view.access().storageBits() != view.dtype().bitWidth()) {
            throw new IllegalArgumentException("DML_BUFFER_TENSOR_DESC of " + view + ": DirectML packs "
                    + view.dtype() + " two to a byte, but this view stores one per byte");
        }
        return of(view.dtype(), layout);
    }

    /**
     * {@return {@code layout} with a stride DirectML cannot hold (negative, 2^32 or more) on a
     * dimension of size 1 replaced by 0} Such a dimension never steps, so its stride addresses
     * nothing and is no reason to refuse the layout; strides DirectML can hold are kept as given.
     */
    private static StridedLayout withUnusedStridesZeroed(StridedLayout layout) {
        long[] sizes = Extents.toArray(layout.sizes());
        long[] strides = Extents.toArray(layout.strides());
        boolean changed = false;
        for (int d = 0; d < sizes.length; d++) {
            if (sizes[d] == 1 && (strides[d] < 0 || strides[d] > UINT_MAX)) {
                strides[d] = 0;
                changed = true;
            }
        }
        return changed ? StridedLayout.of(sizes, strides, layout.offset()) : layout;
    }

    private static StridedLayout requireNonEmpty(StridedLayout layout, DType type) {
        if (layout.elementCount() == 0) {
            throw new IllegalArgumentException(type + " " + layout + " has no elements: DirectML sizes are at least 1");
        }
        return layout;
    }

    private static StridedLayout layoutOf(List<Long> sizes, Optional<List<Long>> strides) {
        long[] s = Extents.toArray(sizes);
        return strides.map(st -> StridedLayout.of(s, Extents.toArray(st)))
                .orElseGet(() -> StridedLayout.packed(s));
    }

    /** {@return the {@code DML_TENSOR_DATA_TYPE} name, e.g. {@code "FLOAT32"}} */
    public String dataTypeName() {
        return dataType.directMLName().orElseThrow();
    }

    /** {@return the {@code DML_TENSOR_DATA_TYPE} value, e.g. 1 for {@code FLOAT32}} */
    public int dataTypeValue() {
        return dataType.directMLValue().orElseThrow();
    }

    /** {@return {@code DimensionCount}} */
    public int dimensionCount() {
        return sizes.size();
    }

    /**
     * {@return the same tensor with leading dimensions of size 1 up to {@code rank}, as DirectML's
     * 4-D and 5-D operators take lower-rank data ({@code HW} becomes {@code {1, 1, H, W}})}
     *
     * @throws IllegalArgumentException if {@code rank} is below the current rank or above 8
     */
    public DirectMLTensorDesc withLeadingOnes(int rank) {
        if (rank < sizes.size() || rank > DIMENSION_COUNT_MAX) {
            throw new IllegalArgumentException("rank " + rank + " for " + sizes.size() + " sizes " + sizes
                    + ": expected " + sizes.size() + " to " + DIMENSION_COUNT_MAX);
        }
        List<Long> newSizes = new ArrayList<>();
        List<Long> newStrides = new ArrayList<>();
        for (int i = sizes.size(); i < rank; i++) {
            newSizes.add(1L);
            newStrides.add(0L); // a dimension of size 1 never steps, so any stride addresses the same bytes
        }
        newSizes.addAll(sizes);
        strides.ifPresent(newStrides::addAll);
        return new DirectMLTensorDesc(dataType, flags, newSizes, strides.isPresent() ? Optional.of(newStrides) : Optional.empty(),
                totalTensorSizeInBytes, guaranteedBaseOffsetAlignment, bindingOffsetBytes);
    }
}
