package dev.tensorbuf.interop;

import dev.tensorbuf.interop.internal.Materializer;
import dev.tensorbuf.interop.internal.Sizes;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.io.IOException;
import java.nio.channels.WritableByteChannel;

/**
 * One tensor as the file writers take it: element type, dims, and its bytes in C (row-major)
 * order, little-endian, densely stored (sub-byte types packed, first element in the low bits).
 * A count of 1-, 2- or 4-bit elements that does not fill whole bytes takes
 * {@code ceil(count * bits / 8)} of them, as XLA packs: {@code s4[3]} is 2 bytes, the last one's
 * high 4 bits unused. Writers never read unused bits, and {@link #copyOf} leaves them zero.
 *
 * {@snippet :
 * MemorySegment bytes = Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2, 3, 4, 5, 6);
 * DenseTensor t = new DenseTensor(DType.F32, List.of(2L, 3L), bytes);
 * t.elementCount(); // 6
 * new DenseTensor(DType.F32, List.of(2L, 2L), bytes);
 * // IllegalArgumentException: "f32[2, 2] needs 16 bytes, the data has 24"
 * new DenseTensor(DType.S4, List.of(3L), MemorySegment.ofArray(new byte[] {(byte) 0xe1, 0x07}));
 * // int4 [1, -2, 7]: Npy.write writes 01 0e 07
 * }
 *
 * <p>From a {@link TensorView}, {@link #of(TensorView)} wraps the view's bytes when they already
 * are the tensor in C order, and refuses any other view (a transpose, a reversal, a strided
 * slice, a tiled layout) rather than write its buffer's bytes under its dims;
 * {@link #copyOf(TensorView, Allocator)} copies any view into C order.
 *
 * @param dtype the element type; it must have elements (not token or opaque)
 * @param dims the size of each dim, C order; empty for a scalar
 * @param bytes exactly the tensor's bytes
 */
public record DenseTensor(DType dtype, List<Long> dims, MemorySegment bytes) {
    /**
     * @throws IllegalArgumentException if the type has no elements, a dim is negative, the size
     *     overflows, or {@code bytes} is not exactly the tensor's size
     */
    public DenseTensor {
        Objects.requireNonNull(dtype, "dtype");
        Objects.requireNonNull(bytes, "bytes");
        dims = List.copyOf(dims);
        if (!dtype.isArrayType()) {
            throw new IllegalArgumentException(dtype + " has no elements to store in a file");
        }
        String name = describe(dtype, dims);
        long count = Sizes.elementCount(dims, name);
        if (dtype.isSubByte() && 8 % dtype.bitWidth() == 0) {
            requirePacked(dtype, count, bytes.byteSize(), name);
        }
        long expected = Sizes.packedByteSize(dtype, count, name);
        if (expected != bytes.byteSize()) {
            throw new IllegalArgumentException(name + " needs " + expected + " bytes, the data has " + bytes.byteSize());
        }
    }

    /**
     * Sub-byte elements held one to a byte, as ml_dtypes and {@code ElementAccess.of} hold them,
     * are the likely mistake here, and the bit arithmetic alone would not say so.
     */
    private static void requirePacked(DType dtype, long count, long given, String name) {
        int perByte = 8 / dtype.bitWidth();
        long packedBytes = Math.ceilDiv(count, perByte);
        if (given == packedBytes) {
            return;
        }
        String unpacked = given == count && count > 0 ? ", one element to a byte as ml_dtypes holds them: DenseTensor.copyOf"
                + "(TensorView.strided(buffer, DType." + dtype.name() + ", layout), allocator) packs them" : "";
        throw new IllegalArgumentException(name + " needs " + packedBytes + " bytes: " + dtype + " elements are held packed, "
                + perByte + " to a byte (first element in the low bits" + (count % perByte == 0 ? ""
                        : ", the last byte's unused high bits zero") + "); the data has " + given + unpacked);
    }

