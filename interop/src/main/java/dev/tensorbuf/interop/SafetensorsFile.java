package dev.tensorbuf.interop;

import dev.tensorbuf.interop.internal.CountedWrites;
import dev.tensorbuf.interop.internal.Errors;
import dev.tensorbuf.interop.internal.FileMapping;
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
    private final Map<String, SafetensorsTensor> tensors;
    private final boolean writable;

    private SafetensorsFile(Path file, MemoryBuffer mapping, long headerByteSize, Map<String, String> metadata,
            Map<String, SafetensorsTensor> tensors, boolean writable) {
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
        Map<String, SafetensorsTensor> tensors = new LinkedHashMap<>();
        try {
            for (SafetensorsCodec.Entry e : header.entries()) {
                long offset = dataStart + e.begin();
                long bytes = e.end() - e.begin();
                tensors.put(e.name(), new SafetensorsTensor(e.name(), e.dtype(), e.shape(), offset, bytes,
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
     * once the new one is complete ({@link FileReplacement}: a failure leaves the old file, a link
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
            try (FileChannel channel = FileChannel.open(where, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                writeHeader(channel, plan.header());
                for (Map.Entry<String, DenseTensor> e : plan.ordered()) {
                    Npy.writeSegment(channel, e.getValue().bytes());
                }
            }
        });
    }

    /**
     * Writes a safetensors file of tensors of these types and dims, each tensor's data written by
     * its {@link DataWriter} in the file's order, so that no buffer of a whole tensor is needed;
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
            Map<String, DataWriter> data) throws IOException {
        Objects.requireNonNull(tensors, "tensors");
        Objects.requireNonNull(data, "data");
        for (String name : tensors.keySet()) {
            if (!data.containsKey(name)) {
                throw new IllegalArgumentException("tensor '" + name + "' has no DataWriter; writers are given for "
                        + data.keySet());
            }
        }
        Plan<ArrayShape> plan = plan(tensors, metadata, ArrayShape::dtype, ArrayShape::dims, SafetensorsFile::byteSize);
        FileReplacement.write(file, where -> {
            try (FileChannel channel = FileChannel.open(where, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
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
     * writing: fill each tensor's {@link SafetensorsTensor#data()} (zeros until then), then
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
    public List<SafetensorsTensor> tensors() {
        return List.copyOf(tensors.values());
    }

    /**
     * {@return the tensor of this name}
     *
     * @throws IllegalArgumentException naming the missing name and (up to 10 of) the names there are
     * @throws IllegalStateException if the file is closed
     */
    public SafetensorsTensor tensor(String name) {
        if (!mapping.isAlive()) {
            throw Errors.closed(file);
        }
        SafetensorsTensor t = tensors.get(name);
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
        for (SafetensorsTensor t : tensors.values()) {
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
}
