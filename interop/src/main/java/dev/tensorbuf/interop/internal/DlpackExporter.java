package dev.tensorbuf.interop.internal;

import static dev.tensorbuf.interop.internal.DlpackStructs.DL_MANAGED_TENSOR;
import static dev.tensorbuf.interop.internal.DlpackStructs.DL_MANAGED_TENSOR_VERSIONED;
import static dev.tensorbuf.interop.internal.DlpackStructs.offset;

import dev.tensorbuf.interop.Dlpack;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace.DLDeviceType;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.DType.DlpackType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writes {@code DLManagedTensorVersioned} and {@code DLManagedTensor} for views. Each export owns a
 * shared arena holding the struct, shape and strides (and, for a copy, the allocator of the copy).
 * The deleter is one upcall stub per struct kind, made once in the global arena: a stub freed
 * while the consumer is still inside it would crash, and one stub finds its export by the
 * struct's address, so a second deleter call (a consumer bug) finds nothing and does nothing.
 */
public final class DlpackExporter {
    private static final System.Logger LOG = System.getLogger(DlpackExporter.class.getName());
    private static final Map<Long, Export> LIVE = new ConcurrentHashMap<>();
    /** Both structs' deleters take one pointer, so one stub serves both. */
    private static final MemorySegment DELETER = deleterStub();

    private DlpackExporter() {
    }

    /**
     * What one export holds until its deleter runs. An in-place export lends its buffer
     * ({@link MemoryBuffer#lend()}): a review closed a pooled buffer while the consumer still had the
     * struct, the pool gave the block to its next user, and the consumer read that user's data;
     * a later one closed the buffer's allocator, which freed the memory under the consumer (a
     * crash for 256 MiB). Now the buffer's close marks it closed and the memory waits for the
     * deleter, and its allocator's close is refused until then. A copied export needs no loan:
     * its copy's allocator is the export's own, closed only by the deleter.
     */
    private record Export(Arena structs, Allocator copy, MemoryBuffer handedOver, MemoryBuffer.Hold loan, Runnable onRelease) {
        void release() {
            try {
                try {
                    if (handedOver != null) {
                        handedOver.close();
                    }
                } finally {
                    if (loan != null) {
                        loan.close(); // after the handover's close, so the memory goes back here, once
                    }
                }
                if (copy != null) {
                    copy.close();
                }
            } finally {
                try {
                    structs.close();
                } finally {
                    onRelease.run();
                }
            }
        }
    }

    /** Where a view's elements are, as DLPack will describe them. */
    private record Source(MemoryBuffer buffer, ElementAccess access, StridedLayout layout, Allocator copy) {
    }

