package dev.tensorbuf.cli;

import dev.tensorbuf.cli.TensorFiles.Format;
import dev.tensorbuf.interop.DenseTensor.DataWriter;
import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.GgmlType;
import dev.tensorbuf.interop.GgufFile;
import dev.tensorbuf.interop.GgufTensor;
import dev.tensorbuf.interop.GgufValue;
import dev.tensorbuf.interop.GgufWriter;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.quant.internal.BlockKernels;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.BlockType;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaLayout;
import dev.tensorbuf.views.XlaShape;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * GGUF in {@code tensorbuf inspect} and {@code tensorbuf convert}: InspectCommand and
 * ConvertCommand hand a GGUF input (by its magic or a {@code .gguf} name) or a {@code .gguf}
 * output here, so that their own paths stay as they are.
 */
final class GgufCommands {
    /** Arrays longer than this are shown as their first items and a count. */
    private static final int SHOWN_ITEMS = 8;
    private static final byte[] MAGIC = {'G', 'G', 'U', 'F'};

    private GgufCommands() {
    }

    /** {@return whether {@code file} is a GGUF file: its magic, or (when it has none to read) its name} */
    static boolean isGguf(Path file) throws IOException {
        if (Files.isRegularFile(file)) {
            try (InputStream s = Files.newInputStream(file)) {
                if (Arrays.equals(s.readNBytes(4), MAGIC)) {
                    return true;
                }
            }
        }
        return isGgufName(file);
    }

