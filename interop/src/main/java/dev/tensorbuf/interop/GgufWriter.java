package dev.tensorbuf.interop;

import dev.tensorbuf.interop.DenseTensor.DataWriter;
import dev.tensorbuf.interop.internal.CountedWrites;
import dev.tensorbuf.interop.internal.FileReplacement;
import dev.tensorbuf.interop.internal.GgufCodec;
import dev.tensorbuf.interop.internal.Sizes;
import dev.tensorbuf.interop.json.Json;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Writes GGUF version 3 files, little-endian, as gguf-py's {@code GGUFWriter} lays them out: the
 * header (magic, version, counts, metadata in the map's order, tensor infos in the list's order),
 * zeros to the alignment, then each tensor's bytes padded with zeros to the alignment. The
 * alignment is {@code general.alignment} when the metadata has it (a UINT32 power of two), else 32;
 * in a regular file, padding longer than 64 KiB is left a hole, which reads as zeros. Tensors are given with logical row-major dims (outermost first) and their bytes as ggml stores
 * them (row-major; block types as whole blocks along the innermost dim); the infos list the dims
 * innermost first, as GGUF does.
 * {@snippet :
 * MemorySegment w = Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2, 3, 4, 5, 6);
 * GgufWriter.write(Path.of("m.gguf"),
 *         Map.of("general.architecture", GgufValue.string("llama")),
 *         List.of(GgufWriter.tensor("w", GgmlType.F32, List.of(2L, 3L), w)));
 * // tensor info of "w": n_dims 2, ne [3, 2], type 0, offset 0
 * }
 */
public final class GgufWriter {
    private GgufWriter() {
    }

    /**
     * One tensor to write.
     *
     * @param name its name
     * @param type its ggml type
     * @param dims logical dims, outermost first; at most 4
     * @param byteSize its bytes, as {@code type.byteSize(elementCount)}
     * @param data writes exactly {@code byteSize} bytes
     */
    public record Tensor(String name, GgmlType type, List<Long> dims, long byteSize, DataWriter data) {
        /** @throws IllegalArgumentException if the dims do not fit the type, or the size is not the dims' */
        public Tensor {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(data, "data");
            dims = List.copyOf(dims);
            long expected = GgufWriter.byteSize(name, type, dims);
            if (expected != byteSize) {
                throw new IllegalArgumentException("tensor '" + name + "' " + type + dims + " needs " + expected
                        + " bytes, the data has " + byteSize);
            }
        }
    }

    /**
     * {@return the bytes of a tensor of this type and these logical dims}
     *
     * @throws IllegalArgumentException if there are more than 4 dims, the innermost is not a
     *     multiple of the type's block, or the size overflows
     */
    public static long byteSize(String name, GgmlType type, List<Long> dims) {
        String who = "tensor '" + name + "' " + type + dims;
        if (dims.size() > GgufCodec.MAX_DIMS) {
            throw new IllegalArgumentException(who + " has " + dims.size() + " dims; GGUF readers (ggml) allow at most "
                    + GgufCodec.MAX_DIMS);
        }
        long count = Sizes.elementCount(dims, who);
        long inner = dims.isEmpty() ? 1 : dims.getLast();
        if (inner % type.blockValues() != 0) {
            throw new IllegalArgumentException(who + ": the innermost dim " + inner + " is not a multiple of the type's"
                    + " block of " + type.blockValues() + " values");
        }
        try {
            return type.byteSize(count);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(who + ": " + e.getMessage(), e);
        }
    }

