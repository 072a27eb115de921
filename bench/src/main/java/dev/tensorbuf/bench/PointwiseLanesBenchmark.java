package dev.tensorbuf.bench;

import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.exec.Execution;
import dev.tensorbuf.ops.exec.HloExecutor;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * An f32 NCHW input normalised per channel, {@code (x - mean) / std} into f32 or bf16, run by
 * {@code HloExecutor} in process: the vector lanes ({@code lanes=true}) against the scalar block
 * evaluator ({@code -Dtensorbuf.pointwise.lanes=false}, read at each run, so both run in one JVM).
 * {@snippet lang=shell :
 * java -jar bench/target/benchmarks.jar PointwiseLanesBenchmark -f 1 -wi 2 -i 5
 * # or alternating in one JVM, printing the ratio: out batch rounds
 * java --add-modules jdk.incubator.vector -cp bench/target/benchmarks.jar dev.tensorbuf.bench.PointwiseLanesBenchmark f32 16 5
 * }
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector"})
public class PointwiseLanesBenchmark {
    /** The output type. */
    @Param({"f32", "bf16"})
    public String out;

    /** The batch: [batch, 3, 224, 224] floats. */
    @Param({"16"})
    public int batch;

    /** Whether the vector lanes run (else the block evaluator). */
    @Param({"true", "false"})
    public boolean lanes;

    private String module;
    private HloModule parsed;
    private TensorView input;

    /** The module as jax lowers {@code (x - mean[:, None, None]) / std[:, None, None]} of an NCHW f32 batch, then the cast. */
    static String module(int batch, String out) {
        String n = Integer.toString(batch);
        String root = out.equals("f32") ? "ROOT " : "";
        String cast = out.equals("f32") ? "" : "  ROOT c = bf16[" + n + ",3,224,224]{3,2,1,0} convert(div.7)\n";
        return """
                HloModule jit_norm

                ENTRY main.1 {
                  x.1 = f32[BATCH,3,224,224]{3,2,1,0} parameter(0)
                  constant.3 = f32[3]{0} constant({123.7, 116.3, 103.5})
                  sub.6 = f32[BATCH,3,224,224]{3,2,1,0} broadcast(constant.3), dimensions={1}
                  sub.7 = f32[BATCH,3,224,224]{3,2,1,0} subtract(x.1, sub.6)
                  constant.2 = f32[3]{0} constant({58.4, 57.1, 57.4})
                  div.6 = f32[BATCH,3,224,224]{3,2,1,0} broadcast(constant.2), dimensions={1}
                  RDIVdiv.7 = f32[BATCH,3,224,224]{3,2,1,0} divide(sub.7, div.6)
                CAST}
                """.replace("BATCH", n).replace("RDIV", root).replace("CAST", cast);
    }

    /** Random pixel values as floats, the module text. */
    @Setup(Level.Trial)
    public void setUp() {
        module = module(batch, out);
        parsed = HloModule.parse(module);
        input = TensorView.of(Allocators.shared().allocate(batch * 3L * 224 * 224 * 4), ArrayShape.of(DType.F32, batch, 3, 224, 224));
        Random r = new Random(1);
        for (long i = 0; i < input.elementCount(); i++) {
            input.buffer().segment().setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED, i, r.nextInt(256));
        }
    }

    /** One run: plan, one pass into a new result, freed after. */
    @Benchmark
    public long run() {
        System.setProperty("tensorbuf.pointwise.lanes", Boolean.toString(lanes));
        try (Execution e = HloExecutor.execute(parsed, module, Map.of("0", input), Allocators.shared())) {
            return e.result().elementCount();
        }
    }

    /**
     * Alternates the block evaluator and the lanes in this JVM, {@code rounds} times after a warm
     * up of each, printing each time in ms, CPU seconds of the process and the ratio of medians.
     * Arguments: out (f32|bf16) batch rounds.
     */
    public static void main(String[] args) {
        PointwiseLanesBenchmark b = new PointwiseLanesBenchmark();
        b.out = args[0];
        b.batch = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        b.setUp();
        double[][] ms = new double[2][rounds];
        double[][] cpu = new double[2][rounds];
        for (int w = 0; w < 3; w++) {
            b.lanes = false;
            b.run();
            b.lanes = true;
            b.run();
        }
        for (int i = 0; i < rounds; i++) {
            for (int k = 0; k < 2; k++) {
                b.lanes = (i + k) % 2 == 0; // alternate which goes first
                long c = cpuNanos();
                long t = System.nanoTime();
                b.run();
                int side = b.lanes ? 1 : 0;
                ms[side][i] = (System.nanoTime() - t) / 1e6;
                cpu[side][i] = (cpuNanos() - c) / 1e6;
            }
            System.out.printf("round %d: evaluator %.1f ms (cpu %.1f), lanes %.1f ms (cpu %.1f)%n", i, ms[0][i], cpu[0][i],
                    ms[1][i], cpu[1][i]);
        }
        for (double[] m : ms) {
            java.util.Arrays.sort(m);
        }
        for (double[] c : cpu) {
            java.util.Arrays.sort(c);
        }
        System.out.printf("%s [%d,3,224,224] median: evaluator %.1f ms, lanes %.1f ms: %.2fx (cpu %.1f vs %.1f ms: %.2fx)%n",
                b.out, b.batch, ms[0][rounds / 2], ms[1][rounds / 2], ms[0][rounds / 2] / ms[1][rounds / 2],
                cpu[0][rounds / 2], cpu[1][rounds / 2], cpu[0][rounds / 2] / cpu[1][rounds / 2]);
    }

    /** {@return this process's CPU time so far, in ns (all threads)} */
    private static long cpuNanos() {
        return ProcessHandle.current().info().totalCpuDuration().orElseThrow().toNanos();
    }
}
