package dev.tensorbuf.interop;

import dev.tensorbuf.interop.internal.Errors;
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
 * h.dtype();          // DType.F32
 * h.byteOrder();      // BIG_ENDIAN (in the file; Npy.map and Npy.read give little-endian bytes)
 * h.dataOffset();     // 128
 * h.dataByteSize();   // 24
 * h.layout();         // sizes [2, 3] strides [1, 2]
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
     * The shape must pass NumPy's own check as well as {@link dev.tensorbuf.views.internal.Extents}' rule:
     * the product of the non-zero dims, from which NumPy builds strides, must fit in a long (here
     * in elements; NumPy counts bytes) even when a 0 dim leaves the array empty. {@code np.load}
     * refuses {@code (0, 2^62, 4)} as "array is too big", and so does this constructor, so every
     * header that reads has a {@link #layout()}.
     *
     * @throws IllegalArgumentException if the version is not 1 to 3, a dim is negative, the data
     *     size overflows, the strides overflow or the offset is negative
     */
    public NpyHeader {
        Objects.requireNonNull(descr, "descr");
        Objects.requireNonNull(dtype, "dtype");
        Objects.requireNonNull(byteOrder, "byteOrder");
        shape = List.copyOf(shape);
        if (majorVersion < 1 || majorVersion > 3) {
            throw Errors.npyVersion(majorVersion);
        }
        if (dataOffset < 0) {
            throw new IllegalArgumentException("data offset " + dataOffset + " is negative");
        }
        Sizes.unpackedByteSize(dtype, Sizes.elementCount(shape, descr + " " + shape), descr + " " + shape);
        strides(shape, fortranOrder);
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
        long[] sizes = new long[shape.size()];
        for (int d = 0; d < sizes.length; d++) {
            sizes[d] = shape.get(d);
        }
        return StridedLayout.of(sizes, strides(shape, fortranOrder));
    }

    /** NumPy's strides, a 0 dim counted as 1; the product of all of them must fit, as NumPy requires. */
    private static long[] strides(List<Long> shape, boolean fortranOrder) {
        int rank = shape.size();
        long[] strides = new long[rank];
        long stride = 1;
        for (int k = 0; k < rank; k++) {
            int d = fortranOrder ? k : rank - 1 - k;
            strides[d] = stride;
            try {
                stride = Math.multiplyExact(stride, Math.max(1, shape.get(d)));
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException("the product of the non-zero dims of shape " + shape
                        + " overflows a long: NumPy builds strides from it, even for an empty array", e);
            }
        }
        return strides;
    }
}