    /**
     * {@return a tensor over all the bytes of a host buffer, taken as C order whatever view was
     * made over them} A view's strides are not consulted: for the bytes of a transposed or
     * reversed view this pairs its dims with the untransposed data. Give the view itself to
     * {@link #of(TensorView)}, which checks.
     * {@snippet :
     * MemoryBuffer b = arena.allocate(24);                                  // six f32, row-major
     * DenseTensor.of(DType.F32, List.of(2L, 3L), b).elementCount();   // 6
     * }
     *
     * @throws IllegalArgumentException as the constructor does, e.g. for a buffer of another size
     */
    public static DenseTensor of(DType dtype, List<Long> dims, MemoryBuffer buffer) {
        return new DenseTensor(dtype, dims, buffer.segment());
    }

    /**
     * {@return a tensor over the bytes of {@code view}, without a copy, when they are exactly the
     * tensor in C order}: one host buffer read through row-major packed strides (the stride of a
     * dim of size 1 does not matter), from any element offset that starts a byte, so a contiguous
     * slice of a buffer qualifies. Sub-byte types must be stored packed ({@code E(4)} for
     * {@code s4}, two to a byte), as the files hold them.
     * {@snippet :
     * TensorView a = TensorView.of(arena.allocate(24), "f32[2,3]{1,0}");
     * DenseTensor.of(a);                        // f32[2, 3] (24 bytes), a's bytes
     * DenseTensor.of(Ops.transpose(a, 1, 0));
     * // IllegalArgumentException: "f32[3,2] strides [1, 3] is not C order: its strides are not the
     * // row-major [2, 1], so its buffer's bytes are not this tensor's;
     * // DenseTensor.copyOf(view, allocator) copies it into C order"
     * }
     *
     * @throws IllegalArgumentException naming the view and why its bytes are not the tensor's in
     *     C order (not host memory, not strided, strides, a partial first byte, unpacked
     *     sub-byte elements), and the cure
     */
    public static DenseTensor of(TensorView view) {
        DType type = view.dtype();
        if (type.isSubByte() && 8 % type.bitWidth() != 0) {
            throw unevenlyPacked(view);
        }
        String why = whyNotCOrder(view);
        if (why != null) {
            throw new IllegalArgumentException(view + " is not C order: " + why
                    + "; DenseTensor.copyOf(view, allocator) copies it into C order");
        }
        StridedLayout layout = view.stridedLayout().orElseThrow();
        long bits = view.access().storageBits();
        String name = describe(view.dtype(), view.dims());
        long bytes = Sizes.packedByteSize(view.dtype(), view.elementCount(), name);
        long start = bytes == 0 ? 0 : layout.offset() * bits / 8;
        return new DenseTensor(view.dtype(), view.dims(), view.buffer().segment().asSlice(start, bytes));
    }

    /** {@return why the view's bytes are not the tensor's in C order, or null when they are} */
    private static String whyNotCOrder(TensorView view) {
        if (!view.isHostAccessible()) {
            return "its memory is not host-accessible";
        }
        Optional<StridedLayout> strided = view.stridedLayout();
        if (strided.isEmpty()) {
            return "it is not one buffer read through strides (" + view.form().whyNotStrided().orElse("") + ")";
        }
        StridedLayout layout = strided.get();
        DType type = view.dtype();
        long bits = view.access().storageBits();
        if (type.isSubByte() && bits != type.bitWidth()) {
            return "its " + type + " elements are stored one to a byte, and C-order " + type + " data are packed, "
                    + 8 / type.bitWidth() + " to a byte";
        }
        if (view.elementCount() == 0) {
            return null;
        }
        List<Long> rowMajor = StridedLayout.packed(Extents.toArray(view.dims())).strides();
        for (int d = 0; d < view.rank(); d++) {
            if (view.dims().get(d) > 1 && !layout.strides().get(d).equals(rowMajor.get(d))) {
                return "its strides are not the row-major " + rowMajor
                        + ", so its buffer's bytes are not this tensor's";
            }
        }
        if (layout.offset() * bits % 8 != 0) {
            return "it starts at element " + layout.offset() + ", bit " + layout.offset() * bits % 8
                    + " of a byte, and C-order data start on a byte";
        }
        return null;
    }

