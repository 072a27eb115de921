package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.ops.exec.ExecutedInstruction;
import dev.tensorbuf.ops.exec.HloExecutor;
import dev.tensorbuf.testing.Zips;
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
import dev.tensorbuf.views.TensorElements;

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
        try (Npy.Tensor r = Npy.map(file)) {
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

    /** The help names every opcode run takes, so that none reads as one that exits 2, and every kind --json reports. */
    @Test
    void helpNamesEveryOpcodeRunTakesAndEveryKind() {
        String help = CliHarness.run("run", "--help").out().replaceAll("\\s+", " ");
        List<String> opcodes = new java.util.ArrayList<>(HloExecutor.SUPPORTED_OPCODES);
        opcodes.addAll(HloExecutor.ELEMENTWISE_OPCODES);
        opcodes.addAll(HloExecutor.REDUCTION_OPCODES);
        opcodes.addAll(HloExecutor.COMPUTATION_OPCODES);
        for (String opcode : opcodes) {
            assertTrue(java.util.regex.Pattern.compile("[ (,]" + java.util.regex.Pattern.quote(opcode) + "[,) ]").matcher(help).find(),
                    opcode + " is not in run's help");
        }
        for (ExecutedInstruction.Kind kind : ExecutedInstruction.Kind.values()) {
            assertTrue(help.contains(" " + kind.jsonName() + ",") || help.contains(" " + kind.jsonName() + ")"),
                    "the kind " + kind.jsonName() + " is not in run's help");
        }
    }

    /** An argument from an .npz, as np.savez(f, p0=a) writes it: its only array, or the one named as the parameter. */
    @Test
    void anArgumentFromAnNpzArchiveOfOneArray() throws IOException {
        Path npz = dir.resolve("a.npz");
        Zips.write(npz, false, Zips.Member.of("p0.npy", a));
        Path out = dir.resolve("r.npy");
        CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "p0=" + npz, "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        assertArrayEquals(new float[] {2, 5, 1, 4, 0, 3}, read(out));
        Zips.write(npz, false, Zips.Member.of("q.npy", a), Zips.Member.of("p1.npy", a));
        r = CliHarness.run("run", hlo.toString(), "--arg", "p0=" + npz, "--out", out.toString());
        assertEquals(2, r.code());
        assertEquals("tensorbuf run: " + npz + " holds 2 arrays [q, p1]; pick one with an array named p0\n", r.err());
        // q holds the module's text, no .npy: only the array named as the parameter is read.
        Zips.write(npz, false, Zips.Member.of("q.npy", hlo), Zips.Member.of("p0.npy", a));
        r = CliHarness.run("run", hlo.toString(), "--arg", "p0=" + npz, "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        assertArrayEquals(new float[] {2, 5, 1, 4, 0, 3}, read(out));
    }

    /** What np.save writes for ml_dtypes' bfloat16: descr '<V2' and the bf16 bits. */
    static void writeVoidBf16(Path file, long[] dims, short... bits) throws IOException {
        NpyBytes.write(file, "<V2", java.util.Arrays.stream(dims).boxed().toList(),
                Arena.ofAuto().allocateFrom(ValueLayout.JAVA_SHORT, bits).toArray(ValueLayout.JAVA_BYTE));
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
        assertEquals(true, json.get("root_copied"));
        assertEquals(List.of(
                Map.of("name", "p0", "opcode", "parameter", "kind", "parameter", "form", "strided", "why", ""),
                Map.of("name", "t", "opcode", "transpose", "kind", "view", "form", "strided", "why", ""),
                Map.of("name", "r", "opcode", "reverse", "kind", "view", "form", "strided", "why", "")), json.get("instructions"));
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
        assertTrue(r.out().contains("ROOT written in C order as f32[2,3]{1,0} (the file holds no other order; raw output keeps"
                + " {0,1}); 0 views, 1 copy"), r.out());
        r = CliHarness.run("run", hlo.toString(), "--arg", "p0=" + a, "--out", out.toString(), "--json");
        assertEquals(0, r.code(), r.err());
        assertEquals(false, Json.parseObject(r.out().strip()).get("root_copied"));
        assertArrayEquals(new float[] {0, 1, 2, 3, 4, 5}, read(out));
    }

    @Test
    void unsupportedOpIsOneLineWithInstructionAndLine() throws IOException {
        Files.writeString(hlo, "HloModule m\nENTRY e {\n  p0 = f32[2] parameter(0)\n\n  ROOT a = f32[2] exponential(p0)\n}\n");
        CliHarness r = CliHarness.run("run", hlo.toString(), "--out", dir.resolve("x.npy").toString());
        assertEquals(2, r.code());
        assertEquals("tensorbuf run: unsupported op 'exponential' (instruction %a, line 5): exponential is computed by XLA's own"
                + " approximation or the C library's, whose bits run does not reproduce (run gives XLA's bits or none);"
                + " tensorbuf run executes data-movement"
                + " ops: parameter, constant, iota, broadcast, transpose, reshape, bitcast, copy, slice, dynamic-slice,"
                + " pad, reverse, concatenate, convert, dynamic-update-slice, gather, scatter, sort, topk, bitcast-convert, tuple,"
                + " get-tuple-element, opt-barrier, elementwise ops fused into its copies: convert, add, subtract,"
                + " multiply, divide, remainder, maximum, minimum, clamp, negate, abs, sign, sqrt, floor, ceil,"
                + " round-nearest-even, round-nearest-afz, is-finite, compare, select, and, or, not, xor, shift-left,"
                + " shift-right-logical, shift-right-arithmetic, popcnt, count-leading-zeros, reduce-precision, reductions"
                + " by one exact op: reduce, reduce-window, and call, fusion, while and conditional of computations made of them\n",
                r.err());
    }

    /**
     * XLA's optimised text of a sharded jax program is the partitioned one: per-device shapes and
     * a collective-permute between devices, which one host does not run. It is refused naming
     * the collective and its pairs, before any argument is read.
     */
    @Test
    void aPartitionedProgramIsRefusedNamingItsCollective() throws IOException {
        try (java.io.InputStream in = RunCommandTest.class.getResourceAsStream("/jax_programs/sharded_transpose.opt.hlo")) {
            Files.write(hlo, in.readAllBytes());
        }
        CliHarness r = CliHarness.run("run", hlo.toString(), "--out", dir.resolve("x.npy").toString());
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("tensorbuf run: unsupported op 'collective-permute' (instruction %collective-permute,"
                + " line 39): a collective across devices (source_target_pairs={{0,0},{1,2},{2,1},{3,3}}): the run is of"
                + " the unpartitioned program on one host"), r.err());
    }

    @Test
    void jsonSaysWhyEachInstructionBecameWhatItDid() throws IOException {
        // jax.jit(lambda x, i: x[i]) with i = -1: the index arithmetic folds, the slice is a view.
        try (java.io.InputStream in = RunCommandTest.class.getResourceAsStream("/jax_programs/index_traced.hlo")) {
            Files.write(hlo, in.readAllBytes());
        }
        Path x = dir.resolve("x.npy");
        Npy.write(x, new DenseTensor(DType.F32, List.of(5L, 3L), java.lang.foreign.Arena.ofAuto().allocate(60)));
        Path i = dir.resolve("i.npy");
        java.lang.foreign.MemorySegment minusOne = java.lang.foreign.Arena.ofAuto().allocate(4);
        minusOne.set(java.lang.foreign.ValueLayout.JAVA_INT, 0, -1);
        Npy.write(i, new DenseTensor(DType.S32, List.of(), minusOne));
        CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "0=" + x, "--arg", "1=" + i, "--out",
                dir.resolve("r.npy").toString(), "--json");
        assertEquals(0, r.code(), r.err());
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> steps = (List<Map<String, Object>>) Json.parseObject(r.out().strip()).get("instructions");
        Map<String, Map<String, Object>> byName = new java.util.HashMap<>();
        steps.forEach(s -> byName.put((String) s.get("name"), s));
        assertEquals("folded", byName.get("lt.1").get("kind"));
        assertEquals("folded to true when the view was made", byName.get("lt.1").get("why"));
        assertEquals("folded to 4 when the view was made", byName.get("select_n.1").get("why"));
        assertEquals("view", byName.get("dynamic_slice.1").get("kind"));
        assertEquals("", byName.get("dynamic_slice.1").get("why"));
    }

    @Test
    void stableHloTextIsNamedWithTheExportThatGivesHlo() throws IOException {
        // What jax.jit(lambda a: a.T).lower(x).as_text() prints: MLIR, not HLO.
        Files.writeString(hlo, """
                module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
                  func.func public @main(%arg0: tensor<3x4xf32>) -> (tensor<4x3xf32> {jax.result_info = "result"}) {
                    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
                    return %0 : tensor<4x3xf32>
                  }
                }
                """);
        String expected = "1:1: this is StableHLO (MLIR) text; tensorbuf reads HLO text:"
                + " jax.jit(f).lower(x).as_text(dialect='hlo')";
        CliHarness r = CliHarness.run("run", hlo.toString(), "--out", dir.resolve("x.npy").toString());
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("tensorbuf run: " + expected), r.err());
        CliHarness i = CliHarness.run("indexing", hlo.toString());
        assertEquals(2, i.code());
        assertTrue(i.err().startsWith("tensorbuf indexing: " + expected), i.err());
    }

    /** jax.jit(lambda a: (a.T, a[0])).lower(x).as_text(dialect='hlo') */
    private static final String TUPLE_MODULE = """
            HloModule jit__lambda, entry_computation_layout={(f32[2,3]{1,0})->(f32[3,2]{0,1}, f32[3]{0})}

            ENTRY main.1 {
              a.1 = f32[2,3]{1,0} parameter(0)
              transpose.1 = f32[3,2]{0,1} transpose(a.1), dimensions={1,0}
              slice.1 = f32[1,3]{1,0} slice(a.1), slice={[0:1], [0:3]}
              squeeze.1 = f32[3]{0} reshape(slice.1)
              ROOT tuple.1 = (f32[3,2]{0,1}, f32[3]{0}) tuple(transpose.1, squeeze.1)
            }
            """;

    @Test
    void tupleRootIsWrittenAsOneSafetensorsTensorPerElement() throws IOException {
        Files.writeString(hlo, TUPLE_MODULE);
        Path out = dir.resolve("r.safetensors");
        CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "0=" + a, "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(hlo + " -> " + out + ": (f32[3,2]{0,1}, f32[3]{0})\n"
                + "  %a.1          parameter  parameter  strided\n"
                + "  %transpose.1  transpose  view       strided\n"
                + "  %slice.1      slice      view       strided\n"
                + "  %squeeze.1    reshape    view       strided\n"
                + "  ROOT tuple of 2 arrays; 3 views, 0 copies\n"
                + "    output0 (%transpose.1) written in C order as f32[3,2]{1,0} (the file holds no other order;"
                + " raw output keeps {0,1})\n"
                + "    output1 (%squeeze.1) copied into f32[3]{0}\n", r.out());
        try (SafetensorsFile st = SafetensorsFile.open(out)) {
            assertEquals(List.of("output0", "output1"), st.tensors().stream().map(SafetensorsFile.Tensor::name).toList());
            assertArrayEquals(new float[] {0, 3, 1, 4, 2, 5},
                    st.tensors().get(0).data().segment().toArray(ValueLayout.JAVA_FLOAT_UNALIGNED));
            assertEquals(List.of(3L, 2L), st.tensors().get(0).shape());
            assertArrayEquals(new float[] {0, 1, 2}, st.tensors().get(1).data().segment().toArray(ValueLayout.JAVA_FLOAT_UNALIGNED));
        }
        r = CliHarness.run("run", hlo.toString(), "--arg", "0=" + a, "--out", out.toString(), "--json");
        assertEquals(0, r.code(), r.err());
        Map<String, Object> json = Json.parseObject(r.out().strip());
        assertEquals(List.of(
                Map.of("name", "output0", "instruction", "transpose.1", "shape", "f32[3,2]{0,1}", "written", "f32[3,2]{1,0}", "copied", true),
                Map.of("name", "output1", "instruction", "squeeze.1", "shape", "f32[3]{0}", "written", "f32[3]{0}", "copied", true)),
                json.get("outputs"));
    }

    @Test
    void tupleRootToAnotherFormatAsksForSafetensorsBeforeAnythingRuns() throws IOException {
        Files.writeString(hlo, TUPLE_MODULE);
        for (String name : List.of("r.npy", "r.bin")) {
            Path out = dir.resolve(name);
            CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "0=nope.npy", "--out", out.toString());
            assertEquals(2, r.code());
            assertEquals("tensorbuf run: the ROOT is a tuple of 2 arrays: give --out FILE.safetensors (one tensor per element,"
                    + " output0 to output1)\n", r.err());
            assertFalse(Files.exists(out));
        }
    }

    /** jax's a.T: the ROOT's layout is {0,1}, and a .npy cannot hold it, so the report names what was written. */
    @Test
    void columnMajorRootReportsTheCOrderItWrites() throws IOException {
        Files.writeString(hlo, """
                HloModule m
                ENTRY main.1 {
                  a.1 = f32[2,3]{1,0} parameter(0)
                  ROOT transpose.1 = f32[3,2]{0,1} transpose(a.1), dimensions={1,0}
                }
                """);
        Path out = dir.resolve("t.npy");
        CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "0=" + a, "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().endsWith("  ROOT written in C order as f32[3,2]{1,0} (the file holds no other order; raw output"
                + " keeps {0,1}); 1 view, 0 copies\n"), r.out());
        assertArrayEquals(new float[] {0, 3, 1, 4, 2, 5}, read(out));
        r = CliHarness.run("run", hlo.toString(), "--arg", "0=" + a, "--out", out.toString(), "--json");
        assertEquals("f32[3,2]{1,0}", Json.parseObject(r.out().strip()).get("written"));
        Path raw = dir.resolve("t.bin");
        r = CliHarness.run("run", hlo.toString(), "--arg", "0=" + a, "--out", raw.toString());
        assertTrue(r.out().endsWith("  ROOT copied into f32[3,2]{0,1}; 1 view, 0 copies\n"), r.out());
    }

    @Test
    void argumentOfTheWrongShapeExitsTwo() throws IOException {
        Path b = dir.resolve("b.npy");
        Npy.write(b, new DenseTensor(DType.S32, List.of(6L), Arena.ofAuto().allocate(24)));
        CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "p0=" + b, "--out", dir.resolve("x.npy").toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("argument for parameter 0 (p0: f32[2,3]{1,0}) is s32[6], expected f32[2, 3]"), r.err());
    }

    /** An .npz renamed .npy reached the .npy reader's own complaint; convert and inspect name the archive. */
    @Test
    void aZipArchiveNamedNpyIsNamedAsAnArchive() throws IOException {
        Path zip = dir.resolve("arrs.npy");
        Files.write(zip, new byte[] {'P', 'K', 3, 4, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "p0=" + zip, "--out", dir.resolve("x.npy").toString());
        assertEquals(2, r.code());
        assertEquals("tensorbuf run: " + zip + " is a zip archive (.npz or torch.save): tensorbuf reads an .npz named so;"
                + " save a torch.save model with safetensors\n", r.err());
    }

    @Test
    void badArgumentsAreUsageErrors() throws IOException {
        assertTrue(CliHarness.run("run", hlo.toString(), "--arg", "p0=" + a).err()
                .contains("missing --out FILE.npy, FILE.safetensors or a raw FILE"));
        CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "p0", "--out", "x.npy");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--arg 'p0' must be NAME=FILE or NUMBER=FILE (a .npy, .safetensors or raw file)"), r.err());
        assertTrue(CliHarness.run("run", hlo.toString(), "--arg", "p0=nope.npy", "--out", "x.npy").err()
                .contains("--arg p0: no such file: nope.npy"));
        // Worded as a repeated option is (Errors.givenTwice).
        assertEquals("tensorbuf run: --arg p0 given twice\n", CliHarness.run("run", hlo.toString(), "--arg", "p0=" + a,
                "--arg", "p0=" + a, "--out", "x.npy").err());
        Path raw = dir.resolve("a.bin");
        Files.write(raw, new byte[20]);
        Path out = dir.resolve("x.npy");
        CliHarness rawArg = CliHarness.run("run", hlo.toString(), "--arg", "p0=" + raw, "--out", out.toString());
        assertEquals(2, rawArg.code());
        assertEquals("tensorbuf run: --arg p0=" + raw + " (raw bytes, read in the parameter's layout) has 20 bytes but"
                + " f32[2,3]{1,0} needs 24\n", rawArg.err());
        assertFalse(Files.exists(out));
    }

    @Test
    void rawFilesHoldTheMemoryOfTheLayoutsTheModuleGives() throws IOException {
        // Figure 1 of XLA's tiled layout page: 1..15 as raw row-major f32 in, its T(2,2) tiles out, padding zeroed.
        Path module = dir.resolve("tile.hlo");
        Files.writeString(module, """
                HloModule m
                ENTRY e {
                  p0 = f32[3,5]{1,0} parameter(0)
                  ROOT out = f32[3,5]{1,0:T(2,2)} copy(p0)
                }
                """);
        float[] values = new float[15];
        for (int i = 0; i < 15; i++) {
            values[i] = i + 1;
        }
        Path in = dir.resolve("x.bin");
        Files.write(in, Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, values).toArray(ValueLayout.JAVA_BYTE));
        Path out = dir.resolve("t.bin");
        CliHarness r = CliHarness.run("run", module.toString(), "--arg", "p0=" + in, "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        assertArrayEquals(new float[] {1, 2, 6, 7, 3, 4, 8, 9, 5, 0, 10, 0, 11, 12, 0, 0, 13, 14, 0, 0, 15, 0, 0, 0},
                java.lang.foreign.MemorySegment.ofArray(Files.readAllBytes(out)).toArray(ValueLayout.JAVA_FLOAT_UNALIGNED));

        // An s4 ROOT: a .npy holds it as np.save writes ml_dtypes' int4, '<V1', one element to a byte.
        Path s4 = dir.resolve("s4.hlo");
        Files.writeString(s4, """
                HloModule m
                ENTRY e {
                  p0 = f32[2,3]{1,0} parameter(0)
                  t = f32[3,2]{1,0} transpose(p0), dimensions={1,0}
                  ROOT c = s4[3,2]{1,0:E(4)} convert(t)
                }
                """);
        Path npy = dir.resolve("c.npy");
        r = CliHarness.run("run", s4.toString(), "--arg", "p0=" + a, "--out", npy.toString());
        assertEquals(0, r.code(), r.err());
        try (Npy.Tensor c = Npy.map(npy, DType.S4)) {
            assertEquals("<V1", c.header().descr());
            assertArrayEquals(new byte[] {0, 3, 1, 4, 2, 5}, c.data().segment().toArray(ValueLayout.JAVA_BYTE));
        }
        Path packed = dir.resolve("c.bin");
        r = CliHarness.run("run", s4.toString(), "--arg", "p0=" + a, "--out", packed.toString());
        assertEquals(0, r.code(), r.err());
        // a = [[0, 1, 2], [3, 4, 5]] transposed: 0 3 | 1 4 | 2 5, two to a byte, the first in the low nibble.
        assertArrayEquals(new byte[] {0x30, 0x41, 0x52}, Files.readAllBytes(packed));
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

    private static final String BF16_ROOT = """
            HloModule m
            ENTRY e {
              p0 = f32[2,3]{1,0} parameter(0)
              t = f32[3,2]{1,0} transpose(p0), dimensions={1,0}
              ROOT b = bf16[3,2]{1,0} convert(t)
            }
            """;

    @Test
    void aRootNpyCannotHoldIsRefusedBeforeAnythingRunsAndBf16IsWrittenToBoth() throws IOException {
        // f8e5m2: ml_dtypes saves it as '<f1', which np.load refuses. The argument does not exist: the
        // ROOT's type is checked first, so nothing is read or run.
        Files.writeString(hlo, BF16_ROOT.replace("bf16", "f8e5m2"));
        Path e5 = dir.resolve("e5.npy");
        CliHarness refused = CliHarness.run("run", hlo.toString(), "--arg", "p0=missing.npy", "--out", e5.toString());
        assertEquals(2, refused.code());
        assertEquals("tensorbuf run: ROOT b is f8e5m2, which tensorbuf does not write to .npy (ml_dtypes saves float8_e5m2"
                + " as '<f1', which np.load cannot read); write " + dir.resolve("e5.safetensors") + " instead, which holds"
                + " f8e5m2\n", refused.err());
        assertFalse(Files.exists(e5));

        Files.writeString(hlo, BF16_ROOT);
        Path npy = dir.resolve("b.npy");
        CliHarness written = CliHarness.run("run", hlo.toString(), "--arg", "p0=" + a, "--out", npy.toString());
        assertEquals(0, written.code(), written.err());
        try (Npy.Tensor b = Npy.map(npy, DType.BF16)) {
            assertEquals("<V2", b.header().descr());
            assertEquals(List.of(3L, 2L), b.shape());
            assertArrayEquals(new short[] {0, 0x4040, 0x3f80, 0x4080, 0x4000, 0x40a0},
                    b.data().segment().toArray(ValueLayout.JAVA_SHORT_UNALIGNED));
        }

        Path st = dir.resolve("b.safetensors");
        CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "p0=" + a, "--out", st.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith(hlo + " -> " + st + ": bf16[3,2]{1,0}\n"), r.out());
        try (SafetensorsFile f = SafetensorsFile.open(st)) {
            assertEquals(List.of("b"), f.names());
            SafetensorsFile.Tensor b = f.tensor("b");
            assertEquals(DType.BF16, b.dtype());
            assertEquals(List.of(3L, 2L), b.shape());
            // 0 3 1 4 2 5 as bf16: the f32 bits' upper halves (all exact).
            assertArrayEquals(new short[] {0, 0x4040, 0x3f80, 0x4080, 0x4000, 0x40a0},
                    b.data().segment().toArray(ValueLayout.JAVA_SHORT_UNALIGNED));
        }
    }

    /**
     * A ROOT of a type NumPy lacks goes to .npy as np.save writes the ml_dtypes array: NumPy with
     * ml_dtypes loads the values, and so does our reader with the type named. The ROOT is laid out
     * column-major ({0,1}), so the file holds its C-order copy.
     */
    @Test
    void npyOutputOfMlDtypesRootsIsWhatNumpyLoadsAsThem() throws IOException {
        Map<Path, DType> written = new java.util.LinkedHashMap<>();
        for (DType t : List.of(DType.BF16, DType.F8E4M3FN, DType.F8E4M3B11FNUZ, DType.S4, DType.U4, DType.U2)) {
            Path module = dir.resolve(t + ".hlo");
            Files.writeString(module, BF16_ROOT.replace("bf16[3,2]{1,0}", t.xlaName() + "[3,2]{0,1}"));
            Path out = dir.resolve(t + ".npy");
            // u2 holds 0 to 3: the argument is a's first four values, twice.
            Path arg = t == DType.U2 ? npyOfFloats("u2in.npy", 0, 1, 2, 3, 2, 1) : a;
            CliHarness r = CliHarness.run("run", module.toString(), "--arg", "p0=" + arg, "--out", out.toString());
            assertEquals(0, r.code(), t + ": " + r.err());
            assertTrue(r.out().contains("ROOT written in C order as " + t.xlaName() + "[3,2]{1,0"), r.out());
            written.put(out, t);
            try (Npy.Tensor back = Npy.map(out, t)) {
                assertArrayEquals(t == DType.U2 ? new double[] {0, 3, 1, 2, 2, 1} : new double[] {0, 3, 1, 4, 2, 5},
                        TensorElements.of(back.view()).toDoubleArray(), t.toString());
            }
        }
        List<MlDtypesNpy.Loaded> loaded = MlDtypesNpy.load(dir, written);
        int k = 0;
        for (DType t : written.values()) {
            MlDtypesNpy.Loaded l = loaded.get(k++);
            assertEquals(List.of(3L, 2L), l.shape(), t.toString());
            assertEquals(t == DType.U2 ? List.of(0.0, 3.0, 1.0, 2.0, 2.0, 1.0) : List.of(0.0, 3.0, 1.0, 4.0, 2.0, 5.0),
                    l.values(), t.toString());
        }
    }

    private Path npyOfFloats(String name, float... values) throws IOException {
        Path file = dir.resolve(name);
        Npy.write(file, new DenseTensor(DType.F32, List.of(2L, 3L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, values)));
        return file;
    }

    @Test
    void subByteRootsArePackedOrRefusedByWhatTheFormatHolds() throws IOException {
        Path h = dir.resolve("h.npy");
        Npy.write(h, new DenseTensor(DType.F32, List.of(2L, 3L),
                Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 0.5f, 1, 1.5f, -2, 3, 6)));
        Files.writeString(hlo, BF16_ROOT.replace("bf16", "f4e2m1fn"));
        Path st = dir.resolve("q.safetensors");
        CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "p0=" + h, "--out", st.toString());
        assertEquals(0, r.code(), r.err());
        try (SafetensorsFile f = SafetensorsFile.open(st)) {
            SafetensorsFile.Tensor q = f.tensor("b");
            assertEquals(DType.F4E2M1FN, q.dtype());
            // Transposed: 0.5 -2 1 3 1.5 6, as e2m1 codes 1 0xc 2 5 3 7, two to a byte, first in the low bits.
            assertArrayEquals(new byte[] {(byte) 0xc1, 0x52, 0x73}, q.data().segment().toArray(ValueLayout.JAVA_BYTE));
        }
        Files.writeString(hlo, BF16_ROOT.replace("bf16", "s4"));
        CliHarness s4 = CliHarness.run("run", hlo.toString(), "--arg", "p0=" + a, "--out", dir.resolve("s.safetensors").toString());
        assertEquals("tensorbuf run: ROOT b is s4, which safetensors has no dtype for; write raw bytes instead (--out"
                + " with any other extension), in the ROOT's layout\n", s4.err());
    }

    @Test
    void theModuleFileIsNeverTheOutput() throws IOException {
        String before = Files.readString(hlo);
        CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "p0=" + a, "--out", hlo.toString());
        assertEquals(2, r.code());
        assertEquals("tensorbuf run: --out " + hlo + " is the module " + hlo + ": the output would replace it; give another"
                + " file\n", r.err());
        assertEquals(before, Files.readString(hlo));
    }

    @Test
    void anArgumentNamingNoParameterIsRefusedBeforeItsFileIsLookedInto() throws IOException {
        Path two = dir.resolve("two.safetensors");
        SafetensorsFile.write(two, Map.of(
                "x", new DenseTensor(DType.F32, List.of(2L, 3L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 0, 1, 2, 3, 4, 5)),
                "y", new DenseTensor(DType.F32, List.of(2L, 3L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 0, 1, 2, 3, 4, 5))));
        CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "zz=" + two, "--out", dir.resolve("o.npy").toString());
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("tensorbuf run: 'zz' names no parameter of "), r.err());
    }

    @Test
    void aSubByteRootWrittenToNpyIsReportedOneToAByteAsTheFileHoldsIt() throws IOException {
        Files.writeString(hlo, "HloModule m\nENTRY e {\n  ROOT i = s4[5]{0} iota(), iota_dimension=0\n}\n");
        Path npy = dir.resolve("i.npy");
        CliHarness r = CliHarness.run("run", hlo.toString(), "--out", npy.toString(), "--json");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("\"written\":\"s4[5]{0}\""), r.out());
        try (Npy.Tensor q = Npy.map(npy, DType.S4)) {
            assertArrayEquals(new byte[] {0, 1, 2, 3, 4}, q.data().segment().toArray(ValueLayout.JAVA_BYTE));
        }
        Path raw = dir.resolve("i.bin");
        r = CliHarness.run("run", hlo.toString(), "--out", raw.toString(), "--json");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("\"written\":\"s4[5]{0}\""), r.out()); // raw keeps the ROOT's layout
    }

    @Test
    void anOddCountOfFourBitRootElementsIsRefusedForSafetensorsBeforeAnythingRuns() throws IOException {
        Files.writeString(hlo, """
                HloModule m
                ENTRY e {
                  p0 = f32[3]{0} parameter(0)
                  ROOT q = f4e2m1fn[3]{0} convert(p0)
                }
                """);
        Path out = dir.resolve("q.safetensors");
        // The argument is never read: the refusal comes before the arguments are opened.
        CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "p0=" + dir.resolve("absent.npy"), "--out", out.toString());
        assertEquals("tensorbuf run: ROOT q is f4e2m1fn[3]: 3 elements of f4e2m1fn are 12 bits, not a whole number of"
                + " bytes, which safetensors requires (its reference reader refuses a sub-byte tensor that does not end on a"
                + " byte); write raw bytes instead (--out with any other extension), in the ROOT's layout\n", r.err());
        assertFalse(Files.exists(out));
    }

    @Test
    void argumentsComeFromSafetensorsTensorsByParameterNameOrExplicitly() throws IOException {
        Path w = dir.resolve("w.safetensors");
        SafetensorsFile.write(w, Map.of(
                "p0", new DenseTensor(DType.F32, List.of(2L, 3L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 0, 1, 2, 3, 4, 5)),
                "x", new DenseTensor(DType.F32, List.of(2L, 3L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 6, 7, 8, 9, 10, 11))));
        Path out = dir.resolve("r.npy");
        // By the parameter's name, with the tensor of the same name.
        assertEquals(0, CliHarness.run("run", hlo.toString(), "--arg", "p0=" + w, "--out", out.toString()).code());
        assertArrayEquals(new float[] {2, 5, 1, 4, 0, 3}, read(out));
        // By number, naming the tensor.
        CliHarness x = CliHarness.run("run", hlo.toString(), "--arg", "0=" + w + ":x", "--out", out.toString());
        assertEquals(0, x.code(), x.err());
        assertArrayEquals(new float[] {8, 11, 7, 10, 6, 9}, read(out));

        CliHarness ambiguous = CliHarness.run("run", hlo.toString(), "--arg", "0=" + w, "--out", out.toString());
        assertEquals("tensorbuf run: " + w + " holds 2 tensors [p0, x]; pick one with --arg 0=" + w + ":TENSOR\n",
                ambiguous.err());
        CliHarness missing = CliHarness.run("run", hlo.toString(), "--arg", "0=" + w + ":y", "--out", out.toString());
        assertEquals(2, missing.code());
        assertTrue(missing.err().contains("no tensor 'y' in w.safetensors; it has [p0, x]"), missing.err());
        CliHarness empty = CliHarness.run("run", hlo.toString(), "--arg", "0=" + w + ":", "--out", out.toString());
        assertEquals("tensorbuf run: --arg 0=" + w + ": has no tensor name after the colon; write FILE.safetensors:TENSOR,"
                + " or leave the colon out\n", empty.err());
    }
}
