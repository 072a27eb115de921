package dev.tensorbuf.cli;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.internal.FileReplacement;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.net.ArrowTensors;
import dev.tensorbuf.net.FixedShapeTensorType;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaLayout;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * Tensor files as {@code convert} and {@code run} read and write them, the format chosen by the
 * file's extension: {@code .npy}, {@code .safetensors} (or a sharded checkpoint's
 * {@code *.safetensors.index.json}), {@code .arrow}, raw bytes otherwise. One place decides
 * which types each format holds, so both commands refuse the same files with the same advice,
 * and before any work is done.
 *
 * {@snippet :
 * TensorFiles.Format f = TensorFiles.formatOf(Path.of("o.npy"));   // NPY
 * TensorFiles.requireWritable(Path.of("o.npy"), DType.BF16, "ROOT o", "...");   // fine: '<V2', as ml_dtypes saves it
 * TensorFiles.requireWritable(Path.of("o.npy"), DType.F8E5M2, "ROOT o", "convert it to another type in the module");
 * // throws UsageException: "ROOT o is f8e5m2, which tensorbuf does not write to .npy (ml_dtypes saves
 * // float8_e5m2 as '<f1', which np.load cannot read); write o.safetensors instead, which holds f8e5m2"
 * }
 */
final class TensorFiles {
    /** A FileChannel write takes a ByteBuffer, at most 2 GiB; pieces also pace the progress bar. */
    private static final int WRITE_PIECE_BYTES = 64 << 20;

    private TensorFiles() {}

    /** A file format, from the file's extension. */
    enum Format {
        NPY, SAFETENSORS, RAW,
        /**
         * An Arrow IPC file ({@code .arrow}, or {@code .feather}: Feather V2 is that file format;
         * read as a file or a stream, written as a file) or stream ({@code .arrows}, written as a
         * stream): one arrow.fixed_shape_tensor column per tensor.
         */
        ARROW,
        /** A NumPy {@code .npz} archive ({@code np.savez}, {@code np.savez_compressed}), read only: one tensor a member. */
        NPZ;

        /** {@return the name people know it by: "npy", "safetensors", "raw", "arrow"} */
        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** An opened tensor: a read-only view over its bytes, its name, and what frees them. */
    record Opened(TensorView view, String name, AutoCloseable owner) {
    }

    static Format formatOf(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        return name.endsWith(".npy") ? Format.NPY
                : name.endsWith(".safetensors") || SafetensorsFile.Checkpoint.isIndex(file) ? Format.SAFETENSORS
                : name.endsWith(".arrow") || name.endsWith(".arrows") || name.endsWith(".feather") ? Format.ARROW
                : name.endsWith(".npz") ? Format.NPZ : Format.RAW;
    }

    /**
     * Checks that {@code file}'s format holds {@code dtype}, so a command fails before it reads or
     * copies anything rather than after.
     *
     * @param what names the tensor in the message, e.g. {@code "ROOT o"} or {@code "the output"}
     * @param otherwise the advice when neither the format asked for nor safetensors holds the type (s4 asked
     *     for as safetensors, 6-bit types)
     * @throws UsageException naming the type and a format that holds it
     */
    static void requireWritable(Path file, DType dtype, String what, String otherwise) {
        if (formatOf(file) == Format.NPZ) {
            throw new UsageException(file + ": tensorbuf reads .npz archives but does not write them; write a .npy,"
                    + " or a .safetensors file for several tensors");
        }
        requireIndexName(file);
        Format format = formatOf(file);
        boolean safetensorsHolds = dtype.safetensorsName().isPresent() && !packsUnevenly(dtype);
        // Npy.write writes bf16, f8 and 1-, 2- and 4-bit types as np.save writes ml_dtypes arrays; what it
        // refuses is refused here, for its reason, before anything is read.
        Optional<String> npyRefuses = Npy.whyNotWritable(dtype);
        if (format == Format.NPY && npyRefuses.isPresent()) {
            throw new UsageException(what + " is " + dtype + ", which tensorbuf does not write to .npy ("
                    + npyRefuses.get() + "); " + (safetensorsHolds
                            ? "write " + sibling(file, ".safetensors") + " instead, which holds " + dtype
                            : otherwise));
        }
        if (format == Format.SAFETENSORS && dtype.safetensorsName().isEmpty()) {
            throw new UsageException(what + " is " + dtype + ", which safetensors has no dtype for; " + otherwise);
        }
        if (format == Format.ARROW) {
            try {
                FixedShapeTensorType.of(dtype, List.of()).field("x");
            } catch (IllegalArgumentException e) {
                throw new UsageException(what + " is " + dtype + ", which an .arrow file cannot hold (" + e.getMessage()
                        + "); " + (safetensorsHolds ? "write " + sibling(file, ".safetensors") + " instead, which holds "
                        + dtype : otherwise));
            }
        }
        if (format == Format.SAFETENSORS && packsUnevenly(dtype)) {
            throw new UsageException(what + " is " + dtype + ", which safetensors (" + dtype.safetensorsName().orElseThrow()
                    + ") " + PACKED_SIX_BITS + "; " + otherwise);
        }
    }

