package dev.tensorbuf.interop;

import dev.tensorbuf.interop.internal.DlpackExporter;
import dev.tensorbuf.interop.internal.DlpackImporter;
import dev.tensorbuf.interop.internal.DlpackStructs;
import dev.tensorbuf.interop.internal.Errors;
import dev.tensorbuf.interop.internal.RestrictedNative;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * DLPack in and out of native code: views exported as {@code DLManagedTensorVersioned} (DLPack
 * 1.3, the struct layouts of dlpack.h) or the legacy {@code DLManagedTensor}, and
 * producers' tensors imported as {@link Dlpack.Tensor}.
 *
 * <p><b>Export.</b> A strided view is described in place: {@code data} is its buffer's address,
 * {@code byte_offset} the view's offset, strides are always written (the DLPack 1.2 rule), and
 * {@code READ_ONLY} is set for read-only buffers. Other views (tiled, general, padded,
 * concatenated) are copied into a new dense row-major buffer with {@code IS_COPIED} set, or
 * refused by {@link Dlpack.ExportOptions#copyIfNotStrided()}. The returned struct belongs to the
 * consumer, who must call its {@code deleter} exactly once; that call frees the struct and the
 * copy and runs {@link Dlpack.ExportOptions#onRelease()}, on any thread. Until then an in-place
 * export lends the view's buffer ({@link MemoryBuffer#lend()}): closing the buffer early marks it closed
 * for Java, but a pool's block or a foreign buffer's memory goes back only when the deleter runs,
 * and closing the buffer's allocator (arena, pool or {@link NativeMemory#hugePageAllocator()}) is refused with an
 * {@link IllegalStateException} naming the allocator and its lent buffers; it stays open and
 * usable, and closes once the deleters have run. The consumer, often native code that cannot get
 * a Java exception, thus never reads freed memory. A copied export owns its copy and lends
 * nothing. ({@link Dlpack.ExportOptions#closeBufferOnRelease()} hands the buffer itself over.)
 *
 * <p><b>Import</b> consumes the tensor: the returned {@link Dlpack.Tensor}'s first close calls the
 * producer's deleter, once; an invalid struct is released through its deleter before the
 * exception. Checked: version (major 1), ndim (0 to 64), dtype (one lane, a known code and width),
 * shape (no negative size, no overflow), NULL data with elements, NULL strides (compact row-major
 * below DLPack 1.2, refused from 1.2 on), byte_offset, an address below 0, device type. Negative
 * strides may reach before the data pointer, as NumPy's reversed arrays do. <em>Not</em> checkable:
 * whether the strides stay inside the producer's allocation, because DLPack carries no size; the
 * buffer spans exactly the bytes the elements reach, and the producer is trusted.
 * {@snippet :
 * try (Allocator arena = Allocators.shared()) {
 *     TensorView v = TensorView.of(arena.allocate(24), "f32[2,3]{1,0}");
 *     v.copyFrom(new float[] {0, 1, 2, 3, 4, 5});
 *     MemorySegment managed = Dlpack.exportVersioned(Ops.transpose(v, 1, 0));
 *     // strides [1, 3], no copy; hand `managed` to C, which calls managed->deleter(managed)
 *     try (Dlpack.Tensor back = Dlpack.importVersioned(managed)) {
 *         back.view().getFloat(2, 1);   // 5.0
 *     }                                 // our own deleter ran once
 * }
 * }
 */
public final class Dlpack {
    private Dlpack() {
    }

    /** {@return a {@code DLManagedTensorVersioned} for the view, with the default options} @see #exportVersioned(TensorView, Dlpack.ExportOptions) */
    public static MemorySegment exportVersioned(TensorView view) {
        return exportVersioned(view, ExportOptions.defaults());
    }

    /**
     * {@return a new {@code DLManagedTensorVersioned} (80 bytes) describing the view, owned by the
     * consumer until it calls the struct's deleter}
     *
     * @throws IllegalArgumentException when the view must be copied but {@code copyIfNotStrided}
     *     is false, or is not host-accessible, or its memory space has no DLPack device type, or
     *     {@code closeBufferOnRelease} is asked for a view that is not over one root buffer
     * @throws IllegalStateException if the view's buffer is closed
     */
    public static MemorySegment exportVersioned(TensorView view, ExportOptions options) {
        return DlpackExporter.export(view, options, true);
    }

    /** {@return a legacy {@code DLManagedTensor} for the view, with the default options} @see #exportLegacy(TensorView, Dlpack.ExportOptions) */
    public static MemorySegment exportLegacy(TensorView view) {
        return exportLegacy(view, ExportOptions.defaults());
    }

    /**
     * {@return a new legacy {@code DLManagedTensor} (64 bytes) describing the view} The legacy
     * struct has no flags, so a read-only buffer (a mapped file, a read-only import) is refused, as
     * NumPy refuses it, rather than handed out as writable; a read-only view that must be copied
     * anyway is exported as its (writable) copy. Sub-byte elements stored a byte each are packed by
     * a copy (allowed by {@code copyIfNotStrided}).
     *
     * @throws IllegalArgumentException as {@link #exportVersioned(TensorView, Dlpack.ExportOptions)},
     *     for a read-only buffer or {@code readOnly} asked, and for 6-bit types, which cannot be packed
     */
    public static MemorySegment exportLegacy(TensorView view, ExportOptions options) {
        return DlpackExporter.export(view, options, false);
    }

    /**
     * {@return the tensor behind a {@code DLManagedTensorVersioned*}, now owned by the result}
     *
     * @param managed the pointer (any segment whose address it is, e.g. a native call's result)
     * @throws IllegalArgumentException naming the field and its value when the struct is invalid
     *     (after calling its deleter), or for a NULL pointer
     */
    public static Tensor importVersioned(MemorySegment managed) {
        return DlpackImporter.importTensor(managed, true);
    }

    /** {@return the tensor behind a legacy {@code DLManagedTensor*}, now owned by the result} @see #importVersioned */
    public static Tensor importLegacy(MemorySegment managed) {
        return DlpackImporter.importTensor(managed, false);
    }

    /**
     * Calls the deleter of a struct nobody consumed (for example an export that was never handed
     * over), as a consumer would. Call it once per struct: the call frees the struct, so a second
     * one would read freed memory.
     *
     * @param managed the struct's pointer
     * @param versioned whether it is a {@code DLManagedTensorVersioned} (else {@code DLManagedTensor})
     */
    public static void release(MemorySegment managed, boolean versioned) {
        if (managed.address() == 0) {
            throw Errors.nullPointer("DLPack struct");
        }
        long at = versioned ? DlpackStructs.offset(DlpackStructs.DL_MANAGED_TENSOR_VERSIONED, "deleter")
                : DlpackStructs.offset(DlpackStructs.DL_MANAGED_TENSOR, "deleter");
        MemorySegment m = RestrictedNative.resize(MemorySegment.ofAddress(managed.address()), at + 8);
        DlpackImporter.callDeleter(m.get(ValueLayout.ADDRESS, at), managed.address());
    }

    /** {@return how many of our exports still wait for their deleter call (for leak checks)} */
    public static int pendingExports() {
        return DlpackExporter.liveExports();
    }

    /**
     * How {@link Dlpack} exports a view.
     * {@snippet :
     * Dlpack.ExportOptions o = Dlpack.ExportOptions.defaults()      // copy views that are not strided
     *         .withReadOnly(true)                                  // set DLPACK_FLAG_BITMASK_READ_ONLY
     *         .withOnRelease(() -> System.out.println("released")); // runs when the consumer's deleter call arrives
     * o.copyIfNotStrided();                                        // true
     * Dlpack.ExportOptions.defaults().withCopyIfNotStrided(false);  // refuse tiled views instead
     * Dlpack.ExportOptions.defaults().withNonNegativeStrides(true); // for torch.from_dlpack: a reversed view is copied
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
    public record ExportOptions(boolean copyIfNotStrided, boolean readOnly, boolean closeBufferOnRelease,
            Runnable onRelease, boolean nonNegativeStrides) {
        private static final ExportOptions DEFAULTS = new ExportOptions(true, false, false, () -> { }, false);

        /** @throws NullPointerException if {@code onRelease} is null */
        public ExportOptions {
            Objects.requireNonNull(onRelease, "onRelease");
        }

        /**
         * {@return copy when needed, writable unless the buffer is read-only, buffer not closed, no
         * callback, negative strides described in place}
         */
        public static ExportOptions defaults() {
            return DEFAULTS;
        }

        /** {@return these options with {@code copyIfNotStrided} replaced} */
        public ExportOptions withCopyIfNotStrided(boolean copy) {
            return new ExportOptions(copy, readOnly, closeBufferOnRelease, onRelease, nonNegativeStrides);
        }

        /** {@return these options with {@code readOnly} replaced} */
        public ExportOptions withReadOnly(boolean value) {
            return new ExportOptions(copyIfNotStrided, value, closeBufferOnRelease, onRelease, nonNegativeStrides);
        }

        /** {@return these options with {@code closeBufferOnRelease} replaced} */
        public ExportOptions withCloseBufferOnRelease(boolean value) {
            return new ExportOptions(copyIfNotStrided, readOnly, value, onRelease, nonNegativeStrides);
        }

        /** {@return these options with {@code onRelease} replaced} */
        public ExportOptions withOnRelease(Runnable action) {
            return new ExportOptions(copyIfNotStrided, readOnly, closeBufferOnRelease, action, nonNegativeStrides);
        }

        /** {@return these options with {@code nonNegativeStrides} replaced} */
        public ExportOptions withNonNegativeStrides(boolean value) {
            return new ExportOptions(copyIfNotStrided, readOnly, closeBufferOnRelease, onRelease, value);
        }
    }

    /**
     * A tensor imported from DLPack: a view over the producer's memory, and the root buffer whose
     * first {@link #close()} calls the producer's deleter, exactly once, from any thread.
     * {@snippet :
     * try (Dlpack.Tensor t = Dlpack.importVersioned(managed)) {   // managed: a DLManagedTensorVersioned*
     *     t.view().dims();                   // [2, 3]
     *     t.view().getFloat(1, 2);           // 5.0
     *     t.isReadOnly();                    // false
     * }                                      // the producer's deleter ran here, once
     * }
     *
     * @param view the tensor; read-only when the producer set {@code READ_ONLY}
     * @param root the buffer over the producer's memory, from the lowest to the highest byte an element
     *     reaches; closing it releases the tensor; read-only, like the view, when the producer set
     *     {@code READ_ONLY}
     * @param versioned whether it came as {@code DLManagedTensorVersioned} (else legacy {@code DLManagedTensor})
     * @param minorVersion the producer's DLPack minor version; 0 for the legacy struct
     * @param flags the producer's flag bits ({@code DLPACK_FLAG_BITMASK_READ_ONLY} = 1, ...); 0 for the legacy struct
     */
    public record Tensor(TensorView view, MemoryBuffer root, boolean versioned, int minorVersion, long flags)
            implements AutoCloseable {

        /** @throws NullPointerException for a null view or root */
        public Tensor {
            Objects.requireNonNull(view, "view");
            Objects.requireNonNull(root, "root");
        }

        /** {@return whether the producer forbids writes ({@code READ_ONLY})} */
        public boolean isReadOnly() {
            return (flags & DlpackStructs.FLAG_READ_ONLY) != 0;
        }

        /** Releases the tensor: the producer's deleter runs on the first close only. */
        @Override
        public void close() {
            root.close();
        }
    }
}
