package dev.tensorbuf.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.internal.Bitcast;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.MapForm;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import dev.tensorbuf.views.XlaShape;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random chains of 3 to 6 view ops on small shapes, on untiled and tiled sources: every element
 * of the view equals the brute-force reference ({@link Reference}), the general path (maps
 * composed at once), and, where NumPy imports, NumPy's result on the same data. Seed printed;
 * {@code -Dtensorbuf.seed=N} replays it.
 */
class ViewOpAgreementTest {
    private static final int CHAINS = 300;

    private static TensorView source(Allocator arena, ViewOpChains.Chain chain, float[] values) {
        ArrayShape shape = (ArrayShape) XlaShape.parse(chain.sourceShape());
        TensorView v = TensorView.of(arena.allocate(Math.max(4, shape.arraySize())), shape);
        TensorElements.of(v).copyFrom(values);
        return v;
    }

    private static float[] values(long[] dims) {
        float[] v = new float[(int) Reference.count(dims)];
        for (int i = 0; i < v.length; i++) {
            v[i] = i + 1;
        }
        return v;
    }

    @Test
    void everyChainAgreesWithBruteForceReference() {
        long seed = ViewOpChains.seed("everyChainAgreesWithBruteForceReference");
        agreeWithReference(seed, ViewOpChains::random);
    }

    @Test
    void everyChainOnATiledSourceAgreesWithBruteForceReference() {
        long seed = ViewOpChains.seed("everyChainOnATiledSourceAgreesWithBruteForceReference");
        agreeWithReference(seed, ViewOpChains::randomTiled);
    }

    private static void agreeWithReference(long seed, Function<Random, ViewOpChains.Chain> chains) {
        Random rnd = new Random(seed);
        try (Allocator arena = Allocators.confined()) {
            for (int c = 0; c < CHAINS; c++) {
                ViewOpChains.Chain chain = chains.apply(rnd);
                float[] values = values(chain.dims());
                double[] asDoubles = new double[values.length];
                for (int i = 0; i < values.length; i++) {
                    asDoubles[i] = values[i];
                }
                TensorView view = source(arena, chain, values);
                Reference ref = new Reference(chain.dims(), asDoubles);
                for (ViewOpChains.Step step : chain.steps()) {
                    view = step.onView().apply(view);
                    ref = step.onReference().apply(ref);
                    assertEquals(java.util.Arrays.toString(ref.dims()), view.dims().toString().replace(" ", "").replace(",", ", "),
                            "dims after " + step + " in chain " + c + ": " + chain);
                }
                TensorView result = view;
                Reference expected = ref;
                double[] got = TensorElements.of(result).toDoubleArray();
                for (int i = 0; i < got.length; i++) {
                    assertEquals(expected.values()[i], got[i], "element " + i + " of chain " + c + " (seed " + seed + "): "
                            + chain + " -> " + result);
                }
                // Element access by index agrees with the bulk path.
                TensorElements.of(result).forEachIndex(index -> assertEquals(expected.at(index), TensorElements.of(result).getDouble(index)));
            }
        }
    }

    /**
     * Every op makes its view from a description (strides, a remap, pad windows, parts) and
     * composes the map later; the general path composes the op's map at once. After every step
     * of every chain, on untiled and tiled sources, both read the same elements from the same
     * pieces, and a strided layout the general path finds is the fast path's.
     *
     * <p>The fast path knows strides by arithmetic; the general path finds them only by
     * simplifying maps composed op after op, and the simplifier does not undo every nesting of
     * reshapes and reverses (a reshape of a reversed reshape: RELIABILITY.md, finding 5). Such
     * steps are printed and counted, and must stay rare.
     */
    @Test
    void fastViewsEqualGeneralPathViewsAfterEveryStep() {
        long seed = ViewOpChains.seed("fastViewsEqualGeneralPathViewsAfterEveryStep");
        Random rnd = new Random(seed);
        int steps = 0;
        int generalLags = 0;
        try (Allocator arena = Allocators.confined()) {
            for (int c = 0; c < CHAINS; c++) {
                ViewOpChains.Chain chain = c % 2 == 0 ? ViewOpChains.random(rnd) : ViewOpChains.randomTiled(rnd);
                TensorView fast = source(arena, chain, values(chain.dims()));
                TensorView general = fast;
                for (ViewOpChains.Step step : chain.steps()) {
                    fast = step.onView().apply(fast);
                    general = step.onGeneral().apply(general);
                    String where = "after " + step + " in chain " + c + " (seed " + seed + "): " + chain;
                    // Read off the strides before form() runs, then against the simplified form, on both paths.
                    Optional<StridedLayout> quick = fast.stridedLayout();
                    assertEquals(fast.form() instanceof MapForm.Strided s ? Optional.of(s.layout()) : Optional.empty(), quick,
                            "strided layout " + where);
                    steps++;
                    if (general.stridedLayout().isEmpty() && quick.isPresent()) {
                        generalLags++;
                        System.out.println("general path finds no strides " + where + ": " + general.indexingMap());
                    } else {
                        assertEquals(general.stridedLayout(), quick, "strided layout on the general path " + where);
                    }
                    assertEquals(general.dims(), fast.dims(), "dims " + where);
                    assertEquals(general.map().pieces().size(), fast.map().pieces().size(), "pieces " + where);
                    assertArrayEquals(TensorElements.of(general).toDoubleArray(), TensorElements.of(fast).toDoubleArray(), "elements " + where);
                }
            }
        }
        assertTrue(generalLags <= steps / 100, generalLags + " of " + steps + " steps strided only on the fast path (seed " + seed + ")");
    }

