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
 * <p>Public top-level types: {@code DenseTensor}, {@code Npy}, {@code SafetensorsFile},
 * {@code GgufFile}, {@code GgufWriter}, {@code GgufTensor}, {@code GgufValue}, {@code GgmlType},
 * {@code Dlpack}, {@code NativeMemory}, {@code CudaRuntime}, {@code DirectMLTensorDesc},
 * {@code AgronaBuffers}; what belongs to one of them is nested in it (e.g. {@code Npy.Header},
 * {@code SafetensorsFile.Checkpoint}, {@code Dlpack.ExportOptions}).
 *
 * <p>Native memory: {@link dev.tensorbuf.interop.Dlpack} exports views as DLPack structs and
 * imports producers' tensors as {@code Dlpack.Tensor} (struct layouts in
 * {@code internal.DlpackStructs}); {@link dev.tensorbuf.interop.NativeMemory} wraps raw pointers
 * with their free function and makes the huge-page allocator; {@link dev.tensorbuf.interop.CudaRuntime}
 * (with its {@code CudaStream}, {@code CudaEvent} and {@code CudaException}) binds
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
 *
 * <p>Test side: <code>interop/src/test/c/dlpack_peer.c</code> is compiled by the tests with gcc and
 * exchanges DLPack tensors with us for real.
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>DenseTensor.java</code> (nested <code>DataWriter</code>)</dt>
 * <dd>what the writers take: dtype, dims, C-order little-endian bytes, or a
 *     <code>DataWriter</code> that streams them to the file's channel (sub-byte types packed, a
 *     count that does not fill whole bytes in <code>ceil(n*bits/8)</code>, as XLA packs
 *     <code>s4[3]</code> into 2; bytes of the wrong size for that say so);
 *     <code>of(TensorView)</code> wraps a view's bytes only when they are the tensor in C order
 *     (one host buffer, row-major strides, packed sub-byte elements from a whole byte) and
 *     otherwise names the view and why; <code>copyOf(view, allocator)</code> copies any view into C
 *     order through <code>CopyEngine.materialize</code></dd>
 * <dt><code>Npy.java</code> (nested <code>Header</code>, <code>Tensor</code>)</dt>
 * <dd><code>.npy</code> v1/v2/v3: header, memory-mapped or read into an allocator (a void descr
 *     read as a named type, sub-byte types one element to a byte as ml_dtypes saves them),
 *     <code>Npy.Tensor.view()</code> through the header's layout (Fortran order too), writer
 *     byte-identical to NumPy's, ml_dtypes types included (bf16, f8 but e5m2, 1/2/4-bit unpacked
 *     one to a byte by the copy engine, whose one-to-a-byte store keeps the low bits as ml_dtypes
 *     does, as void descrs, as np.save writes them; f8e5m2's <code>'&lt;f1'</code> np.load refuses,
 *     and 6-bit packing is undefined, so both are refused; <code>whyNotWritable</code> says so, and
 *     <code>convert</code> and <code>run</code> ask it first)</dd>
 * <dt><code>internal/FileReplacement.java</code></dt>
 * <dd>writes a file whole or not at all: a hidden <code>.part</code> file beside the
 *     (link-resolved) target, renamed over it when complete, the old mode kept, a write-protected
 *     file refused; errors name the file; devices and pipes written directly. Used by every
 *     writer here, Arrow files and <code>convert</code></dd>
 * <dt><code>internal/WriteBehind.java</code></dt>
 * <dd>while a file of 32 MiB or more is replaced, a daemon thread calls Linux's
 *     <code>sync_file_range(SYNC_FILE_RANGE_WRITE)</code> every 4 ms, so that ext4's write-back at
 *     the rename finds little left; only with native access granted, a no-op elsewhere</dd>
 * <dt><code>SafetensorsFile.java</code> (nested <code>Tensor</code>)</dt>
 * <dd>safetensors: mapped, header validated (coverage, sizes, dtypes, metadata; a <code>.npy</code>
 *     or a header length past the limit or the file is "not a safetensors file"),
 *     <code>SafetensorsFile.Tensor.view()</code> (row-major, <code>F4</code> packed, 6-bit refused);
 *     each tensor's bytes a buffer of their own, named for the tensor and its file and holding the
 *     mapping, closed by the file's close, so a tensor (or a view of it) used afterwards is named,
 *     not the whole mapping; writer in the reference library's order (a sub-byte tensor that does
 *     not end on a byte, which the reference reader refuses, refused); <code>create</code> writes
 *     the header and maps the file read-write so tensors are filled in place (byte for byte what
 *     <code>write</code> writes; <code>convert</code>'s whole-file mode)</dd>
 * <dt><code>SafetensorsFile.Checkpoint</code> (in <code>SafetensorsFile.java</code>)</dt>
 * <dd>a Hugging Face sharded checkpoint (<code>model.safetensors.index.json</code>) or one file as
 *     one set of tensors: index checked as <code>huggingface_hub</code>'s loader checks it, shards
 *     matched against it (missing, unlisted, misplaced or duplicated tensors refused); written
 *     split as <code>split_state_dict_into_shards_factory</code> splits, index bytes as Python's
 *     <code>json.dump(indent=2)</code></dd>
 * <dt><code>internal/HugePageAllocator.java</code> (made by <code>NativeMemory.hugePageAllocator()</code>)</dt>
 * <dd>an <code>Allocator</code> whose buffers from 4 MiB are anonymous mappings of their own, 2 MiB
 *     aligned and advised <code>MADV_HUGEPAGE</code> before the first touch (as NumPy does),
 *     unmapped on close (registered under close's lock, so an allocation racing a close cannot
 *     outlive it); the allocator's close unmaps held ones too, once (a hold ending later does
 *     nothing), but is refused, freeing nothing, while any buffer is lent (large ones are foreign
 *     buffers in the allocator's own <code>Scope</code>, which its small arena shares, so one check
 *     sees every loan); smaller ones from a shared arena named for it (as
 *     <code>Allocators.shared("huge-page allocator")</code> makes it), refusals named as the
 *     huge-page allocator's</dd>
 * <dt><code>NativeMemory.java</code></dt>
 * <dd>raw native pointers (address, size, free function) as <code>MemoryBuffer</code>s in a chosen memory
 *     space, writable or read-only</dd>
 * <dt><code>Dlpack.java</code> (nested <code>ExportOptions</code>, <code>Tensor</code>),
 *     <code>internal/DlpackStructs.java</code></dt>
 * <dd>DLPack 1.x: export strided views (versioned and legacy; copy or refuse otherwise), import
 *     with validation; deleters run exactly once; struct layouts as FFM
 *     <code>MemoryLayout</code>s</dd>
 * <dt><code>DirectMLTensorDesc.java</code></dt>
 * <dd><code>DML_BUFFER_TENSOR_DESC</code> fields of a strided view, with the 16-byte binding-offset
 *     check and DirectML's 32-bit last-element index</dd>
 * <dt><code>CudaRuntime.java</code> (nested <code>CudaStream</code>, <code>CudaEvent</code>,
 *     <code>CudaException</code>)</dt>
 * <dd>libcudart through FFM when present: devices, malloc/free, pinned host memory,
 *     memcpy/memcpy2D, view upload/download; streams queue asynchronous copies of pinned memory
 *     only (pageable memory and host-side layout conversions refused, as CUDA would serialize
 *     them) and lend their buffers until the stream is past them; events mark points of a
 *     stream to wait for or time</dd>
 * <dt><code>AgronaBuffers.java</code></dt>
 * <dd>Agrona <code>DirectBuffer</code> bridge both ways; the one class whose work needs
 *     <code>--add-opens java.base/jdk.internal.misc</code> (checked first, with a clear error)</dd>
 * </dl>
 */
package dev.tensorbuf.interop;
