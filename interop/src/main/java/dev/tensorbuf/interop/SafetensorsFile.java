package dev.tensorbuf.interop;

import dev.tensorbuf.interop.internal.CountedWrites;
import dev.tensorbuf.interop.internal.Errors;
import dev.tensorbuf.interop.internal.FileMapping;
import dev.tensorbuf.interop.internal.FileReplacement;
import dev.tensorbuf.interop.internal.SafetensorsCodec;
import dev.tensorbuf.interop.internal.Sizes;
import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaLayout;
import dev.tensorbuf.interop.internal.SafetensorsIndex;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A safetensors file, memory-mapped read-only: its tensors as slices of the mapping, and its
 * {@code __metadata__}. Closing the file unmaps it and ends every tensor's buffer.
 *
 * <p><b>Rules enforced on open</b>, each refused with {@link IllegalArgumentException} naming the
 * file (and the tensor) before any tensor is handed out: the file holds the 8-byte length; the
 * header length {@code N} is at most {@value #MAX_HEADER_BYTES} and at most the file size minus 8;
 * the header is valid UTF-8, starts with <code>{</code> and is one JSON object (trailing spaces
 * allowed) without duplicate keys; {@code __metadata__}, if present, maps strings to strings;
 * every other key is a tensor whose object has {@code dtype} (a known safetensors name),
 * {@code shape} (non-negative integers) and {@code data_offsets} ({@code [BEGIN, END]},
 * {@code BEGIN <= END}); {@code END - BEGIN} equals the element count times the dtype's size
 * (sub-byte types: whole bytes of packed bits) with no overflow; and the tensors, sorted by
 * offset, tile the data section exactly: the first begins at 0, each begins where the previous
 * ends (no gap, no overlap), the last ends at the end of the file. Not required: alignment of
 * tensors (third-party writers skip the padding; read with unaligned layouts) and the order of the
 * header's keys, and keys of a tensor's object besides those three (other writers add their own;
 * the reference reader ignores them too).
 *
 * <p><b>Writing</b> ({@link #write}) follows the reference writer byte for byte: tensors sorted by
 * descending dtype alignment, then by name; the compact JSON header with {@code __metadata__}
 * first, padded with spaces to a multiple of 8; the data back to back. {@link #create} writes the
 * same header and maps the file for the data to be filled in place.
 * {@snippet :
 * MemorySegment w = Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2, 3, 4, 5, 6);
 * MemorySegment ids = Arena.ofAuto().allocateFrom(ValueLayout.JAVA_BYTE, (byte) 7, (byte) 9);
 * SafetensorsFile.write(Path.of("m.safetensors"),
 *         Map.of("w", new DenseTensor(DType.F32, List.of(2L, 3L), w),
 *                "ids", new DenseTensor(DType.S8, List.of(2L), ids)),
 *         Map.of("format", "np"));
 * try (SafetensorsFile f = SafetensorsFile.open(Path.of("m.safetensors"))) {
 *     f.names();                 // [w, ids]: F32 before I8
 *     f.metadata();              // {format=np}
 *     f.tensor("ids").shape();   // [2]
 *     f.tensor("x");             // IllegalArgumentException: "no tensor 'x' in m.safetensors; it has [w, ids]"
 * }
 * }
 */
public final class SafetensorsFile implements AutoCloseable {
    /** The longest header read or written, in bytes, as in the reference library. */
    public static final long MAX_HEADER_BYTES = SafetensorsCodec.MAX_HEADER_BYTES;

    private final Path file;
    private final MemoryBuffer mapping;
    private final long headerByteSize;
    private final Map<String, String> metadata;
    private final Map<String, Tensor> tensors;
    private final boolean writable;

    private SafetensorsFile(Path file, MemoryBuffer mapping, long headerByteSize, Map<String, String> metadata,
            Map<String, Tensor> tensors, boolean writable) {
        this.file = file;
        this.writable = writable;
        this.mapping = mapping;
        this.headerByteSize = headerByteSize;
        this.metadata = metadata;
        this.tensors = tensors;
    }

    /**
     * {@return the file, mapped and checked}
     *
     * @throws IllegalArgumentException naming the file and the rule it breaks
     * @throws IOException if the file cannot be read or mapped
     */
    public static SafetensorsFile open(Path file) throws IOException {
        String name = file.toString();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size < 8) {
                throw Errors.tooShort(name, size, "a safetensors file (8-byte header length first)");
            }
            ByteBuffer lengthField = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            while (lengthField.hasRemaining() && channel.read(lengthField, lengthField.position()) >= 0) {
                // read until the 8 bytes are in
            }
            long n = SafetensorsCodec.checkHeaderLength(lengthField.getLong(0), size, name);
            MemoryBuffer mapping = FileMapping.map(channel, 0, size, "mapped " + file.getFileName());
            try {
                return build(file, mapping.asReadOnly(), mapping, n, false);
            } catch (RuntimeException e) {
                mapping.close();
                throw e;
            }
        }
    }

    private static SafetensorsFile build(Path file, MemoryBuffer view, MemoryBuffer root, long n, boolean writable) {
        MemorySegment all = view.segment();
        long dataStart = 8 + n;
        ByteBuffer headerBytes = ByteBuffer.wrap(all.asSlice(8, n).toArray(ValueLayout.JAVA_BYTE));
        SafetensorsCodec.Header header = SafetensorsCodec.read(headerBytes, all.byteSize() - dataStart, file.toString());
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        try {
            for (SafetensorsCodec.Entry e : header.entries()) {
                long offset = dataStart + e.begin();
                long bytes = e.end() - e.begin();
                tensors.put(e.name(), new Tensor(e.name(), e.dtype(), e.shape(), offset, bytes,
                        tensorBuffer(view, root, offset, bytes, e.name(), file), file));
            }
        } catch (RuntimeException x) {
            tensors.values().forEach(t -> t.data().close());
            throw x;
        }
        return new SafetensorsFile(file, root, n, Collections.unmodifiableMap(header.metadata()),
                Collections.unmodifiableMap(tensors), writable);
    }

    /**
     * {@return a tensor's bytes as a buffer of their own, named for the tensor} A slice of the
     * mapping would share its lifetime, and a tensor used after the file closed would be named as
     * the whole mapping, by its size. This buffer holds the mapping ({@link MemoryBuffer#hold()}) until
     * it closes, which {@link #close()} does before it closes the mapping: a copy that holds the
     * tensor meanwhile keeps the file mapped until it ends.
     */
    private static MemoryBuffer tensorBuffer(MemoryBuffer view, MemoryBuffer root, long offset, long bytes, String name, Path file) {
        MemoryBuffer.Hold mapped = root.hold();
        try {
            return MemoryBuffer.foreign(view.segment().asSlice(offset, bytes), MemorySpace.HOST,
                    "tensor '" + name + "' of " + file.getFileName(), mapped::close);
        } catch (RuntimeException e) {
            mapped.close();
            throw e;
        }
    }

    /**
     * Writes the tensors and metadata as the reference library does, replacing any file there
     * once the new one is complete (through a hidden {@code .part} file renamed over it: a failure leaves the old file, a link
     * is written through, the file's permissions are kept).
     *
     * @param tensors by name; the map's order does not matter
     * @param metadata string pairs for {@code __metadata__}; empty writes no {@code __metadata__}
     * @throws IllegalArgumentException if a name is {@code __metadata__} or has an unpaired
     *     surrogate (no UTF-8 encoding), safetensors has no name for a dtype, a sub-byte tensor
     *     does not fill whole bytes ({@code F4 [3]}: the reference reader refuses it), or the
     *     header would exceed {@value #MAX_HEADER_BYTES} bytes
     * @throws IOException if the file cannot be written
     */
    public static void write(Path file, Map<String, DenseTensor> tensors, Map<String, String> metadata) throws IOException {
        Objects.requireNonNull(tensors, "tensors");
        // A DenseTensor may hold an odd count of 4-bit elements (F4 [3] in 2 bytes), which the
        // reference reader refuses: sized as safetensors sizes it, such a tensor is refused here.
        Plan<DenseTensor> plan = plan(tensors, metadata, DenseTensor::dtype, DenseTensor::dims,
                t -> Sizes.byteSize(t.dtype(), t.elementCount(), DenseTensor.describe(t.dtype(), t.dims())));
        FileReplacement.write(file, where -> {
            try (FileChannel channel = FileReplacement.open(where)) {
                writeHeader(channel, plan.header());
                for (Map.Entry<String, DenseTensor> e : plan.ordered()) {
                    Npy.writeSegment(channel, e.getValue().bytes());
                }
            }
        });
    }

    /**
     * Writes a safetensors file of tensors of these types and dims, each tensor's data written by
     * its {@link DenseTensor.DataWriter} in the file's order, so that no buffer of a whole tensor is needed;
     * replaced as {@link #write(Path, Map, Map)} replaces it, and the same file byte for byte.
     * Written through the file system's page cache with ordinary writes: a mapping of the new file
     * ({@link #create}) costs a page fault per page and a flush to storage on close.
     * {@snippet :
     * SafetensorsFile.write(Path.of("b.safetensors"), Map.of("b", ArrayShape.of(DType.F32, 2)), Map.of(),
     *         Map.of("b", channel -> channel.write(ByteBuffer.allocate(8))));   // b = [0, 0]
     * }
     *
     * @param tensors by name: each shape's type and dims (its layout is not used); the map's order
     *     does not matter
     * @param data by name, one for each tensor
     * @throws IllegalArgumentException as {@link #write(Path, Map, Map)} does, or if a tensor has
     *     no writer
     * @throws IllegalStateException if a writer writes other than its tensor's byte count
     * @throws IOException if the file cannot be written, or as a writer throws
     */
    public static void write(Path file, Map<String, ArrayShape> tensors, Map<String, String> metadata,
            Map<String, DenseTensor.DataWriter> data) throws IOException {
        Objects.requireNonNull(tensors, "tensors");
        Objects.requireNonNull(data, "data");
        for (String name : tensors.keySet()) {
            if (!data.containsKey(name)) {
                throw new IllegalArgumentException("tensor '" + name + "' has no DenseTensor.DataWriter; writers are given for "
                        + data.keySet());
            }
        }
        Plan<ArrayShape> plan = plan(tensors, metadata, ArrayShape::dtype, ArrayShape::dims, SafetensorsFile::byteSize);
        FileReplacement.write(file, where -> {
            try (FileChannel channel = FileReplacement.open(where)) {
                writeHeader(channel, plan.header());
                for (Map.Entry<String, ArrayShape> e : plan.ordered()) {
                    CountedWrites counted = new CountedWrites(channel, byteSize(e.getValue()),
                            "tensor '" + e.getKey() + "' of " + file);
                    data.get(e.getKey()).write(counted);
                    counted.finish();
                }
            }
        });
    }

    private static long byteSize(ArrayShape shape) {
        String name = DenseTensor.describe(shape.dtype(), shape.dims());
        return Sizes.byteSize(shape.dtype(), Sizes.elementCount(shape.dims(), name), name);
    }

    /**
     * Creates the file for tensors of these types and dims, header included, and maps it for
     * writing: fill each tensor's {@link SafetensorsFile.Tensor#data()} (zeros until then), then
     * {@linkplain #close() close}, which flushes the mapping to the file and unmaps it. Once filled,
     * the file is byte for byte what {@link #write} writes for the same tensors. Nothing is held
     * but the mapping, so tensors can be converted straight into the file one at a time, whatever
     * the file's size.
     * {@snippet :
     * try (SafetensorsFile out = SafetensorsFile.create(Path.of("w.safetensors"),
     *         Map.of("w", ArrayShape.of(DType.BF16, 2, 3)), Map.of("format", "pt"))) {
     *     MemorySegment w = out.tensor("w").data().segment();   // 12 bytes, zeroed
     *     w.set(ValueLayout.JAVA_SHORT_UNALIGNED, 0, (short) 0x3f80); // w[0, 0] = 1.0
     * }
     * }
     *
     * @param tensors by name: each shape's type and dims (its layout, if any, is not used: files
     *     hold row-major data); the map's order does not matter
     * @throws IllegalArgumentException as {@link #write} does
     * @throws IOException if the file cannot be written or mapped
     */
    public static SafetensorsFile create(Path file, Map<String, ArrayShape> tensors, Map<String, String> metadata)
            throws IOException {
        Objects.requireNonNull(tensors, "tensors");
        Plan<ArrayShape> plan = plan(tensors, metadata, ArrayShape::dtype, ArrayShape::dims, SafetensorsFile::byteSize);
        long n = plan.header().length;
        long size = Math.addExact(8 + n, plan.dataBytes());
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING)) {
            writeHeader(channel, plan.header());
            // Mapping past the end grows the file; the new bytes read as zeros.
            MemoryBuffer mapping = FileMapping.mapForWriting(channel, size, "mapped " + file.getFileName());
            try {
                return build(file, mapping, mapping, n, true);
            } catch (RuntimeException e) {
                mapping.close();
                throw e;
            }
        }
    }

    /** Writes the 8-byte little-endian header length, then the header. */
    private static void writeHeader(FileChannel channel, byte[] header) throws IOException {
        Npy.writeFully(channel, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, header.length));
        Npy.writeFully(channel, ByteBuffer.wrap(header));
    }

    /** The checked tensors in the order their data goes into the file, and the header. */
    private record Plan<T>(List<Map.Entry<String, T>> ordered, byte[] header, long dataBytes) {
    }

    private static <T> Plan<T> plan(Map<String, T> tensors, Map<String, String> metadata, Function<T, DType> dtypeOf,
            Function<T, List<Long>> dimsOf, ToLongFunction<T> bytesOf) {
        List<Map.Entry<String, T>> ordered = new ArrayList<>(tensors.entrySet());
        for (Map.Entry<String, T> e : ordered) {
            if (e.getKey().equals(SafetensorsCodec.METADATA_KEY)) {
                throw new IllegalArgumentException("a tensor cannot be named " + SafetensorsCodec.METADATA_KEY);
            }
            int bad = Json.unpairedSurrogate(e.getKey());
            if (bad >= 0) {
                throw new IllegalArgumentException(String.format("tensor name '%s' has an unpaired surrogate U+%04X at"
                        + " char %d, which UTF-8 cannot encode", e.getKey(), (int) e.getKey().charAt(bad), bad));
            }
            if (dtypeOf.apply(e.getValue()).safetensorsName().isEmpty()) {
                throw Errors.noSafetensorsDtype(dtypeOf.apply(e.getValue()), e.getKey());
            }
        }
        ordered.sort(SafetensorsCodec.writeOrder(dtypeOf));
        List<SafetensorsCodec.Entry> entries = new ArrayList<>(ordered.size());
        long offset = 0;
        for (Map.Entry<String, T> e : ordered) {
            long bytes;
            try {
                bytes = bytesOf.applyAsLong(e.getValue());
            } catch (IllegalArgumentException x) {
                // The size's own message names the shape; in a file of many tensors the name is what a user looks for.
                throw new IllegalArgumentException("tensor '" + e.getKey() + "': " + x.getMessage(), x);
            }
            if (bytes > Long.MAX_VALUE - offset) {
                throw new IllegalArgumentException("tensor '" + e.getKey() + "' (" + bytes + " bytes) takes the data past a"
                        + " long byte size: the tensors before it hold " + offset);
            }
            long end = offset + bytes;
            entries.add(new SafetensorsCodec.Entry(e.getKey(), dtypeOf.apply(e.getValue()), dimsOf.apply(e.getValue()),
                    offset, end));
            offset = end;
        }
        byte[] header = SafetensorsCodec.header(new TreeMap<>(metadata), entries);
        if (header.length > MAX_HEADER_BYTES) {
            throw new IllegalArgumentException("header of " + header.length + " bytes exceeds the limit of "
                    + MAX_HEADER_BYTES + " bytes");
        }
        return new Plan<>(ordered, header, offset);
    }

    /**
     * {@return why {@link #write} refuses a tensor of this type and dims, or empty when it writes
     * it} A command that writes safetensors files asks before it does any work, so that it refuses
     * what the writer refuses, for the writer's reason.
     * {@snippet :
     * SafetensorsFile.whyNotWritable(ArrayShape.of(DType.F4E2M1FN, 4));   // Optional.empty(): 2 bytes
     * SafetensorsFile.whyNotWritable(ArrayShape.of(DType.F4E2M1FN, 3));
     * // Optional["3 elements of f4e2m1fn are 12 bits, not a whole number of bytes, which safetensors
     * // requires (its reference reader refuses a sub-byte tensor that does not end on a byte)"]
     * }
     *
     * @throws ArithmeticException if the tensor's bit count overflows a long
     */
    public static Optional<String> whyNotWritable(ArrayShape shape) {
        if (shape.dtype().safetensorsName().isEmpty()) {
            return Optional.of("safetensors has no dtype for " + shape.dtype());
        }
        return shape.dtype().isSubByte() ? Sizes.partByte(shape.dtype(), shape.elementCount()) : Optional.empty();
    }

    /** Writes the tensors without metadata; see {@link #write(Path, Map, Map)}. */
    public static void write(Path file, Map<String, DenseTensor> tensors) throws IOException {
        write(file, tensors, Map.of());
    }

    /** {@return the file this was opened from} */
    public Path file() {
        return file;
    }

    /** {@return the tensor names in the order of their data in the file} */
    public List<String> names() {
        return List.copyOf(tensors.keySet());
    }

    /** {@return every tensor, in the order of their data in the file} */
    public List<Tensor> tensors() {
        return List.copyOf(tensors.values());
    }

    /**
     * {@return the tensor of this name}
     *
     * @throws IllegalArgumentException naming the missing name and (up to 10 of) the names there are
     * @throws IllegalStateException if the file is closed
     */
    public Tensor tensor(String name) {
        if (!mapping.isAlive()) {
            throw Errors.closed(file);
        }
        Tensor t = tensors.get(name);
        if (t == null) {
            throw Errors.noTensor(name, file, names());
        }
        return t;
    }

    /** {@return the {@code __metadata__} pairs, empty when the file has none} */
    public Map<String, String> metadata() {
        return metadata;
    }

    /** {@return the JSON header's length N, padding included} */
    public long headerByteSize() {
        return headerByteSize;
    }

    /** {@return the file offset of the data section: 8 + N} */
    public long dataOffset() {
        return 8 + headerByteSize;
    }

    /**
     * Unmaps the file; every tensor's buffer stops working. A file from {@link #create} is flushed
     * to storage first. Closing twice does nothing.
     */
    @Override
    public void close() {
        for (Tensor t : tensors.values()) {
            t.data().close(); // its hold on the mapping ends now, or when a copy holding it ends
        }
        if (writable && mapping.isAlive()) {
            try {
                mapping.segment().force();
            } finally {
                mapping.close();
            }
            return;
        }
        mapping.close();
    }

    @Override
    public String toString() {
        return file + ": " + tensors.size() + " tensors, header " + headerByteSize + " bytes";
    }

    /**
     * One tensor of an open {@link SafetensorsFile}: name, element type, shape, where its bytes are
     * in the file, and those bytes as a read-only slice of the file's mapping (C order,
     * little-endian, valid until the file closes).
     *
     * {@snippet :
     * // w.safetensors holds one tensor, "w": F32 [2, 3], data_offsets [0, 24], under a 64-byte header
     * try (SafetensorsFile f = SafetensorsFile.open(Path.of("w.safetensors"))) {
     *     SafetensorsFile.Tensor w = f.tensor("w");
     *     w.fileOffset();                       // 72: 8 + 64 + 0
     *     w.byteSize();                         // 24
     *     w.data().segment().get(ValueLayout.JAVA_FLOAT_UNALIGNED, 4); // the second element
     *     w.view().getFloat(0, 1);              // the same element, by index
     * }
     * }
     *
     * @param name the tensor's key in the header
     * @param dtype the element type
     * @param shape the dims; empty for a scalar
     * @param fileOffset the offset of the first byte in the file: 8 + header length + BEGIN
     * @param byteSize the number of bytes, END - BEGIN
     * <p>Closing the file closes every tensor's {@link #data()}: a tensor, or a view of it, used after
     * that is refused with {@link IllegalStateException} naming the tensor and the file
     * ({@code "tensor 'w' of w.safetensors cannot be read: its file was closed ..."} from
     * {@link #view()}; {@code "buffer of 24 bytes from foreign owner 'tensor 'w' of w.safetensors' was
     * closed"} from its buffer or a view made before).
     *
     * @param data the bytes, a buffer of their own that the file closes; not aligned beyond what the
     *     writer chose (use unaligned layouts)
     * @param file the file the tensor is in, for messages
     */
    public record Tensor(String name, DType dtype, List<Long> shape, long fileOffset, long byteSize, MemoryBuffer data,
            Path file) {
        /** Copies the shape and checks for nulls. */
        public Tensor {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(dtype, "dtype");
            Objects.requireNonNull(data, "data");
            Objects.requireNonNull(file, "file");
            shape = List.copyOf(shape);
        }

        /** Refuses a tensor of a closed file in its own words, before its buffer refuses it in the memory's. */
        private void requireOpen() {
            if (!data.isAlive()) {
                throw new IllegalStateException("tensor '" + name + "' of " + file + " (" + dtype + shape + ", " + byteSize
                        + " bytes) cannot be read: its file was closed, which unmaps every tensor; read it or copy it"
                        + " (DenseTensor.copyOf) before closing the file");
            }
        }

        /**
         * {@return the tensor as a view of {@link #data()}: row-major, 4-bit types packed as the file
         * holds them (two {@code F4} to a byte, first element low)} The view lives until the file
         * closes.
         * {@snippet :
         * // q.safetensors: "q", F4 [2, 2], bytes 21 43 (elements 0.5, 1, 1.5, 2)
         * try (SafetensorsFile f = SafetensorsFile.open(Path.of("q.safetensors"))) {
         *     f.tensor("q").view().getDouble(1, 0);   // 1.5
         * }
         * }
         *
         * @throws IllegalArgumentException for 6-bit types, whose bit order within their three bytes
         *     safetensors does not define
         * @throws IllegalStateException if the file is closed, naming the tensor and the file
         */
        public TensorView view() {
            requireOpen();
            if (dtype.isSubByte() && 8 % dtype.bitWidth() != 0) {
                throw new IllegalArgumentException("tensor '" + name + "' is " + dtype + " (" + dtype.safetensorsName().orElseThrow()
                        + "), packed four to three bytes in a bit order safetensors does not define: read its bytes, data()");
            }
            long[] dims = Extents.toArray(shape);
            return TensorView.of(data, ArrayShape.of(dtype, dims).withLayout(XlaLayout.packedDescending(dtype, dims.length)));
        }

        /** {@return the tensor as the writers take it, over the same bytes (no copy)} @throws IllegalStateException if the file is closed */
        public DenseTensor asDense() {
            requireOpen();
            return new DenseTensor(dtype, shape, data.segment());
        }
    }

    /**
     * The tensors of a checkpoint as one set, whether one safetensors file or a Hugging Face sharded
     * checkpoint: a {@code model.safetensors.index.json} whose {@code weight_map} names, for each
     * tensor, the shard file holding it. Each shard is an open {@link SafetensorsFile}; closing the
     * checkpoint closes them all.
     *
     * <p><b>Rules enforced on open</b>, each an {@link IllegalArgumentException} naming the index and
     * the shard or tensor, before any tensor is handed out: the index is at most
     * {@value SafetensorsIndex#MAX_INDEX_BYTES} bytes of UTF-8 JSON, an object with a
     * {@code weight_map} object of strings (and {@code metadata}, if any, an object); every shard
     * name is relative, without a {@code ..} part, and ends in {@code .safetensors} (links are
     * followed: Hugging Face's cache links shards to blobs elsewhere); every shard exists and is a
     * valid safetensors file; no tensor is in two shards; each shard holds exactly the tensors the
     * index maps to it.
     *
     * <p><b>Writing</b> ({@link #write}) splits as {@code huggingface_hub}'s
     * {@code split_torch_state_dict_into_shards} does ({@link Split}), writes each shard with
     * {@link SafetensorsFile#write}, and, when there is more than one, the index as
     * {@code save_torch_state_dict} writes it.
     * {@snippet :
     * Map<String, DenseTensor> state = new LinkedHashMap<>();
     * state.put("embed", embed);     // f32[1000, 64]: 256000 bytes
     * state.put("proj", proj);       // f32[64, 64]:    16384 bytes
     * state.put("head", head);       // f32[64, 1000]: 256000 bytes
     * Path index = SafetensorsFile.Checkpoint.write(dir, state, Map.of("format", "pt"), 300_000);
     * // dir/model-00001-of-00002.safetensors (embed, proj), dir/model-00002-of-00002.safetensors (head),
     * // dir/model.safetensors.index.json: {"metadata": {"total_size": 528384, "format": "pt"}, "weight_map": {...}}
     * try (SafetensorsFile.Checkpoint c = SafetensorsFile.Checkpoint.open(index)) {
     *     c.files().size();                  // 2
     *     c.tensor("head").file();           // dir/model-00002-of-00002.safetensors
     *     c.tensor("head").view().getFloat(0, 1);
     * }
     * }
     */
    public static final class Checkpoint implements AutoCloseable {
        /** The name of an index: {@code model.safetensors.index.json}, as Hugging Face names it. */
        public static final String INDEX_FILE = "model.safetensors.index.json";
        /** {@code huggingface_hub}'s default largest shard, {@code "5GB"}: 5 * 10^9 bytes. */
        public static final long DEFAULT_MAX_SHARD_BYTES = 5_000_000_000L;

        /** The files {@link #write} writes, and replaces: those of an earlier save into the same folder. */
        private static final Pattern SAVED = Pattern.compile("model(-\\d{5}-of-\\d{5})?\\.safetensors(\\.index\\.json)?");

        private final Path file;
        private final List<SafetensorsFile> files;
        private final Map<String, Tensor> tensors;
        private final Map<String, Object> indexMetadata;

        private Checkpoint(Path file, List<SafetensorsFile> files, Map<String, Tensor> tensors,
                Map<String, Object> indexMetadata) {
            this.file = file;
            this.files = List.copyOf(files);
            this.tensors = Collections.unmodifiableMap(tensors);
            this.indexMetadata = indexMetadata;
        }

        /**
         * {@return whether the file is named as an index ({@code *.safetensors.index.json}, as
         * {@value #INDEX_FILE} or diffusers' {@code diffusion_pytorch_model.safetensors.index.json})
         * rather than a safetensors file}
         */
        public static boolean isIndex(Path file) {
            Path name = file.getFileName();
            return name != null && name.toString().toLowerCase(Locale.ROOT).endsWith(".safetensors.index.json");
        }

        /**
         * {@return the checkpoint of an index ({@link #isIndex}), its shards opened, or of one safetensors file}
         *
         * @throws IllegalArgumentException naming the index, the shard or tensor, and the rule broken
         * @throws IOException if a file cannot be read or mapped
         */
        public static Checkpoint open(Path file) throws IOException {
            Objects.requireNonNull(file, "file");
            if (!isIndex(file)) {
                SafetensorsFile only = SafetensorsFile.open(file);
                Map<String, Tensor> tensors = new LinkedHashMap<>();
                only.tensors().forEach(t -> tensors.put(t.name(), t));
                return new Checkpoint(file, List.of(only), tensors, Map.of());
            }
            long size = Files.size(file);
            if (size > SafetensorsIndex.MAX_INDEX_BYTES) {
                throw new IllegalArgumentException(file + ": an index of " + size + " bytes, more than the "
                        + SafetensorsIndex.MAX_INDEX_BYTES + " a checkpoint index may have (huggingface_hub's limit)");
            }
            SafetensorsIndex.Parsed index = SafetensorsIndex.read(ByteBuffer.wrap(Files.readAllBytes(file)), file.toString());
            if (index.weightMap().isEmpty()) {
                throw new IllegalArgumentException(file + ": its \"weight_map\" is empty; a checkpoint index maps at least one"
                        + " tensor to its shard");
            }
            Path folder = file.toAbsolutePath().getParent();
            Map<String, List<String>> byShard = new LinkedHashMap<>();
            index.weightMap().forEach((tensor, shard) -> byShard.computeIfAbsent(shard, s -> new ArrayList<>()).add(tensor));
            List<SafetensorsFile> opened = new ArrayList<>();
            try {
                for (Map.Entry<String, List<String>> e : byShard.entrySet()) {
                    Path shard = folder.resolve(e.getKey());
                    if (!Files.exists(shard)) {
                        throw new IllegalArgumentException(file + " maps " + some(e.getValue()) + " to " + e.getKey()
                                + ", which does not exist in " + folder);
                    }
                    opened.add(SafetensorsFile.open(shard));
                }
                return new Checkpoint(file, opened, matched(file, index.weightMap(), List.copyOf(byShard.keySet()), opened),
                        index.metadata());
            } catch (IOException | RuntimeException x) {
                opened.forEach(SafetensorsFile::close);
                throw x;
            }
        }

        /** {@return the tensors, shard by shard, after checking that each shard holds what the index says} */
        private static Map<String, Tensor> matched(Path index, Map<String, String> weightMap, List<String> shardNames,
                List<SafetensorsFile> shards) {
            Map<String, SafetensorsFile> holder = new LinkedHashMap<>();
            for (SafetensorsFile shard : shards) {
                for (String name : shard.names()) {
                    SafetensorsFile before = holder.putIfAbsent(name, shard);
                    if (before != null) {
                        throw new IllegalArgumentException(index + ": tensor '" + name + "' is in two shards, "
                                + before.file().getFileName() + " and " + shard.file().getFileName() + "; the index maps it to "
                                + weightMap.getOrDefault(name, "neither"));
                    }
                }
            }
            Map<String, Tensor> tensors = new LinkedHashMap<>();
            for (int i = 0; i < shards.size(); i++) {
                SafetensorsFile shard = shards.get(i);
                for (Tensor t : shard.tensors()) {
                    String mapped = weightMap.get(t.name());
                    if (mapped == null) {
                        throw new IllegalArgumentException(index + ": " + shard.file().getFileName() + " holds tensor '"
                                + t.name() + "', which the index does not list");
                    }
                    if (!mapped.equals(shardNames.get(i))) {
                        throw new IllegalArgumentException(index + ": tensor '" + t.name() + "' is in "
                                + shard.file().getFileName() + ", but the index maps it to " + mapped);
                    }
                    tensors.put(t.name(), t);
                }
            }
            for (Map.Entry<String, String> e : weightMap.entrySet()) {
                if (!tensors.containsKey(e.getKey())) {
                    throw new IllegalArgumentException(index + " maps tensor '" + e.getKey() + "' to " + e.getValue()
                            + ", which does not hold it");
                }
            }
            return tensors;
        }

        private static String some(List<String> names) {
            return "tensor '" + names.getFirst() + "'" + (names.size() > 1 ? " (and " + (names.size() - 1) + " more)" : "");
        }

        /** {@return the file opened: the index, or the one safetensors file} */
        public Path file() {
            return file;
        }

        /** {@return whether this is a sharded checkpoint opened through its index} */
        public boolean isSharded() {
            return isIndex(file);
        }

        /** {@return the shards, in the order the index first names them (the one file when not sharded)} */
        public List<SafetensorsFile> files() {
            return files;
        }

        /** {@return the tensor names, shard by shard, each shard's in the order of its data} */
        public List<String> names() {
            return List.copyOf(tensors.keySet());
        }

        /** {@return every tensor, in the order of {@link #names()}} */
        public List<Tensor> tensors() {
            return List.copyOf(tensors.values());
        }

        /**
         * {@return the tensor of this name, from whichever shard holds it}
         *
         * @throws IllegalArgumentException naming the missing name and (up to 10 of) the names there are
         * @throws IllegalStateException if the checkpoint is closed
         */
        public Tensor tensor(String name) {
            Tensor t = tensors.get(name);
            if (t == null) {
                throw Errors.noTensor(name, file, names());
            }
            if (!t.data().isAlive()) {
                throw new IllegalStateException(file + " is closed");
            }
            return t;
        }

        /**
         * {@return the {@code __metadata__} pairs every shard has, with the same value (Hugging Face
         * writes {@code format=pt} into each); the file's own for one file}
         */
        public Map<String, String> metadata() {
            Map<String, String> common = new LinkedHashMap<>(files.getFirst().metadata());
            for (SafetensorsFile f : files) {
                common.entrySet().removeIf(e -> !e.getValue().equals(f.metadata().get(e.getKey())));
            }
            return Collections.unmodifiableMap(common);
        }

        /**
         * {@return the index's {@code metadata} object, values as JSON gives them ({@code Long} for
         * {@code total_size}, {@code String} for others); empty for one file}
         */
        public Map<String, Object> indexMetadata() {
            return indexMetadata;
        }

        /** {@return the bytes of all tensors' data, what Hugging Face's {@code total_size} counts} */
        public long byteSize() {
            long sum = 0;
            for (Tensor t : tensors.values()) {
                sum = Math.addExact(sum, t.byteSize());
            }
            return sum;
        }

        /** Closes every shard; closing twice does nothing. */
        @Override
        public void close() {
            RuntimeException first = null;
            for (SafetensorsFile f : files) {
                try {
                    f.close();
                } catch (RuntimeException e) {
                    if (first == null) {
                        first = e;
                    } else {
                        first.addSuppressed(e);
                    }
                }
            }
            if (first != null) {
                throw first;
            }
        }

        @Override
        public String toString() {
            return file + ": " + tensors.size() + " tensors in " + files.size() + (files.size() == 1 ? " file" : " files");
        }

        /**
         * How {@code huggingface_hub} splits a state dict into shards
         * ({@code split_state_dict_into_shards_factory}): tensors in the state dict's order fill the
         * current shard until the next would take it past the limit, which starts a new shard; a
         * tensor larger than the limit gets a shard of its own, placed where it is met, and the shard
         * being filled continues after it. No reordering to fill shards better.
         * {@snippet :
         * // sizes 6, 6, 2, 6, 2, 2 (GB) with a 10 GB limit:
         * Split.of(sizes, 10_000_000_000L).shards();   // [[a], [b, c], [d, e, f]]
         * // with 5 GB each 6 GB tensor gets a shard where it is met, ahead of the shard being filled:
         * Split.of(sizes, 5_000_000_000L).shards();    // [[a], [b], [d], [c, e], [f]]
         * }
         *
         * @param shards the tensor names of each shard, in file order
         * @param totalSize the sum of the tensors' bytes ({@code total_size})
         */
        public record Split(List<List<String>> shards, long totalSize) {
            /** Copies the lists. */
            public Split {
                shards = shards.stream().map(List::copyOf).toList();
            }

            /**
             * {@return the split of tensors of these byte sizes, in the map's iteration order}
             *
             * @throws IllegalArgumentException if {@code maxShardBytes <= 0}, a size is negative, or the map is empty
             */
            public static Split of(Map<String, Long> byteSizes, long maxShardBytes) {
                if (maxShardBytes <= 0) {
                    throw new IllegalArgumentException("the largest shard must be > 0 bytes, got " + maxShardBytes);
                }
                if (byteSizes.isEmpty()) {
                    throw new IllegalArgumentException("a checkpoint needs at least one tensor");
                }
                List<List<String>> shards = new ArrayList<>();
                List<String> current = new ArrayList<>();
                long currentBytes = 0;
                long total = 0;
                for (Map.Entry<String, Long> e : byteSizes.entrySet()) {
                    long bytes = e.getValue();
                    if (bytes < 0) {
                        throw new IllegalArgumentException("tensor '" + e.getKey() + "' has " + bytes + " bytes");
                    }
                    total = Math.addExact(total, bytes);
                    if (bytes > maxShardBytes) {
                        shards.add(List.of(e.getKey()));
                        continue;
                    }
                    if (currentBytes + bytes > maxShardBytes) {
                        shards.add(current);
                        current = new ArrayList<>();
                        currentBytes = 0;
                    }
                    current.add(e.getKey());
                    currentBytes += bytes;
                }
                if (!current.isEmpty()) {
                    shards.add(current);
                }
                return new Split(shards, total);
            }

            /** {@return the shard file names: {@code model.safetensors} for one, else {@code model-00001-of-00003.safetensors}...} */
            public List<String> fileNames() {
                int n = shards.size();
                if (n == 1) {
                    return List.of("model.safetensors");
                }
                List<String> names = new ArrayList<>(n);
                for (int i = 1; i <= n; i++) {
                    names.add(String.format(Locale.ROOT, "model-%05d-of-%05d.safetensors", i, n));
                }
                return names;
            }

            /** {@return each tensor's shard file, shard by shard: the index's {@code weight_map}} */
            public Map<String, String> weightMap() {
                Map<String, String> map = new LinkedHashMap<>();
                List<String> names = fileNames();
                for (int i = 0; i < shards.size(); i++) {
                    for (String t : shards.get(i)) {
                        map.put(t, names.get(i));
                    }
                }
                return map;
            }
        }

        /**
         * Writes tensors into {@code folder} as {@code save_torch_state_dict} does: split by
         * {@link Split} in the map's iteration order (pass a {@code LinkedHashMap} to choose it), each
         * shard a safetensors file with {@code metadata} as its {@code __metadata__}, and, for more than
         * one shard, {@value #INDEX_FILE} with {@code total_size} then {@code metadata} in its
         * {@code metadata}, the bytes of Python's {@code json.dump(index, f, indent=2)}. Every file is
         * replaced only once complete; then the files of an earlier save into the folder that this one
         * did not write ({@code model.safetensors}, {@code model-0000i-of-0000n.safetensors}, the index)
         * are deleted, as {@code save_torch_state_dict} deletes them, so that no loader picks up a stale
         * index or shard.
         *
         * @return the file to {@link #open}: the index, or {@code model.safetensors} for one shard
         * @throws IllegalArgumentException as {@link SafetensorsFile#write(Path, Map, Map)}, as
         *     {@link Split#of}, or if {@code metadata} has a {@code total_size} key
         * @throws IOException if a file cannot be written
         */
        public static Path write(Path folder, Map<String, DenseTensor> tensors, Map<String, String> metadata, long maxShardBytes)
                throws IOException {
            Objects.requireNonNull(tensors, "tensors");
            Map<String, ArrayShape> shapes = new LinkedHashMap<>();
            Map<String, DenseTensor.DataWriter> data = new LinkedHashMap<>();
            tensors.forEach((name, t) -> {
                shapes.put(name, ArrayShape.of(t.dtype(), dev.tensorbuf.views.internal.Extents.toArray(t.dims())));
                data.put(name, channel -> writeAll(channel, t.bytes()));
            });
            return write(folder, shapes, metadata, data, maxShardBytes);
        }

        private static void writeAll(java.nio.channels.WritableByteChannel channel, java.lang.foreign.MemorySegment bytes)
                throws IOException {
            // A ByteBuffer holds at most 2 GiB.
            for (long done = 0; done < bytes.byteSize(); ) {
                long n = Math.min(1L << 30, bytes.byteSize() - done);
                ByteBuffer piece = bytes.asSlice(done, n).asByteBuffer();
                while (piece.hasRemaining()) {
                    channel.write(piece);
                }
                done += n;
            }
        }

        /**
         * Writes tensors of these types and dims as {@link #write(Path, Map, Map, long)} does, each
         * tensor's data written by its {@link DenseTensor.DataWriter}, so that no buffer of a whole tensor is needed.
         *
         * @throws IllegalArgumentException as {@link #write(Path, Map, Map, long)}, or if a tensor has no writer
         * @throws IOException if a file cannot be written, or as a writer throws
         */
        public static Path write(Path folder, Map<String, ArrayShape> tensors, Map<String, String> metadata,
                Map<String, DenseTensor.DataWriter> data, long maxShardBytes) throws IOException {
            Objects.requireNonNull(folder, "folder");
            Objects.requireNonNull(metadata, "metadata");
            if (metadata.containsKey("total_size")) {
                throw new IllegalArgumentException("metadata key 'total_size' is the index's own (the tensors' bytes)");
            }
            Map<String, Long> sizes = new LinkedHashMap<>();
            tensors.forEach((name, shape) -> {
                Objects.requireNonNull(data.get(name), () -> "tensor '" + name + "' has no DenseTensor.DataWriter");
                String what = DenseTensor.describe(shape.dtype(), shape.dims());
                try {
                    sizes.put(name, Sizes.byteSize(shape.dtype(), Sizes.elementCount(shape.dims(), what), what));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("tensor '" + name + "': " + e.getMessage(), e);
                }
            });
            Split split = Split.of(sizes, maxShardBytes);
            List<String> names = split.fileNames();
            for (int i = 0; i < names.size(); i++) {
                Map<String, ArrayShape> shard = new LinkedHashMap<>();
                for (String t : split.shards().get(i)) {
                    shard.put(t, tensors.get(t));
                }
                SafetensorsFile.write(folder.resolve(names.get(i)), shard, metadata, data);
            }
            Set<String> written = new HashSet<>(names);
            Path result = folder.resolve(names.getFirst());
            if (names.size() > 1) {
                Map<String, Object> indexMetadata = new LinkedHashMap<>();
                indexMetadata.put("total_size", split.totalSize());
                indexMetadata.putAll(metadata);
                byte[] index = SafetensorsIndex.write(indexMetadata, split.weightMap());
                result = folder.resolve(INDEX_FILE);
                FileReplacement.write(result, where -> Files.write(where, index));
                written.add(INDEX_FILE);
            }
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
                for (Path p : entries) {
                    String name = p.getFileName().toString();
                    if (SAVED.matcher(name).matches() && !written.contains(name)) {
                        Files.deleteIfExists(p);
                    }
                }
            }
            return result;
        }
    }
}
