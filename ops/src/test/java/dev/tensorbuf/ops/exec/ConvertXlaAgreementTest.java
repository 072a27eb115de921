package dev.tensorbuf.ops.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.memory.Buffers;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.ops.peers.PeerScripts;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * XLA's {@code convert} between every pair of 17 types, on every pattern of the 8- and 16-bit
 * types and on the awkward values of the wider ones (NaN, infinities, saturation edges, rounding
 * ties, denormals, random patterns; {@code numpy_astype.py}'s values, run by
 * {@code xla_convert.py}): the executor behind {@code tensorbuf run} must give jaxlib's CPU results
 * bit for bit, NaNs aside, which need only be NaNs. The random-module test in the cli module covers
 * ops and layouts on tame values; this one covers the values. Needs Python with jax, jaxlib and
 * ml_dtypes; skipped with the reason otherwise.
 */
class ConvertXlaAgreementTest {
    @TempDir
    Path dir;

    @Test
    void everyPairConvertsAsXlaDoesOnEveryAwkwardValue() throws Exception {
        String problem = PeerScripts.importProblem("jax, ml_dtypes; from jaxlib import _hlo", "pip install jax ml_dtypes");
        assumeTrue(problem == null, problem + ": skipping the XLA comparison");
        PeerScripts.run(dir, "xla_convert.py", "numpy_astype.py");
        List<Path> modules;
        try (Stream<Path> files = Files.list(dir)) {
            modules = files.filter(f -> f.toString().endsWith(".hlo")).sorted().toList();
        }
        List<String> failures = new ArrayList<>();
        Arena arena = Arena.ofAuto();
        for (Path hlo : modules) {
            String[] pair = hlo.getFileName().toString().replace(".hlo", "").split("_");
            DType from = DType.fromXlaName(pair[0]);
            DType to = DType.fromXlaName(pair[1]);
            MemorySegment src = PeerScripts.read(dir.resolve("src_" + pair[0] + ".bin"), arena);
            TensorView p0 = TensorView.strided(Buffers.foreign(src, MemorySpace.HOST, "src", () -> { }), from,
                    StridedLayout.packed(src.byteSize() / from.byteWidth()));
            try (Execution x = HloExecutor.execute(Files.readString(hlo), Map.of("p0", p0))) {
                failures.addAll(PeerScripts.differences(from + " -> " + to, src, from.byteWidth(), ElementAccess.of(to),
                        PeerScripts.read(dir.resolve("xla_" + pair[0] + "_" + pair[1] + ".bin"), arena),
                        x.rowMajor().buffer().segment()));
            }
        }
        System.out.println("ConvertXlaAgreementTest: " + modules.size() + " pairs against XLA");
        assertEquals(17 * 17 - 2, modules.size(), "every pair but complex to pred");
        Map<String, Long> byPair = new TreeMap<>();
        failures.forEach(f -> byPair.merge(f.substring(0, f.indexOf(':')), 1L, Long::sum));
        assertTrue(failures.isEmpty(), failures.size() + " values differ from XLA's (expected), by pair " + byPair
                + "; the first:\n" + String.join("\n", failures.subList(0, Math.min(40, failures.size()))));
    }
}
