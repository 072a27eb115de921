package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.NpyArray;
import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.views.DType;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunCommandTest {
    private static final String MODULE = """
            HloModule m
            ENTRY e {
              p0 = f32[2,3]{1,0} parameter(0)
              t = f32[3,2]{1,0} transpose(p0), dimensions={1,0}
              ROOT r = f32[3,2]{1,0} reverse(t), dimensions={0}
            }
            """;

    @TempDir
    Path dir;
    Path hlo;
    Path a;

    @BeforeEach
    void files() throws IOException {
        hlo = dir.resolve("t.hlo");
        Files.writeString(hlo, MODULE);
        a = dir.resolve("a.npy");
        Npy.write(a, new DenseTensor(DType.F32, List.of(2L, 3L),
                Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 0, 1, 2, 3, 4, 5)));
    }

    private float[] read(Path file) throws IOException {
        try (NpyArray r = Npy.map(file)) {
            return r.data().segment().toArray(ValueLayout.JAVA_FLOAT_UNALIGNED);
        }
    }

    @Test
    void exampleFromHelp() throws IOException {
        Path out = dir.resolve("r.npy");
        CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "p0=" + a, "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(hlo + " -> " + out + ": f32[3,2]{1,0}\n"
                + "  %p0  parameter  parameter  strided\n"
                + "  %t   transpose  view       strided\n"
                + "  %r   reverse    view       strided\n"
                + "  ROOT copied into f32[3,2]{1,0}; 2 views, 0 copies\n", r.out());
        assertArrayEquals(new float[] {2, 5, 1, 4, 0, 3}, read(out));
    }

    /** What np.save writes for ml_dtypes' bfloat16: descr '<V2' and the bf16 bits. */
    static void writeVoidBf16(Path file, long[] dims, short... bits) throws IOException {
        byte[] preamble = dev.tensorbuf.interop.internal.NpyCodec.preamble("<V2", false,
                java.util.Arrays.stream(dims).boxed().toList(), 0);
        byte[] data = Arena.ofAuto().allocateFrom(ValueLayout.JAVA_SHORT, bits).toArray(ValueLayout.JAVA_BYTE);
        byte[] all = java.util.Arrays.copyOf(preamble, preamble.length + data.length);
        System.arraycopy(data, 0, all, preamble.length, data.length);
        Files.write(file, all);
    }

    @Test
    void voidNpyArgumentsTakeTheirParametersType() throws IOException {
        // ml_dtypes' bf16 file: 1, 2, 3, -1 as bf16 bits. The parameter says bf16; the ROOT converts to f32.
        Path bf = dir.resolve("bf.npy");
        writeVoidBf16(bf, new long[] {2, 2}, (short) 0x3f80, (short) 0x4000, (short) 0x4040, (short) 0xbf80);
        Path module = dir.resolve("bf.hlo");
        Files.writeString(module, """
                HloModule m
                ENTRY e {
                  p0 = bf16[2,2]{1,0} parameter(0)
                  t = bf16[2,2]{1,0} transpose(p0), dimensions={1,0}
                  ROOT c = f32[2,2]{1,0} convert(t)
                }
                """);
        Path out = dir.resolve("c.npy");
        CliHarness r = CliHarness.run("run", module.toString(), "--arg", "p0=" + bf, "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        assertArrayEquals(new float[] {1, 3, 2, -1}, read(out));
        // An f32 parameter does not make a void file f32.
        r = CliHarness.run("run", hlo.toString(), "--arg", "p0=" + bf, "--out", out.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("descr '<V2' is a void type"), r.err());
    }

    @Test
    void jsonHasTheFixedKeys() throws IOException {
        Path out = dir.resolve("r.npy");
        CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "0=" + a, "--out", out.toString(), "--json");
        assertEquals(0, r.code(), r.err());
        Map<String, Object> json = Json.parseObject(r.out().strip());
        assertEquals(out.toString(), json.get("out"));
        assertEquals("f32[3,2]{1,0}", json.get("shape"));
        assertEquals(List.of(
                Map.of("name", "p0", "opcode", "parameter", "kind", "parameter", "form", "strided"),
                Map.of("name", "t", "opcode", "transpose", "kind", "view", "form", "strided"),
                Map.of("name", "r", "opcode", "reverse", "kind", "view", "form", "strided")), json.get("instructions"));
    }

    @Test
    void columnMajorRootIsWrittenInLogicalCOrder() throws IOException {
        Files.writeString(hlo, """
                HloModule m
                ENTRY e {
                  p0 = f32[2,3]{1,0} parameter(0)
                  ROOT c = f32[2,3]{0,1} copy(p0)
                }
                """);
        Path out = dir.resolve("c.npy");
        CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "p0=" + a, "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("ROOT already in f32[2,3]{0,1}; 0 views, 1 copy"), r.out());
        assertArrayEquals(new float[] {0, 1, 2, 3, 4, 5}, read(out));
    }

    @Test
    void unsupportedOpIsOneLineWithInstructionAndLine() throws IOException {
        Files.writeString(hlo, "HloModule m\nENTRY e {\n  p0 = f32[2] parameter(0)\n\n  ROOT a = f32[2] add(p0, p0)\n}\n");
        CliHarness r = CliHarness.run("run", hlo.toString(), "--out", dir.resolve("x.npy").toString());
        assertEquals(2, r.code());
        assertEquals("tensorbuf run: unsupported op 'add' (instruction %a, line 5): tensorbuf run executes data-movement"
                + " ops only: parameter, constant, iota, broadcast, transpose, reshape, bitcast, copy, slice, dynamic-slice,"
                + " pad, reverse, concatenate, convert\n", r.err());
    }

    @Test
    void argumentOfTheWrongShapeExitsTwo() throws IOException {
        Path b = dir.resolve("b.npy");
        Npy.write(b, new DenseTensor(DType.S32, List.of(6L), Arena.ofAuto().allocate(24)));
        CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "p0=" + b, "--out", dir.resolve("x.npy").toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("argument for parameter 0 (p0: f32[2,3]{1,0}) is s32[6], expected f32[2, 3]"), r.err());
    }

    @Test
    void badArgumentsAreUsageErrors() {
        assertTrue(CliHarness.run("run", hlo.toString(), "--arg", "p0=" + a).err().contains("missing --out FILE.npy"));
        CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "p0", "--out", "x.npy");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--arg 'p0' must be NAME=FILE.npy or NUMBER=FILE.npy"), r.err());
        assertTrue(CliHarness.run("run", hlo.toString(), "--arg", "p0=nope.npy", "--out", "x.npy").err()
                .contains("--arg p0: no such file: nope.npy"));
        Path other = dir.resolve("r.safetensors");
        CliHarness wrongFormat = CliHarness.run("run", hlo.toString(), "--arg", "p0=" + a, "--out", other.toString());
        assertEquals(2, wrongFormat.code());
        assertTrue(wrongFormat.err().contains("run writes .npy only; name it FILE.npy, then use 'tensorbuf convert"),
                wrongFormat.err());
        assertFalse(Files.exists(other));
    }

    @Test
    void moduleThatIsNotUtf8AndOutputInAMissingFolderAreNamed() throws IOException {
        Path latin1 = dir.resolve("latin1.hlo");
        Files.write(latin1, new byte[] {'H', 'l', 'o', (byte) 0xff});
        CliHarness r = CliHarness.run("run", latin1.toString(), "--out", dir.resolve("x.npy").toString());
        assertEquals(2, r.code());
        assertEquals("tensorbuf run: " + latin1 + ": not valid UTF-8 text at byte 3\n", r.err());
        CliHarness out = CliHarness.run("run", hlo.toString(), "--arg", "p0=" + a, "--out", dir.resolve("no/x.npy").toString());
        assertEquals(2, out.code());
        assertEquals("tensorbuf run: --out: no such folder: " + dir.resolve("no") + " (for " + dir.resolve("no/x.npy") + ")\n",
                out.err());
    }
}
