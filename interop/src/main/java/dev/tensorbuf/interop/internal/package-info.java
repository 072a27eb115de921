/**
 * The codecs and native glue behind {@code dev.tensorbuf.interop}: the {@code .npy} and
 * safetensors codecs, DLPack import and export, file and anonymous mappings, the CUDA bindings,
 * host copies for device transfers, byte swapping and exact size arithmetic; {@code Errors}, the
 * messages the module builds in more than one place.
 *
 * <p>Not exported. Rules that hold for every class: whatever comes from a file or a foreign struct
 * is untrusted and checked before use; a bad value is an {@link java.lang.IllegalArgumentException}
 * naming the file or struct and the value; sizes are exact ({@code Sizes}, element counts by
 * {@link dev.tensorbuf.views.internal.Extents}) and an overflow is reported, never wrapped. Restricted FFM
 * calls are made by {@code RestrictedNative} alone.
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>PyLiteral.java</code></dt>
 * <dd>strict, linear, depth-limited reader of the <code>.npy</code> header's Python literal</dd>
 * <dt><code>NpyCodec.java</code>, <code>SafetensorsCodec.java</code></dt>
 * <dd>header checks and writers</dd>
 * <dt><code>FileMapping.java</code></dt>
 * <dd>a file region mapped (or copied) into a shared arena, handed out as a
 *     <code>MemoryBuffer</code></dd>
 * <dt><code>ByteSwap.java</code>, <code>Sizes.java</code></dt>
 * <dd>big-endian to little-endian; exact byte sizes (element counts by <code>views.Extents</code>,
 *     for the file formats and DLPack's shapes alike; <code>byteSize</code> whole bytes as
 *     safetensors requires, <code>packedByteSize</code> rounded up as a <code>DenseTensor</code>
 *     holds them)</dd>
 * <dt><code>Errors.java</code></dt>
 * <dd>the messages <code>interop</code> and <code>interop.staging</code> build in more than one
 *     place: closed resources, memory that is not host-accessible, copies whose types or dims
 *     differ, negative byte sizes, NULL struct pointers, failed downcalls, <code>.npy</code>
 *     versions, files too short, header lengths past the limit or the file, header values of the
 *     wrong kind or keys, types safetensors cannot name, DirectML strides and binding offsets,
 *     sizes past an Agrona buffer, polling a callback pipeline. Not used by <code>json</code>,
 *     which <code>internal</code> depends on</dd>
 * <dt><code>StrictUtf8.java</code></dt>
 * <dd>UTF-8 decoding of headers whose failure names the file offset of the bad byte</dd>
 * <dt><code>AnonymousMapping.java</code></dt>
 * <dd>Linux <code>mmap</code>/<code>madvise</code>/<code>munmap</code> of private anonymous memory
 *     for <code>HugePageAllocator</code>, through <code>RestrictedNative</code>'s downcalls</dd>
 * <dt><code>RestrictedNative.java</code></dt>
 * <dd>the only class that calls restricted FFM methods (<code>reinterpret</code>, downcalls,
 *     upcalls, library lookup); <code>RestrictedNativeScanTest</code> scans every source file to
 *     keep it so</dd>
 * <dt><code>DlpackExporter.java</code>, <code>DlpackImporter.java</code></dt>
 * <dd>write our structs (one upcall deleter finds each export by address; options checked before
 *     any copy is made; read-only memory never goes out through the flagless legacy struct; the
 *     device type is the space's, which <code>MemorySpace</code> keeps on the side of the bus its
 *     host accessibility says; an in-place export lends its buffer (<code>MemoryBuffer.lend()</code>)
 *     until the deleter, so a pool cannot hand the block on and no allocator can close while a
 *     consumer reads it; a copied export owns its copy's allocator and lends nothing); validate and
 *     read a producer's (its <code>READ_ONLY</code> makes the root buffer read-only too)</dd>
 * <dt><code>Materializer.java</code>, <code>HostCopies.java</code></dt>
 * <dd>dense copies for export, through <code>CopyEngine.copy(TensorView, TensorView)</code>; one
 *     memcpy, one 2-D memcpy or a staged transfer</dd>
 * <dt><code>CudaFunctions.java</code>, <code>CudaBindings.java</code></dt>
 * <dd>the CUDA function table (faked in tests) and its FFM implementation</dd>
 * <dt><code>ReadOnlyDirectBuffer.java</code></dt>
 * <dd>a <code>DirectBuffer</code> over read-only memory that cannot be cast to mutable</dd>
 * </dl>
 */
package dev.tensorbuf.interop.internal;
