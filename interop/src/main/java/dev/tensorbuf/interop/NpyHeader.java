package dev.tensorbuf.interop;

import dev.tensorbuf.interop.internal.Sizes;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Objects;

/**
 * What a {@code .npy} file's preamble says: format version, element type and the byte order of
 * the data in the file, memory order, shape, and where the data start.
 *
 * <p>{@code fortran_order} is exposed as strides: {@link #layout()} is column-major for a Fortran
 * file, so element {@code (i, j)} of a {@code (2, 3)} array is at {@code i + 2 * j}.
 * {@snippet :
 * NpyHeader h = Npy.readHeader(Path.of("w.npy")); // np.save("w.npy", np.zeros((2, 3), ">f4", order="F"))
 * h.descr();          // ">f4"
 * h.dtype();          // F32
 * h.byteOrder();      // BIG_ENDIAN (in the file; Npy.map and Npy.read give little-endian bytes)
 * h.dataOffset();     // 128
 * h.dataByteSize();   // 24
 * h.layout();         // sizes [2, 3], strides [1, 2]
 * }
 *
 * @param majorVersion 1, 2 or 3 (the minor version is always 0)
 * @param descr the {@code descr} string as written, e.g. {@code "<f4"}
 * @param dtype the element type
 * @param byteOrder the byte order of the data in the file; little-endian for one-byte types
 * @param fortranOrder whether the data are column-major
 * @param shape the dims; empty for a 0-d array (one element)
 * @param dataOffset the file offset of the first data byte
 */
public record NpyHeader(int majorVersion, String descr, DType dtype, ByteOrder byteOrder, boolean fortranOrder,
        List<Long> shape, long dataOffset) {
    /**
     * @throws IllegalArgumentException if the version is not 1 to 3, a dim is negative, the data
     *     size overflows or the offset is negative
     */
    public NpyHeader {
        Objects.requireNonNull(descr, "descr");
        Objects.requireNonNull(dtype, "dtype");
        Objects.requireNonNull(byteOrder, "byteOrder");
        shape = List.copyOf(shape);
        if (majorVersion < 1 || majorVersion > 3) {
            throw new IllegalArgumentException(".npy version " + majorVersion + ".0 is not 1.0, 2.0 or 3.0");
        }
        if (dataOffset < 0) {
            throw new IllegalArgumentException("data offset " + dataOffset + " is negative");
        }
        Sizes.unpackedByteSize(dtype, Sizes.elementCount(shape, descr + " " + shape), descr + " " + shape);
    }

    /** {@return the number of elements: the product of the shape, 1 for a 0-d array} */
    public long elementCount() {
        return Sizes.elementCount(shape, descr);
    }

    /**
     * {@return the bytes of data that follow the header} A sub-byte type (ml_dtypes' int4,
     * float4_e2m1fn...) takes one byte per element, as ml_dtypes saves it.
     */
    public long dataByteSize() {
        return Sizes.unpackedByteSize(dtype, elementCount(), descr);
    }

    /**
     * {@return the element layout of the data: row-major strides, or column-major ones when
     * {@link #fortranOrder()}}
     */
    public StridedLayout layout() {
        int rank = shape.size();
        long[] sizes = new long[rank];
        long[] strides = new long[rank];
        long stride = 1;
        for (int k = 0; k < rank; k++) {
            int d = fortranOrder ? k : rank - 1 - k;
            sizes[d] = shape.get(d);
            strides[d] = stride;
            try {
                stride = Math.multiplyExact(stride, Math.max(1, shape.get(d)));
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException("strides of shape " + shape + " overflow a long");
            }
        }
        return StridedLayout.of(sizes, strides);
    }
}
