package dev.tensorbuf.cli;

import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.net.ArrowTensors;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** {@code tensorbuf inspect}: the tensors of a {@code .npy}, safetensors, GGUF or Arrow IPC file, without reading their data. */
final class InspectCommand implements Command {
    private static final byte[] NPY_MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
    private static final String CONVERT_HINT = "tensorbuf convert --from-dtype ";

    @Override
    public String name() {
        return "inspect";
    }

    @Override
    public String summary() {
        return "tensors, dtypes, shapes and byte ranges of a .npy, .npz, .safetensors, .gguf or .arrow file, or a sharded checkpoint's index";
    }

    @Override
    public String synopsis() {
        return "tensorbuf inspect FILE [--from-dtype T] [--json]";
    }

    @Override
    public String description() {
        return """
                Reads the header of a NumPy .npy file (recognised by its magic) or a safetensors file
                (anything else), checks it against the file, and lists each tensor: name, dtype (XLA
                name, and the file's own), shape, and the byte range of its data in the file.
                A .npy file holds one tensor, named "array"; its metadata are its descr, memory
                order and format version (--json: "descr" a string, "fortran_order" a boolean,
                "version" [major, minor]; a safetensors file's metadata are its own strings).
                Control characters in names and metadata are escaped as in JSON (\\n, \\u001b), so each
                tensor is one line. A malformed file exits 2 naming the problem. A void .npy
                ('<V2', '<V1': ml_dtypes' bf16, f8 and 4-bit types) says which type to name;
                --from-dtype T lists it as that type.
                A sharded checkpoint's index (model.safetensors.index.json, Hugging Face's) lists the
                tensors of all its shards, each with the shard holding it (--json: "file"), after
                checking that the shards hold exactly what the index maps to them; its metadata are
                the index's (total_size, ...).
                A GGUF file (by its magic) lists its tensors (ggml type, logical dims outermost first,
                bytes) and its metadata key-values with their GGUF types, arrays longer than 8 items
                cut to their first 8 and a count (--json: "metadata" maps each key to "type" and
                "value", or for arrays "element_type", "count", "items", "truncated").
                An .npz archive lists its arrays (np.load's names) with each one's .npy header; a
                stored member's byte range is in the archive, a deflated one (np.savez_compressed)
                has none. Arrays tensorbuf does not read (strings, records, pickled objects) are
                named with why (--json: "not_read").
                An Arrow IPC file or stream (.arrow, .arrows, .feather, or the magic ARROW1) lists its
                arrow.fixed_shape_tensor columns from the schema and the record batches' headers:
                dims (rows first, then a row's dims as a reader sees them), a row's stored shape,
                dim names and permutation where given, and the byte range of the values when they
                are one range of the file (one uncompressed batch); its metadata are the schema's.

                example (np.save("x.npy", np.zeros((2, 3), "<f4"))):
                  tensorbuf inspect x.npy
                  x.npy: npy version 1.0, 1 tensor
                    array  f32 (<f4)  [2, 3]  bytes [128, 152)  24 bytes
                    metadata: descr=<f4, fortran_order=False, version=1.0
                """;
    }

    @Override
    public List<Option> options() {
        return List.of(Option.value("from-dtype", "T", false,
                "the element type of a void .npy file ('<V2', '<V1': ml_dtypes' bf16, f8, int4...)"), Option.JSON);
    }

    /** @param shard the shard holding the tensor, for a sharded checkpoint; null otherwise */
    private record Row(String name, String dtype, String fileDtype, List<Long> shape, long offset, long size, String shard) {
        Row(String name, String dtype, String fileDtype, List<Long> shape, long offset, long size) {
            this(name, dtype, fileDtype, shape, offset, size, null);
        }

