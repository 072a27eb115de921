package dev.tensorbuf.cli;

import dev.tensorbuf.cli.TensorFiles.Format;
import dev.tensorbuf.cli.TensorFiles.Opened;
import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.interop.internal.CountedWrites;
import dev.tensorbuf.interop.internal.FileReplacement;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaLayout;
import dev.tensorbuf.views.XlaShape;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongConsumer;

/** {@code tensorbuf convert}: a tensor from .npy, safetensors or raw bytes into any of them, in any XLA layout and type. */
final class ConvertCommand implements Command {
    /** Copies are split into pieces of about this many bytes so the progress bar moves. */
    private static final long PIECE_BYTES = 64L << 20;

    @Override
    public String name() {
        return "convert";
    }

    @Override
    public String summary() {
        return "convert a tensor between .npy, safetensors, GGUF, Arrow and raw bytes (and from .npz), to any XLA layout and dtype";
    }

    @Override
    public String synopsis() {
        return "tensorbuf convert IN OUT [--layout SHAPE_WITH_LAYOUT] [--dtype T] [--tensor NAME]..."
                + " [--transpose PERM | --from-format F --to-format G] [--all-rank N]"
                + " [--from-layout SHAPE] [--from-dtype T] [--max-shard-size SIZE] [--quiet] [--json]";
    }

    @Override
    public String description() {
        return """
                Reads one tensor from IN and writes it to OUT; the format is chosen by extension: .npy,
                .safetensors, Arrow IPC (.arrow and Feather V2's .feather files, .arrows streams: an
                arrow.fixed_shape_tensor column a tensor; read uncompressed or LZ4, Feather's default),
                NumPy's .npz archives (read only, stored or deflated: --tensor NAME picks an array; into
                a .safetensors OUT without it, every array, as np.load names them),
                anything else is raw bytes. Raw output holds exactly the physical bytes of
                the XLA layout given by --layout (tiles and padding included, padding zeroed; row-major
                without --layout; 6-bit types one element to a byte, as ml_dtypes holds them, e.g.
                f6e2m3fn[4]{0}; the layout written is in the report). Raw input needs --from-layout, the XLA shape its bytes are laid out
                in, and must be exactly that shape's size. --dtype converts the elements (NaN or
                out-of-range values for an integer type are an error). A safetensors input into a
                .safetensors OUT converts whole, whatever its number of tensors (--dtype then changes
                the floating-point tensors and keeps the others; metadata carry over; OUT may be IN);
                --tensor NAME picks one tensor instead, and is needed for other outputs when IN holds
                several. A .npy of ml_dtypes' bf16, f8 or sub-byte types (int4...) says only '<V2' or
                '<V1' (void): name its type with --from-dtype. A .npy OUT of those types is written as
                np.save writes them (np.load(f).view(ml_dtypes.bfloat16) gives the values), but f8e5m2
                and 6-bit types, which go to safetensors or raw bytes. .npy and safetensors output are
                row-major (C order); a safetensors output names its tensor like the input tensor, or
                after IN's file name. OUT is replaced only once it is complete; a link is written
                through and the file's permissions are kept.
                --transpose PERM writes the dims in another order, as NumPy's x.transpose(PERM): output
                dim i is input dim PERM[i], and the file holds np.ascontiguousarray(x.transpose(PERM)).
                --from-format F --to-format G says the same with named orders of the same letters:
                NCHW NHWC, NCDHW NDHWC, CHW HWC, and for conv weights OIHW HWIO OHWI. A safetensors IN
                into a .safetensors OUT converts whole, and the new order applies to the tensors named
                by --tensor NAME (repeatable) or to every tensor of rank N (--all-rank N); the others
                are copied unchanged.
                A sharded checkpoint's index (model.safetensors.index.json, Hugging Face's) is read
                wherever a safetensors file is, its shards as one set of tensors. As OUT it writes one:
                shards model-00001-of-0000N.safetensors beside it, split in IN's tensor order at
                --max-shard-size (5GB unless given; 500MB, 0.5GB, or bytes) as huggingface_hub splits,
                with the index only when there is more than one shard (else model.safetensors, as
                save_torch_state_dict writes it).
                A GGUF IN (by its magic) gives one tensor, --tensor NAME, dequantized (block types) into
                --dtype f32 (default), f16 or bf16, to .npy, safetensors or raw bytes in any --layout;
                into a .safetensors OUT without --tensor it gives every tensor (integer tensors keep
                their type; scalar metadata carry over as strings). A .gguf OUT takes a safetensors or
                .npy IN: --dtype q8_0 or q4_0 quantizes as llama.cpp does (1-D tensors and those whose
                innermost dim is not a multiple of 32 stay F32); f32, f16, bf16 convert; without
                --dtype the types are kept.
                A progress bar is drawn on a terminal for conversions over a second (not with --quiet).

                example (x.npy holds np.arange(1, 16, dtype="<f4").reshape(3, 5)):
                  tensorbuf convert x.npy x.bin --layout 'f32[3,5]{1,0:T(2,2)}'
                  x.npy -> x.bin: f32[3,5]{1,0:T(2,2)}, 96 bytes (raw) in 0.01 s
                  (x.bin holds 1 2 6 7 3 4 8 9 5 0 10 0 11 12 0 0 13 14 0 0 15 0 0 0 as f32: Figure 1)
                  tensorbuf convert x.npy y.npy --transpose 1,0
                  x.npy -> y.npy: f32[5,3]{1,0}, 188 bytes (npy) in 0.01 s
                  tensorbuf convert m.safetensors m2.safetensors --from-format OIHW --to-format HWIO --all-rank 4
                  m.safetensors -> m2.safetensors: 2 tensors, 1 transposed 2,3,1,0, 1048 bytes (safetensors) in 0.01 s
                  (m.safetensors holds conv1.weight f32[8,3,3,3], now f32[3,3,3,8], and conv1.bias f32[8], copied)
                """;
    }

