package dev.tensorbuf.bench;

import dev.tensorbuf.ops.copy.CopyEngine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the copy cases in this JVM and times them against {@code MemorySegment.copy} of the same
 * bytes, measured alternately in the same run: the numbers behind {@code tensorbuf bench}. Each
 * result is the median of its repetitions (at least 15 and at least 0.25 s of them; 5 and 0.05 s
 * when quick), taken in blocks (at least three of each side) that alternate with the baseline's;
 * the baseline's slowest and fastest block say how much the host's load moved meanwhile. GB/s
 * counts bytes read plus bytes written.
 * {@snippet :
 * List<CopyBenchRunner.Result> r = CopyBenchRunner.run(CopyCase.ALL.subList(0, 1), CopyEngine.defaults(), true);
 * r.getFirst().ratioToCopy();   // e.g. 0.50 on a 2-core Zen 4 (bench/RESULTS.md; 0.55 is its target)
 * }
 */
public final class CopyBenchRunner {
    private CopyBenchRunner() {
    }

    /**
     * One case's timing.
     *
     * @param name the case
     * @param bytes bytes read plus written per copy
     * @param seconds median seconds per copy
     * @param gbps bytes / seconds / 1e9
     * @param copyGbps the same for {@code MemorySegment.copy} of the same bytes
     * @param copyThreads the threads of that copy: those the engine ran the case on
     * @param copyGbpsMin the slowest of the baseline's blocks (each block's median), in GB/s
     * @param copyGbpsMax the fastest of them
     */
    public record Result(String name, long bytes, double seconds, double gbps, double copyGbps, int copyThreads,
                         double copyGbpsMin, double copyGbpsMax) {
        /** {@return gbps / copyGbps} */
        public double ratioToCopy() {
            return gbps / copyGbps;
        }

        /** {@return why the ratio is not to be trusted, or the empty string}: see {@link CopyBenchRunner#noise} */
        public String noise() {
            return CopyBenchRunner.noise(ratioToCopy(), copyGbpsMin, copyGbpsMax);
        }

        /** {@return the JSON object of {@code tensorbuf bench --json}} */
        public Map<String, Object> json() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", name);
            m.put("bytes", bytes);
            m.put("seconds", seconds);
            m.put("gbps", round(gbps));
            m.put("copy_gbps", round(copyGbps));
            m.put("ratio_to_copy", round(ratioToCopy()));
            m.put("copy_threads", copyThreads);
            m.put("copy_gbps_min", round(copyGbpsMin));
            m.put("copy_gbps_max", round(copyGbpsMax));
            m.put("noisy", !noise().isEmpty());
            return m;
        }

