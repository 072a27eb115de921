package dev.tensorbuf.interop;

import dev.tensorbuf.interop.internal.DlpackExporter;
import dev.tensorbuf.interop.internal.DlpackImporter;
import dev.tensorbuf.interop.internal.Errors;
import dev.tensorbuf.interop.internal.RestrictedNative;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * DLPack in and out of native code: views exported as {@code DLManagedTensorVersioned} (DLPack
 * 1.3, the struct layouts of {@link DlpackStructs}) or the legacy {@code DLManagedTensor}, and
 * producers' tensors imported as {@link DlpackTensor}.
 *
 * <p><b>Export.</b> A strided view is described in place: {@code data} is its buffer's address,
 * {@code byte_offset} the view's offset, strides are always written (the DLPack 1.2 rule), and
 * {@code READ_ONLY} is set for read-only buffers. Other views (tiled, general, padded,
 * concatenated) are copied into a new dense row-major buffer with {@code IS_COPIED} set, or
 * refused by {@link DlpackExportOptions#copyIfNotStrided()}. The returned struct belongs to the
 * consumer, who must call its {@code deleter} exactly once; that call frees the struct and the
 * copy and runs {@link DlpackExportOptions#onRelease()}, on any thread. Until then an in-place
 * export lends the view's buffer ({@link MemoryBuffer#lend()}): closing the buffer early marks it closed
 * for Java, but a pool's block or a foreign buffer's memory goes back only when the deleter runs,
 * and closing the buffer's allocator (arena, pool or {@link HugePageAllocator}) is refused with an
 * {@link IllegalStateException} naming the allocator and its lent buffers; it stays open and
 * usable, and closes once the deleters have run. The consumer, often native code that cannot get
 * a Java exception, thus never reads freed memory. A copied export owns its copy and lends
 * nothing. ({@link DlpackExportOptions#closeBufferOnRelease()} hands the buffer itself over.)
 *
 * <p><b>Import</b> consumes the tensor: the returned {@link DlpackTensor}'s first close calls the
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
 *     TensorElements.of(v).copyFrom(new float[] {0, 1, 2, 3, 4, 5});
 *     MemorySegment managed = Dlpack.exportVersioned(Ops.transpose(v, 1, 0));
 *     // strides [1, 3], no copy; hand `managed` to C, which calls managed->deleter(managed)
 *     try (DlpackTensor back = Dlpack.importVersioned(managed)) {
 *         TensorElements.of(back.view()).getFloat(2, 1);   // 5.0
 *     }                                 // our own deleter ran once
 * }
 * }
 */
public final class Dlpack {
    private Dlpack() {
    }

    /** {@return a {@code DLManagedTensorVersioned} for the view, with the default options} @see #exportVersioned(TensorView, DlpackExportOptions) */
    public static MemorySegment exportVersioned(TensorView view) {
        return exportVersioned(view, DlpackExportOptions.defaults());
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
    public static MemorySegment exportVersioned(TensorView view, DlpackExportOptions options) {
        return DlpackExporter.export(view, options, true);
    }

    /** {@return a legacy {@code DLManagedTensor} for the view, with the default options} @see #exportLegacy(TensorView, DlpackExportOptions) */
    public static MemorySegment exportLegacy(TensorView view) {
        return exportLegacy(view, DlpackExportOptions.defaults());
    }

    /**
     * {@return a new legacy {@code DLManagedTensor} (64 bytes) describing the view} The legacy
     * struct has no flags, so a read-only buffer (a mapped file, a read-only import) is refused, as
     * NumPy refuses it, rather than handed out as writable; a read-only view that must be copied
     * anyway is exported as its (writable) copy. Sub-byte elements stored a byte each are packed by
     * a copy (allowed by {@code copyIfNotStrided}).
     *
     * @throws IllegalArgumentException as {@link #exportVersioned(TensorView, DlpackExportOptions)},
     *     for a read-only buffer or {@code readOnly} asked, and for 6-bit types, which cannot be packed
     */
    public static MemorySegment exportLegacy(TensorView view, DlpackExportOptions options) {
        return DlpackExporter.export(view, options, false);
    }

    /**
     * {@return the tensor behind a {@code DLManagedTensorVersioned*}, now owned by the result}
     *
     * @param managed the pointer (any segment whose address it is, e.g. a native call's result)
     * @throws IllegalArgumentException naming the field and its value when the struct is invalid
     *     (after calling its deleter), or for a NULL pointer
     */
    public static DlpackTensor importVersioned(MemorySegment managed) {
        return DlpackImporter.importTensor(managed, true);
    }

    /** {@return the tensor behind a legacy {@code DLManagedTensor*}, now owned by the result} @see #importVersioned */
    public static DlpackTensor importLegacy(MemorySegment managed) {
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
}
