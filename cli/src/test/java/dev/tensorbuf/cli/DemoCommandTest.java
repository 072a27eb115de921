package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.json.Json;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DemoCommandTest {
    @Test
    void everyStepPrintsOneNumberedLineAndSucceeds() {
        CliHarness r = CliHarness.run("demo");
        assertEquals(0, r.code(), r.err());
        int steps = DemoSteps.all().size();
        for (int i = 1; i <= steps; i++) {
            assertTrue(r.out().contains("[" + i + "/" + steps + "] "), r.out());
        }
        assertTrue(r.out().contains("  12  13  16  17  20"), "Figure 1's last row of slots:\n" + r.out());
    }

    @Test
    @SuppressWarnings("unchecked")
    void jsonCarriesTheFactsOfEveryStep() {
        CliHarness r = CliHarness.run("demo", "--json");
        assertEquals(0, r.code(), r.err());
        List<Map<String, Object>> steps = (List<Map<String, Object>>) Json.parseObject(r.out()).get("steps");
        assertEquals(DemoSteps.all().size(), steps.size());
        Map<String, Object> tiled = steps.stream().filter(s -> s.get("step").equals("tiled_layout")).findFirst().orElseThrow();
        assertEquals(List.of(List.of(0L, 1L, 4L, 5L, 8L), List.of(2L, 3L, 6L, 7L, 10L), List.of(12L, 13L, 16L, 17L, 20L)),
                tiled.get("linear_indices"));
        assertEquals(96L, tiled.get("byte_size"));
    }
}
