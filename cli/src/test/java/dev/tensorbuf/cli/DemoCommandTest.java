package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoCommandTest {
    @TempDir
    Path out;

    @Test
    void everyStepPrintsOneNumberedLineAndWritesItsFiles() throws Exception {
        Path made = out.resolve("made"); // a missing last folder is made, as mkdir makes it
        CliHarness r = CliHarness.run("demo", "--out", made.toString());
        assertEquals(0, r.code(), r.err());
        Matcher m = Pattern.compile("^\\[1/(\\d+)] ", Pattern.MULTILINE).matcher(r.out());
        assertTrue(m.find(), r.out());
        int steps = Integer.parseInt(m.group(1));
        assertEquals(DemoSteps.all().size() + 5, steps, "the tour plus the staging job's five steps");
        for (int i = 1; i <= steps; i++) {
            assertTrue(r.out().contains("[" + i + "/" + steps + "] "), r.out());
        }
        assertTrue(r.out().contains("  12  13  16  17  20"), "Figure 1's last row of slots:\n" + r.out());
        assertTrue(r.out().contains("all 1204224 elements checked"), r.out());
        assertTrue(r.out().contains("MemorySegment.copy of the same bytes"), r.out());
        Path npy = made.resolve("batch_nchw_f32.npy");
        assertEquals(8L * 3 * 224 * 224 * 4 + 128, Files.size(npy), "header of 128 bytes, then the f32 batch");
        assertTrue(Files.readString(made.resolve("layout_bf16_T(2,4)(2,1).svg")).contains("<svg "), "an SVG picture");
    }

    @Test
    @SuppressWarnings("unchecked")
    void jsonCarriesTheFactsOfEveryStep() {
        CliHarness r = CliHarness.run("demo", "--json", "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        List<Map<String, Object>> steps = (List<Map<String, Object>>) Json.parseObject(r.out()).get("steps");
        Map<String, Object> tiled = steps.stream().filter(s -> s.get("step").equals("tiled_layout")).findFirst().orElseThrow();
        assertEquals(List.of(List.of(0L, 1L, 4L, 5L, 8L), List.of(2L, 3L, 6L, 7L, 10L), List.of(12L, 13L, 16L, 17L, 20L)),
                tiled.get("linear_indices"));
        assertEquals(96L, tiled.get("byte_size"));
        Map<String, Object> staged = steps.stream().filter(s -> s.get("step").equals("stage_normalised")).findFirst().orElseThrow();
        assertEquals(8L * 224 * 224 * 3 * 5, staged.get("bytes"), "u8 read + f32 written");
        assertTrue(((Number) staged.get("ratio_to_copy")).doubleValue() > 0);
        // The baseline's spread over the rounds timed in turns with the step, and whether it was too wide to trust.
        double copy = ((Number) staged.get("copy_gbps")).doubleValue();
        assertTrue(((Number) staged.get("copy_gbps_min")).doubleValue() <= copy
                && copy <= ((Number) staged.get("copy_gbps_max")).doubleValue(), staged.toString());
        assertTrue(staged.get("noisy") instanceof Boolean, staged.toString());
    }

    @Test
    void outThatIsAFileIsRefusedBeforeAnyStep() throws Exception {
        Path file = Files.createFile(out.resolve("afile"));
        CliHarness r = CliHarness.run("demo", "--out", file.toString());
        assertEquals(2, r.code());
        assertEquals("", r.out());
        assertEquals("tensorbuf demo: --out: " + file + " is a file, expected a folder\n", r.err());
    }

    /** A typo early in the path used to create a whole tree; now only the last folder is made. */
    @Test
    void outInAMissingFolderIsRefusedAndNothingIsMade() {
        Path typo = out.resolve("resluts");
        CliHarness r = CliHarness.run("demo", "--out", typo.resolve("demo").toString());
        assertEquals(2, r.code());
        assertEquals("", r.out());
        assertEquals("tensorbuf demo: --out: no such folder: " + typo + " (to make " + typo.resolve("demo") + " in)\n",
                r.err());
        assertTrue(Files.notExists(typo), "nothing made");
    }
}
