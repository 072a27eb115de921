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
 * when quick), taken in blocks that alternate with the baseline's; GB/s counts bytes read plus
 * bytes written.
 * {@snippet :
 * List<CopyBenchRunner.Result> r = CopyBenchRunner.run(CopyCase.ALL.subList(0, 1), CopyEngine.defaults(), true);
 * r.getFirst().ratioToCopy();   // e.g. 0.55 on a 2-core Zen 4
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
     */
    public record Result(String name, long bytes, double seconds, double gbps, double copyGbps, int copyThreads) {
        /** {@return gbps / copyGbps} */
        public double ratioToCopy() {
            return gbps / copyGbps;
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
            return m;
        }

        private static double round(double v) {
            return Math.round(v * 1000) / 1000.0;
        }
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
                    bytes / m.baseline() / 1e9, prepared.baselineThreads());
        }

        @Override
        public void close() {
            prepared.close();
            memory.close();
        }
    }

    /** Median seconds of one repetition of the work and of the baseline. */
    record Medians(double work, double baseline) {
    }

    private static final int BLOCK_REPS = 3;
    private static final long BLOCK_NANOS = 20_000_000L;

    /**
     * Times {@code work} and {@code baseline} in alternating blocks, {@code work} first when
     * {@code workFirst}, until each has at least {@code reps} counted repetitions and
     * {@code minNanos} have passed. A block runs at least {@value #BLOCK_REPS} repetitions and
     * {@value #BLOCK_NANOS} ns, and its first repetition is not counted.
     */
    static Medians inTurns(Runnable work, Runnable baseline, boolean workFirst, int reps, long minNanos) {
        List<Double> t = new ArrayList<>();
        List<Double> b = new ArrayList<>();
        long start = System.nanoTime();
        while (t.size() < reps || b.size() < reps || System.nanoTime() - start < minNanos) {
            if (workFirst) {
                block(work, t);
                block(baseline, b);
            } else {
                block(baseline, b);
                block(work, t);
            }
        }
        return new Medians(median(t), median(b));
    }

    /** Runs {@code work} for one block and adds the seconds of each repetition but the first to {@code seconds}. */
    private static void block(Runnable work, List<Double> seconds) {
        long start = System.nanoTime();
        for (int i = 0; i < BLOCK_REPS || System.nanoTime() - start < BLOCK_NANOS; i++) {
            long t0 = System.nanoTime();
            work.run();
            long t1 = System.nanoTime();
            if (i > 0) {
                seconds.add((t1 - t0) / 1e9);
            }
        }
    }

    private static double median(List<Double> v) {
        List<Double> s = new ArrayList<>(v);
        s.sort(null);
        return s.get(s.size() / 2);
    }
}
