package dev.tensorbuf.interop;

import dev.tensorbuf.interop.internal.Errors;
import dev.tensorbuf.interop.internal.FileMapping;
import dev.tensorbuf.interop.internal.GgufCodec;
import dev.tensorbuf.interop.internal.Sizes;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A GGUF file (version 2 or 3, little-endian), memory-mapped read-only: its metadata key-values
 * and its tensors as slices of the mapping. Offsets and sizes are longs throughout: files past
 * 4 GiB and tensors past 2 GiB are read in place, and opening one touches only the header's pages.
 * Closing the file unmaps it and ends every tensor's buffer.
 *
 * <p><b>Dims.</b> GGUF lists a tensor's dims innermost first ({@code ne[0]} is the row length);
 * {@link GgufTensor#dims()} gives them once converted to logical row-major order, outermost
 * first, as every other tensorbuf API has them ({@link GgufTensor#ggufDims()} keeps the file's).
 *
 * <p><b>Rules enforced on open</b>, each refused with {@link IllegalArgumentException} naming the
 * file, the offset and the numbers: the magic {@code GGUF}; version 2 or 3 (version 1 and
 * big-endian files are refused by name); every count, string length and array length fits in the
 * bytes left (so a truncated file, or a length past its end, is refused before anything is
 * allocated); value type ids 0 to 12 and booleans 0 or 1; keys and strings valid UTF-8; no
 * duplicate key or tensor name; {@code general.alignment}, if present, a UINT32 power of two
 * (default 32); at most 4 dims ({@code GGML_MAX_DIMS}), each below 2^63, whose product fits a long;
 * known ggml type ids (unknown and removed ones named); the innermost dim a multiple of the type's
 * block; each tensor's offset a multiple of the alignment, its bytes inside the file, and no two
 * tensors overlapping.
 * {@snippet :
 * try (GgufFile f = GgufFile.open(Path.of("tiny.gguf"))) {
 *     f.version();                                  // 3
 *     f.metadata().get("general.architecture");     // STRING llama
 *     f.alignment();                                // 32
 *     f.tensor("blk.0.attn_q.weight").type();       // Q4_K
 *     f.tensor("nope");                             // IllegalArgumentException: "no tensor 'nope' in tiny.gguf; it has [...]"
 * }
 * }
 */
public final class GgufFile implements AutoCloseable {
    private final Path file;
    private final MemoryBuffer mapping;
    private final int version;
    private final long alignment;
    private final long dataOffset;
    private final Map<String, GgufValue> metadata;
    private final Map<String, GgufTensor> tensors;

    private GgufFile(Path file, MemoryBuffer mapping, GgufCodec.Header header, Map<String, GgufTensor> tensors) {
        this.file = file;
        this.mapping = mapping;
        this.version = header.version();
        this.alignment = header.alignment();
        this.dataOffset = header.dataStart();
        this.metadata = Collections.unmodifiableMap(header.metadata());
        this.tensors = Collections.unmodifiableMap(tensors);
    }

    /**
     * {@return the file, mapped and checked}
     *
     * @throws IllegalArgumentException naming the file and the rule it breaks
     * @throws IOException if the file cannot be read or mapped
     */
    public static GgufFile open(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size < 24) {
                throw Errors.tooShort(file.toString(), size, "a GGUF file (magic, version and two counts: 24)");
            }
            MemoryBuffer mapping = FileMapping.map(channel, 0, size, "mapped " + file.getFileName());
            try {
                return build(file, mapping);
            } catch (RuntimeException e) {
                mapping.close();
                throw e;
            }
        }
    }

    private static GgufFile build(Path file, MemoryBuffer mapping) {
        String name = file.toString();
        MemoryBuffer view = mapping.asReadOnly();
        GgufCodec.Header header = GgufCodec.read(view.segment(), name);
        long size = view.segment().byteSize();
        long available = Math.max(0, size - header.dataStart());
        record Placed(GgufCodec.Info info, List<Long> dims, long bytes) {
        }
        List<Placed> placed = new ArrayList<>();
        for (GgufCodec.Info info : header.infos()) {
            String who = name + ": tensor '" + info.name() + "'";
            List<Long> dims = new ArrayList<>();
            for (int d = info.ggufDims().length - 1; d >= 0; d--) {
                dims.add(info.ggufDims()[d]);
            }
            long count = Sizes.elementCount(dims, who + " " + info.type() + dims);
            int block = info.type().blockValues();
            long inner = info.ggufDims().length == 0 ? 1 : info.ggufDims()[0];
            if (inner % block != 0) {
                throw new IllegalArgumentException(who + " is " + info.type() + dims + ": its innermost dim " + inner
                        + " is not a multiple of the type's block of " + block + " values");
            }
            long bytes;
            try {
                bytes = info.type().byteSize(count);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(who + ": " + e.getMessage(), e);
            }
            if (info.offset() % header.alignment() != 0) {
                throw new IllegalArgumentException(who + " has data offset " + Long.toUnsignedString(info.offset())
                        + ", not a multiple of the alignment " + header.alignment());
            }
            if (info.offset() < 0 || info.offset() > available || bytes > available - info.offset()) {
                throw new IllegalArgumentException(who + " (" + bytes + " bytes at data offset "
                        + Long.toUnsignedString(info.offset()) + ") runs past the end of the file: the data section"
                        + " starts at " + header.dataStart() + " and holds " + available + " bytes (file " + size + ")");
            }
            placed.add(new Placed(info, dims, bytes));
        }
        List<Placed> byOffset = new ArrayList<>(placed);
        byOffset.sort(Comparator.comparingLong((Placed p) -> p.info().offset()).thenComparingLong(Placed::bytes));
        for (int i = 1; i < byOffset.size(); i++) {
            Placed a = byOffset.get(i - 1);
            Placed b = byOffset.get(i);
            if (a.bytes() > 0 && b.bytes() > 0 && b.info().offset() < a.info().offset() + a.bytes()) {
                throw new IllegalArgumentException(name + ": tensors '" + a.info().name() + "' (data bytes ["
                        + a.info().offset() + ", " + (a.info().offset() + a.bytes()) + ")) and '" + b.info().name()
                        + "' ([" + b.info().offset() + ", " + (b.info().offset() + b.bytes()) + ")) overlap");
            }
        }
        Map<String, GgufTensor> tensors = new LinkedHashMap<>();
        try {
            for (Placed p : placed) {
                if (tensors.containsKey(p.info().name())) {
                    throw new IllegalArgumentException(name + ": duplicate tensor name '" + p.info().name()
                            + "' (tensor info at offset " + p.info().at() + ")");
                }
                long at = header.dataStart() + p.info().offset();
                tensors.put(p.info().name(), new GgufTensor(p.info().name(), p.info().type(), p.dims(), p.info().offset(),
                        at, p.bytes(), tensorBuffer(view, mapping, at, p.bytes(), p.info().name(), file), file));
            }
        } catch (RuntimeException x) {
            tensors.values().forEach(t -> t.data().close());
            throw x;
        }
        return new GgufFile(file, mapping, header, tensors);
    }

    /** A buffer of the tensor's own, holding the mapping until it closes (as SafetensorsFile's tensors do). */
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

    /** {@return the file this was opened from} */
    public Path file() {
        return file;
    }

    /** {@return the GGUF version: 2 or 3} */
    public int version() {
        return version;
    }

    /** {@return the alignment of the data section and of every tensor's offset} */
    public long alignment() {
        return alignment;
    }

    /** {@return the file offset of the data section} */
    public long dataOffset() {
        return dataOffset;
    }

    /** {@return the metadata key-values, in the file's order} */
    public Map<String, GgufValue> metadata() {
        return metadata;
    }

    /** {@return the tensor names, in the order of the tensor infos} */
    public List<String> names() {
        return List.copyOf(tensors.keySet());
    }

    /** {@return every tensor, in the order of the tensor infos} */
    public List<GgufTensor> tensors() {
        return List.copyOf(tensors.values());
    }

    /**
     * {@return the tensor of this name}
     *
     * @throws IllegalArgumentException naming the missing name and (up to 10 of) the names there are
     * @throws IllegalStateException if the file is closed
     */
    public GgufTensor tensor(String name) {
        if (!mapping.isAlive()) {
            throw Errors.closed(file);
        }
        GgufTensor t = tensors.get(name);
        if (t == null) {
            throw Errors.noTensor(name, file, names());
        }
        return t;
    }

    /** Unmaps the file; every tensor's buffer stops working. Closing twice does nothing. */
    @Override
    public void close() {
        for (GgufTensor t : tensors.values()) {
            t.data().close();
        }
        mapping.close();
    }

    @Override
    public String toString() {
        return file + ": GGUF v" + version + ", " + metadata.size() + " metadata keys, " + tensors.size() + " tensors";
    }
}