    static boolean isGgufName(Path file) {
        return file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".gguf");
    }

    // ---------------------------------------------------------------- inspect

    static int inspect(Invocation in, Path file) throws IOException {
        if (in.value("from-dtype") != null) {
            throw new UsageException("--from-dtype names the type of a void .npy file; " + file
                    + " is a GGUF file, which says its own types");
        }
        try (GgufFile f = GgufFile.open(file)) {
            if (in.flag("json")) {
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("file", file.toString());
                out.put("format", "gguf");
                out.put("version", (long) f.version());
                out.put("alignment", f.alignment());
                out.put("data_offset", f.dataOffset());
                out.put("tensors", f.tensors().stream().map(GgufCommands::tensorJson).toList());
                Map<String, Object> metadata = new LinkedHashMap<>();
                f.metadata().forEach((k, v) -> metadata.put(k, valueJson(v)));
                out.put("metadata", metadata);
                in.printJson(out);
                return 0;
            }
            in.out().println(Failure.oneLine(file + ": GGUF v" + f.version() + ", alignment " + f.alignment() + ", "
                    + Counts.of(f.metadata().size(), "metadata key") + ", " + Counts.of(f.tensors().size(), "tensor")));
            for (GgufTensor t : f.tensors()) {
                in.out().println("  " + Failure.oneLine(t.name()) + "  " + t.type() + "  " + t.dims() + "  bytes ["
                        + t.fileOffset() + ", " + (t.fileOffset() + t.byteSize()) + ")  " + Counts.of(t.byteSize(), "byte"));
            }
            if (!f.metadata().isEmpty()) {
                in.out().println("  metadata:");
                f.metadata().forEach((k, v) -> in.out().println("    " + Failure.oneLine(k) + "  " + v.type() + "  "
                        + Failure.oneLine(v.summary(SHOWN_ITEMS))));
            }
        }
        return 0;
    }

    private static Map<String, Object> tensorJson(GgufTensor t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", t.name());
        m.put("dtype", t.type().name());
        m.put("ggml_type", (long) t.type().id());
        m.put("shape", t.dims());
        m.put("byte_offset", t.fileOffset());
        m.put("byte_size", t.byteSize());
        return m;
    }

    /** A value as JSON: {@code {"type", "value"}}; arrays {@code {"type", "element_type", "count", "items"}}, long ones cut. */
    private static Map<String, Object> valueJson(GgufValue v) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", v.type().name());
        if (v.value() instanceof GgufValue.Array a) {
            m.put("element_type", a.elementType().name());
            m.put("count", (long) a.items().size());
            List<Object> shown = a.items().size() <= SHOWN_ITEMS ? a.items() : a.items().subList(0, SHOWN_ITEMS);
            m.put("items", shown.stream().map(x -> a.elementType() == GgufValue.Type.ARRAY
                    ? valueJson(new GgufValue(GgufValue.Type.ARRAY, x)) : scalarJson(a.elementType(), x)).toList());
            m.put("truncated", shown.size() < a.items().size());
        } else {
            m.put("value", scalarJson(v.type(), v.value()));
        }
        return m;
    }

    private static Object scalarJson(GgufValue.Type type, Object x) {
        return switch (type) {
            case UINT8, INT8, UINT16, INT16, INT32 -> (long) (Integer) x;
            case UINT64 -> new BigInteger(Long.toUnsignedString((Long) x));
            // JSON has no NaN or infinity: those are given as their text.
            case FLOAT32 -> Float.isFinite((Float) x) ? (double) (Float) x : x.toString();
            case FLOAT64 -> Double.isFinite((Double) x) ? x : x.toString();
            default -> x;
        };
    }

    // ---------------------------------------------------------------- convert

    /** {@return whether convert hands this pair here: a GGUF input, or a .gguf output} */
    static boolean handles(Path inPath, Path outPath) throws IOException {
        return isGguf(inPath) || isGgufName(outPath);
    }

    static int convert(Invocation in, Path inPath, Path outPath, long start) throws Exception {
        for (String option : List.of("transpose", "from-format", "to-format", "all-rank", "from-layout", "from-dtype")) {
            if (in.value(option) != null) {
                throw new UsageException("--" + option + " is not taken with GGUF files (" + inPath + " -> " + outPath + ")");
            }
        }
        if (isGguf(inPath)) {
            if (isGgufName(outPath)) {
                throw new UsageException("GGUF to GGUF is not a conversion tensorbuf makes: give a .npy, .safetensors or"
                        + " raw OUT");
            }
            try (GgufFile file = GgufFile.open(inPath)) {
                return fromGguf(in, file, inPath, outPath, start);
            }
        }
        return toGguf(in, inPath, outPath, start);
    }

    /** The element type a GGUF tensor becomes: --dtype (f32, f16, bf16) for floats and block types, f32 for block types without one, else its own. */
    private static DType outputType(GgufTensor t, DType asked) {
        DType own = t.type().dtype().orElse(null);
        if (own != null && own.kind() != DType.Kind.FLOAT) {
            return own; // token ids and other integers stay integers
        }
        return asked != null ? asked : own != null ? own : DType.F32;
    }

    private static DType askedFloat(Invocation in) {
        String text = in.value("dtype");
        if (text == null) {
            return null;
        }
        DType t = DTypeNames.parse(text, "--dtype");
        if (t != DType.F32 && t != DType.F16 && t != DType.BF16) {
            throw new UsageException("--dtype " + text + ": a GGUF tensor dequantizes to f32, f16 or bf16");
        }
        return t;
    }

    private static int fromGguf(Invocation in, GgufFile file, Path inPath, Path outPath, long start) throws IOException {
        Format outFormat = TensorFiles.formatOf(outPath);
        DType asked = askedFloat(in);
        if (in.value("tensor") == null && outFormat == Format.SAFETENSORS) {
            if (in.value("layout") != null) {
                throw new UsageException("--layout lays out one tensor (--tensor NAME) as raw output; a .safetensors OUT"
                        + " holds every tensor row-major");
            }
            return allToSafetensors(in, file, inPath, outPath, asked, start);
        }
        if (in.values("tensor").size() > 1) {
            throw new UsageException("--tensor is given " + in.values("tensor").size() + " times: it picks the one tensor"
                    + " to convert");
        }
        GgufTensor t;
        if (in.value("tensor") != null) {
            t = file.tensor(in.value("tensor"));
        } else if (file.tensors().size() == 1) {
            t = file.tensors().getFirst();
        } else {
            throw new UsageException(inPath + " holds " + file.tensors().size() + " tensors: name one with --tensor NAME"
                    + " (or convert them all, to a .safetensors OUT)");
        }
        ArrayShape target;
        if (in.value("layout") != null) {
            XlaShape parsed = XlaShape.parse(in.value("layout"));
            if (!(parsed instanceof ArrayShape array) || !array.isStatic()) {
                throw new IllegalArgumentException("--layout " + in.value("layout") + " is not an array shape with static dims");
            }
            target = array.laidOut();
            if (!target.dims().equals(t.dims())) {
                throw new IllegalArgumentException("--layout " + target + " has dims " + target.dims() + " but tensor '"
                        + t.name() + "' is " + t.type() + t.dims());
            }
            if (asked != null && asked != target.dtype()) {
                throw new UsageException("--dtype " + asked + " differs from the type of --layout " + target
                        + "; give the type once, in --layout");
            }
            if (outFormat != Format.RAW && !target.requireLayout().equals(XlaLayout.packedDescending(target.dtype(), target.rank()))) {
                throw new UsageException("a ." + outFormat.label() + " file holds row-major (C order) data; --layout "
                        + target + " is for raw output (OUT with another extension)");
            }
        } else {
            long[] dims = Extents.toArray(t.dims());
            DType type = outputType(t, asked);
            target = ArrayShape.of(type, dims).withLayout(XlaLayout.packedDescending(type, dims.length));
        }
        TensorFiles.requireWritable(outPath, target, "the output", "write raw bytes instead (OUT with any other extension)");
        long bytes = target.arraySize();
        try (Allocator arena = Allocators.shared();
             Progress progress = Progress.start(in.err(), in.flag("quiet"), bytes)) {
            MemoryBuffer buffer = arena.allocate(Math.max(1, bytes)); // zeroed: tile padding reads 0
            TensorView out = TensorView.of(buffer, target);
            read(t, out);
            progress.advance(bytes);
            MemorySegment data = buffer.segment().asSlice(0, bytes);
            if (outFormat == Format.RAW) {
                TensorFiles.writeRaw(outPath, data, n -> { });
            } else {
                TensorFiles.write(outPath, t.name(), new DenseTensor(target.dtype(), target.dims(), data));
            }
            progress.finish();
        }
        report(in, inPath, outPath, target.toString(), 1, start);
        return 0;
    }

    /** Reads a GGUF tensor into {@code out}: dequantized for block types, converted by the copy engine otherwise. */
    private static void read(GgufTensor t, TensorView out) {
        if (t.type().blockType().isPresent()) {
            t.blocks().dequantize(out);
        } else {
            CopyEngine.defaults().copy(t.view(), out);
        }
    }

    private static int allToSafetensors(Invocation in, GgufFile file, Path inPath, Path outPath, DType asked, long start)
            throws IOException {
        Map<String, ArrayShape> shapes = new LinkedHashMap<>();
        Map<String, DataWriter> data = new LinkedHashMap<>();
        for (GgufTensor t : file.tensors()) {
            DType type = outputType(t, asked);
            long[] dims = Extents.toArray(t.dims());
            ArrayShape shape = ArrayShape.of(type, dims).withLayout(XlaLayout.packedDescending(type, dims.length));
            TensorFiles.requireWritable(outPath, shape, "tensor '" + t.name() + "'", "convert it alone (--tensor NAME)");
            shapes.put(t.name(), shape);
            data.put(t.name(), channel -> {
                try (Allocator arena = Allocators.confined()) {
                    MemoryBuffer buffer = arena.allocate(Math.max(1, shape.arraySize()));
                    read(t, TensorView.of(buffer, shape));
                    ByteBuffer whole = buffer.segment().asSlice(0, shape.arraySize()).asByteBuffer();
                    while (whole.hasRemaining()) {
                        channel.write(whole);
                    }
                }
            });
        }
        // Scalar metadata carry over as strings; arrays (tokenizer vocabularies) do not fit safetensors' string pairs.
        Map<String, String> metadata = new LinkedHashMap<>();
        file.metadata().forEach((k, v) -> {
            if (v.type() != GgufValue.Type.ARRAY) {
                metadata.put(k, v.summary(0));
            }
        });
        SafetensorsFile.write(outPath, shapes, metadata, data);
        report(in, inPath, outPath, Counts.of(shapes.size(), "tensor"), shapes.size(), start);
        return 0;
    }

    /** The GGUF type a tensor becomes: quantized when asked and it has rank 2 or more and whole blocks, as llama.cpp's converter does; else F32, or its own type. */
    private static GgmlType ggufType(String name, DType own, List<Long> dims, String asked) {
        if (asked == null) {
            return GgmlType.of(own).orElseThrow(() -> new IllegalArgumentException("tensor '" + name + "' is " + own
                    + ", which GGUF has no type for; give --dtype f32, f16, bf16, q8_0 or q4_0"));
        }
        GgmlType t = GgmlType.fromName(asked);
        if (t.blockType().isPresent()) {
            if (!BlockKernels.canQuantize(t.blockType().get())) {
                throw new UsageException("--dtype " + asked + ": tensorbuf quantizes to q8_0 and q4_0");
            }
            boolean fits = dims.size() >= 2 && dims.getLast() % t.blockValues() == 0;
            return fits ? t : GgmlType.F32;
        }
        if (t != GgmlType.F32 && t != GgmlType.F16 && t != GgmlType.BF16) {
            throw new UsageException("--dtype " + asked + ": a GGUF OUT takes f32, f16, bf16, q8_0 or q4_0");
        }
        return own.kind() == DType.Kind.FLOAT ? t : GgmlType.of(own).orElse(t);
    }

    private record Source(String name, TensorView view) {
    }

    private static int toGguf(Invocation in, Path inPath, Path outPath, long start) throws Exception {
        if (in.value("layout") != null) {
            throw new UsageException("--layout lays out raw output; a GGUF OUT holds row-major tensors");
        }
        List<Source> sources = new ArrayList<>();
        Map<String, GgufValue> metadata = new LinkedHashMap<>();
        AutoCloseable owner;
        switch (TensorFiles.formatOf(inPath)) {
            case SAFETENSORS -> {
                SafetensorsFile f = SafetensorsFile.open(inPath);
                owner = f;
                List<String> picked = in.values("tensor");
                for (SafetensorsFile.Tensor t : f.tensors()) {
                    if (picked.isEmpty() || picked.contains(t.name())) {
                        sources.add(new Source(t.name(), t.view()));
                    }
                }
                for (String name : picked) {
                    f.tensor(name); // an unknown name is refused with the names there are
                }
                f.metadata().forEach((k, v) -> metadata.put(k, GgufValue.string(v)));
            }
            case NPY -> {
                Npy.Tensor a = TensorFiles.mapNpy(inPath, null);
                owner = a;
                sources.add(new Source(TensorFiles.stem(inPath), TensorView.strided(a.data(), a.dtype(), a.layout())));
            }
            default -> throw new UsageException("a GGUF OUT is written from a .safetensors or .npy IN; " + inPath
                    + " is neither");
        }
        try (AutoCloseable _ = owner) {
            List<GgufWriter.Tensor> tensors = new ArrayList<>();
            String asked = in.value("dtype") == null ? null : in.value("dtype").toLowerCase(Locale.ROOT);
            for (Source s : sources) {
                GgmlType type = ggufType(s.name(), s.view().dtype(), s.view().dims(), asked);
                tensors.add(ggufTensor(s, type));
            }
            GgufWriter.write(outPath, metadata, tensors);
            report(in, inPath, outPath, Counts.of(tensors.size(), "tensor") + " ("
                    + tensors.stream().map(t -> t.name() + " " + t.type()).toList() + ")", tensors.size(), start);
        }
        return 0;
    }

    /** A tensor written row block by row block: copied to f32 (or its own plain type) in scratch, then quantized. */
    private static GgufWriter.Tensor ggufTensor(Source s, GgmlType type) {
        List<Long> dims = s.view().dims();
        long bytes = GgufWriter.byteSize(s.name(), type, dims);
        return new GgufWriter.Tensor(s.name(), type, dims, bytes, channel -> {
            long[] d = Extents.toArray(dims);
            try (Allocator arena = Allocators.confined()) {
                if (type.blockType().isEmpty()) {
                    DType plain = type.dtype().orElseThrow();
                    ArrayShape shape = ArrayShape.of(plain, d);
                    MemoryBuffer buffer = arena.allocate(Math.max(1, shape.arraySize()));
                    CopyEngine.defaults().copy(s.view(), TensorView.of(buffer, shape));
                    write(channel, buffer.segment().asSlice(0, shape.arraySize()));
                    return;
                }
                ArrayShape f32 = ArrayShape.of(DType.F32, d);
                MemoryBuffer values = arena.allocate(Math.max(1, f32.arraySize()));
                CopyEngine.defaults().copy(s.view(), TensorView.of(values, f32));
                MemoryBuffer blocks = arena.allocate(Math.max(1, bytes));
                BlockType block = type.blockType().get();
                BlockKernels.defaults().quantize(block, values.segment(), 0, blocks.segment(), 0,
                        Extents.elementCount("dims", d) / block.blockValues());
                write(channel, blocks.segment().asSlice(0, bytes));
            }
        });
    }

    private static void write(java.nio.channels.WritableByteChannel channel, MemorySegment data) throws IOException {
        for (long done = 0; done < data.byteSize(); ) {
            int n = (int) Math.min(1 << 30, data.byteSize() - done);
            ByteBuffer piece = data.asSlice(done, n).asByteBuffer();
            while (piece.hasRemaining()) {
                channel.write(piece);
            }
            done += n;
        }
    }

    private static void report(Invocation in, Path inPath, Path outPath, String what, int tensors, long start)
            throws IOException {
        double seconds = (System.nanoTime() - start) / 1e9;
        long written = Files.isRegularFile(outPath) ? Files.size(outPath) : -1;
        if (in.flag("json")) {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("in", inPath.toString());
            json.put("out", outPath.toString());
            json.put("what", what);
            json.put("tensors", (long) tensors);
            json.put("bytes_written", written);
            json.put("seconds", Math.round(seconds * 1000) / 1000.0);
            in.printJson(json);
        } else {
            in.out().println(Failure.oneLine(inPath + " -> " + outPath) + ": " + Failure.oneLine(what) + ", "
                    + Counts.of(written, "byte") + " in " + Counts.decimal(seconds, 2) + " s");
        }
    }
}