    @Override
    public List<Option> options() {
        return List.of(
                Option.value("layout", "SHAPE_WITH_LAYOUT", false, "the output's XLA shape and layout, e.g. 'f32[3,5]{1,0:T(2,2)}'"),
                Option.value("dtype", "T", false,
                        "the output element type: XLA name (bf16, f32) or DirectML name (FLOAT32); default: the input's"),
                Option.value("max-shard-size", "SIZE", false, "with OUT model.safetensors.index.json: the largest"
                        + " shard, in bytes or as Hugging Face writes it (5GB, 500MB: powers of 10); default 5GB"),
                Option.value("tensor", "NAME", true, "the tensor to take from a safetensors input; with a new dim order"
                        + " into a .safetensors OUT, a tensor to reorder"),
                Option.value("transpose", "PERM", false, "the output's dims as input dims, as NumPy's transpose:"
                        + " 0,2,3,1 makes NCHW NHWC"),
                Option.value("from-format", "F", false, "the input's dim order, with --to-format: "
                        + String.join(", ", DimOrder.FORMATS)),
                Option.value("to-format", "F", false, "the output's dim order, the same letters as --from-format's"),
                Option.value("all-rank", "N", false, "with a new dim order into a .safetensors OUT: reorder every"
                        + " tensor of rank N"),
                Option.value("from-layout", "SHAPE", false, "the XLA shape of a raw input, e.g. 'f32[3,5]{1,0}'"),
                Option.value("from-dtype", "T", false, "the element type of a void .npy input ('<V2', '<V1': ml_dtypes' bf16, f8, int4...)"),
                Option.flag("quiet", "no progress bar"),
                Option.JSON);
    }

