package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.NpyArray;
import dev.tensorbuf.ops.exec.Execution;
import dev.tensorbuf.ops.exec.HloExecutor;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.TensorView;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * XLA's {@code convert} between every pair of 17 types, on every pattern of the 8- and 16-bit
 * types and on the awkward values of the wider ones (NaN, infinities, saturation edges, rounding
 * ties, random patterns): the executor behind {@code tensorbuf run} must give jaxlib's CPU
 * results bit for bit, NaNs aside, which need only be NaNs. The random-module test
 * ({@link RunXlaAgreementTest}) covers ops and layouts on tame values; this one covers the values.
 * Needs Python with jax and jaxlib; skipped with the reason otherwise.
 */
class ConvertXlaAgreementTest {
    private static final String PYTHON = System.getProperty("tensorbuf.python", "python3");

    @TempDir
    Path dir;

    @Test
    void everyPairConvertsAsXlaDoesOnEveryAwkwardValue() throws Exception {
        String problem = generate();
        assumeTrue(problem == null, problem);
        List<String> failures = new ArrayList<>();
        List<Path> modules;
        try (Stream<Path> files = Files.list(dir)) {
            modules = files.filter(f -> f.toString().endsWith(".hlo")).sorted().toList();
        }
        for (Path hlo : modules) {
            String[] pair = TensorFiles.stem(hlo).split("_");
            DType from = DType.fromXlaName(pair[0]);
            DType to = DType.fromXlaName(pair[1]);
            try (NpyArray in = Npy.map(dir.resolve("in_" + pair[0] + ".npy"), from.isNumpyNative() ? null : from);
                 NpyArray xla = Npy.map(dir.resolve(pair[0] + "_" + pair[1] + ".npy"), to.isNumpyNative() ? null : to);
                 Execution x = HloExecutor.execute(Files.readString(hlo),
                         Map.of("p0", TensorView.strided(in.data(), in.dtype(), in.layout())))) {
                compare(from, to, in.data().segment(), xla.data().segment(),
                        x.rowMajor().buffer().segment(), failures);
            }
        }
        System.out.println("ConvertXlaAgreementTest: " + modules.size() + " pairs against XLA");
        assertEquals(17 * 17 - 2, modules.size(), "every pair but complex to pred");
        Map<String, Long> byPair = new java.util.TreeMap<>();
        failures.forEach(f -> byPair.merge(f.substring(0, f.indexOf(':')), 1L, Long::sum));
        assertTrue(failures.isEmpty(), failures.size() + " values differ from XLA's, by pair " + byPair
                + "; the first:\n" + String.join("\n", failures.subList(0, Math.min(40, failures.size()))));
    }

    private static void compare(DType from, DType to, MemorySegment in, MemorySegment xla, MemorySegment ours,
                                List<String> failures) {
        int sw = from.byteWidth();
        int tw = to.byteWidth();
        long n = xla.byteSize() / tw;
        ElementAccess a = ElementAccess.of(to);
        HexFormat hex = HexFormat.of();
        for (long k = 0; k < n; k++) {
            if (MemorySegment.mismatch(xla, k * tw, (k + 1) * tw, ours, k * tw, (k + 1) * tw) < 0 || bothNaN(a, xla, ours, k)) {
                continue;
            }
            failures.add(String.format("%s -> %s: source %s, XLA %s, ours %s (bytes, little-endian)", from, to,
                    hex.formatHex(in.asSlice(k * sw, sw).toArray(ValueLayout.JAVA_BYTE)),
                    hex.formatHex(xla.asSlice(k * tw, tw).toArray(ValueLayout.JAVA_BYTE)),
                    hex.formatHex(ours.asSlice(k * tw, tw).toArray(ValueLayout.JAVA_BYTE))));
        }
    }

    private static boolean bothNaN(ElementAccess a, MemorySegment x, MemorySegment y, long k) {
        return switch (a.type().kind()) {
            case FLOAT -> Double.isNaN(a.getDouble(x, k)) && Double.isNaN(a.getDouble(y, k));
            case COMPLEX -> sameOrNaN(a.getReal(x, k), a.getReal(y, k)) && sameOrNaN(a.getImag(x, k), a.getImag(y, k));
            default -> false;
        };
    }

    private static boolean sameOrNaN(double x, double y) {
        return Double.isNaN(x) ? Double.isNaN(y) : Double.doubleToRawLongBits(x) == Double.doubleToRawLongBits(y);
    }

    /** {@return why XLA could not run, or null once its files are in {@link #dir}} */
    private String generate() throws IOException, InterruptedException {
        Path script = dir.resolve("xla_convert.py");
        try (InputStream s = ConvertXlaAgreementTest.class.getResourceAsStream("/xla_convert.py")) {
            Files.write(script, s.readAllBytes());
        }
        Process probe;
        try {
            probe = new ProcessBuilder(PYTHON, "-c", "import jax, ml_dtypes; from jaxlib import _hlo").redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            return "no Python interpreter '" + PYTHON + "' (-Dtensorbuf.python=...): " + e.getMessage();
        }
        String out = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!probe.waitFor(120, TimeUnit.SECONDS) || probe.exitValue() != 0) {
            return PYTHON + " cannot import jax, jaxlib and ml_dtypes (pip install jax ml_dtypes): skipping the XLA"
                    + " comparison: " + out.strip();
        }
        ProcessBuilder pb = new ProcessBuilder(PYTHON, script.toString(), dir.toString()).redirectErrorStream(true);
        pb.environment().put("JAX_PLATFORMS", "cpu");
        pb.environment().put("TF_CPP_MIN_LOG_LEVEL", "2");
        Process p = pb.start();
        out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("xla_convert.py failed: " + out);
        }
        return null;
    }
}
