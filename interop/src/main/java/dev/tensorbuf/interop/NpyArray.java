package dev.tensorbuf.interop;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * A {@code .npy} array that has been mapped or read: its header and its data, always
 * little-endian, in the memory order the header states ({@link #layout()}). Closing it unmaps
 * the file or gives the buffer back to its allocator.
 *
 * {@snippet :
 * try (NpyArray a = Npy.map(Path.of("x.npy"))) { // np.save("x.npy", np.arange(6, dtype="<i4").reshape(2, 3))
 *     a.dtype();                                   // DType.S32
 *     a.shape();                                   // [2, 3]
 *     a.isMapped();                                // true: no copy was made
 *     TensorElements.of(a.view()).getLong(1, 2);                      // 5
 * }
 * }
 */
public final class NpyArray implements AutoCloseable {
    private final Path file;
    private final NpyHeader header;
    private final MemoryBuffer root;
    private final MemoryBuffer data;
    private final boolean mapped;

    NpyArray(Path file, NpyHeader header, MemoryBuffer root, boolean mapped) {
        this.file = Objects.requireNonNull(file, "file");
        this.header = Objects.requireNonNull(header, "header");
        this.root = root;
        this.mapped = mapped;
        this.data = mapped ? root.asReadOnly() : root;
    }

    /** {@return the file the array came from} */
    public Path file() {
        return file;
    }

    /** {@return the header as read from the file (its {@code byteOrder} is the file's, not the data's)} */
    public NpyHeader header() {
        return header;
    }

    /** {@return the element type} */
    public DType dtype() {
        return header.dtype();
    }

    /** {@return the dims, empty for a 0-d array} */
    public List<Long> shape() {
        return header.shape();
    }

    /** {@return the element layout of {@link #data()}: row-major, or column-major for a Fortran-order file} */
    public StridedLayout layout() {
        return header.layout();
    }

    /**
     * {@return the data bytes, little-endian: read-only when mapped, writable when copied} The
     * buffer lives until this array closes.
     */
    public MemoryBuffer data() {
        return data;
    }

    /**
     * {@return the array as a view of {@link #data()} through {@link #layout()}, so a
     * Fortran-order file reads by the same indices as a C-order one; sub-byte elements one to a
     * byte, as ml_dtypes saves them} The view lives until this array closes.
     * {@snippet :
     * // np.save("f.npy", np.asfortranarray(np.arange(6, dtype="<i4").reshape(2, 3)))
     * try (NpyArray a = Npy.map(Path.of("f.npy"))) {
     *     TensorElements.of(a.view()).getLong(1, 0);   // 3, though the file stores 3 second
     * }
     * }
     */
    public TensorView view() {
        return TensorView.strided(data, header.dtype(), header.layout());
    }

    /** {@return whether the data are a mapping of the file rather than a copy} */
    public boolean isMapped() {
        return mapped;
    }

    /** Unmaps the file, or closes the buffer; closing twice does nothing. */
    @Override
    public void close() {
        root.close();
    }

    @Override
    public String toString() {
        return file + ": " + header.descr() + " " + header.shape() + (header.fortranOrder() ? " fortran order" : "")
                + (mapped ? " mapped" : " read");
    }
}
