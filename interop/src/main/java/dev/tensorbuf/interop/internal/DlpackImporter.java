package dev.tensorbuf.interop.internal;

import static dev.tensorbuf.interop.internal.DlpackStructs.DL_MANAGED_TENSOR;
import static dev.tensorbuf.interop.internal.DlpackStructs.DL_MANAGED_TENSOR_VERSIONED;
import static dev.tensorbuf.interop.internal.DlpackStructs.offset;

import dev.tensorbuf.interop.Dlpack;
import dev.tensorbuf.interop.NativeMemory;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace.DLDeviceType;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.DType.DlpackType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;
import java.util.Optional;

/**
 * Reads a producer's {@code DLManagedTensorVersioned} or {@code DLManagedTensor} into a view.
 * Import consumes the tensor whatever happens: when a field is invalid the producer's deleter is
 * called before the exception is thrown, so a failed import never leaks and never frees twice.
 */
public final class DlpackImporter {
    /** More dimensions than any framework uses; a larger ndim is a corrupt struct. */
    public static final int MAX_RANK = 64;

    private static final MethodHandle CALL_DELETER = RestrictedNative.downcall(FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));

    private DlpackImporter() {
    }

    /**
     * {@return the tensor at {@code managed}, owning it}
     *
     * @throws IllegalArgumentException naming the field and value when the struct is invalid;
     *     the deleter has run
     */
    public static Dlpack.Tensor importTensor(MemorySegment managed, boolean versioned) {
        return importTensor(managed, versioned, TensorView::strided);
    }

    /** Makes the view over the root buffer; {@link TensorView#strided} but in a test. */
    @FunctionalInterface
    interface ViewMaker {
        TensorView view(MemoryBuffer root, ElementAccess access, StridedLayout layout);
    }

    /**
     * {@return {@link #importTensor(MemorySegment, boolean)}'s tensor, its view made by
     * {@code viewMaker}} Once the root buffer exists it owns the release, so a failure after it
     * (in practice a JVM {@code Error}: the layout that sized the buffer always fits it) closes
     * the root instead of calling the deleter beside it; a test's {@code viewMaker} throws to
     * reach that path.
     */
    static Dlpack.Tensor importTensor(MemorySegment managed, boolean versioned, ViewMaker viewMaker) {
        String what = versioned ? "DLManagedTensorVersioned" : "DLManagedTensor";
        if (managed.address() == 0) {
            throw Errors.nullPointer(what);
        }
        long self = managed.address();
        MemorySegment m = RestrictedNative.resize(MemorySegment.ofAddress(self),
                (versioned ? DL_MANAGED_TENSOR_VERSIONED : DL_MANAGED_TENSOR).byteSize());
        MemorySegment deleter = m.get(ValueLayout.ADDRESS, versioned
                ? offset(DL_MANAGED_TENSOR_VERSIONED, "deleter") : offset(DL_MANAGED_TENSOR, "deleter"));
        Runnable release = () -> callDeleter(deleter, self);
        MemoryBuffer root = null;
        try {
            int minor = 0;
            long flags = 0;
            long t = 0;
            if (versioned) {
                int major = m.get(ValueLayout.JAVA_INT, 0);
                minor = m.get(ValueLayout.JAVA_INT, 4);
                if (major != DlpackStructs.MAJOR_VERSION) {
                    throw new IllegalArgumentException(what + " has DLPack version " + Integer.toUnsignedString(major) + "."
                            + Integer.toUnsignedString(minor) + ", but only major version " + DlpackStructs.MAJOR_VERSION
                            + " is understood; " + (deleter.address() == 0 ? "read no further (it has a NULL deleter, so"
                            + " nothing was released)" : "released it through its deleter without reading further"));
                }
                flags = m.get(ValueLayout.JAVA_LONG, offset(DL_MANAGED_TENSOR_VERSIONED, "flags"));
                t = offset(DL_MANAGED_TENSOR_VERSIONED, "dl_tensor");
            }
            Described d = describe(m.asSlice(t, DlpackStructs.DL_TENSOR.byteSize()), versioned, minor, flags, what);
            boolean readOnly = (flags & DlpackStructs.FLAG_READ_ONLY) != 0;
            root = NativeMemory.wrap(d.base, d.byteSize, d.space, "dlpack", readOnly, release);
            TensorView view = viewMaker.view(root, d.access, d.layout);
            return new Dlpack.Tensor(view, root, versioned, minor, flags);
        } catch (RuntimeException | Error e) {
            if (root != null) {
                root.close();
            } else {
                release.run();
            }
            throw e;
        }
    }

    /** Calls the deleter of the struct at {@code self}, if it has one. */
    public static void callDeleter(MemorySegment deleter, long self) {
        if (deleter.address() == 0) {
            return; // DLPack: a NULL deleter means there is nothing to release
        }
        try {
            CALL_DELETER.invokeExact(deleter, MemorySegment.ofAddress(self));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("DLPack deleter failed", e);
        }
    }

    private record Described(long base, long byteSize, MemorySpace space, ElementAccess access, StridedLayout layout) {
    }

    private static Described describe(MemorySegment t, boolean versioned, int minor, long flags, String what) {
        long data = t.get(ValueLayout.JAVA_LONG, 0);
        int deviceType = t.get(ValueLayout.JAVA_INT, 8);
        int deviceId = t.get(ValueLayout.JAVA_INT, 12);
        int ndim = t.get(ValueLayout.JAVA_INT, 16);
        int code = Byte.toUnsignedInt(t.get(ValueLayout.JAVA_BYTE, 20));
        int bits = Byte.toUnsignedInt(t.get(ValueLayout.JAVA_BYTE, 21));
        int lanes = Short.toUnsignedInt(t.get(ValueLayout.JAVA_SHORT, 22));
        long shapePtr = t.get(ValueLayout.JAVA_LONG, 24);
        long stridesPtr = t.get(ValueLayout.JAVA_LONG, 32);
        long byteOffset = t.get(ValueLayout.JAVA_LONG, 40);

        if (ndim < 0 || ndim > MAX_RANK) {
            throw new IllegalArgumentException(what + " has ndim " + ndim + ": expected 0 to " + MAX_RANK);
        }
        MemorySpace space = space(deviceType, deviceId, what);
        DType type = type(code, bits, lanes, what);
        boolean padded = versioned && (flags & DlpackStructs.FLAG_IS_SUBBYTE_TYPE_PADDED) != 0;
        ElementAccess access;
        try {
            access = padded ? ElementAccess.of(type) : ElementAccess.packed(type);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + " with " + new DlpackType(code, bits) + " packed: " + e.getMessage(), e);
        }
        if (ndim > 0 && shapePtr == 0) {
            throw new IllegalArgumentException(what + " has ndim " + ndim + " but a NULL shape");
        }
        long[] shape = ndim == 0 ? new long[0] : RestrictedNative.resize(MemorySegment.ofAddress(shapePtr), 8L * ndim)
                .toArray(ValueLayout.JAVA_LONG);
        long count = Sizes.elementCount(shape, what);
        long[] strides;
        if (ndim > 0 && stridesPtr == 0) {
            if (versioned && minor >= 2) {
                throw new IllegalArgumentException(what + " of DLPack 1." + minor + " has NULL strides for ndim " + ndim
                        + ": since DLPack 1.2 strides must be given (NULL meant compact row-major before)");
            }
            strides = Extents.toArray(StridedLayout.packed(shape).strides());
        } else {
            strides = ndim == 0 ? new long[0] : RestrictedNative.resize(MemorySegment.ofAddress(stridesPtr), 8L * ndim)
                    .toArray(ValueLayout.JAVA_LONG);
        }
        if (byteOffset < 0) {
            throw new IllegalArgumentException(what + " has byte_offset " + Long.toUnsignedString(byteOffset)
                    + ", past 2^63 - 1");
        }
        if (count == 0) {
            return new Described(data, 0, space, access, StridedLayout.of(shape, strides));
        }
        if (data == 0) {
            throw new IllegalArgumentException(what + " has NULL data but " + count + " elements (shape "
                    + Arrays.toString(shape) + ")");
        }
        return reach(data, byteOffset, shape, strides, access, space, what);
    }

    /**
     * The bytes the elements reach. DLPack carries no size of the producer's allocation, so
     * whether the strides stay inside it cannot be known: the buffer spans exactly what the shape,
     * strides and byte_offset reach, and the producer is trusted for the rest.
     */
    private static Described reach(long data, long byteOffset, long[] shape, long[] strides, ElementAccess access,
            MemorySpace space, String what) {
        long bits = access.storageBits();
        try {
            long low = 0;
            long high = 0;
            for (int d = 0; d < shape.length; d++) {
                long r = Math.multiplyExact(shape[d] - 1, strides[d]);
                if (r < 0) {
                    low = Math.addExact(low, r);
                } else {
                    high = Math.addExact(high, r);
                }
            }
            long firstBit = Math.addExact(Math.multiplyExact(byteOffset, 8L), Math.multiplyExact(low, bits));
            // Negative strides may reach before the data pointer: NumPy points data at element 0 of
            // a reversed array, inside its allocation. Only an address below 0 is certainly wrong.
            long baseByte = Math.floorDiv(firstBit, 8);
            if (baseByte < 0 && Long.compareUnsigned(data, -baseByte) < 0) {
                throw new IllegalArgumentException(what + " with shape " + Arrays.toString(shape) + ", strides "
                        + Arrays.toString(strides) + " and byte_offset " + byteOffset + " at data pointer 0x"
                        + Long.toHexString(data) + " reaches " + (-baseByte - data) + " bytes below address 0");
            }
            long elementOffset = (byteOffset * 8 - baseByte * 8) / bits;
            long spanBits = Math.multiplyExact(Math.addExact(Math.subtractExact(high, low), 1), bits);
            long byteSize = Math.ceilDiv(Math.addExact(firstBit - baseByte * 8, spanBits), 8L);
            long base = Math.addExact(data, baseByte);
            return new Described(base, byteSize, space, access, StridedLayout.of(shape, strides, elementOffset));
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(what + " with shape " + Arrays.toString(shape) + ", strides "
                    + Arrays.toString(strides) + " and byte_offset " + byteOffset + " reaches past 2^63 bytes", e);
        }
    }

    private static DType type(int code, int bits, int lanes, String what) {
        if (lanes != 1) {
            throw new IllegalArgumentException(what + " has " + lanes + " lanes of {code " + code + ", " + bits
                    + " bits}: only one lane is supported");
        }
        try {
            return DType.fromDlpack(code, bits);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + ": " + e.getMessage(), e);
        }
    }

    private static MemorySpace space(int deviceType, int deviceId, String what) {
        DLDeviceType type;
        try {
            type = DLDeviceType.ofCode(deviceType);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + ": " + e.getMessage(), e);
        }
        if (deviceId < 0) {
            throw new IllegalArgumentException(what + " has device_id " + deviceId + " for " + type.cName() + ": expected >= 0");
        }
        return switch (type) {
            case CPU -> MemorySpace.HOST;
            case CUDA_HOST -> MemorySpace.PINNED_HOST.withDeviceOrdinal(deviceId);
            case ROCM_HOST -> new MemorySpace(MemorySpace.XLA_HOST_ID, MemorySpace.Kind.PINNED_HOST, deviceId, true,
                    Optional.of(DLDeviceType.ROCM_HOST));
            default -> MemorySpace.device(type, deviceId);
        };
    }
}
