package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.json.Json;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlanCommandTest {
    @Test
    void exampleFromHelp() {
        CliHarness r = CliHarness.run("plan", "f32[2,3,4,5]{3,2,1,0}", "f32[2,3,4,5]{1,3,2,0}");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                planned copy f32[2,3,4,5]{3,2,1,0} strides [60, 20, 5, 1] -> f32[2,3,4,5]{1,3,2,0} strides [60, 1, 15, 3]: \
                120 elements, 960 bytes, 1 thread
                  run INTERLEAVE: 120 elements, src +0, dst +0, loops [2: 60/60, 20: 1/3, 3: 20/1]
                """, r.out());
        String help = CliHarness.run("plan", "--help").out();
        for (String line : r.out().lines().toList()) {
            assertTrue(help.contains("  " + line + "\n"), "the help shows the output: " + line);
        }
        // NCHW -> NHWC with 3 channels: three planes interleaved, 120 f32 read and 120 written.
        assertTrue(r.out().contains("run INTERLEAVE: 120 elements"), r.out());
    }

    @Test
    void theIssuesExampleConvertsIntoBf16PairsWithoutTouchingMemory() {
        CliHarness r = CliHarness.run("plan", "f32[32,64,112,112]{3,2,1,0}", "bf16[32,64,112,112]{1,3,2,0:T(8,128)(2,1)}",
                "--json");
        assertEquals(0, r.code(), r.err());
        @SuppressWarnings("unchecked")
        Map<String, Object> plan = (Map<String, Object>) Json.parse(r.out());
        assertEquals("planned", plan.get("route"));
        long n = 32L * 64 * 112 * 112;
        assertEquals(n, ((Number) plan.get("elements")).longValue());
        // f32 read, bf16 slots written: the 64 channels fill half of each tile's 128 lanes, and the
        // other half is padding, written as zero by a zero step.
        assertEquals(n * 4 + 2 * n * 2, ((Number) plan.get("bytes")).longValue());
        List<?> steps = (List<?>) plan.get("steps");
        assertTrue(!steps.isEmpty(), r.out());
        long elements = 0;
        for (Object s : steps) {
            @SuppressWarnings("unchecked")
            Map<String, Object> step = (Map<String, Object>) s;
            if (step.get("step").equals("run")) {
                elements += ((Number) step.get("elements")).longValue();
            }
        }
        assertEquals(n, elements, "the runs copy every element once");
        assertTrue(steps.stream().anyMatch(s -> ((Map<?, ?>) s).get("step").equals("zero")), r.out());
    }

    @Test
    void aBlockQuantizedSourceShowsItsDequantizeSteps() {
        CliHarness rows = CliHarness.run("plan", "q6_k[4,512]", "bf16[4,512]{1,0}");
        assertEquals(0, rows.code(), rows.err());
        assertTrue(rows.out().startsWith("planned copy Q6_K[4, 512] -> bf16[4,512]"), rows.out());
        assertTrue(rows.out().contains("dequantize Q6_K blocks straight into the destination: 2048 elements, rows of 512"
                + " values"), rows.out());
        // s4 packed two to a byte has no loop form: the dequantize steps fill f32 rows, which are staged into it.
        CliHarness packed = CliHarness.run("plan", "Q4_0[6,96]", "s4[6,96]{1,0:E(4)}", "--json");
        assertEquals(0, packed.code(), packed.err());
        @SuppressWarnings("unchecked")
        Map<String, Object> plan = (Map<String, Object>) Json.parse(packed.out());
        assertEquals("through_temporary", plan.get("route"), packed.out());
        List<?> parts = (List<?>) plan.get("parts");
        assertEquals("planned", ((Map<?, ?>) parts.get(0)).get("route"), packed.out());
        assertTrue(packed.out().contains("{\"step\":\"dequantize\",\"block_type\":\"Q4_0\",\"direct\":true"), packed.out());
        assertEquals("staged", ((Map<?, ?>) parts.get(1)).get("route"), packed.out());
        CliHarness bad = CliHarness.run("plan", "q4_0[2,48]", "f32[2,48]{1,0}");
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("the innermost dim 48 is not a whole number of 32-value blocks"), bad.err());
    }

    @Test
    void aPackedDestinationIsStaged() {
        CliHarness r = CliHarness.run("plan", "s8[64]{0}", "s4[64]{0:E(4)}");
        assertEquals(0, r.code(), r.err());
        // Nothing is unpacked from a destination: its slots are marked unwritten, and the ones the
        // copy writes packed back. 224 bytes: the plan's 64 + 64, packing 64 slots into 32 bytes.
        assertEquals("""
                staged copy s8[64]{0} strides [1] -> s4[64]{0:E(4)} strides [1]: 64 elements, 224 bytes, 1 thread
                  why: packed sub-byte storage: the planned kernels address a byte a slot
                  temporary s4[64], 64 bytes: the destination's slots, a byte each
                  staged destination: 4-bit slots [0, 64) a byte each, written slots packed back after
                  planned copy s8[64]{0} strides [1] -> the destination's slots s4[64] strides [1] offset 0: \
                64 elements, 128 bytes, 1 thread
                    run CONVERT: 64 elements, src +0, dst +0, loops [64: 1/1]
                """, r.out());
    }

    @Test
    void badShapesGetOneLine() {
        CliHarness bad = CliHarness.run("plan", "f32[2,3", "f32[2,3]{1,0}");
        assertEquals(2, bad.code());
        assertEquals(1, bad.err().lines().count(), bad.err());
        assertTrue(bad.err().startsWith("tensorbuf plan: SRC_SHAPE: "), bad.err());

        CliHarness dims = CliHarness.run("plan", "f32[2,3]{1,0}", "f32[3,2]{1,0}");
        assertEquals(2, dims.code());
        assertEquals("tensorbuf plan: SRC_SHAPE f32[2,3]{1,0} and DST_SHAPE f32[3,2]{1,0} have different dims: [2, 3]"
                + " and [3, 2]\n", dims.err());

        CliHarness tuple = CliHarness.run("plan", "(f32[2], f32[2])", "f32[2]{0}", "--json");
        assertEquals(2, tuple.code());
        assertEquals("tensorbuf plan: SRC_SHAPE needs an array shape, got (f32[2]{0}, f32[2]{0})\n", tuple.err());
        assertTrue(Json.parse(tuple.out()) instanceof Map<?, ?> m && m.containsKey("error"), tuple.out());

        CliHarness missing = CliHarness.run("plan", "f32[2]{0}");
        assertEquals(2, missing.code());
        assertTrue(missing.err().contains("DST_SHAPE"), missing.err());
    }

    @Test
    void anEpilogueIsPlannedAsOnePassWhosePrintedExpressionReadsBack() {
        // u8 NHWC (as XLA lays out [2,3,8,8] with channels minor) into f32 NCHW, scaled and offset.
        CliHarness r = CliHarness.run("plan", "u8[2,3,8,8]{1,3,2,0}", "f32[2,3,8,8]{3,2,1,0}", "--epilogue",
                "fma(convert<f32>(%0), 0.5, 1)");
        assertEquals(0, r.code(), r.err());
        String help = CliHarness.run("plan", "--help").out();
        for (String line : r.out().lines().toList()) {
            assertTrue(help.contains("  " + line + "\n"), "the help shows the output: " + line + "\n" + r.out());
        }
        List<String> lines = r.out().lines().toList();
        assertTrue(lines.getFirst().startsWith("elementwise copy in blocks %0 = u8[2,3,8,8]{1,3,2,0} strides [192, 1, 24, 3], "
                + "%1 = f32[2,3,8,8] strides [0, 0, 0, 0], %2 = f32[2,3,8,8] strides [0, 0, 0, 0] -> f32[2,3,8,8]{3,2,1,0}"),
                r.out());
        // The two constants are operands %1 and %2; one u8 operand and constants: a lookup table, the
        // whole 384 elements one block, stored straight into the dense destination.
        String epilogue = "  epilogue: fma(convert<f32>(%0), %1, %2) per element, lookup table 1x256 (no channel dim) of operand %0";
        String step = "  pointwise TABLE: 384 elements, 3 operands, 1 block of [2,3,8,8], stored straight";
        assertTrue(lines.contains(epilogue), r.out());
        assertTrue(lines.contains(step), r.out());
        // The u8 block is read by a planned copy: NHWC -> NCHW.
        assertTrue(r.out().contains("planned copy u8[2,3,8,8]{1,3,2,0} strides [192, 1, 24, 3] -> u8[2,3,8,8]"), r.out());

        // Pasted back with the constants as scalar operands: the same pass.
        CliHarness again = CliHarness.run("plan", "u8[2,3,8,8]{1,3,2,0}", "f32[2,3,8,8]{3,2,1,0}", "f32[]", "f32[]",
                "--epilogue", "fma(convert<f32>(%0), %1, %2)");
        assertEquals(0, again.code(), again.err());
        assertEquals(r.out(), again.out());
    }

    @Test
    void anEpiloguePlanInJsonHasThePointwiseStepAndItsBlocks() {
        CliHarness r = CliHarness.run("plan", "u8[4,3,224,224]{1,3,2,0}", "f32[4,3,224,224]{3,2,1,0}", "--epilogue",
                "multiply(add(convert<f32>(%0), -127.5), 0.0078125)", "--json");
        assertEquals(0, r.code(), r.err());
        @SuppressWarnings("unchecked")
        Map<String, Object> plan = (Map<String, Object>) Json.parse(r.out());
        assertEquals("blocks", plan.get("route"));
        long n = 4L * 3 * 224 * 224;
        assertEquals(n, ((Number) plan.get("elements")).longValue());
        // u8 read into its block and from it, f32 written once.
        assertEquals(2 * n + 4 * n, ((Number) plan.get("bytes")).longValue());
        List<?> steps = (List<?>) plan.get("steps");
        assertEquals(1, steps.size(), r.out());
        Map<?, ?> step = (Map<?, ?>) steps.getFirst();
        assertEquals("pointwise", step.get("step"));
        assertEquals("TABLE", step.get("evaluator"));
        assertEquals(n, ((Number) step.get("elements")).longValue());
        assertEquals(3L, ((Number) step.get("operands")).longValue());
        // 64 Ki elements a block: one 224x224 plane each, 12 planes.
        assertEquals(12L, ((Number) step.get("blocks")).longValue());
        assertEquals(List.of(1L, 1L, 224L, 224L), ((List<?>) step.get("block_dims")).stream()
                .map(d -> ((Number) d).longValue()).toList());
        assertEquals(true, step.get("direct"));
        int threads = ((Number) plan.get("threads")).intValue();
        assertTrue(threads >= 1 && threads <= Math.min(12, Runtime.getRuntime().availableProcessors()), r.out());
        Map<?, ?> epilogue = (Map<?, ?>) plan.get("epilogue");
        assertEquals("multiply(add(convert<f32>(%0), %1), %2)", epilogue.get("expression"));
    }

    @Test
    void aBadEpilogueIsNamedWithItsPosition() {
        String[][] cases = {
            {"fma(convert<f32>(%0), 0.5 1)", "expected ')', found '1' at position 26 of "},
            {"fmb(%0)", "unknown op 'fmb': expected one of [abs, add, and, ceil, clamp, compare, convert,"
                    + " count-leading-zeros, divide, floor, is-finite, maximum, minimum, multiply, negate, not, or, popcnt,"
                    + " reduce-precision, remainder, round-nearest-afz, round-nearest-even, select, shift-left, shift-right-arithmetic,"
                    + " shift-right-logical, sign, sqrt, subtract, xor], fma, reciprocal, reciprocal_flushed, select_flushed, remainder_flushed at"
                    + " position 0 of "},
            {"add(convert<f32>(%0), %3)", "operand %3 is not given: there is %0 only at position 22 of "},
            {"convert<f33>(%0)", "'f33' is not a type an expression computes in: expected one of [bf16, f16, f32, f64,"
                    + " pred, s16, s32, s64, s8, u16, u32, u64, u8] at position 8 of "},
            {"add(convert<f32>(%0), convert<f32>(2))", "the constant 2 has no type here: convert's operand must be an"
                    + " operand or an op at position 35 of "},
            {"convert<f32>(add(%0, 300))", "constant 300 is outside u8's range [0, 255] at position 21 of "},
            {"convert<f32>(compare(%0, 1))", "compare needs its direction and type after its operands: compare(a, b, LT"
                    + " FLOAT) at position 26 of "},
            {"convert<f32>(compare(%0, 1, LT FLOAT))", "compare of u8 cannot be FLOAT at position 13 of "},
            {"add(convert<f32>(%0), %0)", "add's operands must have one type, got f32 and u8 at position 22 of "},
            {"convert<f32>(%0) x", "expected the end of the expression, found 'x' at position 17 of "},
            {"fma(convert<f32>(%0), 2", "expected ')', found the end at position 23 of "},
        };
        for (String[] c : cases) {
            CliHarness bad = CliHarness.run("plan", "u8[2,3]{1,0}", "f32[2,3]{1,0}", "--epilogue", c[0]);
            assertEquals(2, bad.code(), c[0] + ": " + bad.out());
            assertEquals("tensorbuf plan: --epilogue: " + c[1] + "'" + c[0] + "'\n", bad.err());
        }
        CliHarness type = CliHarness.run("plan", "u8[2,3]{1,0}", "f32[2,3]{1,0}", "--epilogue", "add(%0, 1)");
        assertEquals(2, type.code());
        assertEquals("tensorbuf plan: --epilogue add(%0, 1) computes u8 but DST_SHAPE holds f32: end it with"
                + " convert<f32>(...)\n", type.err());
        CliHarness dims = CliHarness.run("plan", "u8[2,3]{1,0}", "f32[2,3]{1,0}", "f32[3]", "--epilogue",
                "add(convert<f32>(%0), %1)");
        assertEquals(2, dims.code());
        assertEquals("tensorbuf plan: OPERAND_SHAPE %1 f32[3]{0} has dims [3]: expected DST_SHAPE's [2, 3] or a scalar"
                + " (dims [])\n", dims.err());
        CliHarness packed = CliHarness.run("plan", "s8[4]{0}", "s4[4]{0:E(4)}", "--epilogue", "%0");
        assertEquals(2, packed.code());
        assertTrue(packed.err().startsWith("tensorbuf plan: DST_SHAPE's type s4 is not one an --epilogue computes in"),
                packed.err());
        // Operand shapes are --epilogue's: without it a third shape is refused as before.
        assertEquals(2, CliHarness.run("plan", "u8[2,3]{1,0}", "f32[2,3]{1,0}", "f32[]").code());
        CliHarness blocks = CliHarness.run("plan", "q8_0[2,32]", "f32[2,32]{1,0}", "--epilogue", "%0");
        assertEquals(2, blocks.code());
        assertEquals("tensorbuf plan: --epilogue needs an XLA SRC_SHAPE; q8_0[2,32] is block-quantized\n", blocks.err());
    }
}