    /**
     * {@link #requireWritable(Path, DType, String, String)} for a tensor of this shape, which also
     * refuses, before any copy, a sub-byte safetensors tensor that does not end on a byte
     * ({@code f4e2m1fn[3]}), as the reference reader refuses it, and a {@code .npy} whose dims
     * {@code np.load} refuses.
     *
     * @throws UsageException naming the type, or the shape and its bit count
     */
    static void requireWritable(Path file, ArrayShape shape, String what, String otherwise) {
        requireWritable(file, shape.dtype(), what, otherwise); // the type's refusals, in this command's words
        Optional<String> refused = switch (formatOf(file)) {
            case SAFETENSORS -> SafetensorsFile.whyNotWritable(shape);
            // Dims np.load refuses (more than 64, or a byte count past its intp even when empty).
            case NPY -> Npy.whyNotWritable(shape);
            // A column's rows are dim 0: a scalar has none.
            case ARROW -> shape.rank() == 0 ? Optional.of("an .arrow column holds rows along dim 0, which a scalar has not")
                    : Optional.empty();
            default -> Optional.empty();
        };
        if (refused.isPresent()) {
            throw new UsageException(what + " is " + shape.withoutLayout() + ": " + refused.get() + "; " + otherwise);
        }
    }

    /**
     * {@return {@code shape} as {@code file} holds it once written in C order} A {@code .npy} holds
     * sub-byte elements one to a byte, as ml_dtypes saves them ({@code s4[5]{0}}), where safetensors
     * packs them ({@code s4[6]{0:E(4)}}); {@code shape} is the packed C-order shape written.
     */
    static ArrayShape asWritten(Path file, ArrayShape shape) {
        return formatOf(file) == Format.NPY && shape.dtype().isSubByte()
                ? shape.withLayout(XlaLayout.descending(shape.rank())) : shape;
    }

    /**
     * Why 6-bit tensors of a safetensors file are not converted: the format gives their size
     * (four elements to three bytes) but neither it nor ml_dtypes (one element to a byte) says
     * where each element's bits go, so any order tensorbuf picked could silently scramble values.
     */
    private static final String PACKED_SIX_BITS = "packs four to three bytes in a bit order neither safetensors nor"
            + " ml_dtypes defines, so tensorbuf does not unpack or pack them";

    /** {@return whether the type's elements are narrower than a byte and do not divide it (the 6-bit floats)} */
    static boolean packsUnevenly(DType type) {
        return type.isSubByte() && 8 % type.bitWidth() != 0;
    }

    /**
     * Checks that tensorbuf can read the values of safetensors tensor {@code t}, not only copy its bytes.
     *
     * @throws UsageException for a 6-bit tensor, naming it and what can be done with it
     */
    static void requireReadable(Path file, SafetensorsFile.Tensor t) {
        if (packsUnevenly(t.dtype())) {
            throw new UsageException(file + ": tensor '" + t.name() + "' is " + t.dtype() + " ("
                    + t.dtype().safetensorsName().orElseThrow() + "), which safetensors " + PACKED_SIX_BITS
                    + "; its bytes are copied unchanged only when a whole file converts into a .safetensors file"
                    + " without changing its type");
        }
    }

