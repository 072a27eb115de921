package dev.tensorbuf.bench;

import dev.tensorbuf.ops.copy.CopyEngine;
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
 * The copy engine on issue 5's cases, with {@code MemorySegment.copy} of the same bytes read plus
 * written ({@link #segmentCopy}) in the same fork. GB/s = {@code bytes / time}; the bytes per case
 * are printed by {@code tensorbuf bench}. One fork per case keeps each kernel's type profile clean.
 *
 * {@snippet lang=shell :
 * java -jar bench/target/benchmarks.jar CopyBenchmark -f 1 -wi 2 -i 3 -p threads=2
 * }
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector"})
public class CopyBenchmark {
    /** The case, see {@link CopyCase#ALL}. */
    @Param({"nchw_to_nhwc_f32_32x64x112x112", "nhwc_to_nchw_f32_32x64x112x112", "nchw_to_nhwc_f32_1x3x224x224",
        "nhwc_to_nchw_f32_1x3x224x224", "f32_4096x4096_to_T8x128", "f32_T8x128_to_4096x4096",
        "bf16_4096x4096_to_T8x128_2x1", "f32_4096x4096_to_bf16_T8x128_2x1", "bf16_T8x128_2x1_to_f32_4096x4096",
        "f32_1000x1000_to_T8x128_padded",
        "u8_nhwc_to_f32_nchw_scale_bias_32x224x224x3", "broadcast_f32_1x64x1x1_to_32x64x112x112", "slice_step2_f32_32x64x112x112",
        "f64_to_f32_4096x4096"})
    public String name;

    /** Threads for the engine. */
    @Param({"2"})
    public int threads;

    private BenchMemory memory;
    private CopyCase.Prepared prepared;

    /** Allocates, touches and plans the case. */
    @Setup(Level.Trial)
    public void setUp() {
        memory = BenchMemory.open();
        prepared = CopyCase.byName(name).prepare(memory, CopyEngine.of(threads));
    }

    /** Frees the case's memory. */
    @TearDown(Level.Trial)
    public void tearDown() {
        prepared.close();
        memory.close();
    }

    /** The engine. */
    @Benchmark
    public void engine() {
        prepared.run();
    }

    /** {@code MemorySegment.copy} of half the bytes moved (the same bytes read plus written), on the engine's threads. */
    @Benchmark
    public void segmentCopy() {
        prepared.runBaseline();
    }
}