    /**
     * {@return a C-order copy of any view (strided, tiled, padded, concatenated; sub-byte types
     * packed), in one new buffer of {@code allocator}} Nothing but the allocator frees that
     * buffer: use an allocator scoped to the write, e.g. {@code Allocators.confined()}. The copy
     * is made by {@link CopyEngine#copy(TensorView, TensorView)}, as the exporters make theirs.
     * {@snippet :
     * try (Allocator arena = Allocators.confined()) {
     *     TensorView a = TensorView.of(arena.allocate(24), "f32[2,3]{1,0}");   // 0 1 2 / 3 4 5
     *     TensorElements.of(a).copyFrom(new float[] {0, 1, 2, 3, 4, 5});
     *     Npy.write(Path.of("t.npy"), DenseTensor.copyOf(Ops.transpose(a, 1, 0), arena));
     *     // np.load("t.npy") is [[0, 3], [1, 4], [2, 5]]
     * }
     * }
     *
     * @throws IllegalArgumentException if the view is not host-accessible, or its type has no
     *     C-order packing (6-bit types: four elements to three bytes in no defined bit order)
     * @throws IllegalStateException if the allocator is closed or over its limit
     */
    public static DenseTensor copyOf(TensorView view, Allocator allocator) {
        Objects.requireNonNull(allocator, "allocator");
        DType type = view.dtype();
        if (type.isSubByte() && 8 % type.bitWidth() != 0) {
            throw unevenlyPacked(view);
        }
        // The exporters' dense copy: row-major, 1-, 2- and 4-bit types packed, as a DenseTensor holds them.
        Materializer.Dense copy = Materializer.dense(view, true, allocator);
        String name = describe(type, view.dims());
        long bytes = Sizes.packedByteSize(type, view.elementCount(), name);
        // An empty tensor gets a 1-byte buffer; the tensor is its first 0 bytes.
        return new DenseTensor(type, view.dims(), copy.buffer().segment().asSlice(0, bytes));
    }

    /**
     * A DenseTensor of a 6-bit type holds its elements packed four to three bytes (safetensors'
     * size for them), but neither safetensors nor ml_dtypes says where each element's bits go,
     * so tensorbuf packs none: any order it picked could scramble values without a word.
     */
    private static IllegalArgumentException unevenlyPacked(TensorView view) {
        return new IllegalArgumentException(view + " cannot become a DenseTensor: " + view.dtype().bitWidth()
                + "-bit elements pack four to three bytes in a bit order no format defines, so tensorbuf does not pack them");
    }

    /** {@return the number of elements, the product of the dims (checked when the tensor was made)} */
    public long elementCount() {
        return Extents.elementCount("", dims);
    }

    /** {@return e.g. {@code "f32[2, 3]"}} */
    @Override
    public String toString() {
        return describe(dtype, dims) + " (" + bytes.byteSize() + " bytes)";
    }

    static String describe(DType dtype, List<Long> dims) {
        return dtype + dims.toString();
    }

    /**
     * Writes one tensor's data bytes, in file order, to a channel a file writer hands it: the way to
     * write a {@code .npy} or safetensors file piece by piece, without a buffer of the whole tensor.
     * The writer has already written what comes before (the header) and checks afterwards that exactly
     * the tensor's byte count was written.
     * {@snippet :
     * // f32[2,3] holding 0..5, written one row at a time
     * Npy.write(Path.of("x.npy"), DType.F32, List.of(2L, 3L), channel -> {
     *     for (int row = 0; row < 2; row++) {
     *         ByteBuffer b = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
     *         b.putFloat(3 * row).putFloat(3 * row + 1).putFloat(3 * row + 2).flip();
     *         while (b.hasRemaining()) {
     *             channel.write(b);
     *         }
     *     }
     * });   // np.load("x.npy") is [[0, 1, 2], [3, 4, 5]]
     * }
     */
    @FunctionalInterface
    public interface DataWriter {
        /**
         * Writes the tensor's bytes: row-major, little-endian, exactly its byte count.
         *
         * @param channel where they go; not to be closed, and used only during this call
         */
        void write(WritableByteChannel channel) throws IOException;
    }
}