    /** A zip file's local header: {@code np.savez} writes one, and so does {@code torch.save} since PyTorch 1.6. */
    private static final byte[] ZIP_MAGIC = {'P', 'K', 3, 4};
    private static final List<String> ARCHIVE_EXTENSIONS = List.of(".npz", ".pt", ".pth", ".zip");

    /**
     * Refuses a zip archive with what to do instead. Without this an {@code .npz} read as
     * safetensors failed on a header length of 193 GB, and read as raw it asked for
     * {@code --from-layout}, inviting the user to reinterpret the archive's bytes.
     *
     * @param declaredRaw whether the user named the bytes' layout: raw data may start with the
     *     magic by chance, so then only an archive's name ({@code .npz}, {@code .pt}...) is refused
     * @throws UsageException naming the file as a zip archive
     */
    static void refuseArchive(Path file, boolean declaredRaw) throws IOException {
        if (formatOf(file) == Format.NPZ) {
            return;
        }
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (declaredRaw && ARCHIVE_EXTENSIONS.stream().noneMatch(name::endsWith)) {
            return;
        }
        byte[] head;
        try (InputStream s = Files.newInputStream(file)) {
            head = s.readNBytes(ZIP_MAGIC.length);
        }
        if (Arrays.equals(head, ZIP_MAGIC)) {
            throw new UsageException(file + " is a zip archive (.npz or torch.save): tensorbuf reads an .npz named so;"
                    + " save a torch.save model with safetensors");
        }
    }

    /**
     * Refuses a sharded output index named other than {@value SafetensorsFile.Checkpoint#INDEX_FILE}:
     * its shards are {@code model-0000i-of-0000n.safetensors}, as Hugging Face names them, and
     * loaders look for the index by that name.
     */
    static void requireIndexName(Path file) {
        if (SafetensorsFile.Checkpoint.isIndex(file) && !file.getFileName().toString().equals(SafetensorsFile.Checkpoint.INDEX_FILE)) {
            throw new UsageException(file + ": a sharded checkpoint written here is named " + SafetensorsFile.Checkpoint.INDEX_FILE
                    + ", beside its shards model-00001-of-0000N.safetensors, as Hugging Face names them; write "
                    + file.resolveSibling(SafetensorsFile.Checkpoint.INDEX_FILE));
        }
    }

    /**
     * Writes safetensors tensors: one file, or for {@code file} an index, a sharded checkpoint in
     * its folder split at {@code maxShardBytes} ({@link SafetensorsFile.Checkpoint#write}).
     *
     * @return what was written: {@code file}, or for a checkpoint of one shard its {@code model.safetensors}
     */
    static Path writeSafetensors(Path file, Map<String, ArrayShape> shapes, Map<String, String> metadata,
            Map<String, DenseTensor.DataWriter> data, long maxShardBytes) throws IOException {
        if (!SafetensorsFile.Checkpoint.isIndex(file)) {
            SafetensorsFile.write(file, shapes, metadata, data);
            return file;
        }
        requireIndexName(file);
        return SafetensorsFile.Checkpoint.write(file.toAbsolutePath().getParent(), shapes, metadata, data, maxShardBytes);
    }

    /** {@return the bytes of a written file, or of a checkpoint's index and shards} */
    static long bytesWritten(Path written) throws IOException {
        if (!SafetensorsFile.Checkpoint.isIndex(written)) {
            return Files.size(written);
        }
        long sum = Files.size(written);
        try (SafetensorsFile.Checkpoint c = SafetensorsFile.Checkpoint.open(written)) {
            for (SafetensorsFile f : c.files()) {
                sum += Files.size(f.file());
            }
        }
        return sum;
    }

    /** {@return {@code file} with its extension replaced by {@code extension}} */
    private static Path sibling(Path file, String extension) {
        return file.resolveSibling(stem(file) + extension);
    }