        private static double round(double v) {
            return Math.round(v * 1000) / 1000.0;
        }
    }

    /** A baseline whose blocks differ by more than this factor was measured on a busy host. */
    private static final double NOISY_SPREAD = 2;
    /**
     * A ratio above this is a measurement, not the engine, at work: every case reads and writes
     * memory as the copy does (the broadcast, which reads little, measures 1.2-1.5).
     */
    private static final double NOISY_RATIO = 2;

    /**
     * {@return "noisy: ..." when a ratio to copy should not be read as one, else the empty string}
     * On a loaded host the same case measured ratio 5.16 against a copy of 12.1 GB/s and 0.18
     * against 180.8 GB/s: a first-time reader takes the first for beating memcpy.
     * {@snippet :
     * CopyBenchRunner.noise(5.16, 9.9, 180.8);   // "noisy: copy baseline varied 9.9-180.8 GB/s, ratio far above 1"
     * CopyBenchRunner.noise(0.55, 30.1, 33.0);   // ""
     * }
     *
     * @param copyGbpsMin the slowest block of the baseline
     * @param copyGbpsMax the fastest
     */
    public static String noise(double ratio, double copyGbpsMin, double copyGbpsMax) {
        boolean spread = copyGbpsMax > NOISY_SPREAD * copyGbpsMin;
        boolean high = ratio > NOISY_RATIO;
        if (!spread && !high) {
            return "";
        }
        return String.format("noisy: copy baseline varied %.1f-%.1f GB/s%s", copyGbpsMin, copyGbpsMax,
                high ? ", ratio far above 1" : "");
    }

    /** {@return timings of {@code cases}; {@code quick} runs fewer and shorter repetitions} */
    public static List<Result> run(List<CopyCase> cases, CopyEngine engine, boolean quick) {
        List<Result> out = new ArrayList<>();
        for (CopyCase c : cases) {
            try (Session session = open(c, engine, quick)) {
                out.add(session.sample());
            }
        }
        return out;
    }

    /**
     * {@return {@code copyCase} prepared and warmed up, to be timed on demand} A harness that runs
     * another program's samples between this one's (bench/peers/compare.py) keeps one session per
     * case, so the two sides are measured a fraction of a second apart.
     */
    public static Session open(CopyCase copyCase, CopyEngine engine, boolean quick) {
        return new Session(copyCase, engine, quick);
    }

    /** One case's buffers and plan, warmed up; closing frees the buffers. */
    public static final class Session implements AutoCloseable {
        private final BenchMemory memory = BenchMemory.open();
        private final CopyCase.Prepared prepared;
        private final boolean quick;
        private int samples;

        private Session(CopyCase copyCase, CopyEngine engine, boolean quick) {
            this.quick = quick;
            CopyCase.Prepared p = null;
            try {
                p = copyCase.prepare(memory, engine);
                // At least this long too: the Vector API kernels are slow until C2 compiles them,
                // and an in-cache case finishes a fixed count of warm-up runs before it does.
                int warmup = quick ? 3 : 10;
                long warmNanos = quick ? 500_000_000L : 2_000_000_000L;
                long start = System.nanoTime();
                for (int i = 0; i < warmup || System.nanoTime() - start < warmNanos; i++) {
                    p.run();
                    p.runBaseline();
                }
            } catch (RuntimeException | Error e) {
                if (p != null) {
                    p.close();
                }
                memory.close();
                throw e;
            }
            prepared = p;
        }

        /**
         * {@return the medians of at least 15 repetitions of the case and of the baseline, over at
         * least 0.25 s (5 and 0.05 s when quick)} The two run in turns, blocks of at least
         * 3 repetitions and 20 ms, so both meet the same
         * moments of the host; the first repetition of each block is not counted, because the
         * other side's helper threads still poll for work (500 us) while it runs. Samples take turns
         * at going first: the first block of a sample meets whatever ran before it (another
         * process's sample, our own parked helpers), and it had always gone to the case.
         */
        public Result sample() {
            boolean caseFirst = samples++ % 2 == 0;
            // 15 repetitions of an 8 MB case last 2 ms, and one scheduler hiccup then moves the
            // median of the whole sample.
            Medians m = inTurns(prepared::run, prepared::runBaseline, caseFirst, quick ? 5 : 15,
                    quick ? 50_000_000L : 250_000_000L);
            long bytes = prepared.bytesMoved();
            return new Result(prepared.copyCase().name(), bytes, m.work(), bytes / m.work() / 1e9,
                    bytes / m.baseline() / 1e9, prepared.baselineThreads(), bytes / m.baselineSlowestBlock() / 1e9,
                    bytes / m.baselineFastestBlock() / 1e9);
        }

        @Override
        public void close() {
            prepared.close();
            memory.close();
        }
    }

    /**
     * Median seconds of one repetition of the work and of the baseline, and the slowest and
     * fastest of the baseline's block medians: how much the host's load moved under the sample.
     */
    record Medians(double work, double baseline, double baselineSlowestBlock, double baselineFastestBlock) {
    }

    private static final int BLOCK_REPS = 3;
    private static final long BLOCK_NANOS = 20_000_000L;
    /**
     * Blocks of each side at least: with two, a quick sample's median met two moments of a
     * busy host, and one slow moment on one side swung its ratio by 10x.
     */
    private static final int MIN_BLOCKS = 3;

    /**
     * Times {@code work} and {@code baseline} in alternating blocks, {@code work} first when
     * {@code workFirst}, until each has at least {@code reps} counted repetitions and
     * {@code minNanos} have passed. A block runs at least {@value #BLOCK_REPS} repetitions and
     * {@value #BLOCK_NANOS} ns, and its first repetition is not counted.
     */
    static Medians inTurns(Runnable work, Runnable baseline, boolean workFirst, int reps, long minNanos) {
        List<Double> t = new ArrayList<>();
        List<Double> b = new ArrayList<>();
        List<Double> baselineBlocks = new ArrayList<>();
        long start = System.nanoTime();
        for (int pairs = 0; pairs < MIN_BLOCKS || t.size() < reps || b.size() < reps
                || System.nanoTime() - start < minNanos; pairs++) {
            if (workFirst) {
                block(work, t);
                baselineBlocks.add(block(baseline, b));
            } else {
                baselineBlocks.add(block(baseline, b));
                block(work, t);
            }
        }
        return new Medians(median(t), median(b), baselineBlocks.stream().mapToDouble(x -> x).max().orElseThrow(),
                baselineBlocks.stream().mapToDouble(x -> x).min().orElseThrow());
    }

    /**
     * Runs {@code work} for one block and adds the seconds of each repetition but the first to
     * {@code seconds}; {@return the block's median}
     */
    private static double block(Runnable work, List<Double> seconds) {
        List<Double> counted = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < BLOCK_REPS || System.nanoTime() - start < BLOCK_NANOS; i++) {
            long t0 = System.nanoTime();
            work.run();
            long t1 = System.nanoTime();
            if (i > 0) {
                counted.add((t1 - t0) / 1e9);
            }
        }
        seconds.addAll(counted);
        return median(counted);
    }

    private static double median(List<Double> v) {
        List<Double> s = new ArrayList<>(v);
        s.sort(null);
        return s.get(s.size() / 2);
    }
}
