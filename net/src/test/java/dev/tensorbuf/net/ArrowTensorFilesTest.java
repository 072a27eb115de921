package dev.tensorbuf.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.testing.DamagedFiles;
import dev.tensorbuf.testing.PythonPeer;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ArrowTensorFilesTest {
    @TempDir
    Path dir;

    /** f32[rows, 2, 3] holding 0, 1, 2, ... in C order. */
    private static TensorView counting(Allocator arena, DType type, long... dims) {
        TensorView v = TensorView.strided(arena.allocate(Math.max(1, StridedLayout.packed(dims).elementCount() * type.byteWidth())),
                type, StridedLayout.packed(dims));
        long n = v.elementCount();
        long[] values = new long[(int) n];
        for (int i = 0; i < n; i++) {
            values[i] = type.name().startsWith("U") ? i * 3L % 251 : i * 3L - 5;
        }
        if (type == DType.F16 || type == DType.F32 || type == DType.F64) {
            double[] d = new double[(int) n];
            for (int i = 0; i < n; i++) {
                d[i] = values[i] * 0.5;
            }
            TensorElements.of(v).copyFrom(d);
        } else {
            TensorElements.of(v).copyFrom(values);
        }
        return v;
    }

    @Test
    void exampleFromJavadoc() {
        FixedShapeTensorType t = FixedShapeTensorType.of(DType.F32, List.of(2L, 3L)).withPermutation(List.of(1, 0));
        assertEquals(List.of(3L, 2L), t.logicalDims());
        assertEquals("{\"shape\":[2,3],\"permutation\":[1,0]}", t.metadataJson());
        assertEquals(6, t.listSize());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FixedShapeTensorType.parse(DType.F32, "{\"shape\":[2,3],\"permutation\":[0,0]}"));
        assertEquals("arrow.fixed_shape_tensor metadata: permutation [0, 0] is not a permutation of [0, 2)", e.getMessage());
    }

    @Test
    void cOrderViewIsLentToArrowWithoutACopy() {
        try (Allocator arena = Allocators.shared(); BufferAllocator arrow = ArrowTensors.allocator()) {
            TensorView x = counting(arena, DType.F32, 4, 2, 3);
            try (FieldVector column = ArrowTensors.toVector("x", x, arrow)) {
                FixedShapeTensorType type = FixedShapeTensorType.ofField(column.getField()).orElseThrow();
                assertEquals(List.of(2L, 3L), type.shape());
                assertEquals(List.of(), type.permutation());
                long address = ((BaseFixedWidthVector) ((FixedSizeListVector) column).getDataVector()).getDataBuffer().memoryAddress();
                assertEquals(x.buffer().address(), address, "the column's values are the view's bytes");
            }
        }
    }

    @Test
    void transposedViewIsLentWithAPermutation() {
        try (Allocator arena = Allocators.shared(); BufferAllocator arrow = ArrowTensors.allocator()) {
            TensorView base = counting(arena, DType.F32, 4, 2, 3);
            TensorView t = Ops.transpose(base, 0, 2, 1); // rows of [3, 2], physical [2, 3]
            try (FieldVector column = ArrowTensors.toVector("t", t, arrow)) {
                FixedShapeTensorType type = FixedShapeTensorType.ofField(column.getField()).orElseThrow();
                assertEquals("{\"shape\":[2,3],\"permutation\":[1,0]}", type.metadataJson());
                try (ArrowTensors.Column back = ArrowTensors.read(column)) {
                    TensorView v = back.view();
                    assertEquals(List.of(4L, 3L, 2L), v.dims());
                    assertArrayEquals(TensorElements.of(t).toFloatArray(), TensorElements.of(v).toFloatArray());
                }
            }
        }
    }

    @Test
    void reversedViewIsCopiedInCOrder() {
        try (Allocator arena = Allocators.shared(); BufferAllocator arrow = ArrowTensors.allocator()) {
            TensorView r = Ops.reverse(counting(arena, DType.S16, 3, 5), 1);
            try (FieldVector column = ArrowTensors.toVector("r", r, arrow);
                 ArrowTensors.Column back = ArrowTensors.read(column)) {
                assertEquals(List.of(), back.type().permutation());
                assertArrayEquals(TensorElements.of(r).toLongArray(), TensorElements.of(back.view()).toLongArray());
            }
        }
    }

    @Test
    void fileRoundTripsSeveralColumns() throws Exception {
        try (Allocator arena = Allocators.shared()) {
            TensorView a = counting(arena, DType.F64, 3, 4);
            TensorView b = Ops.transpose(counting(arena, DType.U8, 3, 2, 2, 5), 0, 3, 1, 2);
            Map<String, TensorView> tensors = new LinkedHashMap<>();
            tensors.put("a", a);
            tensors.put("b", b);
            Path file = dir.resolve("two.arrow");
            ArrowTensors.write(file, tensors);
            try (ArrowTensors.Tensors t = ArrowTensors.read(file)) {
                assertEquals(List.of("a", "b"), t.names());
                assertArrayEquals(TensorElements.of(a).toDoubleArray(), TensorElements.of(t.view("a")).toDoubleArray());
                assertEquals(b.dims(), t.view("b").dims());
                assertArrayEquals(TensorElements.of(b).toLongArray(), TensorElements.of(t.view("b")).toLongArray());
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.view("c"));
                assertEquals("no tensor column 'c'; there are [a, b]", e.getMessage());
            }
        }
    }

    @Test
    void filesHoldNoValidityBitmaps() throws Exception {
        // As pyarrow writes a column without nulls; Arrow Java's vectors would write 8,192 bytes of ones here.
        try (Allocator arena = Allocators.shared()) {
            TensorView x = counting(arena, DType.U8, 64, 1024);
            for (String name : List.of("x.arrow", "x.arrows")) {
                Path file = dir.resolve(name);
                if (name.endsWith(".arrow")) {
                    ArrowTensors.write(file, Map.of("x", x));
                } else {
                    ArrowTensors.writeStream(file, Map.of("x", x));
                }
                long overhead = Files.size(file) - 64 * 1024;
                assertTrue(overhead < 2048, name + ": " + overhead + " bytes beside the values");
                ArrowTensors.ColumnHeader c = ArrowTensors.describe(file).columns().getFirst();
                assertTrue(c.byteOffset() < 1024, name + ": the values start at byte " + c.byteOffset());
                try (ArrowTensors.Tensors t = ArrowTensors.read(file)) {
                    assertArrayEquals(TensorElements.of(x).toLongArray(), TensorElements.of(t.view("x")).toLongArray());
                }
            }
        }
    }

    @Test
    void streamRoundTrips() throws Exception {
        try (Allocator arena = Allocators.shared()) {
            TensorView a = counting(arena, DType.S64, 2, 3, 1);
            Path file = dir.resolve("a.arrows");
            try (var channel = Files.newByteChannel(file, java.nio.file.StandardOpenOption.CREATE_NEW,
                    java.nio.file.StandardOpenOption.WRITE)) {
                ArrowTensors.writeStream(channel, Map.of("a", a));
            }
            try (ArrowTensors.Tensors t = ArrowTensors.read(file)) {
                assertArrayEquals(TensorElements.of(a).toLongArray(), TensorElements.of(t.view("a")).toLongArray());
            }
        }
    }

    @Test
    void viewsOfAClosedFileRefuseAccess() throws Exception {
        try (Allocator arena = Allocators.shared()) {
            Path file = dir.resolve("x.arrow");
            ArrowTensors.write(file, Map.of("x", counting(arena, DType.F32, 2, 2)));
            TensorView kept;
            try (ArrowTensors.Tensors t = ArrowTensors.read(file)) {
                kept = t.view("x");
                assertEquals(1.0f, TensorElements.of(kept).getFloat(1, 1) - TensorElements.of(kept).getFloat(1, 0) - 0.5f);
            }
            assertThrows(IllegalStateException.class, () -> TensorElements.of(kept).getFloat(0, 0));
        }
    }

    @Test
    void refusesWhatArrowCannotHold() {
        try (Allocator arena = Allocators.shared()) {
            TensorView bf = TensorView.of(arena.allocate(8), "bf16[2,2]{1,0}");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ArrowTensors.write(dir.resolve("b.arrow"), Map.of("w", bf)));
            assertTrue(e.getMessage().startsWith("bf16 has no Arrow element type"), e.getMessage());
            Map<String, TensorView> uneven = new LinkedHashMap<>();
            uneven.put("a", counting(arena, DType.F32, 2, 2));
            uneven.put("b", counting(arena, DType.F32, 3, 2));
            e = assertThrows(IllegalArgumentException.class, () -> ArrowTensors.write(dir.resolve("u.arrow"), uneven));
            assertEquals("tensor 'b' has 3 rows (dim 0 of [3, 2]) but 'a' has 2; the columns of an Arrow file share their rows",
                    e.getMessage());
            assertTrue(Files.notExists(dir.resolve("u.arrow")), "nothing is left behind");
        }
    }

    @Test
    void describeReadsTheHeadersAndPointsAtEachColumnsValues() throws Exception {
        try (Allocator arena = Allocators.shared()) {
            TensorView a = counting(arena, DType.F64, 3, 4);
            TensorView base = counting(arena, DType.U8, 3, 2, 2, 5);
            TensorView b = Ops.transpose(base, 0, 3, 1, 2);   // lent as rows of [2, 2, 5] with a permutation
            Map<String, TensorView> tensors = new LinkedHashMap<>();
            tensors.put("a", a);
            tensors.put("b", b);
            Path file = dir.resolve("two.arrow");
            ArrowTensors.write(file, tensors);
            Path stream = dir.resolve("two.arrows");
            ArrowTensors.writeStream(stream, tensors);
            byte[] aBytes = DenseTensor.copyOf(a, arena).bytes().toArray(ValueLayout.JAVA_BYTE);
            byte[] bBytes = base.buffer().segment().toArray(ValueLayout.JAVA_BYTE);
            for (Path f : List.of(file, stream)) {
                ArrowTensors.Header h = ArrowTensors.describe(f);
                assertEquals(f == file ? "file" : "stream", h.format());
                assertEquals(1, h.batches());
                assertEquals(List.of("a", "b"), h.columns().stream().map(ArrowTensors.ColumnHeader::name).toList());
                byte[] all = Files.readAllBytes(f);
                try (ArrowTensors.Tensors t = ArrowTensors.read(f)) {
                    for (int i = 0; i < 2; i++) {
                        ArrowTensors.ColumnHeader c = h.columns().get(i);
                        assertEquals(t.view(c.name()).dims(), c.dims(), f + " " + c.name());
                        assertEquals(t.type(c.name()), c.type());
                        byte[] want = i == 0 ? aBytes : bBytes;
                        assertEquals(want.length, c.byteSize());
                        assertArrayEquals(want, Arrays.copyOfRange(all, (int) c.byteOffset(), (int) (c.byteOffset() + c.byteSize())),
                                f + ": " + c.name() + "'s values at [" + c.byteOffset() + ", +" + c.byteSize() + ")");
                    }
                }
                assertEquals(List.of(2, 0, 1), h.columns().get(1).type().permutation(), "rows of [5, 2, 2] over [2, 2, 5]");
            }
            Path text = dir.resolve("x.arrow");
            Files.writeString(text, "not arrow at all");
            IOException e = assertThrows(IOException.class, () -> ArrowTensors.describe(text));
            assertEquals(text + " is not a readable Arrow IPC file or stream: it starts with neither the file magic ARROW1"
                    + " nor a stream message's continuation marker 0xFFFFFFFF", e.getMessage());
        }
    }

    @Test
    void describeOfADamagedFileThrowsWhatItFoundNothingElse() throws Exception {
        java.util.Random random = DamagedFiles.random("ArrowTensorFilesTest.describeOfADamagedFile");
        try (Allocator arena = Allocators.shared()) {
            Map<String, TensorView> tensors = Map.of("x", counting(arena, DType.F32, 3, 4));
            Path file = dir.resolve("ok.arrow");
            ArrowTensors.write(file, tensors);
            Path stream = dir.resolve("ok.arrows");
            ArrowTensors.writeStream(stream, tensors);
            int[] refused = {0};
            for (Path good : List.of(file, stream)) {
                DamagedFiles.each(good, 300, random, (damaged, trial) -> {
                    try {
                        ArrowTensors.describe(damaged);
                    } catch (IOException | IllegalArgumentException e) {
                        assertTrue(e.getMessage() != null && e.getMessage().startsWith(damaged.toString()),
                                "trial " + trial + " of " + good.getFileName() + ": " + e);
                        refused[0]++;
                    }
                });
            }
            assertTrue(refused[0] > 100, "most damage is found: " + refused[0] + " of 600 refused");
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void readOfADamagedFileThrowsWhatItFoundNothingElse() throws Exception {
        java.util.Random random = DamagedFiles.random("ArrowTensorFilesTest.readOfADamagedFile");
        try (Allocator arena = Allocators.shared()) {
            Map<String, TensorView> tensors = new LinkedHashMap<>();
            tensors.put("x", counting(arena, DType.F32, 3, 4));
            tensors.put("y", counting(arena, DType.S16, 3, 2, 2));
            Path file = dir.resolve("ok.arrow");
            ArrowTensors.write(file, tensors);
            Path stream = dir.resolve("ok.arrows");
            ArrowTensors.writeStream(stream, tensors);
            int[] refused = {0};
            java.util.Map<String, Integer> kinds = new java.util.TreeMap<>();
            for (Path good : List.of(file, stream)) {
                DamagedFiles.each(good, 300, random, (damaged, trial) -> {
                    try (ArrowTensors.Tensors t = ArrowTensors.read(damaged)) {
                        for (String name : t.names()) {
                            TensorElements.of(t.view(name)).toDoubleArray();   // a view past its values would throw
                        }
                    } catch (IOException | IllegalArgumentException e) {
                        if (!(e.getMessage() != null && e.getMessage().startsWith(damaged.toString()))) {
                            kinds.merge("unnamed " + e.getClass().getSimpleName() + ": " + e.getMessage(), 1, Integer::sum);
                        }
                        refused[0]++;
                    } catch (Throwable e) {
                        // What Arrow's own reader threw here: index errors, OutOfMemoryError for 3 PB.
                        kinds.merge(e.getClass().getName() + ": " + e.getMessage(), 1, Integer::sum);
                    }
                });
            }
            kinds.forEach((k, n) -> System.out.println(n + " x " + k));
            assertTrue(kinds.isEmpty(), kinds.toString());
            assertTrue(refused[0] > 100, "most damage is found: " + refused[0] + " of 600 refused");
        }
    }

    @Test
    void refusesAFileThatIsNotArrow() throws Exception {
        Path file = dir.resolve("x.arrow");
        Files.writeString(file, "not arrow at all");
        Exception e = assertThrows(Exception.class, () -> ArrowTensors.read(file));
        assertTrue(e.getMessage().startsWith(file + " is not a readable Arrow IPC file or stream"), e.getMessage());
    }

    @Test
    void pyarrowReadsWhatWeWrite() throws Exception {
        PythonPeer.assumeModules("numpy", "pyarrow");
        try (Allocator arena = Allocators.shared()) {
            TensorView base = counting(arena, DType.F32, 4, 2, 3);
            TensorView t = Ops.transpose(base, 0, 2, 1);
            Path file = dir.resolve("t.arrow");
            ArrowTensors.write(file, Map.of("t", t));
            Path expected = dir.resolve("t.npy");
            Npy.write(expected, DenseTensor.copyOf(t, arena));
            String out = PythonPeer.runScript("/peers/arrow_peer.py", Files.createDirectories(dir.resolve("p1")), "check",
                    file.toString(), "t", expected.toString(), "[2, 3]", "[1, 0]");
            assertEquals("ok", out.strip());

            TensorView r = Ops.reverse(counting(arena, DType.S32, 3, 4), 0);
            Path stream = dir.resolve("r.arrows");
            try (var channel = Files.newByteChannel(stream, java.nio.file.StandardOpenOption.CREATE_NEW,
                    java.nio.file.StandardOpenOption.WRITE)) {
                ArrowTensors.writeStream(channel, Map.of("r", r));
            }
            Path rExpected = dir.resolve("r.npy");
            Npy.write(rExpected, DenseTensor.copyOf(r, arena));
            out = PythonPeer.runScript("/peers/arrow_peer.py", Files.createDirectories(dir.resolve("p2")), "check",
                    stream.toString(), "r", rExpected.toString());
            assertEquals("ok", out.strip());
        }
    }

    @Test
    void weReadWhatPyarrowWrites() throws Exception {
        PythonPeer.assumeModules("numpy", "pyarrow");
        String out = PythonPeer.runScript("/peers/arrow_peer.py", dir, "write", dir.toString());
        assertEquals("{\"shape\": [4, 3], \"permutation\": [1, 0]}", out.strip());
        try (Npy.Tensor expected = Npy.map(dir.resolve("permuted.npy"))) {
            for (String name : List.of("permuted.arrow", "permuted.arrows")) {
                ArrowTensors.Header h = ArrowTensors.describe(dir.resolve(name));
                ArrowTensors.ColumnHeader c = h.columns().getFirst();
                assertEquals(expected.view().dims(), c.dims(), name);
                assertEquals(List.of("H", "W"), c.type().dimNames());
                // The file's two batches are not one range; the stream's one batch is.
                assertEquals(name.endsWith(".arrow") ? 2 : 1, h.batches(), name);
                assertEquals(name.endsWith(".arrow"), c.byteOffset() == -1, name + ": " + c.byteOffset());
                try (ArrowTensors.Tensors t = ArrowTensors.read(dir.resolve(name))) {
                    if (c.byteOffset() >= 0) {
                        byte[] all = Files.readAllBytes(dir.resolve(name));
                        assertArrayEquals(t.view("t").buffer().segment().asSlice(0, c.byteSize()).toArray(ValueLayout.JAVA_BYTE),
                                Arrays.copyOfRange(all, (int) c.byteOffset(), (int) (c.byteOffset() + c.byteSize())), name);
                    }
                    FixedShapeTensorType type = t.type("t");
                    assertEquals(List.of("H", "W"), type.dimNames());
                    TensorView v = t.view("t");
                    assertEquals(expected.view().dims(), v.dims(), name);
                    assertArrayEquals(TensorElements.of(expected.view()).toLongArray(), TensorElements.of(v).toLongArray(), name);
                }
            }
            // Feather's default, LZ4-compressed buffers, and Zstandard: decoded (they are not one range of the file).
            for (String name : List.of("feather.arrow", "feather-zstd.arrow")) {
                Path feather = dir.resolve(name);
                ArrowTensors.Header h = ArrowTensors.describe(feather);
                assertEquals(expected.view().dims(), h.columns().getFirst().dims(), name);
                assertEquals(-1, h.columns().getFirst().byteOffset(), name);
                try (ArrowTensors.Tensors t = ArrowTensors.read(feather)) {
                    assertArrayEquals(TensorElements.of(expected.view()).toLongArray(), TensorElements.of(t.view("t")).toLongArray(),
                            name);
                }
            }
        }
    }
}
