package dev.tensorbuf.interop;

import java.util.Objects;

/**
 * How {@link Dlpack} exports a view.
 * {@snippet :
 * DlpackExportOptions o = DlpackExportOptions.defaults()      // copy views that are not strided
 *         .withReadOnly(true)                                  // set DLPACK_FLAG_BITMASK_READ_ONLY
 *         .withOnRelease(() -> System.out.println("released")); // runs when the consumer's deleter call arrives
 * o.copyIfNotStrided();                                        // true
 * DlpackExportOptions.defaults().withCopyIfNotStrided(false);  // refuse tiled views instead
 * DlpackExportOptions.defaults().withNonNegativeStrides(true); // for torch.from_dlpack: a reversed view is copied
 * }
 *
 * @param copyIfNotStrided whether a view that DLPack cannot describe (tiled, general, padded,
 *     concatenated, packed sub-byte not starting on a byte, or needing packing for the legacy
 *     struct) is copied into a new dense row-major buffer, with {@code IS_COPIED} set; when false
 *     such a view is refused with the reason
 * @param readOnly whether to set {@code READ_ONLY} even on a writable buffer (it is always set
 *     for a read-only buffer)
 * @param closeBufferOnRelease whether the consumer's deleter call also closes the view's buffer,
 *     handing ownership over; the buffer must then be a root ({@link dev.tensorbuf.memory.MemoryBuffer#isRoot()})
 * @param onRelease runs once, on the thread of the consumer's deleter call, after the export's own
 *     memory is freed; exceptions it throws are logged, never passed into native code
 * @param nonNegativeStrides whether a strided view with a negative stride (a reverse) is copied into
 *     a new dense row-major buffer, with {@code IS_COPIED} set, instead of being described in place.
 *     DLPack allows negative strides and NumPy reads them, but PyTorch's {@code from_dlpack} does
 *     not: it aborts the process in C++, where no exception can reach Java. The copy is what
 *     this option asks for, so it is made whatever {@code copyIfNotStrided} says
 */
public record DlpackExportOptions(boolean copyIfNotStrided, boolean readOnly, boolean closeBufferOnRelease,
        Runnable onRelease, boolean nonNegativeStrides) {
    private static final DlpackExportOptions DEFAULTS = new DlpackExportOptions(true, false, false, () -> { }, false);

    /** @throws NullPointerException if {@code onRelease} is null */
    public DlpackExportOptions {
        Objects.requireNonNull(onRelease, "onRelease");
    }

    /**
     * {@return copy when needed, writable unless the buffer is read-only, buffer not closed, no
     * callback, negative strides described in place}
     */
    public static DlpackExportOptions defaults() {
        return DEFAULTS;
    }

    /** {@return these options with {@code copyIfNotStrided} replaced} */
    public DlpackExportOptions withCopyIfNotStrided(boolean copy) {
        return new DlpackExportOptions(copy, readOnly, closeBufferOnRelease, onRelease, nonNegativeStrides);
    }

    /** {@return these options with {@code readOnly} replaced} */
    public DlpackExportOptions withReadOnly(boolean value) {
        return new DlpackExportOptions(copyIfNotStrided, value, closeBufferOnRelease, onRelease, nonNegativeStrides);
    }

    /** {@return these options with {@code closeBufferOnRelease} replaced} */
    public DlpackExportOptions withCloseBufferOnRelease(boolean value) {
        return new DlpackExportOptions(copyIfNotStrided, readOnly, value, onRelease, nonNegativeStrides);
    }

    /** {@return these options with {@code onRelease} replaced} */
    public DlpackExportOptions withOnRelease(Runnable action) {
        return new DlpackExportOptions(copyIfNotStrided, readOnly, closeBufferOnRelease, action, nonNegativeStrides);
    }

    /** {@return these options with {@code nonNegativeStrides} replaced} */
    public DlpackExportOptions withNonNegativeStrides(boolean value) {
        return new DlpackExportOptions(copyIfNotStrided, readOnly, closeBufferOnRelease, onRelease, value);
    }
}
