package dev.tensorbuf.ops.copy;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.memory.Buffer;
import dev.tensorbuf.memory.Buffers;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every pair of 17 element types converted by the engine against NumPy's {@code astype}
 * (ml_dtypes' for bf16 and f8), value for value: all bit patterns of the 8- and 16-bit types,
 * and for the wider ones the values conversions go wrong on (ties after a first rounding, range
 * edges, specials) plus random patterns ({@code numpy_astype.py}). Values NumPy leaves undefined
 * (NaN, infinities and out-of-range values to an integer type) must be refused instead, as must
 * complex to real. Both the planned kernels (scalar, vector, split over threads) and the element
 * path of multi-buffer views are checked. Needs Python with numpy and ml_dtypes; skipped with the
 * reason otherwise.
 */
class ConversionNumpyAgreementTest {
    private static final List<String> TYPES = List.of("pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64",
            "f16", "bf16", "f32", "f64", "f8e4m3fn", "f8e5m2", "c64", "c128");
    private static final List<CopyEngine> ENGINES = List.of(CopyEngine.of(1, false), CopyEngine.of(1, true),
            CopyEngine.of(2, true, 0));
    /** Refusals are checked one value at a time: this many per pair keeps the test short. */
    private static final int REFUSALS_PER_PAIR = 40;

    @TempDir
    Path dir;

    private final Arena arena = Arena.ofAuto();
    private final List<String> failures = new ArrayList<>();

    @Test
    void everyPairConvertsAsNumpyDoesAndRefusesWhatNumpyLeavesUndefined() throws Exception {
        String python = System.getProperty("tensorbuf.python", "python3");
        String problem = generate(python);
        assumeTrue(problem == null, problem);
        int pairs = 0;
        for (String s : TYPES) {
            DType from = DType.fromXlaName(s);
            MemorySegment src = read("src_" + s + ".bin");
            for (String t : TYPES) {
                DType to = DType.fromXlaName(t);
                if (from.kind() == DType.Kind.COMPLEX && to.kind() != DType.Kind.COMPLEX) {
                    expectRefused(from, to, src.asSlice(0, from.byteWidth()), "complex to real");
                    continue;
                }
                check(from, to, src, read("dst_" + s + "_" + t + ".bin"), read("ok_" + s + "_" + t + ".bin"));
                pairs++;
            }
        }
        System.out.println("ConversionNumpyAgreementTest: " + pairs + " pairs against NumPy");
        assertTrue(failures.isEmpty(), failures.size() + " disagreements, the first:\n"
                + String.join("\n", failures.subList(0, Math.min(40, failures.size()))));
    }

    private void check(DType from, DType to, MemorySegment src, MemorySegment dst, MemorySegment ok) {
        int sw = from.byteWidth();
        int tw = to.byteWidth();
        long n = ok.byteSize();
        long m = 0;
        for (long i = 0; i < n; i++) {
            m += ok.get(ValueLayout.JAVA_BYTE, i);
        }
        MemorySegment in = arena.allocate(Math.max(1, m * sw));
        MemorySegment expected = arena.allocate(Math.max(1, m * tw));
        int refused = 0;
        for (long i = 0, k = 0; i < n; i++) {
            if (ok.get(ValueLayout.JAVA_BYTE, i) != 0) {
                MemorySegment.copy(src, i * sw, in, k * sw, sw);
                MemorySegment.copy(dst, i * tw, expected, k * tw, tw);
                k++;
            } else if (refused++ < REFUSALS_PER_PAIR) {
                expectRefused(from, to, src.asSlice(i * sw, sw), "out of range");
            }
        }
        Access source = Access.strided(in, from, StridedLayout.packed(m));
        for (CopyEngine engine : ENGINES) {
            MemorySegment out = arena.allocate(Math.max(1, m * tw));
            try {
                engine.copy(source, Access.strided(out, to, StridedLayout.packed(m)));
                compare(from, to, in, expected, out, "engine(parallelism " + engine.parallelism() + ", vector "
                        + engine.vectorKernels() + ")");
            } catch (RuntimeException e) {
                failures.add(from + " -> " + to + ": engine threw " + e);
            }
        }
        // A concatenation of one part spans "several buffers": the element path, with its own copy of the rules.
        MemorySegment out = arena.allocate(Math.max(1, m * tw));
        try {
            CopyEngine.defaults().copy(Ops.concatenate(0, List.of(view(in, from, m))), view(out, to, m));
            compare(from, to, in, expected, out, "element path");
        } catch (RuntimeException e) {
            failures.add(from + " -> " + to + ": element path threw " + e);
        }
    }

    private static TensorView view(MemorySegment m, DType t, long n) {
        Buffer b = Buffers.foreign(m, MemorySpace.HOST, "test", () -> { });
        return TensorView.strided(b, t, StridedLayout.packed(n));
    }

    private void expectRefused(DType from, DType to, MemorySegment one, String why) {
        MemorySegment out = arena.allocate(to.byteWidth());
        try {
            CopyEngine.defaults().copy(Access.strided(one, from, StridedLayout.packed(1)),
                    Access.strided(out, to, StridedLayout.packed(1)));
            failures.add(from + " -> " + to + ": " + why + " value " + HexFormat.of().formatHex(one.toArray(ValueLayout.JAVA_BYTE))
                    + " was converted, not refused");
        } catch (IllegalArgumentException expected) {
            // refused, as it must be
        }
        try {
            CopyEngine.defaults().copy(Ops.concatenate(0, List.of(view(one, from, 1))), view(out, to, 1));
            failures.add(from + " -> " + to + ": " + why + " value " + HexFormat.of().formatHex(one.toArray(ValueLayout.JAVA_BYTE))
                    + " was converted by the element path, not refused");
        } catch (IllegalArgumentException expected) {
            // refused, as it must be
        }
    }

    /** Bit for bit, except that a NaN need only be a NaN (NumPy keeps payloads the engine does not promise). */
    private void compare(DType from, DType to, MemorySegment in, MemorySegment expected, MemorySegment actual, String path) {
        int tw = to.byteWidth();
        long m = expected.byteSize() / tw;
        ElementAccess a = ElementAccess.of(to);
        for (long k = 0; k < m; k++) {
            if (MemorySegment.mismatch(expected, k * tw, (k + 1) * tw, actual, k * tw, (k + 1) * tw) < 0) {
                continue;
            }
            if (bothNaN(a, expected, actual, k)) {
                continue;
            }
            int sw = from.byteWidth();
            failures.add(String.format("%s -> %s (%s): source %s, NumPy %s, ours %s", from, to, path,
                    HexFormat.of().formatHex(in.asSlice(k * sw, sw).toArray(ValueLayout.JAVA_BYTE)),
                    HexFormat.of().formatHex(expected.asSlice(k * tw, tw).toArray(ValueLayout.JAVA_BYTE)),
                    HexFormat.of().formatHex(actual.asSlice(k * tw, tw).toArray(ValueLayout.JAVA_BYTE))));
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

    private MemorySegment read(String name) throws IOException {
        byte[] bytes = Files.readAllBytes(dir.resolve(name));
        return arena.allocate(Math.max(1, bytes.length)).copyFrom(MemorySegment.ofArray(bytes)).asSlice(0, bytes.length);
    }

    /** {@return why the NumPy side could not run, or null once its files are in {@link #dir}} */
    private String generate(String python) throws IOException, InterruptedException {
        Path script = dir.resolve("numpy_astype.py");
        try (InputStream s = ConversionNumpyAgreementTest.class.getResourceAsStream("/numpy_astype.py")) {
            Files.write(script, s.readAllBytes());
        }
        Process p;
        try {
            p = new ProcessBuilder(python, "-c", "import numpy, ml_dtypes").redirectErrorStream(true).start();
        } catch (IOException e) {
            return "no Python interpreter '" + python + "' (-Dtensorbuf.python=...): " + e.getMessage();
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            return python + " cannot import numpy and ml_dtypes (pip install numpy ml_dtypes): " + out.strip();
        }
        p = new ProcessBuilder(python, script.toString(), dir.toString()).redirectErrorStream(true).start();
        out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("numpy_astype.py failed: " + out);
        }
        return null;
    }
}
