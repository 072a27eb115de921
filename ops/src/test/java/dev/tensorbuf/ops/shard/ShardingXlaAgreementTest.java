package dev.tensorbuf.ops.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.ops.peers.PeerScripts;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.text.TextFormatException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Against XLA itself, through jax: random sharding texts read and printed by XLA's own parser
 * and {@code HloSharding::ToString} ({@code xla_shardings.py}), and jax's
 * {@code NamedSharding(mesh, PartitionSpec(...)).devices_indices_map(shape)} beside XLA's text of
 * the same sharding ({@code jax_shard_boxes.py}). Skipped, saying why, without jax.
 */
class ShardingXlaAgreementTest {
    @TempDir
    Path dir;

    private static void assumeJax() throws InterruptedException {
        String problem = PeerScripts.importProblem("jax; from jax._src.lib import xla_client", "pip install jax");
        assumeTrue(problem == null, problem + ": skipping the XLA comparison");
    }

    @Test
    void printsWhatXlaPrints() throws Exception {
        assumeJax();
        Random r = new Random(4041);
        Set<String> inputs = new LinkedHashSet<>();
        for (int i = 0; i < 1500; i++) {
            inputs.add(RandomShardings.text(r.nextInt(4), r));
            inputs.add(RandomShardings.subgroupText(r.nextInt(3), r));
        }
        for (int i = 0; i < 100; i++) {
            List<String> elements = new ArrayList<>();
            for (int k = r.nextInt(12); k > 0; k--) {
                elements.add(RandomShardings.text(r.nextInt(3), r));
            }
            inputs.add("{" + String.join(", ", elements) + "}");
        }
        // What we print goes to XLA too: XLA's printer is not always a fixed point of its parser
        // ({devices=[3]<=[3] last_tile_dims={unreduced}} reads back as {unreduced}), so re-reading
        // a printed form is compared with XLA's reading of it, not with the form itself.
        for (String input : List.copyOf(inputs)) {
            try {
                inputs.add(HloSharding.parse(input).toString());
            } catch (TextFormatException e) {
                // compared below, as the input
            }
        }
        Files.writeString(dir.resolve("in.txt"), String.join("\n", inputs) + "\n", StandardCharsets.UTF_8);
        PeerScripts.run(dir, "xla_shardings.py");
        List<String> lines = Files.readAllLines(dir.resolve("out.tsv"), StandardCharsets.UTF_8);
        assertEquals(inputs.size(), lines.size());
        int compared = 0;
        List<String> mismatches = new ArrayList<>();
        for (String line : lines) {
            String[] parts = line.split("\t", 2);
            String ours;
            try {
                ours = HloSharding.parse(parts[0]).toString();
            } catch (TextFormatException e) {
                ours = "ERROR " + e.getMessage();
            }
            boolean xlaRefused = parts[1].startsWith("ERROR");
            if (xlaRefused && parts[0].contains("devices=[]<=[1]")) {
                // XLA prints this (subgroups that all merged away) but does not read it; we read it back.
                assertEquals(parts[0], ours);
                continue;
            }
            if (xlaRefused != ours.startsWith("ERROR") || (!xlaRefused && !ours.equals(parts[1]))) {
                mismatches.add(parts[0] + "\n  XLA: " + parts[1] + "\n  ours: " + ours);
            }
            compared++;
        }
        assertTrue(mismatches.isEmpty(), mismatches.size() + " of " + compared + " differ:\n"
                + String.join("\n", mismatches.subList(0, Math.min(20, mismatches.size()))));
    }

    @Test
    void boxesAreJaxDevicesIndicesMap() throws Exception {
        assumeJax();
        PeerScripts.run(dir, "jax_shard_boxes.py");
        List<String> lines = Files.readAllLines(dir.resolve("boxes.tsv"), StandardCharsets.UTF_8);
        assertTrue(lines.size() >= 300, "cases: " + lines.size());
        for (String line : lines) {
            String[] parts = line.split("\t");
            List<Long> dims = new ArrayList<>();
            for (String d : parts[0].split(",")) {
                dims.add(Long.parseLong(d));
            }
            HloSharding sharding = HloSharding.parse(parts[1]);
            assertEquals(parts[1], sharding.toString(), "jax's text prints back as XLA printed it");
            String[] meshOrder = parts[2].split(",");
            ShardedTensor t = new ShardedTensor(DType.F32, dims, sharding, meshOrder.length);
            for (String entry : parts[3].split(" ")) {
                String[] deviceAndBox = entry.split(":");
                long jaxDevice = Long.parseLong(deviceAndBox[0]);
                List<Long> start = new ArrayList<>();
                List<Long> limit = new ArrayList<>();
                for (String range : deviceAndBox[1].split("/")) {
                    String[] se = range.split("-");
                    start.add(Long.parseLong(se[0]));
                    limit.add(Long.parseLong(se[1]));
                }
                int position = List.of(meshOrder).indexOf(Long.toString(jaxDevice));
                assertEquals(IndexBox.of(start, limit), t.box(position).orElseThrow(),
                        line + ": jax device " + jaxDevice + " at mesh position " + position);
            }
        }
    }
}
