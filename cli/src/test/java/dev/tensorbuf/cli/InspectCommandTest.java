package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.net.ArrowTensors;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InspectCommandTest {
    @TempDir
    Path dir;

    @Test
    void exampleFromHelp() throws IOException {
        Path file = dir.resolve("x.npy");
        Npy.write(file, new DenseTensor(DType.F32, List.of(2L, 3L), Arena.ofAuto().allocate(24)));
        CliHarness r = CliHarness.run("inspect", file.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(file + ": npy version 1.0, 1 tensor\n"
                + "  array  f32 (<f4)  [2, 3]  bytes [128, 152)  24 bytes\n"
                + "  metadata: descr=<f4, fortran_order=False, version=1.0\n", r.out());
    }

    @Test
    void anArrowFileListsItsTensorColumnsAndWhereTheirValuesLie() throws IOException {
        // Was: "x.arrow is neither a .npy file (it lacks the \x93NUMPY magic) nor a safetensors file (...)".
        Path file = dir.resolve("x.arrow");
        byte[] values;
        try (Allocator arena = Allocators.shared()) {
            MemoryBuffer m = arena.allocate(24);
            for (int i = 0; i < 6; i++) {
                m.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, i + 0.5f);
            }
            values = m.segment().toArray(ValueLayout.JAVA_BYTE);
            ArrowTensors.write(file, Map.of("x", TensorView.of(m, "f32[2,3]{1,0}")));
        }
        CliHarness r = CliHarness.run("inspect", file.toString());
        assertEquals(0, r.code(), r.err());
        Matcher row = Pattern.compile("\\Q" + file + "\\E: Arrow IPC file, 1 record batch, 1 tensor column\n"
                + "  x  f32  \\[2, 3\\] \\(rows of \\[3\\]\\)  bytes \\[(\\d+), (\\d+)\\)  24 bytes\n").matcher(r.out());
        assertTrue(row.matches(), r.out());
        int from = Integer.parseInt(row.group(1));
        assertEquals(from + 24, Integer.parseInt(row.group(2)));
        assertArrayEquals(values, Arrays.copyOfRange(Files.readAllBytes(file), from, from + 24), "the range holds the values");

        CliHarness json = CliHarness.run("inspect", file.toString(), "--json");
        assertEquals(0, json.code(), json.err());
        assertEquals("{\"file\":\"" + file + "\",\"format\":\"arrow\",\"arrow_format\":\"file\",\"batches\":1,\"compression\":[],\"tensors\":"
                + "[{\"name\":\"x\",\"dtype\":\"f32\",\"shape\":[2,3],\"byte_offset\":" + from + ",\"byte_size\":24,"
                + "\"row_shape\":[3]}],\"metadata\":{}}\n", json.out());

        // By its magic too, whatever its name.
        Path named = Files.copy(file, dir.resolve("x.bin"));
        CliHarness byMagic = CliHarness.run("inspect", named.toString());
        assertEquals(0, byMagic.code(), byMagic.err());
        assertTrue(byMagic.out().startsWith(named + ": Arrow IPC file, 1 record batch, 1 tensor column\n"), byMagic.out());

        CliHarness typed = CliHarness.run("inspect", file.toString(), "--from-dtype", "bf16");
        assertEquals(2, typed.code());
        assertEquals("tensorbuf inspect: --from-dtype names the type of a void .npy file; " + file
                + " is an Arrow IPC file, whose columns say their own types\n", typed.err());
    }

    @Test
    void zipArchiveIsNamedNotReadAsSafetensors() throws IOException {
        // Was: "neither a .npy file ... nor a safetensors file (header length 193340853072 exceeds the limit ...)".
        Path npz = dir.resolve("arrs.npz");
        Files.write(npz, new byte[] {'P', 'K', 3, 4, 20, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0});
        CliHarness r = CliHarness.run("inspect", npz.toString());
        assertEquals(2, r.code());
        assertEquals("", r.out());
        assertEquals("tensorbuf inspect: " + npz + ": not a zip archive (no end of central directory record)\n", r.err());
        Path pt = dir.resolve("model.pt");
        Files.copy(npz, pt);
        r = CliHarness.run("inspect", pt.toString());
        assertEquals("tensorbuf inspect: " + pt + " is a zip archive (.npz or torch.save): tensorbuf reads an .npz named so;"
                + " save a torch.save model with safetensors\n", r.err());
    }

    @Test
    void singleDashOptionIsRefusedNotTakenForTheFile() throws IOException {
        Path file = dir.resolve("x.npy");
        Npy.write(file, new DenseTensor(DType.U8, List.of(1L), Arena.ofAuto().allocate(1)));
        CliHarness r = CliHarness.run("inspect", "-j", file.toString());
        assertEquals(2, r.code());
        assertEquals("tensorbuf inspect: unknown option -j (did you mean --json?); options start with --, and a file"
                + " whose name starts with '-' is given as ./-j\n", r.err());
        r = CliHarness.run("inspect", "-json", file.toString());
        assertTrue(r.err().startsWith("tensorbuf inspect: unknown option -json (did you mean --json?)"), r.err());
        r = CliHarness.run("inspect", file.toString());
        assertTrue(r.out().contains("  array  u8 (|u1)  [1]  bytes [128, 129)  1 byte\n"), r.out());
    }

    @Test
    void aTypeNamedForAFileThatStatesItsOwnIsRefusedAsConvertRefusesIt() throws IOException {
        // Review: inspect listed an f32 file as f32 and ignored --from-dtype bf16 without a word.
        Path file = NpyBytes.write(dir.resolve("f.npy"), "<f4", List.of(2L), new byte[8]);
        CliHarness r = CliHarness.run("inspect", file.toString(), "--from-dtype", "bf16");
        assertEquals(2, r.code(), r.out());
        assertEquals("tensorbuf inspect: --from-dtype bf16: " + file + " says its own type, f32 ('<f4'); the option"
                + " names the type of void ('<V2', '<V1') files\n", r.err());
        CliHarness same = CliHarness.run("inspect", file.toString(), "--from-dtype", "f32");
        assertEquals(0, same.code(), same.err());
    }

    /** What np.save writes for ml_dtypes' bf16: '<V2'. Without a type named it says which; with one it lists it. */
    @Test
    void aVoidNpyIsListedAsTheTypeNamed() throws IOException {
        Path file = NpyBytes.write(dir.resolve("bf.npy"), "<V2", List.of(2L, 3L), new byte[12]);
        CliHarness bare = CliHarness.run("inspect", file.toString());
        assertEquals(2, bare.code());
        assertTrue(bare.err().contains("descr '<V2' is a void type"), bare.err());
        assertTrue(bare.err().contains("name the type (tensorbuf inspect --from-dtype bf16, Npy.map(file, DType.BF16))"),
                "the hint names this command's option: " + bare.err());
        CliHarness r = CliHarness.run("inspect", file.toString(), "--from-dtype", "bf16");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("  array  bf16 (<V2)  [2, 3]  bytes [128, 140)  12 bytes"), r.out());
        CliHarness wrong = CliHarness.run("inspect", file.toString(), "--from-dtype", "f32");
        assertEquals(2, wrong.code());
    }

    @Test
    void aOneByteVoidNpyNamesThisCommandsOptionToo() throws IOException {
        Path file = NpyBytes.write(dir.resolve("f8.npy"), "<V1", List.of(4L), new byte[4]);
        CliHarness r = CliHarness.run("inspect", file.toString(), "--json");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("name the type (tensorbuf inspect --from-dtype f8e4m3fn,"), r.err());
        assertTrue(r.out().contains("tensorbuf inspect --from-dtype f8e4m3fn"), r.out());
    }

    @Test
    void safetensorsJsonHasTheFixedKeys() throws IOException {
        Path file = dir.resolve("m.safetensors");
        SafetensorsFile.write(file, Map.of("w", new DenseTensor(DType.F32, List.of(2L, 3L), Arena.ofAuto().allocate(24)),
                "ids", new DenseTensor(DType.S8, List.of(2L), MemorySegment.ofArray(new byte[] {7, 9}))), Map.of("format", "np"));
        CliHarness r = CliHarness.run("inspect", file.toString(), "--json");
        assertEquals(0, r.code(), r.err());
        // header: 141 bytes of JSON padded to 144, so data start at 152
        assertEquals("{\"file\":\"" + file + "\",\"format\":\"safetensors\",\"tensors\":["
                + "{\"name\":\"w\",\"dtype\":\"f32\",\"shape\":[2,3],\"byte_offset\":152,\"byte_size\":24},"
                + "{\"name\":\"ids\",\"dtype\":\"s8\",\"shape\":[2],\"byte_offset\":176,\"byte_size\":2}],"
                + "\"metadata\":{\"format\":\"np\"}}\n", r.out());
    }

    @Test
    void controlCharactersInNamesAndMetadataAreEscapedSoEachTensorIsOneLine() throws IOException {
        Path file = dir.resolve("evil.safetensors");
        // A name that, printed verbatim, would forge a second tensor line, then colour the terminal red.
        String forged = "a\n  b  f32 (F32)  [1]  bytes [0, 4)  4 bytes\u001b[31m";
        SafetensorsFile.write(file, Map.of(forged, new DenseTensor(DType.F32, List.of(1L), Arena.ofAuto().allocate(4))),
                Map.of("k\r", "v\u001b[2J\u009b"));
        CliHarness r = CliHarness.run("inspect", file.toString());
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals(3, lines.size(), r.out());
        assertTrue(lines.get(1).startsWith("  a\\n  b  f32 (F32)  [1]  bytes [0, 4)  4 bytes\\u001b[31m  f32 (F32)  [1]  bytes ["),
                lines.get(1));
        assertEquals("  metadata: k\\r=v\\u001b[2J\\u009b", lines.get(2));
        // JSON escapes by its own rules and keeps the name exact.
        CliHarness json = CliHarness.run("inspect", file.toString(), "--json");
        assertEquals(forged, ((Map<?, ?>) ((List<?>) dev.tensorbuf.interop.json.Json.parseObject(json.out()).get("tensors"))
                .getFirst()).get("name"));
    }

    @Test
    void malformedFileExitsTwoNamingTheProblem() throws IOException {
        Path file = dir.resolve("bad.safetensors");
        Files.write(file, new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0, 0, 0, 0, '{', '}'});
        CliHarness r = CliHarness.run("inspect", file.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("header length 4294967295 exceeds the limit of 100000000 bytes"), r.err());
    }

    @Test
    void aFileOfNeitherFormatIsNamedAsSuch() throws IOException {
        Path npy = dir.resolve("t.npy");
        Files.writeString(npy, "hello\n");
        CliHarness r = CliHarness.run("inspect", npy.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("t.npy: 6 bytes is too short for a .npy preamble"), r.err());
        Path bin = dir.resolve("t.bin");
        Files.writeString(bin, "hello\n");
        r = CliHarness.run("inspect", bin.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains(bin + " is neither a .npy file (it lacks the \\x93NUMPY magic) nor a safetensors file"
                + " (6 bytes is too short for a safetensors file"), r.err());
    }

    @Test
    void missingFileIsAUsageError() {
        CliHarness r = CliHarness.run("inspect", dir.resolve("nope.npy").toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("no such file"), r.err());
    }

    @Test
    void npyJsonMetadataKeepTheirTypes() throws IOException {
        Path file = dir.resolve("x.npy");
        Npy.write(file, new DenseTensor(DType.F32, List.of(2L, 3L), Arena.ofAuto().allocate(24)));
        CliHarness r = CliHarness.run("inspect", file.toString(), "--json");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().endsWith(",\"metadata\":{\"descr\":\"<f4\",\"fortran_order\":false,\"version\":[1,0]}}\n"), r.out());
    }

    @Test
    void pathsThatAreNotFilesSayWhatTheyAre() throws IOException {
        CliHarness folder = CliHarness.run("inspect", dir.toString());
        assertEquals(2, folder.code());
        assertEquals("tensorbuf inspect: " + dir + " is a directory, expected a file\n", folder.err());
        Path empty = Files.createFile(dir.resolve("empty.npy"));
        CliHarness nothing = CliHarness.run("inspect", empty.toString());
        assertEquals(2, nothing.code());
        assertEquals("tensorbuf inspect: " + empty + " is empty, expected a .npy or safetensors file\n", nothing.err());
        Path device = Path.of("/dev/null");
        if (Files.exists(device)) {
            CliHarness dev = CliHarness.run("inspect", device.toString());
            assertEquals("tensorbuf inspect: /dev/null is not a regular file\n", dev.err());
        }
    }

    @Test
    void headerQuotedInAnErrorStaysOnOneLine() throws IOException {
        // NumPy pads the header with spaces to 64 bytes and ends it with a newline; the parser's message quotes it.
        String header = "{'descr': '<f4', 'fortran_order': maybe, 'shape': (3, 4), }";
        String padded = header + " ".repeat(128 - 10 - header.length() - 1) + "\n";
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.writeBytes(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (byte) padded.length(), 0});
        bytes.writeBytes(padded.getBytes(StandardCharsets.ISO_8859_1));
        bytes.writeBytes(new byte[48]);
        Path file = Files.write(dir.resolve("badfort.npy"), bytes.toByteArray());
        CliHarness r = CliHarness.run("inspect", file.toString());
        assertEquals(2, r.code());
        assertEquals("tensorbuf inspect: " + file + ": expected a value, found 'm' at position 34 of '" + header + "'\n", r.err());
    }
}