    /** {@return the file's name without its extension: {@code "x"} for {@code /a/x.npy}} */
    static String stem(Path file) {
        return file.getFileName().toString().replaceFirst("\\.[^.]*$", "");
    }

    /**
     * Writes {@code tensor} as a {@code .npy} file, or as a safetensors file holding it under
     * {@code name}; {@link #requireWritable} has said yes to its type.
     */
    static void write(Path file, String name, DenseTensor tensor) throws IOException {
        switch (formatOf(file)) {
            case NPY -> Npy.write(file, tensor);
            case SAFETENSORS -> {
                if (SafetensorsFile.Checkpoint.isIndex(file)) {
                    requireIndexName(file);
                    SafetensorsFile.Checkpoint.write(file.toAbsolutePath().getParent(), Map.of(name, tensor), Map.of(),
                            SafetensorsFile.Checkpoint.DEFAULT_MAX_SHARD_BYTES);
                } else {
                    SafetensorsFile.write(file, Map.of(name, tensor));
                }
            }
            case RAW -> throw new IllegalArgumentException("raw output is written in pieces by its command: " + file);
            case ARROW -> {
                long[] dims = tensor.dims().stream().mapToLong(Long::longValue).toArray();
                MemoryBuffer bytes = MemoryBuffer.foreign(tensor.bytes(), MemorySpace.HOST, "convert", () -> { });
                Map<String, TensorView> column = Map.of(name, TensorView.strided(bytes, tensor.dtype(), StridedLayout.packed(dims)));
                if (file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".arrows")) {
                    ArrowTensors.writeStream(file, column);
                } else {
                    ArrowTensors.write(file, column);
                }
            }
        }
    }

    /**
     * {@return the name asked for; else {@code preferred} (may be null) when the file has it, or the
     * file's only name} A name asked for that the file lacks is refused by the file's own lookup.
     *
     * @param kind what the names are, plural ("tensors", "arrays", "tensor columns")
     * @param howToName what the user writes to pick one, e.g. {@code "--tensor NAME"}
     * @throws IllegalArgumentException when none is picked, listing the names there are
     */
    private static String pick(Path file, List<String> names, String kind, String name, String preferred, String howToName) {
        if (name != null) {
            return name;
        }
        if (preferred != null && names.contains(preferred)) {
            return preferred;
        }
        if (names.size() == 1) {
            return names.getFirst();
        }
        throw new IllegalArgumentException(names.isEmpty() ? file + " holds no " + kind
                : file + " holds " + names.size() + " " + kind + " " + names + "; pick one with " + howToName);
    }

    /**
     * Opens one array of a NumPy {@code .npz} archive: {@code name} when given; otherwise the array
     * called {@code preferred} (may be null), or the archive's only array.
     *
     * @throws IllegalArgumentException when no array is picked, listing those there are
     */
    static Opened openNpz(Path file, String name, String preferred, String howToName) throws IOException {
        Npy.Archive npz = Npy.Archive.open(file);
        try {
            String picked = pick(file, npz.names(), "arrays", name, preferred, howToName);
            Npy.Tensor a = npz.tensor(picked);
            AutoCloseable both = () -> {
                a.close();
                npz.close();
            };
            return new Opened(TensorView.strided(a.data(), a.dtype(), a.layout()), picked, both);
        } catch (RuntimeException e) {
            npz.close();
            throw e;
        }
    }

    /**
     * Opens one tensor column of an Arrow IPC file (or stream): {@code name} when given, else the
     * file's only tensor column.
     *
     * @throws IllegalArgumentException when no column is picked, listing those there are
     */
    static Opened openArrow(Path file, String name, String howToName) throws IOException {
        refuseArchive(file, false);
        ArrowTensors.Tensors t = ArrowTensors.read(file);
        try {
            String picked = pick(file, t.names(), "tensor columns", name, null, howToName);
            return new Opened(t.view(picked), picked, t);
        } catch (RuntimeException e) {
            t.close();
            throw e;
        }
    }

