package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tensorbuf run} against XLA itself: random data-movement modules, and random gathers,
 * scatters, dynamic-update-slices and sorts, run through our CLI and through jaxlib's CPU client
 * (xla_run.py), and the outputs must be identical byte for byte.
 * Needs Python (system property {@code tensorbuf.python}, default {@code python3}) with jax and
 * jaxlib; skipped with the reason otherwise. Seed: {@code -Dtensorbuf.seed=N}.
 */
class RunXlaAgreementTest {
    private static final int MODULES = Integer.getInteger("tensorbuf.runModules", 40);
    private static final int INDEXED_MODULES = Integer.getInteger("tensorbuf.indexedModules", 40);
    private static final int CONTROL_MODULES = Integer.getInteger("tensorbuf.controlModules", 40);
    private static final int REFUSAL_MODULES = Integer.getInteger("tensorbuf.refusalModules", 300);
    private static final String PYTHON = System.getProperty("tensorbuf.python", "python3");

    @TempDir
    Path dir;

    @Test
    void randomDataMovementModulesMatchXlaBitForBit() throws Exception {
        assumeTrue(jaxImportable(), PYTHON + " cannot import jax and jaxlib (pip install jax jaxlib): skipping the XLA comparison");
        long seed = seed("");
        Random rnd = new Random(seed);
        agree(MODULES, seed, rnd, () -> RandomHloModules.generate(rnd), (p, file) -> writeRandom(file, p, rnd));
    }

    /**
     * Gathers, scatters and dynamic-update-slices of random dimension numbers, their index values
     * near the dims and past both ends, and sorts and top-k by random keys (RandomIndexedModules),
     * against XLA bit for bit. Seed:
     * {@code -Dtensorbuf.seed=N}; count: {@code -Dtensorbuf.indexedModules=N}.
     */
    @Test
    void randomIndexedModulesMatchXlaBitForBit() throws Exception {
        assumeTrue(jaxImportable(), PYTHON + " cannot import jax and jaxlib (pip install jax jaxlib): skipping the XLA comparison");
        long seed = seed("indexed ");
        Random rnd = new Random(seed);
        Map<String, Long> bounds = new java.util.HashMap<>();
        agree(INDEXED_MODULES, seed, rnd, () -> {
            RandomIndexedModules.Indexed m = RandomIndexedModules.generate(rnd);
            bounds.clear();
            bounds.putAll(m.indexBounds());
            return m.module();
        }, (p, file) -> {
            if (bounds.containsKey(p.name())) {
                writeIndices(file, p, bounds.get(p.name()), rnd);
            } else {
                writeRandom(file, p, rnd);
            }
        });
    }

    /**
     * Loops, conditionals and calls nested up to two deep (RandomControlFlowModules), with data
     * moved by their counters and elementwise ops within and around them, against XLA bit for bit.
     * Seed: {@code -Dtensorbuf.seed=N}; count: {@code -Dtensorbuf.controlModules=N}.
     */
    @Test
    void randomControlFlowModulesMatchXlaBitForBit() throws Exception {
        assumeTrue(jaxImportable(), PYTHON + " cannot import jax and jaxlib (pip install jax jaxlib): skipping the XLA comparison");
        long seed = seed("control flow ");
        Random rnd = new Random(seed);
        agree(CONTROL_MODULES, seed, rnd, () -> RandomControlFlowModules.generate(rnd), (p, file) -> writeRandom(file, p, rnd));
    }