    /**
     * Bitcast of a view made by ops reads its layout off its strides; the same map in a view made
     * from it directly finds it by simplifying. Both give the same view, or the same error.
     */
    @Test
    void bitcastOfAnOpMadeViewEqualsBitcastOfTheSameMapMadeDirectly() {
        long seed = ViewOpChains.seed("bitcastOfAnOpMadeViewEqualsBitcastOfTheSameMapMadeDirectly");
        Random rnd = new Random(seed);
        int bitcasts = 0;
        try (Allocator arena = Allocators.confined()) {
            for (int c = 0; c < CHAINS; c++) {
                ViewOpChains.Chain chain = ViewOpChains.random(rnd);
                TensorView fast = source(arena, chain, values(chain.dims()));
                for (ViewOpChains.Step step : chain.steps().subList(0, 1 + rnd.nextInt(chain.steps().size()))) {
                    fast = step.onView().apply(fast);
                }
                if (!(fast.map() instanceof ViewMap.Single single)) {
                    continue;
                }
                TensorView direct = TensorView.over(single, fast.access(), Extents.toArray(fast.dims()));
                long count = fast.elementCount();
                String target = "f32[" + count + "]{0}";
                if (count % 2 == 0 && rnd.nextBoolean()) {
                    target = "f32[2," + count / 2 + "]{" + (rnd.nextBoolean() ? "0,1" : "1,0") + "}";
                }
                String where = fast + " to " + target + " in chain " + c + " (seed " + seed + "): " + chain;
                TensorView expected;
                try {
                    expected = Bitcast.apply(direct, target);
                } catch (IllegalArgumentException e) {
                    TensorView from = fast;
                    String t = target;
                    assertEquals(e.getMessage(), assertThrows(IllegalArgumentException.class, () -> Bitcast.apply(from, t),
                            where).getMessage(), where);
                    continue;
                }
                TensorView got = Bitcast.apply(fast, target);
                assertEquals(expected.shape(), got.shape(), where);
                assertEquals(expected.toString(), got.toString(), where);
                assertArrayEquals(TensorElements.of(expected).toDoubleArray(), TensorElements.of(got).toDoubleArray(), where);
                bitcasts++;
            }
        }
        assertTrue(bitcasts > CHAINS / 10, bitcasts + " of " + CHAINS + " chains ended packed enough to bitcast");
    }

    @Test
    void everyChainAgreesWithNumPy(@TempDir Path dir) throws IOException, InterruptedException {
        String python = System.getProperty("tensorbuf.python", "python3");
        String problem = importProblem(python);
        assumeTrue(problem == null, problem);
        long seed = ViewOpChains.seed("everyChainAgreesWithNumPy");
        Random rnd = new Random(seed);
        List<ViewOpChains.Chain> chains = new ArrayList<>();
        List<float[]> results = new ArrayList<>();
        StringBuilder spec = new StringBuilder();
        try (Allocator arena = Allocators.confined()) {
            for (int c = 0; c < 100; c++) {
                ViewOpChains.Chain chain = ViewOpChains.random(rnd);
                float[] values = values(chain.dims());
                writeFloats(dir.resolve("in" + c + ".bin"), values);
                TensorView view = source(arena, chain, values);
                spec.append("case ").append(c).append(" ").append(list(chain.dims())).append('\n');
                for (ViewOpChains.Step step : chain.steps()) {
                    view = step.onView().apply(view);
                    spec.append(step.numpy()).append('\n');
                }
                chains.add(chain);
                results.add(TensorElements.of(view).toFloatArray());
            }
        }
        Files.writeString(dir.resolve("chains.txt"), spec.toString());
        Path script = dir.resolve("chains.py");
        try (var in = getClass().getResourceAsStream("/numpy_chains.py")) {
            Files.copy(in, script);
        }
        Process p = new ProcessBuilder(python, script.toString(), dir.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(2, TimeUnit.MINUTES), "numpy timed out");
        assertEquals(0, p.exitValue(), out);
        for (int c = 0; c < chains.size(); c++) {
            float[] numpy = readFloats(dir.resolve("out" + c + ".bin"));
            float[] ours = results.get(c);
            assertEquals(numpy.length, ours.length, "element count of chain " + c + " (seed " + seed + "): " + chains.get(c));
            for (int i = 0; i < ours.length; i++) {
                assertEquals(numpy[i], ours[i], "element " + i + " of chain " + c + " (seed " + seed + "): " + chains.get(c));
            }
        }
    }

    private static String list(long[] v) {
        return java.util.Arrays.toString(v).replace(" ", "");
    }

    private static String importProblem(String python) {
        try {
            Process p = new ProcessBuilder(python, "-c", "import numpy").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(1, TimeUnit.MINUTES);
            return p.exitValue() == 0 ? null : python + " cannot import numpy (pip install numpy): " + out.strip();
        } catch (IOException | InterruptedException e) {
            return "no Python interpreter '" + python + "' (-Dtensorbuf.python=...): " + e.getMessage();
        }
    }

    private static void writeFloats(Path file, float[] values) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) {
            b.putFloat(v);
        }
        Files.write(file, b.array());
    }

    private static float[] readFloats(Path file) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        float[] out = new float[b.remaining() / 4];
        for (int i = 0; i < out.length; i++) {
            out[i] = b.getFloat();
        }
        return out;
    }
}
