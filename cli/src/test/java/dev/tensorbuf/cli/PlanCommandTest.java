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
        // A dense destination writes every slot: only the slots sharing its edge bytes are
        // unpacked first. 230 bytes: the plan's 64 + 64, unpacking 2 bytes into 4 slots, packing
        // 64 slots into 32 bytes.
        assertEquals("""
                staged copy s8[64]{0} strides [1] -> s4[64]{0:E(4)} strides [1]: 64 elements, 230 bytes, 1 thread
                  why: packed sub-byte storage: the planned kernels address a byte a slot
                  temporary s4[64], 64 bytes: the destination's slots, a byte each
                  staged destination: 4-bit slots [0, 64) a byte each, 4 unpacked first, packed back after
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
}
