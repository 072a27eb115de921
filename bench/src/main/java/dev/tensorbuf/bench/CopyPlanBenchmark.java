package dev.tensorbuf.bench;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.copy.CopyPlan;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Planning a copy ({@code CopyEngine.plan}, which {@code CopyEngine.copy} does on every call) on
 * some of issue 5's cases: a strided transpose, the u8 staging with a channel affine, and a tiled
 * bf16 destination. For an in-cache copy of a few microseconds, planning is part of the cost.
 *
 * {@snippet lang=shell :
 * java -jar bench/target/benchmarks.jar CopyPlanBenchmark -f 1 -wi 3 -i 5 -w 1 -r 1
 * }
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector"})
public class CopyPlanBenchmark {
    /** The case, see {@link CopyCase#ALL}. */
    @Param({"nchw_to_nhwc_f32_1x3x224x224", "u8_nhwc_to_f32_nchw_scale_bias_32x224x224x3", "bf16_4096x4096_to_T8x128_2x1"})
    public String name;

    private BenchMemory memory;
    private CopyCase.Sides sides;
    private final CopyEngine engine = CopyEngine.of(2);

    /** Allocates the case's sides. */
    @Setup(Level.Trial)
    public void setUp() {
        memory = BenchMemory.open();
        sides = CopyCase.byName(name).build().apply(memory);
    }

    /** Frees the case's memory. */
    @TearDown(Level.Trial)
    public void tearDown() {
        memory.close();
    }

    /** The plan, checks included. */
    @Benchmark
    public CopyPlan plan() {
        return AccessCopies.plan(sides.src(), sides.dst(), sides.affine());
    }
}
