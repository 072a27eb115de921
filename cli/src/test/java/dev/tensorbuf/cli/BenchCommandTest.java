package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.json.Json;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BenchCommandTest {
    @Test
    @SuppressWarnings("unchecked")
    void quickCaseReportsBytesAndItsRatioToCopy() {
        CliHarness r = CliHarness.run("bench", "--case", "nchw_to_nhwc_f32_1x3x224x224", "--quick", "--threads", "1", "--json");
        assertEquals(0, r.code(), r.err());
        Map<String, Object> out = Json.parseObject(r.out());
        assertEquals(1L, out.get("threads"));
        List<Map<String, Object>> cases = (List<Map<String, Object>>) out.get("cases");
        assertEquals(1, cases.size());
        Map<String, Object> c = cases.getFirst();
        assertEquals("nchw_to_nhwc_f32_1x3x224x224", c.get("name"));
        assertEquals(2L * 3 * 224 * 224 * 4, c.get("bytes"), "bytes read + bytes written");
        double gbps = ((Number) c.get("gbps")).doubleValue();
        double copy = ((Number) c.get("copy_gbps")).doubleValue();
        assertEquals(gbps / copy, ((Number) c.get("ratio_to_copy")).doubleValue(), 0.01);
        assertTrue(gbps > 0 && copy > 0);
        // The spread of the baseline's blocks, which says how far to trust the ratio.
        assertTrue(((Number) c.get("copy_gbps_min")).doubleValue() <= copy + 0.001
                && copy <= ((Number) c.get("copy_gbps_max")).doubleValue() + 0.001, c.toString());
        assertTrue(c.get("noisy") instanceof Boolean, c.toString());
        String help = CliHarness.run("bench", "--help").out();
        for (String key : out.keySet()) {
            assertTrue(help.contains("\"" + key + "\""), "bench --help names the key " + key + ":\n" + help);
        }
        for (String key : c.keySet()) {
            assertTrue(help.contains("\"" + key + "\""), "bench --help names the case key " + key + ":\n" + help);
        }
    }

    @Test
    void pacedModeAnswersEachInputLineWithOneSample() {
        CliHarness r = CliHarness.runWithInput("sample\nsample\nsample\n",
                "bench", "--paced", "--case", "nchw_to_nhwc_f32_1x3x224x224", "--quick", "--threads", "1");
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals(4, lines.size(), r.out());
        Map<String, Object> ready = Json.parseObject(lines.getFirst());
        assertEquals("nchw_to_nhwc_f32_1x3x224x224", ready.get("ready"));
        assertEquals(1L, ready.get("threads"));
        for (String line : lines.subList(1, 4)) {
            Map<String, Object> sample = Json.parseObject(line);
            assertEquals("nchw_to_nhwc_f32_1x3x224x224", sample.get("name"));
            assertEquals(2L * 3 * 224 * 224 * 4, sample.get("bytes"));
            assertTrue(((Number) sample.get("gbps")).doubleValue() > 0, line);
        }
    }

    /** Worded as every other option that takes an integer (Errors.notAnInteger). */
    @Test
    void threadsThatAreNotAnIntegerAreNamed() {
        CliHarness r = CliHarness.run("bench", "--threads", "two");
        assertEquals(2, r.code());
        assertEquals("tensorbuf bench: --threads: 'two' is not an integer", r.err().lines().findFirst().orElseThrow());
    }

    @Test
    void pacedModeTakesExactlyOneCase() {
        CliHarness r = CliHarness.run("bench", "--paced");
        assertEquals(2, r.code());
        assertEquals("tensorbuf bench: --paced times exactly one --case, got 0", r.err().lines().findFirst().orElseThrow());
    }

    @Test
    void unknownCaseListsTheKnownOnes() {
        CliHarness r = CliHarness.run("bench", "--case", "nosuch");
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("tensorbuf bench: no copy case nosuch; known: [nchw_to_nhwc_f32_32x64x112x112"), r.err());
    }
}
