package dev.tensorbuf.interop;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * One tensor of an open {@link SafetensorsFile}: name, element type, shape, where its bytes are
 * in the file, and those bytes as a read-only slice of the file's mapping (C order,
 * little-endian, valid until the file closes).
 *
 * {@snippet :
 * // w.safetensors holds one tensor, "w": F32 [2, 3], data_offsets [0, 24], under a 64-byte header
 * try (SafetensorsFile f = SafetensorsFile.open(Path.of("w.safetensors"))) {
 *     SafetensorsTensor w = f.tensor("w");
 *     w.fileOffset();                       // 72: 8 + 64 + 0
 *     w.byteSize();                         // 24
 *     w.data().segment().get(ValueLayout.JAVA_FLOAT_UNALIGNED, 4); // the second element
 *     TensorElements.of(w.view()).getFloat(0, 1);              // the same element, by index
 * }
 * }
 *
 * @param name the tensor's key in the header
 * @param dtype the element type
 * @param shape the dims; empty for a scalar
 * @param fileOffset the offset of the first byte in the file: 8 + header length + BEGIN
 * @param byteSize the number of bytes, END - BEGIN
 * <p>Closing the file closes every tensor's {@link #data()}: a tensor, or a view of it, used after
 * that is refused with {@link IllegalStateException} naming the tensor and the file
 * ({@code "tensor 'w' of w.safetensors cannot be read: its file was closed ..."} from
 * {@link #view()}; {@code "buffer of 24 bytes from foreign owner 'tensor 'w' of w.safetensors' was
 * closed"} from its buffer or a view made before).
 *
 * @param data the bytes, a buffer of their own that the file closes; not aligned beyond what the
 *     writer chose (use unaligned layouts)
 * @param file the file the tensor is in, for messages
 */
public record SafetensorsTensor(String name, DType dtype, List<Long> shape, long fileOffset, long byteSize, MemoryBuffer data,
        Path file) {
    /** Copies the shape and checks for nulls. */
    public SafetensorsTensor {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(dtype, "dtype");
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(file, "file");
        shape = List.copyOf(shape);
    }

    /** Refuses a tensor of a closed file in its own words, before its buffer refuses it in the memory's. */
    private void requireOpen() {
        if (!data.isAlive()) {
            throw new IllegalStateException("tensor '" + name + "' of " + file + " (" + dtype + shape + ", " + byteSize
                    + " bytes) cannot be read: its file was closed, which unmaps every tensor; read it or copy it"
                    + " (DenseTensor.copyOf) before closing the file");
        }
    }

    /**
     * {@return the tensor as a view of {@link #data()}: row-major, 4-bit types packed as the file
     * holds them (two {@code F4} to a byte, first element low)} The view lives until the file
     * closes.
     * {@snippet :
     * // q.safetensors: "q", F4 [2, 2], bytes 21 43 (elements 0.5, 1, 1.5, 2)
     * try (SafetensorsFile f = SafetensorsFile.open(Path.of("q.safetensors"))) {
     *     TensorElements.of(f.tensor("q").view()).getDouble(1, 0);   // 1.5
     * }
     * }
     *
     * @throws IllegalArgumentException for 6-bit types, whose bit order within their three bytes
     *     safetensors does not define
     * @throws IllegalStateException if the file is closed, naming the tensor and the file
     */
    public TensorView view() {
        requireOpen();
        if (dtype.isSubByte() && 8 % dtype.bitWidth() != 0) {
            throw new IllegalArgumentException("tensor '" + name + "' is " + dtype + " (" + dtype.safetensorsName().orElseThrow()
                    + "), packed four to three bytes in a bit order safetensors does not define: read its bytes, data()");
        }
        long[] dims = Extents.toArray(shape);
        return TensorView.of(data, ArrayShape.of(dtype, dims).withLayout(XlaLayout.packedDescending(dtype, dims.length)));
    }

    /** {@return the tensor as the writers take it, over the same bytes (no copy)} @throws IllegalStateException if the file is closed */
    public DenseTensor asDense() {
        requireOpen();
        return new DenseTensor(dtype, shape, data.segment());
    }
}
