package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.internal.NpyCodec;
import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.testing.NpyBytes;
import dev.tensorbuf.testing.PythonPeer;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * .npy headers as NumPy reads them: every descr spelling {@code np.dtype} takes, ml_dtypes' names,
 * long double refused for what it is, ASCII digits only, and no file written that {@code np.load}
 * refuses. The peer ({@code load_peer.py}) loads the same hand-written files with NumPy.
 */
class NpyHeaderSpellingsTest {
    @TempDir
    Path dir;

    /** NumPy 2 on 64-bit Linux: 'l', 'long', 'int' and 'intp' are 64-bit. */
    static Stream<Arguments> spellings() {
        return Stream.of(
                "d F64", "f F32", "e F16", "i S32", "<i S32", "=i S32", "I U32", "h S16", "H U16", "b S8", "B U8",
                "l S64", "L U64", "q S64", "Q U64", "p S64", "P U64", "n S64", "N U64", "? PRED", "<? PRED", "F C64",
                "D C128", "<d F64", "|d F64", "=f8 F64", "|f4 F32", "i4 S32", "f8 F64", "b1 PRED", "<b1 PRED",
                "int32 S32", "float32 F32", "float64 F64", "float16 F16", "int8 S8", "int16 S16", "int64 S64",
                "uint8 U8", "uint16 U16", "uint32 U32", "uint64 U64", "complex64 C64", "complex128 C128", "bool PRED",
                "bool_ PRED", "double F64", "single F32", "half F16", "float F64", "int S64", "int_ S64", "uint U64",
                "intc S32", "uintc U32", "short S16", "ushort U16", "byte S8", "ubyte U8", "long S64", "ulong U64",
                "longlong S64", "ulonglong U64", "intp S64", "uintp U64", "csingle C64", "cdouble C128",
                "complex C128", "bfloat16 BF16", "float8_e4m3fn F8E4M3FN", "float8_e5m2 F8E5M2",
                "float8_e4m3b11fnuz F8E4M3B11FNUZ", "float8_e5m2fnuz F8E5M2FNUZ", "float8_e4m3fnuz F8E4M3FNUZ",
                "int4 S4", "uint4 U4", "float4_e2m1fn F4E2M1FN")
                .map(s -> s.split(" ")).map(s -> Arguments.of(s[0], DType.valueOf(s[1])));
    }

    /** Three elements: the peers' formula, or for the one-to-a-byte sub-byte types bytes written here. */
    private static byte[] data(DType t) {
        return switch (t) {
            case S4 -> new byte[] {1, 0x0e, 3};               // 1, -2, 3
            case U4 -> new byte[] {1, 14, 3};
            case F4E2M1FN -> new byte[] {0x3, 0xc, 0x5};      // 1.5, -2, 3
            default -> {
                MemorySegment s = TensorValues.tensor(t, List.of(3L), Arena.ofAuto()).bytes();
                yield s.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            }
        };
    }

    private static List<Object> values(DType t) {
        return switch (t) {
            case S4 -> List.of(1L, -2L, 3L);
            case U4 -> List.of(1L, 14L, 3L);
            case F4E2M1FN -> List.of(1.5, -2.0, 3.0);
            default -> List.of(TensorValues.value(t, 0), TensorValues.value(t, 1), TensorValues.value(t, 2));
        };
    }

    private Path write(String name, int version, String descr, String shape, byte[] data) throws IOException {
        Path file = dir.resolve(name + ".npy");
        Files.write(file, NpyBytes.of(version, "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }", data));
        return file;
    }

    private Path spelled(String descr, DType t) throws IOException {
        return write("d" + Integer.toHexString(descr.hashCode()), 1, descr, "(3,)", data(t));
    }