    /**
     * {@return the .npy file mapped, with {@code fromDtype} (the text of {@code --from-dtype}, or
     * null) as the type of a void file} Naming the type a file states (ml_dtypes' float8_e5m2 is
     * {@code '<f1'}) is harmless; contradicting it is refused, by convert and inspect alike.
     */
    static Npy.Tensor mapNpy(Path file, String fromDtype) throws IOException {
        DType declared = fromDtype == null ? null : DTypeNames.parse(fromDtype, "--from-dtype");
        refuseArchive(file, false);
        Npy.Tensor a = Npy.map(file, declared);
        if (declared != null && declared != a.dtype()) {
            a.close();
            throw new UsageException("--from-dtype " + fromDtype + ": " + file + " says its own type, " + a.dtype()
                    + " ('" + a.header().descr() + "'); the option names the type of void ('<V2', '<V1') files");
        }
        return a;
    }

    /**
     * Opens one tensor of a safetensors file: {@code name} when given; otherwise the one tensor
     * called {@code preferred}, or the file's only tensor.
     *
     * @param howToName what the user writes to pick a tensor, e.g. {@code "--tensor NAME"}
     * @throws IllegalArgumentException when no tensor is picked, listing the names there are
     */
    static Opened openSafetensors(Path file, String name, String preferred, String howToName) throws IOException {
        refuseArchive(file, false);
        SafetensorsFile.Checkpoint f = SafetensorsFile.Checkpoint.open(file);
        try {
            String picked = pick(file, f.names(), "tensors", name, preferred, howToName);
            SafetensorsFile.Tensor t = f.tensor(picked);
            requireReadable(file, t);
            return new Opened(TensorView.of(t.data(), shapeOf(t, t.dtype())), picked, f);
        } catch (RuntimeException e) {
            f.close();
            throw e;
        }
    }

    /**
     * Maps a raw file, read-only, as a view laid out by {@code shape}: the file must hold exactly
     * the shape's {@code ArraySize} bytes.
     *
     * @param what names the file in messages, e.g. {@code "raw input x.bin"}
     * @throws IllegalArgumentException if the file's size is not the shape's
     */
    static Opened openRaw(Path file, ArrayShape shape, String what, String name) throws IOException {
        refuseArchive(file, true);
        Arena arena = Arena.ofShared();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size != shape.arraySize()) {
                throw new IllegalArgumentException(what + " has " + size + " bytes but " + shape + " needs "
                        + shape.arraySize());
            }
            MemorySegment bytes = size == 0 ? arena.allocate(1)
                    : channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            MemoryBuffer buffer = MemoryBuffer.foreign(bytes, MemorySpace.HOST, "raw " + file.getFileName(), arena::close);
            return new Opened(TensorView.of(buffer.asReadOnly(), shape), name, buffer);
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * Writes {@code data} as the whole file, in pieces, telling {@code written} each piece's
     * bytes; the file is replaced only once complete, as the .npy and safetensors writers do.
     */
    static void writeRaw(Path file, MemorySegment data, LongConsumer written) throws IOException {
        FileReplacement.write(file, where -> {
            try (FileChannel channel = FileReplacement.open(where)) {
                for (long done = 0; done < data.byteSize(); ) {
                    int n = (int) Math.min(WRITE_PIECE_BYTES, data.byteSize() - done);
                    ByteBuffer piece = data.asSlice(done, n).asByteBuffer();
                    while (piece.hasRemaining()) {
                        channel.write(piece);
                    }
                    done += n;
                    written.accept(n);
                }
            }
        });
    }

    /** Writes the bytes {@code data} writes as the whole file, replaced only once complete. */
    static void writeRaw(Path file, DenseTensor.DataWriter data) throws IOException {
        FileReplacement.write(file, where -> {
            try (FileChannel channel = FileReplacement.open(where)) {
                data.write(channel);
            }
        });
    }

    /** {@return the shape of {@code t}'s dims with elements of {@code type}, laid out as files store it} */
    static ArrayShape shapeOf(SafetensorsFile.Tensor t, DType type) {
        long[] dims = Extents.toArray(t.shape());
        return ArrayShape.of(type, dims).withLayout(XlaLayout.packedDescending(type, dims.length));
    }
}
