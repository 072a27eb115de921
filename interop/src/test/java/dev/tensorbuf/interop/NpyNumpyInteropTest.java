package dev.tensorbuf.interop;

import dev.tensorbuf.testing.PythonPeer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** NumPy 2.x reads what we write and we read what NumPy writes, value for value. */
class NpyNumpyInteropTest {
    private static final List<DType> NUMPY_TYPES = List.of(DType.PRED, DType.S8, DType.S16, DType.S32, DType.S64,
            DType.U8, DType.U16, DType.U32, DType.U64, DType.F16, DType.F32, DType.F64, DType.C64, DType.C128);

    @TempDir
    Path dir;

    @Test
    @SuppressWarnings("unchecked")
    void weReadEveryArrayNumpyWrites() throws IOException {
        PythonPeer.assumeModules("numpy");
        String out = PythonPeer.runScript("/peers/npy_peer.py", dir, "write", dir.toString());
        assertTrue(out.contains("wrote 127"), out);
        List<Object> manifest = (List<Object>) Json.parse(Files.readString(dir.resolve("manifest.json")));
        int bigEndian = 0;
        for (Object o : manifest) {
            Map<String, Object> c = (Map<String, Object>) o;
            Path file = dir.resolve((String) c.get("file"));
            String descr = (String) c.get("descr");
            try (Npy.Tensor mapped = Npy.map(file);
                    Allocator arena = Allocators.confined();
                    Npy.Tensor read = Npy.read(file, arena)) {
                Npy.Header h = mapped.header();
                assertEquals(descr, h.descr(), file.toString());
                assertEquals(c.get("shape"), h.shape(), file.toString());
                assertEquals(c.get("fortran"), h.fortranOrder(), file.toString());
                assertEquals(((Long) c.get("version")).intValue(), h.majorVersion(), file.toString());
                assertEquals(descr.startsWith(">") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN, h.byteOrder());
                bigEndian += descr.startsWith(">") ? 1 : 0;
                List<Object> want = (List<Object>) c.get("values");
                TensorValues.assertValues(want, TensorValues.read(h.dtype(), mapped.layout(), mapped.data().segment()),
                        "mapped " + file.getFileName());
                TensorValues.assertValues(want, TensorValues.read(h.dtype(), read.layout(), read.data().segment()),
                        "read " + file.getFileName());
                TensorValues.assertValues(want, TensorValues.read(mapped.view()), "view of mapped " + file.getFileName());
                TensorValues.assertValues(want, TensorValues.read(read.view()), "view of read " + file.getFileName());
                boolean swapped = descr.startsWith(">");
                assertEquals(!swapped, mapped.isMapped(), "only big-endian data are copied: " + file.getFileName());
                assertEquals(!swapped, mapped.data().isReadOnly(), file.toString());
                assertTrue(!read.isMapped() && !read.data().isReadOnly());
            }
        }
        assertEquals(56, bigEndian, "big-endian cases: 11 multi-byte kinds x 5 shapes + one v2");
    }

    @Test
    @SuppressWarnings("unchecked")
    void weReadEveryTypeMlDtypesSavesOnceItIsNamed() throws IOException {
        PythonPeer.assumeModules("numpy", "ml_dtypes");
        String out = PythonPeer.runScript("/peers/npy_peer.py", dir, "mldtypes", dir.toString());
        assertTrue(out.contains("wrote 32"), out);
        List<Object> manifest = (List<Object>) Json.parse(Files.readString(dir.resolve("manifest.json")));
        for (Object o : manifest) {
            Map<String, Object> c = (Map<String, Object>) o;
            String name = (String) c.get("type");
            DType type = Arrays.stream(DType.values()).filter(t -> t.numpyDescr().orElse("").equals(name)).findFirst()
                    .orElseThrow(() -> new AssertionError("no DType for ml_dtypes' " + name));
            Path file = dir.resolve((String) c.get("file"));
            try (Npy.Tensor a = Npy.map(file, type)) {
                assertEquals(c.get("descr"), a.header().descr(), file.toString());
                assertEquals(type, a.dtype(), file.toString());
                assertEquals(c.get("shape"), a.shape(), file.toString());
                TensorValues.assertValues((List<?>) c.get("values"), TensorValues.read(type, a.layout(), a.data().segment()),
                        file.getFileName().toString());
                TensorValues.assertValues((List<?>) c.get("values"), TensorValues.read(a.view()),
                        "view of " + file.getFileName());
            }
        }
    }

