package dev.tensorbuf.cli;

import dev.tensorbuf.bench.CopyBenchRunner;
import dev.tensorbuf.bench.CopyCase;
import dev.tensorbuf.ops.copy.CopyEngine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code tensorbuf bench}: the copy engine's benchmark cases in this JVM, against {@code MemorySegment.copy}. */
final class BenchCommand implements Command {
    @Override
    public String name() {
        return "bench";
    }

    @Override
    public String summary() {
        return "time the copy engine's layout conversions against MemorySegment.copy of the same bytes";
    }

    @Override
    public String synopsis() {
        return "tensorbuf bench [--quick] [--case NAME]... [--threads N] [--json] [--paced]";
    }

    @Override
    public String description() {
        return """
                Runs the copy cases (NCHW<->NHWC, XLA tiles, bf16 (2,1) packing, u8 staging,
                broadcast, strided slice) in this JVM. Each case and a MemorySegment.copy of the
                same bytes (read + written), on as many threads as the engine runs the case on,
                are timed alternately, in blocks; the median of the repetitions is reported. A
                ratio is marked "noisy" when the copy's blocks differ by more than 2x (a busy
                host) or the ratio is above 2, which no case reaches on a quiet one. The Vector API kernels run only when the JVM was started with
                --add-modules jdk.incubator.vector (e.g. JDK_JAVA_OPTIONS); "vector_kernels" says
                which ran. For careful numbers use the JMH CopyBenchmark.

                --json prints one object: {"threads": engine threads, "vector_kernels": true or
                false, "cases": [{"name", "bytes": read + written per copy, "seconds": median per
                copy, "gbps", "copy_gbps": MemorySegment.copy's, "ratio_to_copy": gbps / copy_gbps,
                "copy_threads": the threads of that copy, "copy_gbps_min" and "copy_gbps_max": its
                slowest and fastest block, "noisy": whether the ratio is marked so}]}.

                --paced is for harnesses (bench/peers/compare.py) that interleave these samples
                with another program's: it warms the one --case up, prints a JSON line
                {"threads", "vector_kernels", "ready"}, then times one sample per line read from
                standard input and prints it as a JSON line, until the input ends.

                example:
                  tensorbuf bench --quick --case nchw_to_nhwc_f32_32x64x112x112
                  threads 2, vector kernels on
                  nchw_to_nhwc_f32_32x64x112x112                  205520896 bytes    11.40 ms   18.0 GB/s  copy   33.1 GB/s (2 thr)  ratio 0.54
                """;
    }

    @Override
    public List<Option> options() {
        return List.of(
                Option.flag("quick", "fewer repetitions"),
                Option.value("case", "NAME", true, "run only this case (repeatable); names: "
                        + CopyCase.ALL.stream().map(CopyCase::name).toList()),
                Option.value("threads", "N", false, "engine threads (default: all cores)"),
                Option.JSON,
                Option.flag("paced", "one sample per line of standard input, as JSON lines (one --case)"));
    }

    @Override
    public int run(Invocation in) throws Exception {
        in.expectAtMostPositionals(0);
        List<CopyCase> cases = new ArrayList<>();
        for (String name : in.values("case")) {
            cases.add(CopyCase.byName(name));
        }
        if (cases.isEmpty()) {
            cases.addAll(CopyCase.ALL);
        }
        int threads = Runtime.getRuntime().availableProcessors();
        if (in.value("threads") != null) {
            Errors.requireAsciiDigits("--threads", in.value("threads"));
            try {
                threads = Integer.parseInt(in.value("threads"));
            } catch (NumberFormatException e) {
                throw Errors.notAnInteger("--threads", in.value("threads"));
            }
            if (threads < 1) {
                throw new UsageException("--threads must be >= 1, got " + threads);
            }
        }
        CopyEngine engine = CopyEngine.of(threads);
        if (in.flag("paced")) {
            return paced(in, cases, engine, threads);
        }
        List<CopyBenchRunner.Result> results = CopyBenchRunner.run(cases, engine, in.flag("quick"));
        if (in.flag("json")) {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("threads", threads);
            json.put("vector_kernels", engine.vectorKernels());
            json.put("cases", results.stream().map(CopyBenchRunner.Result::json).toList());
            in.printJson(json);
        } else {
            in.out().println("threads " + threads + ", vector kernels " + (engine.vectorKernels() ? "on" : "off"));
            for (CopyBenchRunner.Result r : results) {
                String noise = r.noise();
                in.out().printf("%-45s %11d bytes %8.2f ms %6.1f GB/s  copy %6.1f GB/s (%d thr)  ratio %.2f%s%n", r.name(),
                        r.bytes(), r.seconds() * 1e3, r.gbps(), r.copyGbps(), r.copyThreads(), r.ratioToCopy(),
                        noise.isEmpty() ? "" : "  (" + noise + ")");
            }
        }
        return 0;
    }

    private static int paced(Invocation in, List<CopyCase> cases, CopyEngine engine, int threads) throws Exception {
        if (in.values("case").size() != 1) {
            throw new UsageException("--paced times exactly one --case, got " + in.values("case").size());
        }
        try (CopyBenchRunner.Session session = CopyBenchRunner.open(cases.getFirst(), engine, in.flag("quick"))) {
            Map<String, Object> ready = new LinkedHashMap<>();
            ready.put("threads", threads);
            ready.put("vector_kernels", engine.vectorKernels());
            ready.put("ready", cases.getFirst().name());
            in.printJson(ready);
            in.out().flush();
            while (in.stdin().readLine() != null) {
                in.printJson(session.sample().json());
                in.out().flush();
            }
        }
        return 0;
    }
}