        Map<String, Object> json() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", name);
            if (shard != null) {
                m.put("file", shard);
            }
            m.put("dtype", dtype);
            m.put("shape", shape);
            if (offset >= 0) {
                m.put("byte_offset", offset);
            }
            m.put("byte_size", size);
            return m;
        }
    }

    /**
     * The .npy reader's hint for a void descr names {@code convert --from-dtype}, where most people
     * meet it; here the same option of this command is the one to use.
     */
    private static Npy.Header readHeaderNamingInspect(Path file) throws IOException {
        try {
            return Npy.readHeader(file);
        } catch (IllegalArgumentException e) {
            String message = e.getMessage();
            if (message == null || !message.contains(CONVERT_HINT)) {
                throw e;
            }
            throw new IllegalArgumentException(message.replace(CONVERT_HINT, "tensorbuf inspect --from-dtype "), e);
        }
    }

    @Override
    public int run(Invocation in) throws IOException {
        in.expectAtMostPositionals(1);
        Path file = Path.of(in.positional(0, "FILE"));
        CliFiles.input(file, null);
        if (Files.size(file) == 0) {
            throw new UsageException(file + " is empty, expected a .npy or safetensors file");
        }
        TensorFiles.refuseArchive(file, false);
        if (GgufCommands.isGguf(file)) {
            return GgufCommands.inspect(in, file);
        }
        if (isArrow(file)) {
            return inspectArrow(in, file);
        }
        String format;
        String detail;
        List<Row> rows = new ArrayList<>();
        // Values keep their JSON types (fortran_order a boolean, version [major, minor]); text prints them as NumPy does.
        Map<String, Object> metadata = new LinkedHashMap<>();
        Map<String, String> metadataText = new LinkedHashMap<>();
        Map<String, String> unread = new LinkedHashMap<>();   // .npz arrays tensorbuf cannot read, with why
        String lower = file.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
        // By magic first; a .npy name without the magic gets the .npy reader's message, not safetensors'.
        String named = in.value("from-dtype");
        if (TensorFiles.formatOf(file) == TensorFiles.Format.NPZ) {
            if (named != null) {
                throw new UsageException("--from-dtype names the type of a void .npy file; " + file + " is an .npz archive");
            }
            try (Npy.Archive npz = Npy.Archive.open(file)) {
                format = "npz";
                long deflated = npz.members().stream().filter(Npy.Archive.Member::compressed).count();
                detail = "npz archive, " + (deflated == 0 ? "stored (np.savez)"
                        : deflated == npz.members().size() ? "deflated (np.savez_compressed)" : deflated + " members deflated");
                for (Npy.Archive.Member m : npz.members()) {
                    Npy.Header h;
                    try {
                        h = npz.header(m.name());
                    } catch (IllegalArgumentException e) {
                        // np.savez also stores strings, records and pickled objects: listed, each with why.
                        String prefix = file + ": member '" + m.name() + ".npy': ";
                        String why = e.getMessage().startsWith(prefix) ? e.getMessage().substring(prefix.length()) : e.getMessage();
                        unread.put(m.name(), why);
                        continue;
                    }
                    // A deflated member's values are not bytes of the file: no offset.
                    rows.add(new Row(m.name(), h.dtype().xlaName(), h.descr(), h.shape(),
                            m.compressed() ? -1 : m.dataOffset() + h.dataOffset(), h.dataByteSize()));
                }
            }
        } else if (isNpy(file) || lower.endsWith(".npy")) {
            Npy.Header h;
            if (named == null) {
                h = readHeaderNamingInspect(file);
            } else {
                try (Npy.Tensor a = TensorFiles.mapNpy(file, named)) {
                    h = a.header();
                }
            }
            format = "npy";
            detail = "npy version " + h.majorVersion() + ".0";
            rows.add(new Row("array", h.dtype().xlaName(), h.descr(), h.shape(), h.dataOffset(), h.dataByteSize()));
            metadata.put("descr", h.descr());
            metadata.put("fortran_order", h.fortranOrder());
            // The reader accepts minor version 0 only; a pair, as numpy.lib.format.read_magic returns it.
            metadata.put("version", List.of((long) h.majorVersion(), 0L));
            metadataText.put("descr", h.descr());
            metadataText.put("fortran_order", h.fortranOrder() ? "True" : "False");
            metadataText.put("version", h.majorVersion() + ".0");
        } else {
            if (named != null) {
                throw new UsageException("--from-dtype names the type of a void .npy file; " + file
                        + " is a safetensors file, which says its own types");
            }
            if (SafetensorsFile.Checkpoint.isIndex(file)) {
                try (SafetensorsFile.Checkpoint c = SafetensorsFile.Checkpoint.open(file)) {
                    format = "safetensors";
                    detail = "sharded safetensors checkpoint, " + Counts.of(c.files().size(), "shard");
                    Path folder = file.toAbsolutePath().getParent();
                    for (SafetensorsFile.Tensor t : c.tensors()) {
                        rows.add(new Row(t.name(), t.dtype().xlaName(), t.dtype().safetensorsName().orElseThrow(), t.shape(),
                                t.fileOffset(), t.byteSize(), folder.relativize(t.file().toAbsolutePath()).toString()));
                    }
                    metadata.putAll(c.indexMetadata());
                    c.indexMetadata().forEach((k, v) -> metadataText.put(k, String.valueOf(v)));
                }
            } else try (SafetensorsFile f = openSafetensors(file, lower.endsWith(".safetensors"))) {
                format = "safetensors";
                detail = "safetensors, header " + f.headerByteSize() + " bytes";
                for (SafetensorsFile.Tensor t : f.tensors()) {
                    rows.add(new Row(t.name(), t.dtype().xlaName(), t.dtype().safetensorsName().orElseThrow(), t.shape(),
                            t.fileOffset(), t.byteSize()));
                }
                metadata.putAll(f.metadata());
                metadataText.putAll(f.metadata());
            }
        }
        if (in.flag("json")) {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("file", file.toString());
            out.put("format", format);
            out.put("tensors", rows.stream().map(Row::json).toList());
            if (!unread.isEmpty()) {
                out.put("not_read", unread);
            }
            out.put("metadata", metadata);
            in.printJson(out);
            return 0;
        }
        // Names, metadata and the path are the file's (or the user's) text: a newline in a tensor name
        // would print a line that looks like another tensor, an escape sequence would drive the terminal.
        in.out().println(Failure.oneLine(file + ": " + detail + ", " + rows.size() + (rows.size() == 1 ? " tensor" : " tensors")
                + (unread.isEmpty() ? "" : ", " + Counts.of(unread.size(), "array") + " not read")));
        for (Row r : rows) {
            in.out().println("  " + Failure.oneLine(r.name()) + "  " + r.dtype() + " (" + r.fileDtype() + ")  " + r.shape() + "  "
                    + (r.shard() == null ? "" : Failure.oneLine(r.shard()) + " ")
                    + (r.offset() < 0 ? "deflated  " : "bytes [" + r.offset() + ", " + (r.offset() + r.size()) + ")  ")
                    + Counts.of(r.size(), "byte"));
        }
        unread.forEach((name, why) -> in.out().println("  " + Failure.oneLine(name) + "  not read: " + Failure.oneLine(why)));
        printMetadata(in, metadataText);
        return 0;
    }

    /** Prints the key-values on one line, each escaped as names are; nothing when there are none. */
    private static void printMetadata(Invocation in, Map<String, String> metadata) {
        if (!metadata.isEmpty()) {
            List<String> pairs = new ArrayList<>();
            metadata.forEach((k, v) -> pairs.add(Failure.oneLine(k) + "=" + Failure.oneLine(v)));
            in.out().println("  metadata: " + String.join(", ", pairs));
        }
    }

    private static final byte[] ARROW_MAGIC = {'A', 'R', 'R', 'O', 'W', '1'};

    /** An Arrow IPC file by its magic, or a file named as convert names Arrow files (a stream has no magic of its own). */
    private static boolean isArrow(Path file) throws IOException {
        if (TensorFiles.formatOf(file) == TensorFiles.Format.ARROW) {
            return true;
        }
        try (InputStream s = Files.newInputStream(file)) {
            return Arrays.equals(s.readNBytes(ARROW_MAGIC.length), ARROW_MAGIC);
        }
    }

    private static int inspectArrow(Invocation in, Path file) throws IOException {
        if (in.value("from-dtype") != null) {
            throw new UsageException("--from-dtype names the type of a void .npy file; " + file
                    + " is an Arrow IPC file, whose columns say their own types");
        }
        ArrowTensors.Header h;
        try {
            h = ArrowTensors.describe(file);
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        if (in.flag("json")) {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("file", file.toString());
            out.put("format", "arrow");
            out.put("arrow_format", h.format());
            out.put("batches", (long) h.batches());
            out.put("compression", h.codecs());
            List<Map<String, Object>> tensors = new ArrayList<>();
            for (ArrowTensors.ColumnHeader c : h.columns()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", c.name());
                m.put("dtype", c.type().dtype().xlaName());
                m.put("shape", c.dims());
                if (c.byteOffset() >= 0) {
                    m.put("byte_offset", c.byteOffset());
                }
                m.put("byte_size", c.byteSize());
                m.put("row_shape", c.type().shape());
                if (!c.type().dimNames().isEmpty()) {
                    m.put("dim_names", c.type().dimNames());
                }
                if (!c.type().permutation().isEmpty()) {
                    m.put("permutation", c.type().permutation().stream().map(Integer::longValue).toList());
                }
                tensors.add(m);
            }
            out.put("tensors", tensors);
            out.put("metadata", new TreeMap<String, Object>(h.metadata()));
            in.printJson(out);
            return 0;
        }
        in.out().println(Failure.oneLine(file + ": Arrow IPC " + h.format() + ", " + h.batches() + (h.batches() == 1 ? " record batch" : " record batches")
                + (h.codecs().isEmpty() ? "" : " (compressed with " + String.join(", ", h.codecs()) + ")")
                + ", " + Counts.of(h.columns().size(), "tensor column")));
        for (ArrowTensors.ColumnHeader c : h.columns()) {
            StringBuilder line = new StringBuilder("  " + Failure.oneLine(c.name()) + "  " + c.type().dtype().xlaName()
                    + "  " + c.dims() + " (rows of " + c.type().shape());
            if (!c.type().permutation().isEmpty()) {
                line.append(", permutation ").append(c.type().permutation());
            }
            if (!c.type().dimNames().isEmpty()) {
                line.append(", dim_names ").append(Failure.oneLine(c.type().dimNames().toString()));
            }
            line.append(")  ");
            if (c.byteOffset() >= 0) {
                line.append("bytes [").append(c.byteOffset()).append(", ").append(c.byteOffset() + c.byteSize()).append(")  ");
            }
            line.append(Counts.of(c.byteSize(), "byte"));
            in.out().println(line);
        }
        printMetadata(in, new TreeMap<>(h.metadata()));
        return 0;
    }

    /** A file named neither .npy nor .safetensors that safetensors cannot read is said to be neither. */
    private static SafetensorsFile openSafetensors(Path file, boolean named) throws IOException {
        try {
            return SafetensorsFile.open(file);
        } catch (IllegalArgumentException e) {
            if (named) {
                throw e;
            }
            throw new IllegalArgumentException(file + " is neither a .npy file (it lacks the \\x93NUMPY magic) nor a"
                    + " safetensors file (" + e.getMessage().replace(file + ": ", "") + ")", e);
        }
    }

    private static boolean isNpy(Path file) throws IOException {
        try (InputStream s = Files.newInputStream(file)) {
            return Arrays.equals(s.readNBytes(NPY_MAGIC.length), NPY_MAGIC);
        }
    }
}