    @Test
    void numpyReadsWhatWeWriteAndWritesTheSameBytes() throws IOException {
        PythonPeer.assumeModules("numpy");
        List<Object> manifest = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            for (DType t : NUMPY_TYPES) {
                for (List<Long> dims : List.of(List.of(2L, 3L), List.<Long>of(), List.of(0L, 4L), List.of(5L))) {
                    manifest.add(write(t, dims, 1, arena));
                }
            }
            manifest.add(write(DType.F32, List.of(3L, 2L, 2L), 2, arena));
            manifest.add(write(DType.S16, List.of(4L), 2, arena));
            manifest.add(write(DType.U8, List.of(4L), 3, arena));
        }
        Files.writeString(dir.resolve("manifest.json"), Json.write(manifest));
        String out = PythonPeer.runScript("/peers/npy_peer.py", dir, "check", dir.toString());
        assertTrue(out.contains("checked " + manifest.size()), out);
    }

    @Test
    void numpyWithMlDtypesLoadsWhatWeWriteForItsTypesAndSavesTheSameBytes() throws IOException {
        PythonPeer.assumeModules("numpy", "ml_dtypes");
        List<Object> manifest = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            for (DType t : DType.values()) {
                boolean mlDtypes = t.isArrayType() && !t.isNumpyNative() && t != DType.F8E5M2
                        && !(t.isSubByte() && 8 % t.bitWidth() != 0);
                if (!mlDtypes) {
                    continue;
                }
                for (List<Long> dims : List.of(List.of(2L, 4L), List.<Long>of(), List.of(0L, 2L))) {
                    long n = dims.stream().reduce(1L, Math::multiplyExact);
                    if (t.isSubByte() && n * t.bitWidth() % 8 != 0) {
                        continue; // odd counts: the next test
                    }
                    manifest.add(writeAndReadBack(arena, "java_", t, dims, i -> mlValue(t, i)));
                }
            }
        }
        checkWithMlDtypes(manifest);
        assertEquals(38, manifest.size(), "15 types x 3 shapes, less the 0-d of the 7 sub-byte ones (no whole byte)");
    }

    /**
     * A count of 1-, 2- or 4-bit elements that does not fill whole bytes (s4[3], packed into 2
     * bytes) is written as np.save writes the ml_dtypes array, byte for byte.
     */
    @Test
    void subByteCountsThatDoNotFillWholeBytesAreWrittenAsNpSaveWritesThem() throws IOException {
        PythonPeer.assumeModules("numpy", "ml_dtypes");
        List<Object> manifest = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            for (DType t : List.of(DType.S4, DType.U4, DType.S2, DType.U2, DType.S1, DType.U1, DType.F4E2M1FN)) {
                for (List<Long> dims : List.of(List.<Long>of(), List.of(3L), List.of(3L, 3L), List.of(1L, 7L))) {
                    long n = dims.stream().reduce(1L, Math::multiplyExact);
                    if (n * t.bitWidth() % 8 == 0) {
                        continue;
                    }
                    // f4e2m1fn holds -1.5 to 2 in steps of 0.5 exactly, not mlValue's 2.5 and on.
                    manifest.add(writeAndReadBack(arena, "odd_", t, dims,
                            i -> t == DType.F4E2M1FN ? (i % 8 - 3) * 0.5 : mlValue(t, i)));
                }
            }
        }
        checkWithMlDtypes(manifest);
        assertEquals(28, manifest.size(), "7 types x 4 shapes of 1, 3, 9 and 7 elements, none a whole number of bytes");
    }

    /**
     * Writes a tensor of type {@code t} holding {@code value(i)} at element {@code i}, reads it back
     * with {@link Npy#map}, and {@return its manifest entry for the ml_dtypes peer}
     */
    private Map<String, Object> writeAndReadBack(Arena arena, String prefix, DType t, List<Long> dims,
                                                 java.util.function.LongFunction<Number> value) throws IOException {
        long n = dims.stream().reduce(1L, Math::multiplyExact);
        ElementAccess access = ElementAccess.packed(t);
        MemorySegment bytes = arena.allocate(Math.max(1, access.byteSize(n))).asSlice(0, access.byteSize(n));
        List<Object> values = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            Number v = value.apply(i);
            values.add(v);
            if (v instanceof Long l) {
                access.setLong(bytes, i, l);
            } else {
                access.setDouble(bytes, i, v.doubleValue());
            }
        }
        String name = prefix + t + "_" + dims.size() + "d_" + n + ".npy";
        Npy.write(dir.resolve(name), new DenseTensor(t, dims, bytes));
        try (Npy.Tensor back = Npy.map(dir.resolve(name), t)) {
            TensorValues.assertValues(values, TensorValues.read(back.view()), "we read back " + name);
        }
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("file", name);
        c.put("type", t.numpyDescr().orElseThrow());
        c.put("shape", dims);
        c.put("values", values);
        return c;
    }

    /** Has the peer load every file of {@code manifest} with ml_dtypes and save it again: the same bytes. */
    private void checkWithMlDtypes(List<Object> manifest) throws IOException {
        Files.writeString(dir.resolve("manifest.json"), Json.write(manifest));
        String out = PythonPeer.runScript("/peers/npy_peer.py", dir, "mlcheck", dir.toString());
        assertTrue(out.contains("checked " + manifest.size()), out);
    }

    /** {@return element i of a type ml_dtypes holds, exactly representable: its range cycled for integers} */
    private static Number mlValue(DType t, long i) {
        if (t.kind() == DType.Kind.SIGNED || t.kind() == DType.Kind.UNSIGNED) {
            long lo = t.kind() == DType.Kind.SIGNED ? -(1L << (t.bitWidth() - 1)) : 0;
            return lo + i % (1L << t.bitWidth());
        }
        if (t == DType.F8E8M0FNU) {
            return Math.scalb(1.0, (int) i - 3); // powers of two only, no sign, no zero
        }
        return (i - 3) * 0.5;
    }

    private Map<String, Object> write(DType t, List<Long> dims, int version, Arena arena) throws IOException {
        DenseTensor tensor = TensorValues.tensor(t, dims, arena);
        String name = "java_" + t + "_" + dims.size() + "d_" + dims.stream().reduce(1L, Math::multiplyExact) + "_v" + version + ".npy";
        Npy.write(dir.resolve(name), tensor, version);
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("file", name);
        c.put("descr", t.numpyDescr().orElseThrow());
        c.put("shape", dims);
        c.put("version", version);
        List<Object> values = new ArrayList<>();
        for (long i = 0; i < tensor.elementCount(); i++) {
            values.add(TensorValues.value(t, i));
        }
        c.put("values", values);
        return c;
    }
}
