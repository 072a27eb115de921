package dev.tensorbuf.ops.peers;

import dev.tensorbuf.views.ElementAccess;
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
import java.util.function.LongPredicate;

/**
 * What the tests against Python peers (NumPy, ml_dtypes, XLA through jax) share: running a
 * script from the test resources, reading the raw files it writes, and comparing values where
 * a NaN need only be a NaN (the peers keep payloads tensorbuf does not promise).
 */
public final class PeerScripts {
    /** The interpreter: {@code -Dtensorbuf.python}, default {@code python3}. */
    public static final String PYTHON = System.getProperty("tensorbuf.python", "python3");

    private PeerScripts() {
    }

    /** {@return why {@link #PYTHON} cannot import {@code modules} (comma-separated), or null when it can} */
    public static String importProblem(String modules, String pipHint) throws InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(PYTHON, "-c", "import " + modules).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0) {
                return null;
            }
            return PYTHON + " cannot import " + modules + " (" + pipHint + "): " + out.strip();
        } catch (IOException e) {
            return "no Python interpreter '" + PYTHON + "' (-Dtensorbuf.python=...): " + e.getMessage();
        }
    }

    /**
     * Copies the test resources {@code scripts} into {@code dir} and runs the first with
     * {@code dir} as its argument, XLA held to the CPU.
     *
     * @throws IllegalStateException with the script's output if it fails or runs past 5 minutes
     */
    public static void run(Path dir, String... scripts) throws IOException, InterruptedException {
        for (String s : scripts) {
            try (InputStream in = PeerScripts.class.getResourceAsStream("/" + s)) {
                Files.write(dir.resolve(s), in.readAllBytes());
            }
        }
        ProcessBuilder pb = new ProcessBuilder(PYTHON, dir.resolve(scripts[0]).toString(), dir.toString())
                .redirectErrorStream(true);
        pb.environment().put("JAX_PLATFORMS", "cpu");
        pb.environment().put("TF_CPP_MIN_LOG_LEVEL", "2");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException(scripts[0] + " failed: " + out);
        }
    }

    /** {@return the file's bytes in native memory (at least one byte allocated)} */
    public static MemorySegment read(Path file, Arena arena) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        return arena.allocate(Math.max(1, bytes.length)).copyFrom(MemorySegment.ofArray(bytes)).asSlice(0, bytes.length);
    }

    /**
     * {@return a line for each element of type {@code expected}'s access that differs, bit for bit
     * unless both are NaN (part by part for complex types), naming the source element}
     *
     * @param what the pair and path, e.g. {@code "f64 -> f32 (XLA)"}
     * @param leftOut the elements not compared, by index (a peer's behaviour deliberately not copied)
     */
    public static List<String> differences(String what, MemorySegment source, int sourceWidth, ElementAccess target,
                                           MemorySegment expected, MemorySegment actual, LongPredicate leftOut) {
        return differences(what, source, sourceWidth, target, expected, actual, leftOut, false);
    }

    /**
     * {@return as {@link #differences(String, MemorySegment, int, ElementAccess, MemorySegment,
     * MemorySegment, LongPredicate)}, with NaNs compared bit for bit too when {@code nanBits}}
     */
    public static List<String> differences(String what, MemorySegment source, int sourceWidth, ElementAccess target,
                                           MemorySegment expected, MemorySegment actual, LongPredicate leftOut,
                                           boolean nanBits) {
        int w = target.type().byteWidth();
        List<String> out = new ArrayList<>();
        for (long k = 0; k < expected.byteSize() / w; k++) {
            if (MemorySegment.mismatch(expected, k * w, (k + 1) * w, actual, k * w, (k + 1) * w) >= 0
                    && (nanBits || !bothNaN(target, expected, actual, k)) && !leftOut.test(k)) {
                out.add(what + ": source " + hex(source, k * sourceWidth, sourceWidth) + ", expected "
                        + hex(expected, k * w, w) + ", got " + hex(actual, k * w, w) + " (bytes, little-endian)");
            }
        }
        return out;
    }

    /** {@return {@code width} bytes from {@code offset} in hex, lowest address first} */
    public static String hex(MemorySegment m, long offset, int width) {
        return HexFormat.of().formatHex(m.asSlice(offset, width).toArray(ValueLayout.JAVA_BYTE));
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
}