    @Override
    public int run(Invocation in) throws Exception {
        in.expectAtMostPositionals(2);
        Path inPath = Path.of(in.positional(0, "IN"));
        Path outPath = Path.of(in.positional(1, "OUT"));
        CliFiles.input(inPath, null);
        CliFiles.outputFile(outPath, null);
        FileReplacement.prepare(outPath);
        if (GgufCommands.handles(inPath, outPath)) {
            return GgufCommands.convert(in, inPath, outPath, System.nanoTime());
        }
        TensorFiles.refuseArchive(inPath, TensorFiles.formatOf(inPath) == Format.RAW && in.value("from-layout") != null);
        long start = System.nanoTime();
        DimOrder order = DimOrder.parse(in);
        long maxShard = maxShardBytes(in, outPath);
        if (TensorFiles.formatOf(inPath) == Format.SAFETENSORS && TensorFiles.formatOf(outPath) == Format.SAFETENSORS
                && (in.value("tensor") == null || order != null)) {
            checkInputOptions(in, inPath, Format.SAFETENSORS);
            try (SafetensorsFile.Checkpoint file = SafetensorsFile.Checkpoint.open(inPath)) {
                return convertAll(in, file, outPath, start, order);
            }
        }
        if (TensorFiles.formatOf(inPath) == Format.NPZ && TensorFiles.formatOf(outPath) == Format.SAFETENSORS
                && in.value("tensor") == null) {
            try (Npy.Archive archive = Npy.Archive.open(inPath)) {
                return convertArchive(in, archive, outPath, start, order);
            }
        }
        if (in.values("tensor").size() > 1) {
            throw new UsageException("--tensor is given " + in.values("tensor").size() + " times: it picks the one tensor"
                    + " to convert, and names several only for a new dim order (--transpose...) of a safetensors IN"
                    + " into a .safetensors OUT");
        }
        if (in.value("all-rank") != null) {
            throw new UsageException("--all-rank picks the tensors to reorder (--transpose...) when a safetensors IN"
                    + " converts whole into a .safetensors OUT; " + inPath + " -> " + outPath + " converts one tensor");
        }
        Opened input = open(in, inPath);
        try (AutoCloseable _ = input.owner()) {
            refuseDroppingTheRest(in, inPath, outPath, input);
            TensorView source = order == null ? input.view() : order.apply(input.view(),
                    input.owner() instanceof SafetensorsFile.Checkpoint ? "tensor '" + input.name() + "' of " + inPath
                            : inPath.toString());
            ArrayShape target = target(in, source);
            Format outFormat = TensorFiles.formatOf(outPath);
            XlaLayout dense = XlaLayout.packedDescending(target.dtype(), target.rank());
            // Only a --layout can stray from row-major; a 6-bit type's default is one to a byte, which
            // neither .npy nor safetensors holds, and requireWritable says so better than this would.
            if (outFormat != Format.RAW && in.value("layout") != null && !target.requireLayout().equals(dense)) {
                throw new UsageException("a ." + outFormat.label()
                        + " file holds row-major (C order) data, " + target.withLayout(dense) + "; --layout " + target
                        + " is for raw output (OUT with another extension)" + transposeHint(target));
            }
            TensorFiles.requireWritable(outPath, target, "the output",
                    "write raw bytes instead (OUT with any other extension)");
            if (TensorFiles.packsUnevenly(target.dtype()) && target.requireLayout().elementSizeInBits() != 0) {
                throw new UsageException("the output is " + target + ": " + target.dtype().bitWidth() + "-bit elements"
                        + " do not pack evenly into bytes, and tensorbuf writes them only one to a byte, as ml_dtypes"
                        + " holds them: give --layout '" + target.withLayout(XlaLayout.descending(target.rank()))
                        + "' (raw output)");
            }
            long bytes = target.arraySize();
            Path wrote = outPath;
            if (StagedWrites.handles(target) && outFormat != Format.ARROW) {
                // Row-major whole-byte output: piece by piece through a small buffer into the file.
                long moved = Math.addExact(bytes, Math.multiplyExact(input.view().elementCount(), input.view().dtype().byteWidth()));
                try (StagedWrites staged = new StagedWrites(moved);
                     Progress progress = Progress.start(in.err(), in.flag("quiet"), bytes)) {
                    MemorySegment same = sameBytes(source, target);
                    DenseTensor.DataWriter data = same != null ? sameBytesWriter(input, same, progress)
                            : staged.writer(source, target, progress);
                    switch (outFormat) {
                        case NPY -> Npy.write(outPath, target.dtype(), target.dims(), data);
                        case SAFETENSORS -> wrote = TensorFiles.writeSafetensors(outPath, Map.of(input.name(), target),
                                Map.of(), Map.of(input.name(), data), maxShard);
                        case RAW -> TensorFiles.writeRaw(outPath, data);
                        case ARROW -> throw new IllegalStateException("an .arrow file is written whole");
                        case NPZ -> throw new IllegalStateException("an .npz is refused as output before this");
                    }
                    progress.finish();
                }
            } else try (Allocator arena = Allocators.shared();
                 Progress progress = Progress.start(in.err(), in.flag("quiet"), outFormat == Format.RAW ? 2 * bytes : bytes)) {
                MemoryBuffer buffer = arena.allocate(Math.max(1, bytes)); // zeroed: tile padding reads 0
                TensorView out = TensorView.of(buffer, target);
                copy(source, out, progress);
                MemorySegment data = buffer.segment().asSlice(0, bytes);
                if (outFormat == Format.RAW) {
                    TensorFiles.writeRaw(outPath, data, progress::advance);
                } else if (outFormat == Format.SAFETENSORS) {
                    wrote = TensorFiles.writeSafetensors(outPath, Map.of(input.name(), target), Map.of(),
                            Map.of(input.name(), channel -> writeBytes(data, channel, n -> { })), maxShard);
                } else {
                    TensorFiles.write(outPath, input.name(), new DenseTensor(target.dtype(), target.dims(), data));
                }
                progress.finish();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            // A pipe or device keeps no size: raw output is exactly its bytes; a file's header is not counted there.
            Long written = Files.isRegularFile(wrote) ? Long.valueOf(TensorFiles.bytesWritten(wrote))
                    : outFormat == Format.RAW ? Long.valueOf(bytes) : null;
            ArrayShape shape = TensorFiles.asWritten(outPath, target);
            if (in.flag("json")) {
                Map<String, Object> json = new LinkedHashMap<>();
                json.put("in", inPath.toString());
                json.put("out", wrote.toString());
                json.put("shape", shape.toString());
                json.put("dtype", target.dtype().xlaName());
                json.put("bytes_written", written);
                json.put("seconds", Math.round(seconds * 1000) / 1000.0);
                in.printJson(json);
            } else {
                in.out().println(Failure.oneLine(inPath + " -> " + wrote) + ": " + shape + ", "
                        + (written == null ? "not a file, so no size" : Counts.of(written, "byte")) + " ("
                        + outFormat.label() + ") in " + Counts.decimal(seconds, 2) + " s");
            }
        }
        return 0;
    }

    /**
     * {@return the largest shard of a sharded OUT: --max-shard-size, read as huggingface_hub's
     * {@code parse_size_to_int} reads it (a number and TB, GB, MB or KB, powers of 10, the bytes
     * rounded down), or plain bytes; 5GB without it}
     */
    static long maxShardBytes(Invocation in, Path outPath) {
        String text = in.value("max-shard-size");
        if (text == null) {
            return SafetensorsFile.Checkpoint.DEFAULT_MAX_SHARD_BYTES;
        }
        if (!SafetensorsFile.Checkpoint.isIndex(outPath)) {
            throw new UsageException("--max-shard-size splits a sharded OUT, " + SafetensorsFile.Checkpoint.INDEX_FILE + "; "
                    + outPath + " is one file");
        }
        String t = text.strip();
        String unit = t.length() >= 2 ? t.substring(t.length() - 2).toUpperCase(java.util.Locale.ROOT) : "";
        long multiplier = switch (unit) {
            case "TB" -> 1_000_000_000_000L;
            case "GB" -> 1_000_000_000L;
            case "MB" -> 1_000_000L;
            case "KB" -> 1_000L;
            default -> 1;
        };
        String number = multiplier == 1 ? t : t.substring(0, t.length() - 2).strip();
        double value;
        try {
            value = multiplier == 1 ? Long.parseLong(number) : Double.parseDouble(number);
        } catch (NumberFormatException e) {
            throw new UsageException("--max-shard-size " + text + ": expected bytes (1000000) or a number with TB, GB, MB"
                    + " or KB (5GB, 0.5GB)");
        }
        double bytes = Math.floor(value * multiplier);
        if (!(bytes >= 1) || bytes >= 0x1p63) {
            throw new UsageException("--max-shard-size " + text + ": a shard must hold at least 1 byte and fewer than 2^63");
        }
        return (long) bytes;
    }

    /**
     * One tensor of a safetensors file written over that file would drop its other tensors and
     * its metadata without a word: refused, naming what would be lost.
     */
    private static void refuseDroppingTheRest(Invocation in, Path inPath, Path outPath, Opened input) throws IOException {
        if (in.value("tensor") == null || !Files.exists(outPath) || !Files.isSameFile(inPath, outPath)
                || !(input.owner() instanceof SafetensorsFile.Checkpoint file) || file.names().size() < 2) {
            return;
        }
        throw new UsageException(outPath + " is the input, which holds " + file.names().size() + " tensors: writing"
                + " --tensor " + in.value("tensor") + " over it would drop the other " + (file.names().size() - 1)
                + (file.metadata().isEmpty() ? "" : " and its metadata") + "; write to another file, or leave out --tensor"
                + " to convert them all in place");
    }

    private static Opened open(Invocation in, Path file) throws IOException {
        Format format = TensorFiles.formatOf(file);
        checkInputOptions(in, file, format);
        String stem = TensorFiles.stem(file);
        return switch (format) {
            case NPY -> {
                Npy.Tensor a = TensorFiles.mapNpy(file, in.value("from-dtype"));
                yield new Opened(TensorView.strided(a.data(), a.dtype(), a.layout()), stem, a);
            }
            case SAFETENSORS -> TensorFiles.openSafetensors(file, in.value("tensor"), null,
                    "--tensor NAME (or convert them all, to a .safetensors OUT)");
            case RAW -> openRaw(in, file, stem);
            case ARROW -> TensorFiles.openArrow(file, in.value("tensor"), "--tensor NAME");
            case NPZ -> TensorFiles.openNpz(file, in.value("tensor"), null, "--tensor NAME");
        };
    }

    /** Refuses the input options that do not fit the input's format. */
    private static void checkInputOptions(Invocation in, Path file, Format format) {
        if (format != Format.SAFETENSORS && format != Format.ARROW && format != Format.NPZ && in.value("tensor") != null) {
            throw new UsageException("--tensor picks a tensor of a safetensors, .arrow or .npz input; " + file + " is none");
        }
        if (format != Format.NPY && in.value("from-dtype") != null) {
            throw new UsageException("--from-dtype names the type of a void .npy input; " + file + " is not a .npy file"
                    + (format == Format.RAW ? " (give a raw input's type in --from-layout)" : ""));
        }
        if (format != Format.RAW && in.value("from-layout") != null) {
            throw new UsageException("--from-layout describes a raw input; " + file + " is a ."
                    + format.label() + " file, which says its own shape");
        }
    }

    /**
     * Converts every array of an {@code .npz} archive into a safetensors file, each named as
     * {@code np.load} names it, in C order (a Fortran-order array is copied into it): as a
     * safetensors file converts whole, --dtype changes the floating-point arrays and keeps the
     * others. Each array is read (inflated, for {@code np.savez_compressed}) only while it is written.
     */
    private static int convertArchive(Invocation in, Npy.Archive archive, Path outPath, long start, DimOrder order)
            throws IOException {
        int count = archive.names().size();
        String holds = Counts.of(count, "array");
        if (order != null || in.value("layout") != null || in.value("from-dtype") != null || in.value("all-rank") != null) {
            throw new UsageException(archive.file() + " holds " + holds + ", converted whole into a .safetensors OUT:"
                    + " pick one with --tensor NAME to " + (order != null ? "reorder it" : "lay it out or name its type"));
        }
        String dtypeText = in.value("dtype");
        DType to = dtypeText == null ? null : DTypeNames.parse(dtypeText, "--dtype");
        if (to != null && to.kind() != DType.Kind.FLOAT) {
            throw new UsageException("--dtype " + to + ": converting " + archive.file() + " (" + holds + ") whole changes"
                    + " the floating-point arrays, so the type must be floating-point; pick one array with --tensor NAME"
                    + " to make it " + to);
        }
        Map<String, ArrayShape> shapes = new LinkedHashMap<>();
        Map<String, DenseTensor.DataWriter> writers = new LinkedHashMap<>();
        long bytes = 0;
        int changed = 0;
        for (String name : archive.names()) {
            Npy.Header h;
            try {
                h = archive.header(name);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(e.getMessage() + "; convert the others one by one with --tensor NAME", e);
            }
            DType type = to != null && h.dtype().kind() == DType.Kind.FLOAT ? to : h.dtype();
            changed += type != h.dtype() ? 1 : 0;
            TensorFiles.requireWritable(outPath, type, "array '" + name + "'", "pick the others one by one with --tensor NAME");
            long[] dims = Extents.toArray(h.shape());
            ArrayShape shape = ArrayShape.of(type, dims).withLayout(XlaLayout.packedDescending(type, dims.length));
            shapes.put(name, shape);
            bytes = Math.addExact(bytes, shape.arraySize());
        }
        Path wrote;
        try (Progress progress = Progress.start(in.err(), in.flag("quiet"), bytes)) {
            for (String name : archive.names()) {
                ArrayShape shape = shapes.get(name);
                writers.put(name, channel -> {
                    try (Npy.Tensor t = archive.tensor(name)) {
                        if (t.dtype() == shape.dtype() && !t.header().fortranOrder()) {
                            writeBytes(t.data().segment(), channel, progress::advance);
                        } else {
                            copyWhole(TensorView.strided(t.data(), t.dtype(), t.layout()), shape, channel, progress);
                        }
                    }
                });
            }
            wrote = TensorFiles.writeSafetensors(outPath, shapes, Map.of(), writers, maxShardBytes(in, outPath));
            progress.finish();
        }
        reportWhole(in, archive.file(), wrote, shapes, holds, to, changed, null, Set.of(), start);
        return 0;
    }

    /**
     * Reports a whole file converted into safetensors: each tensor's name and shape with
     * {@code --json}, else one line of what {@code held}, how many tensors --dtype changed to
     * {@code to} (when given), the dims reordered (when {@code order} is), the bytes written and
     * the time.
     */
    private static void reportWhole(Invocation in, Path from, Path wrote, Map<String, ArrayShape> shapes, String held,
                                    DType to, int changed, DimOrder order, Set<String> transposed, long start) throws IOException {
        double seconds = (System.nanoTime() - start) / 1e9;
        long written = TensorFiles.bytesWritten(wrote);
        if (in.flag("json")) {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("in", from.toString());
            json.put("out", wrote.toString());
            json.put("tensors", shapes.entrySet().stream().map(e -> {
                Map<String, Object> tensor = new LinkedHashMap<>();
                tensor.put("name", e.getKey());
                tensor.put("shape", e.getValue().toString());
                return tensor;
            }).toList());
            if (order != null) {
                json.put("transposed", List.copyOf(transposed));
                json.put("permutation", order.perm());
            }
            json.put("bytes_written", written);
            json.put("seconds", Math.round(seconds * 1000) / 1000.0);
            in.printJson(json);
        } else {
            in.out().println(Failure.oneLine(from + " -> " + wrote) + ": " + held
                    + (to == null ? "" : " (" + changed + " to " + to + ", " + (shapes.size() - changed) + " kept)")
                    + (order == null ? "" : ", " + transposed.size() + " transposed " + order.list()) + ", "
                    + Counts.of(written, "byte") + " (safetensors) in " + Counts.decimal(seconds, 2) + " s");
        }
    }

    /**
     * Converts every tensor of a safetensors file into a safetensors file, straight into the new
     * file's mapping, one tensor at a time: --dtype changes the floating-point tensors and keeps the
     * others (token ids stay integers), metadata carry over. The file is built beside OUT and moved
     * over it once complete ({@link FileReplacement}), so OUT may be the input and a failure leaves
     * no half-written OUT. Taken whatever the number of tensors, so that a file of one converts by
     * the same rules as a file of many.
     */
    private static int convertAll(Invocation in, SafetensorsFile.Checkpoint input, Path outPath, long start, DimOrder order)
            throws IOException {
        int count = input.names().size();
        String holds = count == 0 ? "no tensors" : count == 1 ? "1 tensor" : count + " tensors";
        Map<String, TensorView> reordered = reordered(in, input, order);
        if (in.value("layout") != null) {
            throw new UsageException("--layout describes one tensor, and " + input.file() + " holds " + holds
                    + ", converted whole into a .safetensors OUT: pick one with --tensor NAME");
        }
        String dtypeText = in.value("dtype");
        DType to = dtypeText == null ? null : DTypeNames.parse(dtypeText, "--dtype");
        if (to != null && to.kind() != DType.Kind.FLOAT) {
            throw new UsageException("--dtype " + to + ": converting " + (count > 1 ? "all " + holds + " of " + input.file()
                    : input.file() + " (" + holds + ") whole") + " changes the floating-point ones, so the type must be"
                    + " floating-point; pick one tensor with --tensor NAME to make it " + to);
        }
        if (to != null) {
            TensorFiles.requireWritable(outPath, to, "the output type", "pick another type");
        }
        if (Files.exists(outPath) && !Files.isRegularFile(outPath)) {
            throw new UsageException(outPath + " is not a regular file: converting a whole file writes one beside it"
                    + " and moves it there");
        }
        Map<String, ArrayShape> shapes = new LinkedHashMap<>();
        int changed = 0;
        long total = 0;
        for (SafetensorsFile.Tensor t : input.tensors()) {
            DType type = to != null && t.dtype().kind() == DType.Kind.FLOAT ? to : t.dtype();
            if (type != t.dtype()) {
                TensorFiles.requireReadable(input.file(), t);
            }
            changed += type != t.dtype() ? 1 : 0;
            TensorView view = reordered.get(t.name());
            ArrayShape shape = view == null ? TensorFiles.shapeOf(t, type) : ArrayShape.of(type, Extents.toArray(view.dims()))
                    .withLayout(XlaLayout.packedDescending(type, view.rank()));
            shapes.put(t.name(), shape);
            total = Math.addExact(total, type == t.dtype() ? t.byteSize() : shape.arraySize());
        }
        long bytes = total;
        long read = 0;
        for (SafetensorsFile.Tensor t : input.tensors()) {
            read = Math.addExact(read, t.byteSize());
        }
        Path wrote;
        try (StagedWrites staged = new StagedWrites(Math.addExact(bytes, read));
             Progress progress = Progress.start(in.err(), in.flag("quiet"), bytes)) {
            Map<String, DenseTensor.DataWriter> writers = new LinkedHashMap<>();
            for (SafetensorsFile.Tensor t : input.tensors()) {
                TensorView view = reordered.get(t.name());
                ArrayShape shape = shapes.get(t.name());
                if (shape.dtype() == t.dtype() && view == null) {
                    // Same type, both row-major and packed alike: the bytes are the tensor, whatever
                    // the type (6-bit ones too, whose packing tensorbuf does not unpack).
                    writers.put(t.name(), channel -> writeBytes(t.data().segment(), channel, progress::advance));
                } else {
                    TensorView from = view != null ? view : TensorView.of(t.data(), TensorFiles.shapeOf(t, t.dtype()));
                    writers.put(t.name(), StagedWrites.handles(shape) ? staged.writer(from, shape, progress)
                            : channel -> copyWhole(from, shape, channel, progress));
                }
            }
            wrote = TensorFiles.writeSafetensors(outPath, shapes, input.metadata(), writers, maxShardBytes(in, outPath));
            progress.finish();
        }
        reportWhole(in, input.file(), wrote, shapes, count == 0 ? "0 tensors" : holds, to, changed, order, reordered.keySet(),
                start);
        return 0;
    }

    /**
     * {@return the tensors a new dim order applies to, by name in the file's order, each as its
     * reordered view; empty without one} They are the tensors --tensor names or every tensor of
     * --all-rank's rank: one of the two is needed, so that a file of one tensor reorders by the same
     * rule as a file of many, and a name or rank that matches nothing is refused, not ignored.
     */
    private static Map<String, TensorView> reordered(Invocation in, SafetensorsFile.Checkpoint input, DimOrder order) {
        Map<String, TensorView> views = new LinkedHashMap<>();
        List<String> named = in.values("tensor");
        String rankText = in.value("all-rank");
        if (order == null) {
            if (rankText != null) {
                throw new UsageException("--all-rank " + rankText + " picks the tensors to reorder, and no new order"
                        + " is given: add --transpose PERM or --from-format F --to-format G");
            }
            return views;
        }
        if (named.isEmpty() == (rankText == null)) {
            throw new UsageException(order.text() + " of " + input.file() + " (converted whole into a .safetensors OUT)"
                    + " needs the tensors to reorder: " + (named.isEmpty() ? "name them with --tensor NAME (repeatable) or"
                    + " take every tensor of rank " + order.rank() + " with --all-rank " + order.rank()
                    : "--tensor or --all-rank, not both"));
        }
        if (rankText != null) {
            long rank = in.longValue("all-rank");
            if (rank != order.rank()) {
                throw new UsageException("--all-rank " + rankText + " differs from the rank " + order.text() + " orders ("
                        + order.rank() + ")");
            }
            named = input.tensors().stream().filter(t -> t.shape().size() == rank).map(SafetensorsFile.Tensor::name).toList();
            if (named.isEmpty()) {
                throw new UsageException(input.file() + " holds no tensor of rank " + rank + " (--all-rank " + rankText
                        + ")");
            }
        }
        for (String name : named) {
            if (!input.names().contains(name)) {
                throw new UsageException("--tensor " + name + ": " + input.file() + " holds no tensor of that name; its "
                        + input.names().size() + " tensors are " + input.names());
            }
            if (views.containsKey(name)) {
                throw Errors.givenTwice("--tensor " + name);
            }
            SafetensorsFile.Tensor t = input.tensor(name);
            TensorFiles.requireReadable(input.file(), t);
            views.put(name, order.apply(TensorView.of(t.data(), TensorFiles.shapeOf(t, t.dtype())),
                    "tensor '" + name + "' of " + input.file()));
        }
        // In the file's order, as the tensors are written and reported.
        Map<String, TensorView> inFileOrder = new LinkedHashMap<>();
        input.names().stream().filter(views::containsKey).forEach(n -> inFileOrder.put(n, views.get(n)));
        return inFileOrder;
    }

    /**
     * {@return advice for a --layout that only orders the dims (no tiles): the --transpose that
     * writes those bytes as a row-major file, or "" for any other layout}
     */
    private static String transposeHint(ArrayShape target) {
        XlaLayout layout = target.requireLayout();
        XlaLayout order = layout.withElementSizeInBits(0);
        if (order.hasAttributes() || order.equals(XlaLayout.descending(layout.rank()))) {
            return "";
        }
        List<Integer> minorToMajor = layout.minorToMajor();
        int[] perm = new int[minorToMajor.size()];
        long[] dims = new long[perm.length];
        for (int i = 0; i < perm.length; i++) {
            perm[i] = minorToMajor.get(perm.length - 1 - i);
            dims[i] = target.dim(perm[i]);
        }
        return "; to write the dims in that order, give --transpose " + Arrays.stream(perm).mapToObj(String::valueOf)
                .collect(java.util.stream.Collectors.joining(",")) + " (OUT then holds " + ArrayShape.of(target.dtype(), dims).withoutLayout()
                + ")";
    }

    private static Opened openRaw(Invocation in, Path file, String stem) throws IOException {
        String text = in.value("from-layout");
        if (text == null) {
            throw new UsageException("raw input " + file + " needs --from-layout SHAPE, the XLA shape its bytes are"
                    + " laid out in, e.g. --from-layout 'f32[3,5]{1,0}'");
        }
        return TensorFiles.openRaw(file, arrayShape(text, "--from-layout"), "raw input " + file, stem);
    }

    /** The output shape: --layout, or the input's dims in row-major order; of --dtype's type when given. */
    private static ArrayShape target(Invocation in, TensorView source) {
        String dtypeText = in.value("dtype");
        DType dtype = dtypeText == null ? null : DTypeNames.parse(dtypeText, "--dtype");
        String layoutText = in.value("layout");
        if (layoutText == null) {
            long[] dims = Extents.toArray(source.dims());
            DType t = dtype == null ? source.dtype() : dtype;
            // 6-bit elements do not pack evenly into bytes; one to a byte is how ml_dtypes holds them,
            // and the only way tensorbuf writes them.
            return ArrayShape.of(t, dims).withLayout(TensorFiles.packsUnevenly(t) ? XlaLayout.descending(dims.length)
                    : XlaLayout.packedDescending(t, dims.length));
        }
        ArrayShape shape = arrayShape(layoutText, "--layout");
        if (!shape.dims().equals(source.dims())) {
            throw new IllegalArgumentException("--layout " + shape + " has dims " + shape.dims() + " but the input "
                    + source + " has " + source.dims());
        }
        if (dtype != null && dtype != shape.dtype()) {
            throw new UsageException("--dtype " + dtype + " differs from the type of --layout " + shape
                    + "; give the type once, in --layout");
        }
        return shape;
    }

    private static ArrayShape arrayShape(String text, String option) {
        XlaShape parsed = XlaShape.parse(text);
        if (!(parsed instanceof ArrayShape array) || !array.isStatic()) {
            throw new IllegalArgumentException(option + " " + text + " is not an array shape with static dims");
        }
        return array.laidOut();
    }

    /**
     * {@return the source's own bytes when they are already the output's (the same type, row-major,
     * one host buffer), or null} Those are written as they are ({@code sameBytesWriter}): copying
     * them through the engine's buffer first was a pass over 200 MB that NumPy's load-and-save
     * does not make (bench/RESULTS.md, "Convert end to end", plain copy).
     */
    static MemorySegment sameBytes(TensorView source, ArrayShape target) {
        if (source.dtype() != target.dtype() || source.dtype().isSubByte() || !source.dims().equals(target.dims())
                || !source.isHostAccessible() || source.buffers().size() != 1) {
            return null;
        }
        StridedLayout layout = source.stridedLayout().orElse(null);
        if (layout == null) {
            return null;
        }
        long step = 1;
        for (int d = layout.rank() - 1; d >= 0; d--) {
            long size = layout.sizes().get(d);
            if (size > 1 && layout.strides().get(d) != step) {
                return null;
            }
            step = Math.multiplyExact(step, size);
        }
        long width = source.dtype().byteWidth();
        long from = Math.multiplyExact(layout.offset(), width);
        long bytes = Math.multiplyExact(step, width);
        MemorySegment all = source.buffer().segment();
        return from < 0 || from > all.byteSize() - bytes ? null : all.asSlice(from, bytes);
    }

    /**
     * {@return the writer of {@code same}, the source's own bytes} From a mapped .npy input they go
     * file to file in the kernel ({@link CountedWrites#transferFrom}), read from the input file
     * opened again: writing them from the mapping faulted it in page by page, 51,200 faults for
     * 200 MB, most of a plain copy's system time. A same-file convert reads the old file, which
     * stays at that path until the new one is complete and renamed over it.
     */
    private static DenseTensor.DataWriter sameBytesWriter(Opened input, MemorySegment same, Progress progress) {
        if (!(input.owner() instanceof Npy.Tensor a) || !a.isMapped()) {
            return channel -> writeBytes(same, channel, progress::advance);
        }
        long at = Math.addExact(a.header().dataOffset(), same.address() - a.data().segment().address());
        return channel -> {
            if (!(channel instanceof CountedWrites counted)) {
                writeBytes(same, channel, progress::advance);
                return;
            }
            try (FileChannel from = FileChannel.open(a.file(), StandardOpenOption.READ)) {
                for (long done = 0; done < same.byteSize(); ) {
                    long n = Math.min(PIECE_BYTES, same.byteSize() - done);
                    counted.transferFrom(from, at + done, n);
                    done += n;
                    progress.advance(n);
                }
            }
        };
    }

    /** Writes the bytes as they are, in pieces so that the bar moves. */
    private static void writeBytes(MemorySegment from, WritableByteChannel channel, LongConsumer written)
            throws IOException {
        for (long done = 0; done < from.byteSize(); ) {
            long n = Math.min(PIECE_BYTES, from.byteSize() - done);
            ByteBuffer piece = from.asSlice(done, n).asByteBuffer();
            while (piece.hasRemaining()) {
                channel.write(piece);
            }
            done += n;
            written.accept(n);
        }
    }

    /** Copies a tensor of packed sub-byte elements whole into a buffer, then writes it: pieces would split bytes. */
    private static void copyWhole(TensorView from, ArrayShape shape, WritableByteChannel channel, Progress progress)
            throws IOException {
        try (Allocator arena = Allocators.shared()) {
            MemoryBuffer buffer = arena.allocate(Math.max(1, shape.arraySize()));
            copy(from, TensorView.of(buffer, shape), progress);
            writeBytes(buffer.segment().asSlice(0, shape.arraySize()), channel, n -> { });
        }
    }

    /** Copies in pieces along dim 0 when the destination is strided, so the bar moves; whole otherwise. */
    private static void copy(TensorView src, TensorView dst, Progress progress) {
        CopyEngine engine = CopyEngine.defaults();
        long bytes = dst.buffer().byteSize();
        long rows = dst.rank() == 0 ? 1 : dst.dims().getFirst();
        if (dst.rank() == 0 || !dst.isStrided() || bytes <= PIECE_BYTES || rows < 2) {
            engine.copy(src, dst);
            progress.advance(bytes);
            return;
        }
        long rowsPerPiece = Math.max(1, rows * PIECE_BYTES / bytes);
        List<Long> dims = dst.dims();
        for (long row = 0; row < rows; row += rowsPerPiece) {
            long end = Math.min(rows, row + rowsPerPiece);
            long[] lo = new long[dims.size()];
            long[] hi = Extents.toArray(dims);
            long[] step = new long[dims.size()];
            Arrays.fill(step, 1);
            lo[0] = row;
            hi[0] = end;
            try {
                engine.copy(Ops.slice(src, lo, hi, step), Ops.slice(dst, lo, hi, step));
            } catch (IllegalArgumentException refused) {
                // A value the output type cannot hold is named by its index in the piece, which is
                // not the tensor's: the whole copy names it in the tensor, and fails the same way.
                engine.copy(src, dst);
                throw refused;
            }
            progress.advance(bytes * (end - row) / rows);
        }
    }

}
