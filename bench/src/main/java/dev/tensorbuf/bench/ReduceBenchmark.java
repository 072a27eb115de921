package dev.tensorbuf.bench;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.exec.Execution;
import dev.tensorbuf.ops.exec.HloExecutor;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * {@code tensorbuf run}'s {@code reduce} in process, on an operand of [4096,6144] (96 MiB of f32
 * or s32): by maximum over both dims (jnp.max), over the inner dim and over the outer dim, and an
 * s32 sum over both; the maximum of abs(x) over both dims, over the outer dim, and per channel of
 * the same values as NCHW [16,96,128,128]; beside {@code MemorySegment.copy} of the operand's
 * bytes, the ratio's baseline. NumPy's side: {@code x.max()}, {@code x.max(axis=1)},
 * {@code x.max(axis=0)}, {@code i.sum()}, {@code np.abs(x).max()}, {@code np.abs(x).max(axis=0)},
 * {@code np.abs(y).max(axis=(0,2,3))} on the same arrays.
 * {@snippet lang=shell :
 * java -jar bench/target/benchmarks.jar ReduceBenchmark -f 1 -wi 3 -i 5
 * }
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector"})
public class ReduceBenchmark {
    /**
     * What is reduced: {@code max_all}, {@code max_inner}, {@code max_outer} (f32), {@code sum_all}
     * (s32), or the max of an elementwise expression, abs (f32): {@code max_abs_all},
     * {@code max_abs_outer}, {@code max_abs_channels} (over dims 0, 2 and 3 of [16,96,128,128]).
     */
    @Param({"max_all", "max_inner", "max_outer", "sum_all", "max_abs_all", "max_abs_outer", "max_abs_channels"})
    public String reduction;

    static final int ROWS = 4096;
    static final int COLS = 6144;
    /** The same elements as NCHW, for the per-channel maximum. */
    static final long[] CHANNELS = {16, 96, 128, 128};

    private Allocator memory;
    private TensorView operand;
    private MemorySegment copyTarget;
    private String text;
    private HloModule module;

    @Setup
    public void setUp() {
        memory = Allocators.shared();
        DType t = reduction.equals("sum_all") ? DType.S32 : DType.F32;
        TensorView rows = TensorView.of(memory.allocate(4L * ROWS * COLS), ArrayShape.of(t, ROWS, COLS));
        operand = reduction.equals("max_abs_channels") ? TensorView.of(rows.buffer(), ArrayShape.of(t, CHANNELS)) : rows;
        Random rnd = new Random(1);
        TensorElements e = TensorElements.of(rows);
        for (int i = 0; i < ROWS; i++) {
            for (int j = 0; j < COLS; j++) {
                if (t == DType.F32) {
                    e.setFloat((float) rnd.nextGaussian(), i, j);
                } else {
                    e.setLong(rnd.nextInt(200) - 100, i, j);
                }
            }
        }
        copyTarget = memory.allocate(4L * ROWS * COLS).segment();
        text = module(reduction);
        module = HloModule.parse(text);
    }

    /** {@return the module reducing a [4096,6144] parameter as {@code reduction} asks} */
    static String module(String reduction) {
        String t = reduction.equals("sum_all") ? "s32" : "f32";
        String op = reduction.equals("sum_all") ? "add" : "maximum";
        String init = reduction.equals("sum_all") ? "0" : "-inf";
        String dims = switch (reduction) {
            case "max_inner" -> "1";
            case "max_outer", "max_abs_outer" -> "0";
            case "max_abs_channels" -> "0,2,3";
            default -> "0,1";
        };
        String out = switch (reduction) {
            case "max_inner" -> "[" + ROWS + "]";
            case "max_outer", "max_abs_outer" -> "[" + COLS + "]";
            case "max_abs_channels" -> "[" + CHANNELS[1] + "]";
            default -> "[]";
        };
        String in = reduction.equals("max_abs_channels")
                ? "[" + CHANNELS[0] + "," + CHANNELS[1] + "," + CHANNELS[2] + "," + CHANNELS[3] + "]" : "[" + ROWS + "," + COLS + "]";
        boolean abs = reduction.startsWith("max_abs");
        return "HloModule r\nr {\n  a = " + t + "[] parameter(0)\n  b = " + t + "[] parameter(1)\n  ROOT c = " + t + "[] " + op
                + "(a, b)\n}\nENTRY e {\n  p = " + t + in + " parameter(0)\n"
                + (abs ? "  q = " + t + in + " abs(p)\n" : "") + "  z = " + t + "[] constant(" + init
                + ")\n  ROOT out = " + t + out + " reduce(" + (abs ? "q" : "p") + ", z), dimensions={" + dims + "}, to_apply=r\n}\n";
    }

    @TearDown
    public void tearDown() {
        memory.close();
    }

    @Benchmark
    public long reduce() {
        try (Execution x = HloExecutor.execute(module, text, Map.of("0", operand))) {
            return x.result().elementCount();
        }
    }

    @Benchmark
    public MemorySegment copyOfTheOperand() {
        MemorySegment.copy(operand.buffer().segment(), 0, copyTarget, 0, 4L * ROWS * COLS);
        return copyTarget;
    }
}
