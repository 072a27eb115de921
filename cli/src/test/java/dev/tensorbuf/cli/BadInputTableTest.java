package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.ops.indexing.HloIndexing;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaLayout;
import dev.tensorbuf.views.XlaShape;
import dev.tensorbuf.views.indexing.IndexingMap;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input across the modules, one row per case in {@code bad-inputs.jsonl}: each row names
 * what it feeds ({@code kind}), the input, the exception type it must raise and a substring of its
 * message. {@code kind} "cli" runs the command line instead and expects exit 2 with the substring
 * on stderr; "npy-cli" writes its input (hex) to a file and runs the command in {@code args} on it
 * ({@code FILE} and {@code OUT} stand for the file and an output path), expecting the same. A new
 * case is a new line, not new Java.
 */
class BadInputTableTest {
    @TempDir
    static Path dir;

    static Stream<Arguments> rows() throws IOException {
        try (InputStream in = BadInputTableTest.class.getResourceAsStream("/bad-inputs.jsonl")) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return text.lines().filter(l -> !l.isBlank() && !l.startsWith("//"))
                    .map(Json::parseObject)
                    .map(row -> Arguments.of(row.get("case"), row))
                    .toList().stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void badInputFailsWithTheDocumentedExceptionAndMessage(String name, Map<String, Object> row) {
        String expectedType = (String) row.get("exception");
        String message = (String) row.get("message");
        if (row.get("kind").equals("cli")) {
            @SuppressWarnings("unchecked")
            List<String> args = (List<String>) row.get("input");
            CliHarness r = CliHarness.runWithInput((String) row.getOrDefault("stdin", ""), args.toArray(String[]::new));
            assertEquals(2, r.code(), () -> name + ": exit code, stderr " + r.err());
            assertTrue(r.err().contains(message), () -> name + ": stderr " + r.err() + " lacks '" + message + "'");
            return;
        }
        if (row.get("kind").equals("npy-cli")) {
            Path npy = file(name + ".npy", HexFormat.of().parseHex((String) row.get("input")));
            String[] args = ((List<?>) row.get("args")).stream().map(a -> switch ((String) a) {
                case "FILE" -> npy.toString();
                case "OUT" -> dir.resolve(name + "-out.npy").toString();
                default -> (String) a;
            }).toArray(String[]::new);
            CliHarness r = CliHarness.runWithInput("", args);
            assertEquals(2, r.code(), () -> name + ": exit code, stderr " + r.err());
            assertTrue(r.err().contains(message), () -> name + ": stderr " + r.err() + " lacks '" + message + "'");
            return;
        }
        Throwable thrown = assertThrows(Throwable.class, () -> feed(row), name);
        assertEquals(expectedType, thrown.getClass().getSimpleName(),
                () -> name + ": threw " + thrown + " instead of a " + expectedType);
        assertTrue(thrown.getMessage() != null && thrown.getMessage().contains(message),
                () -> name + ": message '" + thrown.getMessage() + "' lacks '" + message + "'");
    }

    /** Runs one row's input through the API its kind names. */
    private static void feed(Map<String, Object> row) throws IOException {
        Object input = row.get("input");
        switch ((String) row.get("kind")) {
            case "shape" -> XlaShape.parse((String) input);
            case "shape-bytes" -> XlaShape.parse((String) input).byteSizeOfElementsRecursive();
            case "shape-padded" -> ((ArrayShape) XlaShape.parse((String) input)).arraySize();
            case "layout" -> XlaLayout.parse((String) input);
            case "strides" -> StridedLayout.of(longs(row, "sizes"), longs(row, "strides"));
            case "map" -> IndexingMap.parse((String) input);
            case "map-eval" -> IndexingMap.parse((String) input).evaluate(longs(row, "at"));
            case "dtype" -> DType.fromXlaName((String) input);
            case "numpy-dtype" -> DType.fromNumpyDescr((String) input);
            case "hlo" -> HloModule.parse((String) input);
            case "hlo-indexing" -> {
                HloModule m = HloModule.parse((String) input);
                HloIndexing.outputToInput(m, m.entry().root());
            }
            case "npy" -> Npy.readHeader(file("bad.npy", HexFormat.of().parseHex((String) input)));
            case "safetensors" -> {
                byte[] header = ((String) input).getBytes(StandardCharsets.UTF_8);
                int data = ((Number) row.getOrDefault("data", 0L)).intValue();
                ByteBuffer b = ByteBuffer.allocate(8 + header.length + data).order(ByteOrder.LITTLE_ENDIAN);
                b.putLong(header.length).put(header);
                SafetensorsFile.open(file("bad.safetensors", b.array())).close();
            }
            case "json" -> Json.parse((String) input);
            case "view" -> {
                try (Allocator a = Allocators.confined(); MemoryBuffer buffer = a.allocate(number(row, "bytes"))) {
                    TensorView.of(buffer, (String) input);
                }
            }
            case "view-op" -> viewOp(row);
            case "alloc" -> alloc(row);
            default -> throw new AssertionError("unknown kind " + row.get("kind"));
        }
    }

    private static void viewOp(Map<String, Object> row) {
        try (Allocator a = Allocators.confined()) {
            ArrayShape shape = (ArrayShape) XlaShape.parse((String) row.get("input"));
            TensorView v = TensorView.of(a.allocate(shape.byteSizeOfElements()), shape);
            switch ((String) row.get("op")) {
                case "get" -> TensorElements.of(v).getDouble(longs(row, "index"));
                case "transpose" -> Ops.transpose(v, ints(row, "dims"));
                case "reverse" -> Ops.reverse(v, ints(row, "dims"));
                case "slice" -> Ops.slice(v, longs(row, "start"), longs(row, "limit"), longs(row, "stride"));
                case "broadcast" -> Ops.broadcast(v, longs(row, "out"), ints(row, "dims"));
                case "pad" -> Ops.pad(v, longs(row, "low"), longs(row, "high"), longs(row, "interior"), 0);
                case "reshape" -> Ops.reshape(v, longs(row, "out"));
                case "dynamic-slice" -> Ops.dynamicSlice(v, longs(row, "start"), longs(row, "sizes"));
                case "concatenate" -> Ops.concatenate(number(row, "dim").intValue(), List.of(v, v));
                case "bitcast" -> Ops.bitcast(v, (ArrayShape) XlaShape.parse((String) row.get("to")));
                default -> throw new AssertionError("unknown op " + row.get("op"));
            }
        }
    }

    private static void alloc(Map<String, Object> row) {
        Allocator a = Allocators.confined();
        try {
            switch ((String) row.get("op")) {
                case "allocate" -> a.allocate(number(row, "bytes"), number(row, "alignment"));
                case "after-close" -> {
                    a.close();
                    a.allocate(8);
                }
                case "slice" -> a.allocate(number(row, "bytes")).slice(number(row, "offset"), number(row, "length"));
                case "use-after-close" -> {
                    MemoryBuffer b = a.allocate(8);
                    b.close();
                    b.segment();
                }
                case "read-only-write" -> {
                    TensorView v = TensorView.of(a.allocate(8).asReadOnly(), "f32[2]{0}");
                    TensorElements.of(v).setFloat(1, 0);
                }
                default -> throw new AssertionError("unknown op " + row.get("op"));
            }
        } finally {
            if (a.isOpen()) {
                a.close();
            }
        }
    }

    private static Path file(String name, byte[] bytes) {
        try {
            return Files.write(dir.resolve(name), bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Long number(Map<String, Object> row, String key) {
        return ((Number) row.get(key)).longValue();
    }

    private static long[] longs(Map<String, Object> row, String key) {
        return ((List<?>) row.get(key)).stream().mapToLong(o -> ((Number) o).longValue()).toArray();
    }

    private static int[] ints(Map<String, Object> row, String key) {
        return ((List<?>) row.get(key)).stream().mapToInt(o -> ((Number) o).intValue()).toArray();
    }
}
