package dev.tensorbuf.interop;

import dev.tensorbuf.interop.internal.Sizes;
import dev.tensorbuf.memory.Buffer;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.Extents;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;

/**
 * One tensor as the file writers take it: element type, dims, and its bytes in C (row-major)
 * order, little-endian, densely stored (sub-byte types packed, first element in the low bits).
 *
 * {@snippet :
 * MemorySegment bytes = Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2, 3, 4, 5, 6);
 * DenseTensor t = new DenseTensor(DType.F32, List.of(2L, 3L), bytes);
 * t.elementCount(); // 6
 * new DenseTensor(DType.F32, List.of(2L, 2L), bytes);
 * // IllegalArgumentException: "f32[2, 2] needs 16 bytes, the data has 24"
 * }
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
        long expected = Sizes.byteSize(dtype, Sizes.elementCount(dims, name), name);
        if (expected != bytes.byteSize()) {
            throw new IllegalArgumentException(name + " needs " + expected + " bytes, the data has " + bytes.byteSize());
        }
    }

    /** {@return a tensor over the bytes of a host buffer} */
    public static DenseTensor of(DType dtype, List<Long> dims, Buffer buffer) {
        return new DenseTensor(dtype, dims, buffer.segment());
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
}