    private static MemorySegment deleterStub() {
        try {
            var handle = MethodHandles.lookup().findStatic(DlpackExporter.class, "deleter",
                    MethodType.methodType(void.class, MemorySegment.class));
            return RestrictedNative.upcall(handle, FunctionDescriptor.ofVoid(ValueLayout.ADDRESS), Arena.global());
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The deleter native code calls; it must never throw into native code. */
    private static void deleter(MemorySegment self) {
        Export export = LIVE.remove(self.address());
        if (export == null) {
            LOG.log(System.Logger.Level.WARNING, "DLPack deleter called for 0x" + Long.toHexString(self.address())
                    + ", which is not a live export (called twice?); ignored");
            return;
        }
        try {
            export.release();
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.WARNING, "releasing a DLPack export failed", t);
        }
    }

    /** {@return how many exports wait for their deleter} */
    public static int liveExports() {
        return LIVE.size();
    }

    /**
     * {@return a new {@code DLManagedTensorVersioned} (or legacy {@code DLManagedTensor}) for the view}
     *
     * @throws IllegalArgumentException with the reason, when the view cannot be exported as asked
     */
    public static MemorySegment export(TensorView view, Dlpack.ExportOptions options, boolean versioned) {
        String what = versioned ? "DLManagedTensorVersioned" : "DLManagedTensor";
        DType type = view.dtype();
        if (type.byteWidth() > 1 && ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new IllegalArgumentException(what + " of " + view + ": DLPack data are in native byte order,"
                    + " which is big-endian here, and tensorbuf data are little-endian");
        }
        DlpackType dl = type.dlpack().orElseThrow();
        // Checked before anything is allocated, so a refused export leaves nothing behind.
        if (view.rank() > DlpackImporter.MAX_RANK) {
            throw new IllegalArgumentException(what + " of " + view + ": rank " + view.rank() + " is more than the "
                    + DlpackImporter.MAX_RANK + " dimensions a DLPack import accepts, ours included");
        }
        MemoryBuffer handedOver = options.closeBufferOnRelease() ? handedOver(view, what) : null;
        if (!versioned && options.readOnly()) {
            throw new IllegalArgumentException(what + " of " + view + ": readOnly asked, but the legacy struct has no flag"
                    + " to say so; export DLManagedTensorVersioned");
        }
        Source source = source(view, options, versioned, what);
        MemoryBuffer buffer = source.buffer;
        if (!versioned && buffer.isReadOnly()) {
            // NumPy refuses this too: a consumer of the legacy struct would take the memory as writable.
            throw new IllegalArgumentException(what + " of " + view + ": the buffer is read-only and the legacy struct"
                    + " has no flag to say so; export DLManagedTensorVersioned, or copy the view to writable memory first");
        }
        MemorySpace space = buffer.memorySpace();
        DLDeviceType device = space.dlpackDevice().orElse(null);
        if (device == null) {
            release(source);
            throw new IllegalArgumentException(what + " of " + view + ": " + space.describe()
                    + " has no DLPack device type");
        }
        long flags = 0;
        if (buffer.isReadOnly() || options.readOnly()) {
            flags |= DlpackStructs.FLAG_READ_ONLY;
        }
        if (source.copy != null) {
            flags |= DlpackStructs.FLAG_IS_COPIED;
        }
        if (type.isSubByte() && source.access.storageBits() >= 8) {
            flags |= DlpackStructs.FLAG_IS_SUBBYTE_TYPE_PADDED;
        }
        StructLayout struct = versioned ? DL_MANAGED_TENSOR_VERSIONED : DL_MANAGED_TENSOR;
        MemoryBuffer.Hold loan;
        try {
            loan = source.copy == null ? buffer.lend() : null; // a copy's allocator is the export's own
        } catch (RuntimeException closed) {
            release(source);
            throw closed;
        }
        Arena arena = Arena.ofShared();
        MemorySegment m;
        try {
            m = arena.allocate(struct);
            long t = versioned ? offset(struct, "dl_tensor") : 0;
            StridedLayout layout = source.layout;
            int rank = layout.rank();
            boolean empty = layout.elementCount() == 0;
            m.set(ValueLayout.JAVA_LONG, t, empty ? 0 : buffer.address());
            m.set(ValueLayout.JAVA_INT, t + 8, device.code());
            m.set(ValueLayout.JAVA_INT, t + 12, space.deviceOrdinal());
            m.set(ValueLayout.JAVA_INT, t + 16, rank);
            m.set(ValueLayout.JAVA_BYTE, t + 20, (byte) dl.code());
            m.set(ValueLayout.JAVA_BYTE, t + 21, (byte) dl.bits());
            m.set(ValueLayout.JAVA_SHORT, t + 22, (short) 1);
            if (rank > 0) {
                MemorySegment shape = arena.allocate(ValueLayout.JAVA_LONG, rank);
                MemorySegment strides = arena.allocate(ValueLayout.JAVA_LONG, rank);
                for (int d = 0; d < rank; d++) {
                    shape.setAtIndex(ValueLayout.JAVA_LONG, d, layout.sizes().get(d));
                    strides.setAtIndex(ValueLayout.JAVA_LONG, d, layout.strides().get(d));
                }
                m.set(ValueLayout.ADDRESS, t + 24, shape);
                m.set(ValueLayout.ADDRESS, t + 32, strides);
            }
            long byteOffset = empty ? 0 : layout.offset() * source.access.storageBits() / 8;
            m.set(ValueLayout.JAVA_LONG, t + 40, byteOffset);
            if (versioned) {
                m.set(ValueLayout.JAVA_INT, 0, DlpackStructs.MAJOR_VERSION);
                m.set(ValueLayout.JAVA_INT, 4, DlpackStructs.MINOR_VERSION);
                m.set(ValueLayout.JAVA_LONG, offset(struct, "flags"), flags);
            }
            m.set(ValueLayout.ADDRESS, offset(struct, "deleter"), DELETER);
        } catch (RuntimeException | Error e) {
            arena.close();
            if (loan != null) {
                loan.close();
            }
            release(source);
            throw e;
        }
        LIVE.put(m.address(), new Export(arena, source.copy, handedOver, loan, options.onRelease()));
        // A raw pointer, not the arena's segment: passing the arena's segment to a native call
        // would hold the arena open for the call, so a deleter run inside it could not free it.
        return RestrictedNative.resize(MemorySegment.ofAddress(m.address()), struct.byteSize());
    }

    /** The buffer {@code closeBufferOnRelease} hands over: the view's one buffer, a root. */
    private static MemoryBuffer handedOver(TensorView view, String what) {
        int pieces = view.map().pieces().size();
        if (pieces != 1) {
            throw new IllegalArgumentException(what + " of " + view + ": closeBufferOnRelease hands over one buffer, but the"
                    + " view is made of " + pieces + " pieces (padding or concatenation); close their buffers yourself");
        }
        MemoryBuffer buffer = view.buffer();
        if (!buffer.isRoot()) {
            throw new IllegalArgumentException(what + " of " + view + ": closeBufferOnRelease needs a root buffer, but "
                    + "the view's buffer is a slice or read-only view; close its root yourself");
        }
        return buffer;
    }

    private static void release(Source source) {
        if (source.copy != null) {
            source.copy.close();
        }
    }

    private static Source source(TensorView view, Dlpack.ExportOptions options, boolean versioned, String what) {
        String why = whyCopy(view, versioned);
        String negative = why == null && options.nonNegativeStrides() ? negativeStride(view) : null;
        if (why == null && negative == null) {
            return new Source(view.buffer(), view.access(), view.stridedLayout().orElseThrow(), null);
        }
        if (why == null) {
            why = negative;
        } else if (!options.copyIfNotStrided()) {
            throw new IllegalArgumentException(what + " of " + view + " needs a copy, which copyIfNotStrided=false"
                    + " refuses: " + why);
        }
        if (!view.isHostAccessible()) {
            throw new IllegalArgumentException(what + " of " + view + " needs a copy on the host, but its memory is"
                    + " not host-accessible: " + why);
        }
        if (!versioned && view.dtype().isSubByte() && 8 % view.dtype().bitWidth() != 0) {
            throw new IllegalArgumentException(what + " of " + view + ": the legacy struct has no flag for padded "
                    + view.dtype().bitWidth() + "-bit elements and they do not pack into bytes; export DLManagedTensorVersioned");
        }
        Allocator allocator = Allocators.shared();
        try {
            Materializer.Dense dense = Materializer.dense(view, true, allocator);
            return new Source(dense.buffer(), dense.access(), dense.layout(), allocator);
        } catch (RuntimeException e) {
            allocator.close();
            throw e;
        }
    }

    /** {@return the reason a strided view is copied under {@code nonNegativeStrides}, or null when no stride is negative} */
    private static String negativeStride(TensorView view) {
        var strides = view.stridedLayout().orElseThrow().strides();
        for (int d = 0; d < strides.size(); d++) {
            if (strides.get(d) < 0) {
                return "nonNegativeStrides asked, and dim " + d + " has stride " + strides.get(d);
            }
        }
        return null;
    }

    /** {@return why the view must be copied first, or null when DLPack can describe it in place} */
    private static String whyCopy(TensorView view, boolean versioned) {
        if (!view.isStrided()) {
            return "DLPack describes strided views only, and " + view.form().whyNotStrided().orElse("it is not strided");
        }
        int bits = view.access().storageBits();
        long offset = view.stridedLayout().orElseThrow().offset();
        if (bits < 8 && offset * bits % 8 != 0) {
            return "its first element starts at bit " + (offset * bits % 8) + " of a byte, and DLPack's byte_offset counts whole bytes";
        }
        if (!versioned && view.dtype().isSubByte() && bits >= 8) {
            return "its " + view.dtype() + " elements take a byte each, and the legacy struct has no flag to say so"
                    + " (DLPack packs sub-byte types by default)";
        }
        return null;
    }
}
