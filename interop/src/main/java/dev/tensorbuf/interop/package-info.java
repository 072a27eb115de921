/**
 * Exchange formats and foreign memory: files, DLPack, DirectML descriptors, native buffers.
 *
 * <p>Files: {@link dev.tensorbuf.interop.Npy} reads ({@code map}, {@code read}) and writes NumPy
 * {@code .npy} files; {@link dev.tensorbuf.interop.SafetensorsFile} opens (memory-mapped) and
 * writes safetensors files. Both write a {@link dev.tensorbuf.interop.DenseTensor}: element type,
 * dims and C-order little-endian bytes.
 * {@snippet :
 * MemorySegment bytes = Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2, 3, 4, 5, 6);
 * DenseTensor w = new DenseTensor(DType.F32, List.of(2L, 3L), bytes);
 * Npy.write(Path.of("w.npy"), w);
 * SafetensorsFile.write(Path.of("m.safetensors"), Map.of("w", w));
 * try (SafetensorsFile f = SafetensorsFile.open(Path.of("m.safetensors"))) {
 *     f.tensor("w").fileOffset(); // 72: 8 + a 64-byte header
 * }
 * }
 *
 * <p>Native memory: {@link dev.tensorbuf.interop.Dlpack} exports views as DLPack structs and
 * imports producers' tensors as {@link dev.tensorbuf.interop.DlpackTensor} (layouts in
 * {@link dev.tensorbuf.interop.DlpackStructs}); {@link dev.tensorbuf.interop.NativeMemory} wraps
 * raw pointers with their free function; {@link dev.tensorbuf.interop.CudaRuntime} binds
 * {@code libcudart} when it is installed; {@link dev.tensorbuf.interop.DirectMLTensorDesc} gives a
 * view's {@code DML_BUFFER_TENSOR_DESC} fields. Every restricted FFM call lives in
 * {@code dev.tensorbuf.interop.internal.RestrictedNative}; the JVM needs
 * {@code --enable-native-access}. Foreign memory is freed exactly once, by the first close of its
 * buffer or the consumer's one deleter call, from any thread.
 *
 * <p>Rules for every file method here (Npy, safetensors): data handed out are little-endian; a malformed file throws
 * {@link java.lang.IllegalArgumentException} whose message starts with the file's path and names
 * the problem; I/O failures are {@link java.io.IOException}; a closed array or file throws
 * {@link java.lang.IllegalStateException} on access.
 */
package dev.tensorbuf.interop;