    /**
     * What XLA refuses, run refuses too, wherever in the module it is: damaged modules
     * ({@link MutatedModulesTest}'s edits) that run runs are each parsed, verified and compiled
     * by XLA, and none may be refused. Not counted: XLA aborting on a failed check of its own (no
     * verdict), XLA's layout assignment refusing optimised programs it printed itself, and
     * numbers in metadata, which run does not read. Count: {@code -Dtensorbuf.refusalModules=N}.
     */
    @Test
    void damagedModulesXlaRefusesAreRefusedByRunToo() throws Exception {
        assumeTrue(jaxImportable(), PYTHON + " cannot import jax and jaxlib (pip install jax jaxlib): skipping the XLA comparison");
        long seed = seed("refusals ");
        Random rnd = new Random(seed);
        List<String> programs = MutatedModulesTest.programs();
        Map<String, String> texts = new TreeMap<>();
        MutatedModulesTest.withTripLimit(() -> {
            for (int k = 0; k < REFUSAL_MODULES; k++) {
                String text = MutatedModulesTest.mutated(MutatedModulesTest.original(k, rnd, programs), rnd);
                try (Allocator arena = Allocators.shared()) {
                    if (MutatedModulesTest.run(text, arena, rnd).equals("ran")) {
                        Path hlo = dir.resolve("m" + k + ".hlo");
                        Files.writeString(hlo, text);
                        texts.put(hlo.toString(), text);
                    }
                } catch (RuntimeException refused) {
                    // Refused here: MutatedModulesTest checks how.
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        });
        Path manifest = dir.resolve("ran.txt");
        Files.writeString(manifest, String.join("\n", texts.keySet()) + "\n");
        Path script = dir.resolve("xla_verdicts.py");
        try (InputStream in = RunXlaAgreementTest.class.getResourceAsStream("/xla_verdicts.py")) {
            Files.write(script, in.readAllBytes());
        }
        List<String> verdicts = new ArrayList<>();
        assertEquals("", runPython(List.of(script.toString(), manifest.toString()), verdicts));
        Map<String, Integer> counts = new TreeMap<>();
        List<String> refused = new ArrayList<>();
        for (String line : verdicts) {
            String[] pathAndVerdict = line.split("\t", 2);
            String verdict = pathAndVerdict[1];
            boolean excused = verdict.startsWith("refused") && EXCUSED.stream().anyMatch(verdict::contains);
            counts.merge(excused ? "excused" : verdict.replaceFirst(":.*", ""), 1, Integer::sum);
            if (verdict.startsWith("refused") && !excused) {
                refused.add(verdict + "\n" + texts.get(pathAndVerdict[0]));
            }
        }
        System.out.println("RunXlaAgreementTest refusals: of " + REFUSAL_MODULES + " damaged modules run ran " + texts.size()
                + "; XLA's verdicts " + counts);
        assertEquals(texts.size(), verdicts.size(), "one verdict a module");
        assertTrue(counts.getOrDefault("ok", 0) >= texts.size() / 2, () -> "XLA compiled too few: " + counts);
        assertTrue(refused.isEmpty(), () -> refused.size() + " modules run ran are refused by XLA (seed " + seed + "); the first: "
                + refused.getFirst());
    }

    /**
     * XLA's refusals that say nothing about run: its layout assignment on the optimised programs
     * it printed (bitcasts in comparators, layouts it assigned), and numbers in metadata and
     * stack frames, which run does not read.
     */
    private static final List<String> EXCUSED = List.of("during layout assignment", "minor_to_major field contains",
            "value out of range for int32_t");

    /** {@return the seed, {@code -Dtensorbuf.seed} or the clock's, printed so that a run can be repeated} */
    private static long seed(String what) {
        long seed = Long.getLong("tensorbuf.seed", System.nanoTime());
        System.out.println("RunXlaAgreementTest " + what + "seed " + seed + " (rerun with -Dtensorbuf.seed=" + seed + ")");
        return seed;
    }

    /** Writes an argument's values to its file. */
    private interface ArgumentWriter {
        void write(RandomHloModules.Param p, Path file) throws IOException;
    }

    /** Runs each module through tensorbuf run and all through XLA, and compares the outputs byte for byte. */
    private void agree(int count, long seed, Random choice, java.util.function.Supplier<RandomHloModules.Module> next,
            ArgumentWriter writer) throws Exception {
        List<RandomHloModules.Module> modules = new ArrayList<>();
        Map<String, Integer> coverage = new TreeMap<>();
        StringBuilder manifest = new StringBuilder();
        for (int k = 0; k < count; k++) {
            RandomHloModules.Module m = next.get();
            modules.add(m);
            m.opcodes().forEach((op, n) -> coverage.merge(op, n, Integer::sum));
            coverage.merge("ROOT " + m.rootType(), 1, Integer::sum);
            Path hlo = dir.resolve("m" + k + ".hlo");
            Files.writeString(hlo, m.text());
            List<String> cli = new ArrayList<>(List.of("run", hlo.toString(), "--out", ours(k, m).toString()));
            manifest.append(hlo).append('\t').append(dir.resolve("xla" + k + ".npy"));
            for (int p = 0; p < m.params().size(); p++) {
                RandomHloModules.Param param = m.params().get(p);
                Path arg = dir.resolve("m" + k + "_" + param.name() + ".npy");
                writer.write(param, arg);
                cli.addAll(List.of("--arg", (choice.nextBoolean() ? param.name() : Integer.toString(p)) + "=" + arg));
                manifest.append('\t').append(arg);
            }
            manifest.append('\n');
            CliHarness r = CliHarness.run(cli.toArray(String[]::new));
            assertEquals(0, r.code(), () -> "tensorbuf run failed on module " + m.text() + r.err());
        }
        System.out.println("RunXlaAgreementTest opcodes " + coverage);
        List<String> lines = manifest.toString().lines().toList();
        java.util.Set<Integer> aborted = new java.util.TreeSet<>();
        long start = System.nanoTime();
        for (int from = 0; from < modules.size(); ) {
            Path manifestFile = dir.resolve("manifest" + from + ".tsv");
            Files.writeString(manifestFile, String.join("\n", lines.subList(from, lines.size())) + "\n");
            String errors = runPython(List.of(script().toString(), manifestFile.toString()));
            int stopped = from;
            while (stopped < modules.size() && Files.exists(dir.resolve("xla" + stopped + ".npy"))) {
                stopped++;
            }
            if (errors.isEmpty()) {
                break;
            }
            // XLA's own check failures abort the process (seed 1171: its simplifier sinks a reverse
            // through a reduce of a concatenation that it made a map), and some modules crash it
            // (control-flow seed 29, module 2676: a loop over s8 arrays; jaxlib 0.10.2 dies of
            // SIGSEGV compiling it, whatever the arguments). That module says nothing about run:
            // it is named and left out, and XLA goes on from the next.
            if (stopped < modules.size() && (errors.contains("Check failure stack trace") || errors.contains("exited with status 139"))) {
                System.out.println("RunXlaAgreementTest: XLA aborted on module " + stopped + " (seed " + seed + "), left out: "
                        + errors.lines().filter(l -> l.startsWith("F")).findFirst().orElse("") + "\n" + modules.get(stopped).text());
                aborted.add(stopped);
                from = stopped + 1;
                continue;
            }
            fail("XLA could not run some modules (seed " + seed + "):\n" + errors
                    + (stopped < modules.size() ? "\nno result from module " + stopped + ":\n" + modules.get(stopped).text() : ""));
        }
        System.out.printf("RunXlaAgreementTest: XLA ran %d modules in %.1f s%n", modules.size() - aborted.size(),
                (System.nanoTime() - start) / 1e9);
        assertTrue(aborted.size() <= Math.max(1, modules.size() / 100), () -> "XLA aborted on modules " + aborted + " (seed " + seed + ")");
        // Every module is compared, so that one run names all the modules that differ.
        List<Integer> differ = new ArrayList<>();
        StringBuilder first = new StringBuilder();
        for (int k = 0; k < modules.size(); k++) {
            if (!aborted.contains(k)) {
                try {
                    compare(modules.get(k), ours(k, modules.get(k)), dir.resolve("xla" + k + ".npy"), seed);
                } catch (AssertionError e) {
                    differ.add(k);
                    if (differ.size() <= 3) {
                        first.append("module ").append(k).append(": ").append(e.getMessage()).append('\n');
                    }
                }
            }
        }
        assertTrue(differ.isEmpty(), () -> differ.size() + " of " + modules.size() + " modules differ from XLA (seed " + seed
                + "): " + differ + "; the first:\n" + first);
    }

    /**
     * HLO as jax exports it (jax_modules.py): jnp.roll, flip and pad in plain HLO come as a
     * {@code call}, and optimised HLO puts every op in a {@code fusion}. Each must run and give
     * jax's result byte for byte.
     */
    @Test
    void jaxExportedCallsAndFusionsMatchJax() throws Exception {
        assumeTrue(jaxImportable(), PYTHON + " cannot import jax and jaxlib (pip install jax jaxlib): skipping the XLA comparison");
        Path script = dir.resolve("jax_modules.py");
        try (InputStream in = RunXlaAgreementTest.class.getResourceAsStream("/jax_modules.py")) {
            Files.write(script, in.readAllBytes());
        }
        List<String> names = new ArrayList<>();
        String errors = runPython(List.of(script.toString(), dir.toString()), names);
        assertEquals("", errors);
        assertTrue(names.size() >= 7, () -> "jax_modules.py exported only " + names);
        int calls = 0;
        int fusions = 0;
        for (String name : names) {
            for (String kind : List.of(".hlo", ".opt.hlo")) {
                Path hlo = dir.resolve(name + kind);
                String text = Files.readString(hlo);
                calls += text.contains(" call(") ? 1 : 0;
                fusions += text.contains(" fusion(") ? 1 : 0;
                Path out = dir.resolve(name + kind + ".npy");
                CliHarness r = CliHarness.run("run", hlo.toString(), "--arg", "0=" + dir.resolve(name + ".in.npy"), "--out", out.toString());
                assertEquals(0, r.code(), () -> "tensorbuf run failed on " + hlo.getFileName() + ": " + r.err() + text);
                try (Npy.Tensor ours = Npy.map(out); Npy.Tensor jax = Npy.map(dir.resolve(name + ".out.npy"))) {
                    assertEquals(jax.shape(), ours.shape(), () -> "shape differs for " + hlo.getFileName());
                    assertArrayEquals(jax.data().segment().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                            ours.data().segment().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                            () -> "values differ for " + hlo.getFileName() + ":\n" + text);
                }
            }
        }
        // The point of the test: jax's export really used both wrappers (a jax that stops doing so makes it vacuous).
        assertTrue(calls >= 4, "plain HLO with a call: " + calls);
        assertTrue(fusions >= 7, "optimised HLO with a fusion: " + fusions);
    }

    /**
     * The real programs of {@code jax_programs.py}, lowered by jax and kept as text in
     * {@code jax_programs/} (regenerate with {@code python3 jax_programs.py emit DIR}): a dynamic
     * slice and {@code x[i]} with a traced negative index (scalar index arithmetic folded), rows
     * at {@code i % 5}, {@code (i * 3) >> 1} and {@code floor(i / 2)} (remainder, shift, floor), a
     * KV-cache update (dynamic-update-slice), channel and row gathers with constant indices, a
     * nested jit returning a tuple, a sharded program with a Sharding custom-call, -0.0 padding,
     * bitcast-converts of every width relation, iotas of bf16 and s8, every special float value
     * as jax prints it, {@code jnp.take_along_axis} (a gather with batching dims, indices out of
     * range and negative), a multiply-add across {@code lax.optimization_barrier}, loops and branches
     * (a random flip and crop from {@code jax.random}, whose threefry rounds are a {@code while}, and
     * a {@code lax.cond}; a {@code lax.scan}; a {@code lax.while_loop} whose trip count depends on
     * the data; a {@code lax.switch} with its index out of range), and scatters ({@code .at[i].add}
     * and {@code .subtract} with repeated and dropped rows, a one-hot and a histogram by scatter, a
     * bf16 scatter-add, which XLA's optimised text rounds through bf16 each step), and sorts
     * ({@code jnp.sort} over NaNs, infinities and signed zeros, a stable descending
     * {@code argsort}, {@code jax.random.permutation}; optimised, the comparator orders a float's
     * bits as an integer; {@code jnp.lexsort} of rows by two columns, a two-key {@code lax.sort},
     * {@code jnp.unique}; {@code lax.top_k} over NaNs of both signs and ties, optimised XLA's
     * {@code TopK} custom-call; float sums no order rounds: a uint8 image's per-channel mean, a 2x2
     * average pool, a running count, which XLA's optimised text splits into reduce-windows; Python
     * loops whose every step reads its value several times, Newton's reciprocal square root among
     * them, which held as trees would double at every step; constants counting from -0, which XLA
     * makes iotas where they are of one dim or its reshape mover makes them so, but not as divisors
     * of more dims or under ops of constants, which it rewrites or folds first). Each must give what jax computes from the same source, bit for bit,
     * from the plain HLO and from XLA's optimised HLO (its fusions, copies and layouts).
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"dynamic_slice_traced", "index_traced", "index_modulo", "kv_cache_update",
            "channel_gather", "take_rows", "nested_jit_tuple", "pad_negative_zero", "bitcast_to_bytes",
            "bitcast_same_width", "bitcast_from_bytes", "iota_bf16", "special_constants", "sharded_transpose", "take_along_rows",
            "barrier_multiply_add", "random_augment", "scan_ema", "halve_until_small", "switch_layout",
            "scatter_updates", "scatter_bf16_add", "sort_and_shuffle", "lexsort_rows", "top_k_scores", "u8_means",
            "iterated_values", "counting_constants", "dividing_by_counting"})
    void realJaxProgramsMatchJaxBitForBit(String name) throws Exception {
        assumeTrue(jaxImportable(), PYTHON + " cannot import jax and jaxlib (pip install jax jaxlib): skipping the XLA comparison");
        int ran = 0;
        for (String kind : List.of(".hlo", ".opt.hlo")) {
            if (RunXlaAgreementTest.class.getResource("/jax_programs/" + name + kind) == null
                    || NOT_DATA_MOVEMENT_WHEN_OPTIMISED.contains(name + kind)) {
                continue;
            }
            CliHarness r = runProgram(name, kind);
            assertEquals(0, r.code(), () -> "tensorbuf run failed on " + name + kind + ": " + r.err());
            compareWithJax(name, kind);
            ran++;
        }
        assertTrue(ran >= 1, "no HLO text for " + name);
    }

    /**
     * {@code jnp.tril}: a mask from two iotas, an elementwise {@code compare} and a {@code select}
     * of arrays. Those are pointwise work that the copy's epilogue evaluates; until it does, the
     * run refuses the compare by name and this test is skipped saying so. Once it runs, it must
     * agree with jax.
     */
    @Test
    void trilMaskMatchesJaxOnceItRuns() throws Exception {
        assumeTrue(jaxImportable(), PYTHON + " cannot import jax and jaxlib (pip install jax jaxlib): skipping the XLA comparison");
        for (String kind : List.of(".hlo", ".opt.hlo")) {
            CliHarness r = runProgram("tril_mask", kind);
            assumeTrue(r.code() == 0 || !r.err().contains("unsupported op 'compare'"),
                    "tril_mask needs elementwise compare and select on arrays (the pointwise epilogue): " + r.err().strip());
            assertEquals(0, r.code(), () -> "tensorbuf run failed on tril_mask" + kind + ": " + r.err());
            compareWithJax("tril_mask", kind);
        }
    }

    /**
     * Optimised texts that do not run: XLA's CPU compiler rewrites a bitcast-convert from bytes to
     * wider words into shifts, an or and a {@code reduce}, and partitions a sharded program into
     * per-device shapes with a collective-permute (refused: RunCommandTest). (Its rewrite into bytes,
     * shifts, ands and multiplies, runs.) The optimised text of special_constants elides its
     * literals, so it is not kept.
     */
    private static final java.util.Set<String> NOT_DATA_MOVEMENT_WHEN_OPTIMISED = java.util.Set.of(
            "bitcast_from_bytes.opt.hlo", "sharded_transpose.opt.hlo");

    /** Where jax_programs.py wrote the programs' inputs and outputs, once for every test of the class. */
    private static Path programs;

    private static synchronized Path programsRun() throws Exception {
        if (programs == null) {
            Path d = Files.createTempDirectory("jax_programs");
            d.toFile().deleteOnExit();
            Path script = d.resolve("jax_programs.py");
            try (InputStream in = RunXlaAgreementTest.class.getResourceAsStream("/jax_programs.py")) {
                Files.write(script, in.readAllBytes());
            }
            String errors = runPython(List.of(script.toString(), "run", d.toString()));
            assertEquals("", errors, "jax_programs.py run failed");
            programs = d;
        }
        return programs;
    }

    private CliHarness runProgram(String name, String kind) throws Exception {
        Path d = programsRun();
        Path hlo = dir.resolve(name + kind);
        try (InputStream in = RunXlaAgreementTest.class.getResourceAsStream("/jax_programs/" + name + kind)) {
            assertTrue(in != null, "no resource jax_programs/" + name + kind);
            Files.write(hlo, in.readAllBytes());
        }
        List<String> cli = new ArrayList<>(List.of("run", hlo.toString(), "--out", dir.resolve(name + kind + ".safetensors").toString()));
        for (int k = 0; Files.exists(d.resolve(name + ".arg" + k + ".npy")); k++) {
            cli.addAll(List.of("--arg", k + "=" + d.resolve(name + ".arg" + k + ".npy")));
        }
        return CliHarness.run(cli.toArray(String[]::new));
    }

    /** Compares each output tensor (output0.. for a tuple, the ROOT's name for one array) with jax's .npy. */
    private void compareWithJax(String name, String kind) throws Exception {
        Path d = programsRun();
        String text = Files.readString(dir.resolve(name + kind));
        try (SafetensorsFile st = SafetensorsFile.open(dir.resolve(name + kind + ".safetensors"))) {
            var tensors = st.tensors();
            int n = 0;
            while (Files.exists(d.resolve(name + ".out" + n + ".npy"))) {
                n++;
            }
            assertEquals(n, tensors.size(), () -> "output count differs for " + name);
            for (int k = 0; k < n; k++) {
                String wanted = "output" + k;
                var ours = n == 1 ? tensors.getFirst()
                        : tensors.stream().filter(t -> t.name().equals(wanted)).findFirst().orElseThrow();
                DType declared = ours.dtype().isNumpyNative() ? null : ours.dtype();
                try (Npy.Tensor jax = Npy.map(d.resolve(name + ".out" + k + ".npy"), declared)) {
                    int kk = k;
                    assertEquals(jax.dtype(), ours.dtype(), () -> "dtype of output " + kk + " differs for " + name);
                    assertEquals(jax.shape(), ours.shape(), () -> "shape of output " + kk + " differs for " + name);
                    assertArrayEquals(jax.data().segment().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                            ours.data().segment().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                            () -> "values of output " + kk + " differ for " + name + kind + ":\n" + text);
                }
            }
        }
    }

    /** {@return where run writes module {@code k}: .npy, or safetensors for a bf16 ROOT} */
    private Path ours(int k, RandomHloModules.Module m) {
        return dir.resolve("ours" + k + (m.rootType().isNumpyNative() ? ".npy" : ".safetensors"));
    }

    private static void compare(RandomHloModules.Module m, Path ours, Path xla, long seed) throws IOException {
        // XLA's bf16 result comes back as ml_dtypes' bfloat16, which np.save writes as void '<V2'.
        DType declared = m.rootType().isNumpyNative() ? null : m.rootType();
        try (SafetensorsFile st = ours.toString().endsWith(".safetensors") ? SafetensorsFile.open(ours) : null;
             Npy.Tensor npy = st == null ? Npy.map(ours) : null;
             Npy.Tensor b = Npy.map(xla, declared)) {
            DType dtype = st == null ? npy.dtype() : st.tensors().getFirst().dtype();
            List<Long> shape = st == null ? npy.shape() : st.tensors().getFirst().shape();
            MemorySegment data = (st == null ? npy.data() : st.tensors().getFirst().data()).segment();
            String context = "module (seed " + seed + "):\n" + m.text();
            assertEquals(b.dtype(), dtype, () -> "dtype differs for " + context);
            assertEquals(b.shape(), shape, () -> "shape differs for " + context);
            byte[] mine = data.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            byte[] theirs = b.data().segment().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            if (!Arrays.equals(mine, theirs) && !sameButNaNs(dtype, mine, theirs)) {
                StringBuilder diff = new StringBuilder();
                int w = dtype.byteWidth();
                HexFormat hex = HexFormat.of();
                for (int i = 0; i < Math.min(mine.length, theirs.length) / w && diff.length() < 2000; i++) {
                    if (!Arrays.equals(mine, i * w, (i + 1) * w, theirs, i * w, (i + 1) * w)) {
                        diff.append(String.format("  element %d: ours %s, XLA %s (bytes, little-endian)%n", i,
                                hex.formatHex(mine, i * w, (i + 1) * w), hex.formatHex(theirs, i * w, (i + 1) * w)));
                    }
                }
                assertArrayEquals(theirs, mine, "values differ for " + context + diff);
            }
        }
    }

    /**
     * {@return whether {@code a} and {@code b}, arrays of real floats, differ only in which NaN
     * they hold} Which NaN an op yields (an operand's, with its sign, or x86's default for inf -
     * inf) follows the register order LLVM picks, not XLA's semantics, so it is not compared.
     */
    private static boolean sameButNaNs(DType t, byte[] a, byte[] b) {
        if (t.kind() == DType.Kind.COMPLEX) {
            // Each part on its own: a NaN converted into c64 or c128 keeps the sign its op gave it.
            return sameButNaNs(t == DType.C64 ? DType.F32 : DType.F64, a, b);
        }
        if (t.kind() != DType.Kind.FLOAT || a.length != b.length) {
            return false;
        }
        MemorySegment x = MemorySegment.ofArray(a);
        MemorySegment y = MemorySegment.ofArray(b);
        ElementAccess e = ElementAccess.of(t);
        for (long i = 0; i < a.length / t.byteWidth(); i++) {
            double p = e.getDouble(x, i);
            double q = e.getDouble(y, i);
            if (!(Double.isNaN(p) && Double.isNaN(q)) && e.getBits(x, i) != e.getBits(y, i)) {
                return false;
            }
        }
        return true;
    }

    /** Writes index values from -2 (0 unsigned) to {@code bound + 2}: in range mostly, past both ends at times. */
    static void writeIndices(Path file, RandomHloModules.Param p, long bound, Random rnd) throws IOException {
        long n = Arrays.stream(p.dims()).reduce(1, Math::multiplyExact);
        MemorySegment bytes = Arena.ofAuto().allocate(Math.max(1, n * p.dtype().byteWidth())).asSlice(0, n * p.dtype().byteWidth());
        ElementAccess e = ElementAccess.of(p.dtype());
        long low = p.dtype().kind() == DType.Kind.UNSIGNED ? 0 : -2;
        for (long i = 0; i < n; i++) {
            e.setLong(bytes, i, low + rnd.nextLong(bound + 3 - low));
        }
        Npy.write(file, new DenseTensor(p.dtype(), Arrays.stream(p.dims()).boxed().toList(), bytes));
    }

    static void writeRandom(Path file, RandomHloModules.Param p, Random rnd) throws IOException {
        long n = Arrays.stream(p.dims()).reduce(1, Math::multiplyExact);
        MemorySegment bytes = Arena.ofAuto().allocate(Math.max(1, n * p.dtype().byteWidth())).asSlice(0, n * p.dtype().byteWidth());
        ElementAccess e = ElementAccess.of(p.dtype());
        for (long i = 0; i < n; i++) {
            switch (p.dtype().kind()) {
                case BOOLEAN -> e.setLong(bytes, i, rnd.nextInt(2));
                case UNSIGNED -> e.setLong(bytes, i, rnd.nextLong(1L << Math.min(p.dtype().bitWidth(), 16)));
                case SIGNED -> {
                    long half = 1L << (Math.min(p.dtype().bitWidth(), 16) - 1);
                    // A scalar start index stays near the dims, out of range at times to test clamping.
                    e.setLong(bytes, i, p.dims().length == 0 ? rnd.nextInt(10) - 3 : rnd.nextLong(2 * half) - half);
                }
                // Eighths up to +-256: exact in f16, some halfway cases for narrower conversions.
                case COMPLEX -> e.setComplex(bytes, i, (rnd.nextInt(4096) - 2048) / 8.0, (rnd.nextInt(4096) - 2048) / 8.0);
                // A quarter of the floats use all their bits, so that f32 and f64 results round
                // (eighths rarely do) and a rewrite that changes the rounding shows.
                default -> e.setDouble(bytes, i, RandomHloModules.POINTWISE && rnd.nextInt(12) == 0 ? special(p.dtype(), p.denormals(), rnd)
                        : rnd.nextInt(4) == 0 ? rnd.nextGaussian() * 100 : (rnd.nextInt(4096) - 2048) / 8.0);
            }
        }
        Npy.write(file, new DenseTensor(p.dtype(), Arrays.stream(p.dims()).boxed().toList(), bytes));
    }

    /**
     * {@return NaN, an infinity, -0 or (where {@code denormals}) a denormal of {@code t}: the
     * values whose rounding, flushing and order differ}
     */
    private static double special(DType t, boolean denormals, Random rnd) {
        double denormal = switch (t) {
            case F64 -> 0x1p-1060;
            case F16 -> 0x1p-20;
            default -> 0x1p-130; // f32 and bf16
        };
        return switch (rnd.nextInt(denormals ? 6 : 4)) {
            case 0 -> Double.NaN;
            case 1 -> Double.POSITIVE_INFINITY;
            case 2 -> Double.NEGATIVE_INFINITY;
            case 3 -> -0.0;
            case 4 -> denormal;
            default -> -denormal;
        };
    }

    private Path script() throws IOException {
        Path script = dir.resolve("xla_run.py");
        try (InputStream in = RunXlaAgreementTest.class.getResourceAsStream("/xla_run.py")) {
            Files.write(script, in.readAllBytes());
        }
        return script;
    }

    private static boolean jaxImportable() {
        try {
            Process p = new ProcessBuilder(PYTHON, "-c", "import jax, numpy; from jaxlib import _hlo").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** {@return the script's stderr lines that are not XLA's log chatter; empty when it succeeded} */
    private static String runPython(List<String> args) throws IOException, InterruptedException {
        return runPython(args, null);
    }

    /** As {@link #runPython(List)}, the script's stdout lines added to {@code stdout} unless it is null. */
    private static String runPython(List<String> args, List<String> stdout) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(PYTHON));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("JAX_PLATFORMS", "cpu");
        pb.environment().put("TF_CPP_MIN_LOG_LEVEL", "2");
        // XLA may skip the rounding of a bf16/f16 elementwise result that is then widened
        // (xla_allow_excess_precision, on by default); run's answer rounds as the HLO says. Four
        // host devices for the sharded programs (jax_programs.py sets them only when XLA_FLAGS is unset).
        pb.environment().put("XLA_FLAGS", "--xla_allow_excess_precision=false --xla_force_host_platform_device_count=4");
        if (stdout == null) {
            pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        }
        Process p = pb.start();
        // stderr is read on another thread: either pipe filling up would stop the script.
        var err = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return e.toString();
            }
        });
        if (stdout != null) {
            new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().forEach(stdout::add);
        }
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return "xla_run.py did not finish in 300 s";
        }
        return p.exitValue() == 0 ? "" : args.getFirst() + " exited with status " + p.exitValue() + "\n" + err.join();
    }
}
