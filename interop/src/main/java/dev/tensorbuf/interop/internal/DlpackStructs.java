package dev.tensorbuf.interop.internal;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * The C structs of {@code dlpack.h} 1.3 as FFM layouts, for the 64-bit ABIs (LP64: pointers and
 * {@code uint64_t} of 8 bytes), with the version this library writes and the flag bits.
 * No field needs padding: {@code DLTensor} is 48 bytes, {@code DLManagedTensor} 64 and
 * {@code DLManagedTensorVersioned} 80, all 8-byte aligned.
 * {@snippet :
 * DlpackStructs.DL_TENSOR.byteSize();                      // 48
 * DlpackStructs.DL_MANAGED_TENSOR_VERSIONED.byteSize();    // 80
 * DlpackStructs.offset(DlpackStructs.DL_MANAGED_TENSOR_VERSIONED, "dl_tensor", "strides"); // 64
 * }
 */
public final class DlpackStructs {
    private DlpackStructs() {
    }

    /** {@code DLPACK_MAJOR_VERSION} written on export and required on import. */
    public static final int MAJOR_VERSION = 1;
    /** {@code DLPACK_MINOR_VERSION} written on export: 3 (the January 2026 header). */
    public static final int MINOR_VERSION = 3;
    /** {@code DLPACK_FLAG_BITMASK_READ_ONLY}: the consumer must not write. */
    public static final long FLAG_READ_ONLY = 1L;
    /** {@code DLPACK_FLAG_BITMASK_IS_COPIED}: the producer made a copy the consumer owns alone. */
    public static final long FLAG_IS_COPIED = 1L << 1;
    /** {@code DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED}: sub-byte elements take one byte each. */
    public static final long FLAG_IS_SUBBYTE_TYPE_PADDED = 1L << 2;

    /** {@code DLPackVersion {uint32_t major; uint32_t minor;}}: 8 bytes. */
    public static final StructLayout DL_PACK_VERSION = MemoryLayout.structLayout(
            ValueLayout.JAVA_INT.withName("major"),
            ValueLayout.JAVA_INT.withName("minor")).withName("DLPackVersion");

    /** {@code DLDevice {DLDeviceType device_type; int32_t device_id;}}: 8 bytes. */
    public static final StructLayout DL_DEVICE = MemoryLayout.structLayout(
            ValueLayout.JAVA_INT.withName("device_type"),
            ValueLayout.JAVA_INT.withName("device_id")).withName("DLDevice");

    /** {@code DLDataType {uint8_t code; uint8_t bits; uint16_t lanes;}}: 4 bytes. */
    public static final StructLayout DL_DATA_TYPE = MemoryLayout.structLayout(
            ValueLayout.JAVA_BYTE.withName("code"),
            ValueLayout.JAVA_BYTE.withName("bits"),
            ValueLayout.JAVA_SHORT.withName("lanes")).withName("DLDataType");

    /** {@code DLTensor}: 48 bytes; {@code strides} count elements, {@code byte_offset} bytes. */
    public static final StructLayout DL_TENSOR = MemoryLayout.structLayout(
            ValueLayout.ADDRESS.withName("data"),
            DL_DEVICE.withName("device"),
            ValueLayout.JAVA_INT.withName("ndim"),
            DL_DATA_TYPE.withName("dtype"),
            ValueLayout.ADDRESS.withName("shape"),
            ValueLayout.ADDRESS.withName("strides"),
            ValueLayout.JAVA_LONG.withName("byte_offset")).withName("DLTensor");

    /** {@code DLManagedTensor} (legacy, deprecated since DLPack 0.8): 64 bytes. */
    public static final StructLayout DL_MANAGED_TENSOR = MemoryLayout.structLayout(
            DL_TENSOR.withName("dl_tensor"),
            ValueLayout.ADDRESS.withName("manager_ctx"),
            ValueLayout.ADDRESS.withName("deleter")).withName("DLManagedTensor");

    /** {@code DLManagedTensorVersioned}: 80 bytes; everything up to {@code flags} is ABI-stable. */
    public static final StructLayout DL_MANAGED_TENSOR_VERSIONED = MemoryLayout.structLayout(
            DL_PACK_VERSION.withName("version"),
            ValueLayout.ADDRESS.withName("manager_ctx"),
            ValueLayout.ADDRESS.withName("deleter"),
            ValueLayout.JAVA_LONG.withName("flags"),
            DL_TENSOR.withName("dl_tensor")).withName("DLManagedTensorVersioned");

    /**
     * {@return the byte offset of a field, by names along the path}
     *
     * @throws IllegalArgumentException if no field has that path
     */
    public static long offset(StructLayout struct, String... path) {
        PathElement[] elements = new PathElement[path.length];
        for (int i = 0; i < path.length; i++) {
            elements[i] = PathElement.groupElement(path[i]);
        }
        return struct.byteOffset(elements);
    }
}
