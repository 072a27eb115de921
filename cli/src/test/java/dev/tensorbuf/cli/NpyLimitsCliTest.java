package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * convert and run write no .npy that np.load refuses: a shape whose non-zero dims pass NumPy's
 * intp in bytes, or more than 64 dims, is refused before anything is read or written, naming
 * NumPy's limit (NpyHeaderSpellingsTest shows np.load refusing exactly these).
 */
class NpyLimitsCliTest {
    private static final String LIMIT = "past NumPy's limit of 9223372036854775807 (the largest intp), so np.load would"
            + " refuse the file (\"array is too big\")";

    @TempDir
    Path dir;

    @Test
    void convertRefusesAnEmptyArrayNumpyCouldNotLoad() throws IOException {
        // We read it (it holds no bytes); NumPy would not, so we do not write it.
        Path in = dir.resolve("in.npy");
        NpyBytes.write(in, "<f4", List.of(0L, 1L << 62), new byte[0]);
        Path out = dir.resolve("out.npy");
        CliHarness r = CliHarness.run("convert", in.toString(), out.toString());
        assertEquals(2, r.code(), r.err());
        assertEquals("tensorbuf convert: the output is f32[0,4611686018427387904]: shape (0, 4611686018427387904) of"
                + " 4-byte elements: its non-zero dims times the element size are 18446744073709551616 bytes, " + LIMIT
                + "; write raw bytes instead (OUT with any other extension)\n", r.err());
        assertFalse(Files.exists(out));
    }

    @Test
    void runRefusesARootNumpyCouldNotLoadBeforeReadingArguments() throws IOException {
        Path module = dir.resolve("m.hlo");
        Path out = dir.resolve("o.npy");
        Files.writeString(module, "HloModule m\nENTRY e {\n  ROOT p = f32[0,4611686018427387904] parameter(0)\n}\n");
        CliHarness big = CliHarness.run("run", module.toString(), "--out", out.toString());
        assertEquals(2, big.code(), big.err());
        assertEquals(1, big.err().lines().count(), big.err());
        assertEquals(true, big.err().startsWith("tensorbuf run: ROOT p is f32[0,4611686018427387904]: shape (0,"
                + " 4611686018427387904) of 4-byte elements"), big.err());
        assertEquals(true, big.err().contains(LIMIT), big.err());

        String dims = String.join(",", Collections.nCopies(65, "1"));
        Files.writeString(module, "HloModule m\nENTRY e {\n  ROOT p = u8[" + dims + "] parameter(0)\n}\n");
        CliHarness deep = CliHarness.run("run", module.toString(), "--out", out.toString());
        assertEquals(2, deep.code(), deep.err());
        assertEquals(1, deep.err().lines().count(), deep.err());
        assertEquals(true, deep.err().contains("65 dimensions: NumPy reads arrays of at most 64 (NPY_MAXDIMS), so it"
                + " could not load this file"), deep.err());
        assertFalse(Files.exists(out));
    }
}