    @ParameterizedTest(name = "''{0}'' is {1}")
    @MethodSource("spellings")
    void everyDescrNumpyReadsIsReadAsItsType(String descr, DType want) throws IOException {
        Path file = spelled(descr, want);
        try (Allocator arena = Allocators.confined(); Npy.Tensor a = Npy.read(file, arena)) {
            assertEquals(want, a.dtype(), descr);
            assertEquals(descr, a.header().descr());
            TensorValues.assertValues(values(want), TensorValues.read(a.view()), descr);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void numpyReadsEachSpellingAsTheSameTypeAndValues() throws IOException {
        PythonPeer.assumeModules("numpy", "ml_dtypes");
        List<String> files = new ArrayList<>(List.of("npy"));
        List<Arguments> cases = spellings().toList();
        for (Arguments c : cases) {
            files.add(spelled((String) c.get()[0], (DType) c.get()[1]).toString());
        }
        List<String> lines = PythonPeer.runScript("/peers/load_peer.py", dir, files.toArray(String[]::new)).lines()
                .filter(l -> l.startsWith("{")).toList();
        assertEquals(cases.size(), lines.size(), String.join("\n", lines));
        for (int i = 0; i < cases.size(); i++) {
            String descr = (String) cases.get(i).get()[0];
            DType t = (DType) cases.get(i).get()[1];
            Map<String, Object> r = Json.parseObject(lines.get(i));
            assertEquals(true, r.get("ok"), () -> descr + ": " + r);
            String numpyName = t.numpyDescr().orElseThrow();
            assertEquals(numpyName, t.isNumpyNative() ? r.get("str") : r.get("name"), descr);
            TensorValues.assertValues((List<Object>) r.get("values"), values(t), "NumPy's " + descr);
        }
    }

    @ParameterizedTest(name = "''{0}''")
    @CsvSource({"<f16, long double (np.longdouble)", "g, long double (np.longdouble)", ">g, long double (np.longdouble)",
        "longdouble, long double (np.longdouble)", "float128, long double (np.longdouble)",
        "<c32, complex long double (np.clongdouble)", "G, complex long double (np.clongdouble)",
        "clongdouble, complex long double (np.clongdouble)", "complex256, complex long double (np.clongdouble)"})
    void longDoubleIsRefusedByName(String descr, String what) throws IOException {
        Path file = write("ld", 1, descr, "(1,)", new byte[32]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Npy.readHeader(file));
        assertEquals(file + ": descr '" + descr + "' is NumPy's " + what + ", which has no element type here; save it"
                + " as float64 or complex128 (a.astype(np.float64))", e.getMessage());
    }

    @Test
    void theLongDoubleNumpySavesIsRefusedByName() throws IOException {
        PythonPeer.assumeModules("numpy");
        Path file = dir.resolve("longdouble.npy");
        PythonPeer.runScript("/peers/load_peer.py", dir, "save-longdouble", file.toString());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Npy.readHeader(file));
        assertTrue(e.getMessage().contains("descr '<f16' is NumPy's long double (np.longdouble)"), e.getMessage());
    }

    /** Spellings NumPy refuses too; the message may quote the descr once, and never suggest it. */
    static final List<String> REFUSED = List.of("<int32", ">float32", "<bfloat16", "|bfloat16", "float_", "i3", "F4",
            "Float32", "int0", "b2", "u16", "<f1x");

    @Test
    void descrsNumpyRefusesAreRefusedWithoutSuggestingThemselves() throws IOException {
        for (String descr : REFUSED) {
            Path file = write("r", 1, descr, "(1,)", new byte[16]);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Npy.readHeader(file), descr);
            assertEquals(file + ": unknown NumPy descr '" + descr + "': expected a NumPy dtype such as '<f4', 'float32',"
                    + " 'd' or '|u1', or an ml_dtypes name such as 'bfloat16'", e.getMessage());
            assertEquals(1, e.getMessage().split("'" + java.util.regex.Pattern.quote(descr) + "'", -1).length - 1,
                    () -> "the refused descr is quoted once only: " + e.getMessage());
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void numpyRefusesThoseDescrsToo() throws IOException {
        PythonPeer.assumeModules("numpy", "ml_dtypes");
        List<String> args = new ArrayList<>(List.of("npy"));
        for (int i = 0; i < REFUSED.size(); i++) {
            args.add(write("r" + i, 1, REFUSED.get(i), "(1,)", new byte[16]).toString());
        }
        List<String> lines = PythonPeer.runScript("/peers/load_peer.py", dir, args.toArray(String[]::new)).lines()
                .filter(l -> l.startsWith("{")).toList();
        assertEquals(REFUSED.size(), lines.size());
        for (int i = 0; i < lines.size(); i++) {
            assertEquals(false, Json.parseObject(lines.get(i)).get("ok"), REFUSED.get(i) + ": " + lines.get(i));
        }
    }

    /** Python's int literals and NumPy's descrs are ASCII; each of these is refused, naming the character. */
    static Stream<Arguments> otherDigits() {
        return Stream.of(
                Arguments.of(3, "<f4", "(３,)", "'３' (U+FF13 FULLWIDTH DIGIT THREE) is not an ASCII digit at position 51"),
                Arguments.of(3, "<f4", "(2, ٣)", "'٣' (U+0663 ARABIC-INDIC DIGIT THREE) is not an ASCII digit at position 54"),
                Arguments.of(3, "<f4", "(२,)", "'२' (U+0968 DEVANAGARI DIGIT TWO) is not an ASCII digit at position 51"),
                Arguments.of(1, "<f4", "(2, ³)", "'³' (U+00B3 SUPERSCRIPT THREE) is not an ASCII digit at position 54"),
                Arguments.of(3, "<i٤", "(1,)", "descr '<i٤': '٤' (U+0664 ARABIC-INDIC DIGIT FOUR) is not an ASCII digit at position 2"),
                Arguments.of(3, "<V２", "(1,)", "descr '<V２': '２' (U+FF12 FULLWIDTH DIGIT TWO) is not an ASCII digit at position 2"),
                Arguments.of(1, "<f²", "(1,)", "descr '<f²': '²' (U+00B2 SUPERSCRIPT TWO) is not an ASCII digit at position 2"));
    }

    @ParameterizedTest(name = "{1} {2}")
    @MethodSource("otherDigits")
    void otherDigitsInAHeaderAreRefusedNamingThem(int version, String descr, String shape, String message) throws IOException {
        Path file = write("digits", version, descr, shape, new byte[64]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Npy.readHeader(file));
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    @Test
    void numpyRefusesOtherDigitsToo() throws IOException {
        PythonPeer.assumeModules("numpy");
        List<String> args = new ArrayList<>(List.of("npy"));
        List<Arguments> cases = otherDigits().toList();
        for (int i = 0; i < cases.size(); i++) {
            Object[] c = cases.get(i).get();
            args.add(write("digits" + i, (Integer) c[0], (String) c[1], (String) c[2], new byte[64]).toString());
        }
        List<String> lines = PythonPeer.runScript("/peers/load_peer.py", dir, args.toArray(String[]::new)).lines()
                .filter(l -> l.startsWith("{")).toList();
        assertEquals(cases.size(), lines.size());
        for (String line : lines) {
            assertEquals(false, Json.parseObject(line).get("ok"), line);
        }
    }

    @Test
    void nothingIsWrittenThatNpLoadRefuses() {
        String limit = "past NumPy's limit of 9223372036854775807 (the largest intp), so np.load would refuse the file"
                + " (\"array is too big\")";
        assertEquals(java.util.Optional.of("shape (0, 4611686018427387904) of 4-byte elements: its non-zero dims times the"
                + " element size are 18446744073709551616 bytes, " + limit),
                Npy.whyNotWritable(ArrayShape.of(DType.F32, 0, 1L << 62)));
        assertEquals(java.util.Optional.empty(), Npy.whyNotWritable(ArrayShape.of(DType.F32, 0, (1L << 61) - 1)));
        assertTrue(Npy.whyNotWritable(ArrayShape.of(DType.F32, 0, 1L << 61)).orElseThrow().contains(limit));
        assertEquals(java.util.Optional.empty(), Npy.whyNotWritable(ArrayShape.of(DType.U8, 0, Long.MAX_VALUE)));

        Path file = dir.resolve("big.npy");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Npy.write(file,
                new DenseTensor(DType.F32, List.of(0L, 1L << 62), MemorySegment.NULL)));
        assertTrue(e.getMessage().endsWith(limit), e.getMessage());
        assertFalse(Files.exists(file));

        List<Long> deep = Collections.nCopies(65, 1L);
        e = assertThrows(IllegalArgumentException.class, () -> Npy.write(file,
                new DenseTensor(DType.U8, deep, Arena.ofAuto().allocate(1))));
        assertEquals("65 dimensions: NumPy reads arrays of at most 64 (NPY_MAXDIMS), so it could not load this file",
                e.getMessage());
        assertFalse(Files.exists(file));
    }

    @Test
    @SuppressWarnings("unchecked")
    void numpyLoadsTheLargestWeWriteAndRefusesOneMore() throws IOException {
        PythonPeer.assumeModules("numpy");
        Path largest = dir.resolve("largest.npy");
        Npy.write(largest, new DenseTensor(DType.F32, List.of(0L, (1L << 61) - 1), MemorySegment.NULL));
        Path deepest = dir.resolve("deepest.npy");
        Npy.write(deepest, new DenseTensor(DType.U8, Collections.nCopies(64, 1L), Arena.ofAuto().allocate(1)));
        // One element more than the limit, written by hand: NumPy refuses what the writer refuses.
        Path past = dir.resolve("past.npy");
        Files.write(past, NpyCodec.preamble("<f4", false, List.of(0L, 1L << 61), 0));
        List<String> lines = PythonPeer.runScript("/peers/load_peer.py", dir, "npy", largest.toString(),
                deepest.toString(), past.toString()).lines().filter(l -> l.startsWith("{")).toList();
        Map<String, Object> l = Json.parseObject(lines.get(0));
        assertEquals(true, l.get("ok"), lines.get(0));
        assertEquals(List.of(0L, (1L << 61) - 1), l.get("shape"));
        Map<String, Object> d = Json.parseObject(lines.get(1));
        assertEquals(true, d.get("ok"), lines.get(1));
        assertEquals(64, ((List<Object>) d.get("shape")).size());
        Map<String, Object> p = Json.parseObject(lines.get(2));
        assertEquals(false, p.get("ok"), lines.get(2));
        assertTrue(((String) p.get("error")).contains("array is too big"), lines.get(2));
    }
}