    /** {@return a tensor whose bytes are {@code bytes}} @throws IllegalArgumentException as {@link Tensor} does */
    public static Tensor tensor(String name, GgmlType type, List<Long> dims, MemorySegment bytes) {
        return new Tensor(name, type, dims, bytes.byteSize(), channel -> {
            for (long done = 0; done < bytes.byteSize(); ) {
                int n = (int) Math.min(1 << 30, bytes.byteSize() - done);
                ByteBuffer chunk = bytes.isNative() ? bytes.asSlice(done, n).asByteBuffer()
                        : ByteBuffer.wrap(bytes.asSlice(done, n).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
                while (chunk.hasRemaining()) {
                    channel.write(chunk);
                }
                done += n;
            }
        });
    }

    /**
     * Writes the file, replacing any file there once the new one is complete
     * ({@link FileReplacement}).
     *
     * @param metadata key-values in the order to write them
     * @param tensors in the order to write them
     * @throws IllegalArgumentException if a name repeats or has an unpaired surrogate, or
     *     {@code general.alignment} is not a UINT32 power of two
     * @throws IllegalStateException if a tensor's writer writes other than its byte count
     * @throws IOException if the file cannot be written
     */
    public static void write(Path file, Map<String, GgufValue> metadata, List<Tensor> tensors) throws IOException {
        Objects.requireNonNull(metadata, "metadata");
        long alignment = GgufCodec.DEFAULT_ALIGNMENT;
        GgufValue a = metadata.get(GgufCodec.ALIGNMENT_KEY);
        if (a != null) {
            if (a.type() != GgufValue.Type.UINT32 || Long.bitCount((Long) a.value()) != 1) {
                throw new IllegalArgumentException(GgufCodec.ALIGNMENT_KEY + " " + a + " is not a UINT32 power of two");
            }
            alignment = (Long) a.value();
        }
        for (String key : metadata.keySet()) {
            checkText(key, "metadata key");
            checkStrings(metadata.get(key).value(), "metadata '" + key + "'");
        }
        Set<String> names = new HashSet<>();
        List<GgufCodec.Info> infos = new ArrayList<>();
        long offset = 0;
        for (Tensor t : tensors) {
            checkText(t.name(), "tensor name");
            if (!names.add(t.name())) {
                throw new IllegalArgumentException("duplicate tensor name '" + t.name() + "'");
            }
            long[] ggufDims = new long[t.dims().size()];
            for (int d = 0; d < ggufDims.length; d++) {
                ggufDims[d] = t.dims().get(ggufDims.length - 1 - d);
            }
            infos.add(new GgufCodec.Info(t.name(), ggufDims, t.type(), offset, -1));
            offset = GgufCodec.alignUp(Math.addExact(offset, t.byteSize()), alignment);
        }
        byte[] header = GgufCodec.write(3, metadata, infos);
        long headerPadded = GgufCodec.alignUp(header.length, alignment);
        long align = alignment;
        FileReplacement.write(file, where -> {
            boolean seekable = Files.isRegularFile(where);
            try (FileChannel channel = FileReplacement.open(where)) {
                Npy.writeFully(channel, ByteBuffer.wrap(header));
                writeZeros(channel, headerPadded - header.length, seekable);
                for (Tensor t : tensors) {
                    CountedWrites counted = new CountedWrites(channel, t.byteSize(), "tensor '" + t.name() + "' of " + file);
                    t.data().write(counted);
                    counted.finish();
                    long pad = GgufCodec.alignUp(t.byteSize(), align) - t.byteSize();
                    writeZeros(channel, pad, seekable);
                }
            }
        });
    }

    /** Padding up to this many bytes is written as zeros; longer padding in a regular file is a hole. */
    private static final int WRITTEN_PADDING = 1 << 16;

    /**
     * Writes {@code n} zero bytes. {@code general.alignment} may be any power of two up to 2^31,
     * so padding is never one array of its size (fuzzing found a file asking for 2^30, which ran
     * the heap out): in a regular file padding past {@link #WRITTEN_PADDING} is skipped, leaving a
     * hole that reads as zeros and takes no disk, ended by one zero written; elsewhere (a pipe)
     * zeros are written a bounded buffer at a time.
     */
    private static void writeZeros(FileChannel channel, long n, boolean seekable) throws IOException {
        if (seekable && n > WRITTEN_PADDING) {
            channel.position(Math.addExact(channel.position(), n - 1));
            Npy.writeFully(channel, ByteBuffer.allocate(1));
            return;
        }
        ByteBuffer zeros = ByteBuffer.allocate((int) Math.min(n, WRITTEN_PADDING));
        for (long left = n; left > 0; left -= zeros.capacity()) {
            zeros.clear().limit((int) Math.min(left, zeros.capacity()));
            Npy.writeFully(channel, zeros);
        }
    }

    private static void checkStrings(Object value, String what) {
        if (value instanceof String s) {
            checkText(s, what);
        } else if (value instanceof GgufValue.Array arr) {
            for (Object item : arr.items()) {
                checkStrings(item, what);
            }
        }
    }

    private static void checkText(String s, String what) {
        int bad = Json.unpairedSurrogate(s);
        if (bad >= 0) {
            throw new IllegalArgumentException(String.format("%s '%s' has an unpaired surrogate U+%04X at char %d, which"
                    + " UTF-8 cannot encode", what, s, (int) s.charAt(bad), bad));
        }
    }
}
