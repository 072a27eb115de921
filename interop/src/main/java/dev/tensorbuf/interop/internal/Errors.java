package dev.tensorbuf.interop.internal;

import java.util.List;

/**
 * The messages {@code interop} builds in more than one place, so that the file formats, DLPack,
 * native memory, the CUDA and Agrona bridges and staging refuse the same thing in the same words.
 *
 * <p>Public because {@code dev.tensorbuf.interop} and {@code .staging} use it; this package is not
 * exported. {@code dev.tensorbuf.interop.json} does not use it: this package reads JSON through it,
 * and the reverse edge would make a package cycle. Sizes of file formats are told by {@link Sizes}.
 */
public final class Errors {
    private Errors() {
    }

    /**
     * {@return the refusal of a tensor name a file does not hold, naming (up to 10 of) those it does}
     *
     * @param file the file, shown by its name
     * @param names the names it holds, in its order
     */
    public static IllegalArgumentException noTensor(String name, java.nio.file.Path file, java.util.List<String> names) {
        return new IllegalArgumentException("no tensor '" + name + "' in " + file.getFileName() + "; it has "
                + (names.size() <= 10 ? names : names.subList(0, 10) + " and " + (names.size() - 10) + " more"));
    }

    /** {@return the refusal of a closed resource}, e.g. {@code CUDA stream 0x5000 is closed} */
    public static IllegalStateException closed(Object what) {
        return new IllegalStateException(what + " is closed");
    }

    /**
     * {@return the refusal of a view that must be read or written by the host}
     *
     * @param what what could not be done, e.g. {@code "upload of f32[4] ..."}
     */
    public static IllegalArgumentException notHostAccessible(String what) {
        return new IllegalArgumentException(what + ": its memory is not host-accessible");
    }

    /**
     * {@return the refusal of a copy between tensors that do not match}
     *
     * @param what the copy, e.g. {@code "download"}
     */
    public static IllegalArgumentException typesOrDimsDiffer(String what, Object from, Object into) {
        return new IllegalArgumentException(what + " of " + from + " into " + into + ": types or dims differ");
    }

    /**
     * {@return the refusal of a negative size for raw memory}
     *
     * @param owner who owns the memory, or null where the caller does not know
     */
    public static IllegalArgumentException negativeByteSize(long byteSize, String owner, long address) {
        return new IllegalArgumentException("negative byte size " + byteSize
                + (owner == null ? "" : " for memory of " + owner) + " at address 0x" + Long.toHexString(address));
    }

    /** {@return the refusal of a NULL struct pointer}, e.g. {@code NULL DLManagedTensor pointer} */
    public static IllegalArgumentException nullPointer(String struct) {
        return new IllegalArgumentException("NULL " + struct + " pointer");
    }

    /**
     * {@return a checked exception of a downcall, rethrown}: a native function declares none, so
     * only the method handle's own failures reach here
     */
    public static IllegalStateException nativeCallFailed(Throwable cause) {
        return new IllegalStateException("native call failed", cause);
    }

    /** {@return the refusal of a {@code .npy} version tensorbuf cannot write} */
    public static IllegalArgumentException npyVersion(int major) {
        return new IllegalArgumentException(".npy version " + major + ".0 is not 1.0, 2.0 or 3.0");
    }

    /**
     * {@return the refusal of a file too short to hold its format's fixed start}
     *
     * @param what what it cannot hold, e.g. {@code "a .npy preamble (at least 10)"}
     */
    public static IllegalArgumentException tooShort(String file, long bytes, String what) {
        return new IllegalArgumentException(file + ": " + bytes + " bytes is too short for " + what);
    }

    /** {@return the refusal of a header length past what tensorbuf reads}: the length comes from the file */
    public static IllegalArgumentException headerTooLong(String file, String length, long limit) {
        return new IllegalArgumentException(file + ": header length " + length + " exceeds the limit of " + limit
                + " bytes");
    }

    /**
     * {@return the refusal of a header length past the end of the file}
     *
     * @param extent the file's size and what follows from it, e.g. {@code "20 bytes, header starts at 10"}
     */
    public static IllegalArgumentException headerPastEnd(String file, long length, String extent) {
        return new IllegalArgumentException(file + ": header length " + length + " runs past the end of the file ("
                + extent + ")");
    }

    /**
     * {@return the refusal of a header value of the wrong kind}, e.g. {@code t.npy: 'shape' is a
     * list, expected a tuple of ints}
     *
     * @param where the file and the field
     * @param found the kind found, as the format names it (a tuple, an object, ...)
     */
    public static IllegalArgumentException wrongKind(String where, String found, String expected) {
        return new IllegalArgumentException(where + " is " + found + ", expected " + expected);
    }

    /** {@return the refusal of a header object whose keys are not its format's} */
    public static IllegalArgumentException wrongKeys(String where, Object keys, String expected) {
        return new IllegalArgumentException(where + " has keys " + keys + ", expected exactly " + expected);
    }

    /**
     * {@return the refusal of a type safetensors cannot name}
     *
     * @param tensor the tensor's name, or null where there is none yet
     */
    public static IllegalArgumentException noSafetensorsDtype(Object type, String tensor) {
        return new IllegalArgumentException("safetensors has no dtype for " + type
                + (tensor == null ? "" : " of tensor '" + tensor + "'"));
    }

    /** {@return the refusal of a stride DirectML cannot hold: it takes unsigned 32-bit strides} */
    public static IllegalArgumentException directMLStride(long stride, int dim, List<Long> strides) {
        return new IllegalArgumentException("stride " + stride + " of dim " + dim + " in " + strides
                + ": DirectML strides are 0 to 2^32 - 1 (no flips; copy a reversed view first)");
    }

    /**
     * {@return the refusal of a binding offset DirectML cannot bind}
     *
     * @param offset the offset and where it comes from, e.g. {@code "32 bytes (element offset 8 of f32)"}
     * @param required the alignment: 16, or the tensor's guaranteed base offset alignment
     */
    public static IllegalArgumentException bindingOffset(String offset, long required) {
        return new IllegalArgumentException("binding offset " + offset + " is not a multiple of " + required
                + ": DirectML binds buffer tensors at " + required + "-byte aligned offsets"
                + " (DML_BUFFER_BINDING.Offset); copy the view, or bind its parent and slice with an operator");
    }

    /** {@return the refusal of more bytes than an Agrona buffer's int capacity} */
    public static IllegalArgumentException tooLargeForAgrona(Object what, long bytes, long maxBytes) {
        return new IllegalArgumentException(what + " holds " + bytes + " bytes, more than an Agrona buffer's " + maxBytes
                + " (int capacity); bridge a slice of it at a time");
    }

    /** {@return the refusal of polling a pipeline that hands its outcomes to a callback} */
    public static IllegalStateException nothingToPoll(String pipeline) {
        return new IllegalStateException("staging '" + pipeline + "' delivers to its consumer callback; there is nothing"
                + " to poll");
    }
}
