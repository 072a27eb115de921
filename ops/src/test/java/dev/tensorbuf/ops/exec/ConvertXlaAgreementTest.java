package dev.tensorbuf.ops.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.memory.MemoryBuffer;
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
 * XLA's {@code convert} between every pair of 28 types (all of {@code numpy_astype.py}'s but the
 * f6 ones, which jaxlib's CPU backend refuses), on every pattern of the types of 16 bits and fewer
 * and on the awkward values of the wider ones (NaN, infinities, saturation edges, rounding
 * ties, denormals, random patterns; {@code numpy_astype.py}'s values, run by
 * {@code xla_convert.py}): the executor behind {@code tensorbuf run} must give jaxlib's CPU results
 * bit for bit, NaNs included (their signs and payloads, signalling ones kept or quieted as XLA
 * does), except f64's NaNs into f16, which keep their top payload bits as NumPy's do where XLA
 * gives the plain quiet NaN ({@link #nanBits}). The random-module test in the cli module covers
 * ops and layouts on tame values; this one covers the values. Needs Python with jax, jaxlib and
 * ml_dtypes; skipped with the reason otherwise.
 */
class ConvertXlaAgreementTest {
    @TempDir
    Path dir;

    /**
     * {@return whether XLA gives a value we do not copy, left out of the comparison} jaxlib 0.10.2
     * converts f4e2m1fn's largest values, 6 and -6, to an integer type's max and min (6 -> s8 127),
     * as if they were infinities; 6 stays 6 here. Below f32's normal range its f64 -> f8e8m0fnu
     * follows no rule we could pin down (1.02 * 2^-127 gives 2^-126, 1e-44 gives NaN).
     */
    private static boolean xlaQuirk(DType from, DType to, double value) {
        boolean toInteger = to.kind() != DType.Kind.FLOAT && to.kind() != DType.Kind.COMPLEX && to != DType.PRED;
        return from == DType.F4E2M1FN && toInteger && Math.abs(value) == 6
                || from.componentType() == DType.F64 && to == DType.F8E8M0FNU && Math.abs(value) < 0x1p-126;
    }

    /**
     * {@return whether NaNs of the pair are compared bit for bit} All but f64 (or c128) -> f16:
     * there XLA gives {@code 0x7e00} with the sign, and we keep the payload's top ten bits, as NumPy.
     */
    private static boolean nanBits(DType from, DType to) {
        return !(from.componentType() == DType.F64 && to == DType.F16);
    }

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
            TensorView p0 = TensorView.strided(MemoryBuffer.foreign(src, MemorySpace.HOST, "src", () -> { }), from,
                    StridedLayout.packed(src.byteSize() / from.byteWidth()));
            try (Execution x = HloExecutor.execute(Files.readString(hlo), Map.of("p0", p0))) {
                ElementAccess in = ElementAccess.of(from);
                failures.addAll(PeerScripts.differences(from + " -> " + to, src, from.byteWidth(), ElementAccess.of(to),
                        PeerScripts.read(dir.resolve("xla_" + pair[0] + "_" + pair[1] + ".bin"), arena),
                        x.result().buffer().segment(), // unpacked, a byte an element, as XLA hands s4 back
                        k -> xlaQuirk(from, to, from.kind() == DType.Kind.COMPLEX ? in.getReal(src, k) : in.getDouble(src, k)), nanBits(from, to)));
            }
        }
        System.out.println("ConvertXlaAgreementTest: " + modules.size() + " pairs against XLA");
        assertEquals(28 * 28 - 2, modules.size(), "every pair of 28 types but complex to pred");
        Map<String, Long> byPair = new TreeMap<>();
        failures.forEach(f -> byPair.merge(f.substring(0, f.indexOf(':')), 1L, Long::sum));
        Map<String, Long> shown = new TreeMap<>();
        List<String> firsts = failures.stream()
                .filter(f -> shown.merge(f.substring(0, f.indexOf(':')), 1L, Long::sum) <= 3).limit(60).toList();
        assertTrue(failures.isEmpty(), failures.size() + " values differ from XLA's (expected), by pair " + byPair
                + "; the first of each pair:\n" + String.join("\n", firsts));
    }
}
