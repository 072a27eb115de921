package dev.tensorbuf.bench;

import dev.tensorbuf.ops.quant.internal.BlockKernels;
import dev.tensorbuf.views.BlockType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * ggml block dequantization to f32 ({@link BlockKernels}, one thread) against
 * {@code MemorySegment.copy} of the output's bytes ({@link #segmentCopy}) in the same fork; and
 * f32 to Q8_0 quantization. The ratio {@code segmentCopy / dequantize} is the fraction of a plain
 * copy's speed. Blocks are random bytes with finite f16 scales.
 * {@snippet lang=shell :
 * java -jar bench/target/benchmarks.jar DequantizeBenchmark -f 1 -wi 2 -i 3 -p type=Q4_K
 * }
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector"})
public class DequantizeBenchmark {
    /** The block type. */
    @Param({"Q8_0", "Q4_0", "Q4_K", "Q6_K"})
    public String type;

    /** Logical values: 2^24 is 64 MiB of f32 output. */
    @Param({"16777216"})
    public long values;

    /** Vector API kernels, or the scalar loops. */
    @Param({"true", "false"})
    public boolean vector;

    private Arena arena;
    private BlockType block;
    private BlockKernels kernels;
    private MemorySegment blocks;
    private MemorySegment floats;
    private MemorySegment copyTarget;

    /** Fills random blocks with finite scales and touches every output page. */
    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        block = BlockType.fromName(type);
        kernels = BlockKernels.of(vector);
        blocks = arena.allocate(block.byteSize(values), 64);
        floats = arena.allocate(4 * values, 64);
        copyTarget = arena.allocate(4 * values, 64);
        Random random = new Random(38);
        byte[] chunk = new byte[1 << 20];
        for (long at = 0; at < blocks.byteSize(); at += chunk.length) {
            random.nextBytes(chunk);
            int n = (int) Math.min(chunk.length, blocks.byteSize() - at);
            MemorySegment.copy(chunk, 0, blocks, ValueLayout.JAVA_BYTE, at, n);
        }
        // A random f16 is NaN or infinite once in 32; real scales are small finite numbers.
        for (long b = 0; b < values / block.blockValues(); b++) {
            for (int at : scaleOffsets(block)) {
                blocks.set(ValueLayout.JAVA_SHORT_UNALIGNED, b * block.blockBytes() + at,
                        Float.floatToFloat16(random.nextFloat() * 0.01f));
            }
        }
        floats.fill((byte) 1);
        copyTarget.fill((byte) 1);
    }

    private static int[] scaleOffsets(BlockType t) {
        return switch (t) {
            case Q8_0, Q4_0 -> new int[] {0};
            case Q4_K -> new int[] {0, 2};
            case Q6_K -> new int[] {208};
            default -> new int[0];
        };
    }

    /** Frees the memory. */
    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    /** Blocks to f32. */
    @Benchmark
    public void dequantize() {
        kernels.dequantize(block, blocks, 0, floats, 0, values / block.blockValues());
    }

    /** {@code MemorySegment.copy} of the f32 output's bytes. */
    @Benchmark
    public void segmentCopy() {
        MemorySegment.copy(floats, 0, copyTarget, 0, floats.byteSize());
    }

    /** f32 to Q8_0 (only measured where {@code type} is Q8_0: the same input for every type). */
    @Benchmark
    public void quantizeQ8_0() {
        if (block == BlockType.Q8_0) {
            kernels.quantize(BlockType.Q8_0, floats, 0, blocks, 0, values / 32);
        }
    }
}
