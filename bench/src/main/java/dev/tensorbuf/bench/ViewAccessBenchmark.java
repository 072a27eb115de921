package dev.tensorbuf.bench;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Nanoseconds per element of {@code TensorElements.getFloat(i, j)} over every element of a
 * 256 x 256 f32 tensor, in logical order: through a strided view (the affine fast path) and
 * through a tiled XLA view {@code {1,0:T(8,128)}} (the compiled map).
 *
 * {@snippet lang=shell :
 * java --enable-native-access=ALL-UNNAMED -jar bench/target/benchmarks.jar ViewAccessBenchmark -f 1 -wi 3 -i 5 -w 1 -r 1
 * # getStrided  ~4.0 ns/element   getTiled  ~5.0 ns/element   (bench/RESULTS.md, "Views: element access")
 * }
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ViewAccessBenchmark {
    static final int N = 256;

    private Allocator arena;
    private TensorView strided;
    private TensorView tiled;

    @Setup(Level.Trial)
    public void setUp() {
        arena = Allocators.confined();
        strided = TensorView.of(arena.allocate(4L * N * N), "f32[" + N + "," + N + "]{1,0}");
        tiled = TensorView.of(arena.allocate(4L * N * N), "f32[" + N + "," + N + "]{1,0:T(8,128)}");
        float[] values = new float[N * N];
        for (int i = 0; i < values.length; i++) {
            values[i] = i;
        }
        TensorElements.of(strided).copyFrom(values);
        TensorElements.of(tiled).copyFrom(values);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    private static float sum(TensorView v) {
        float s = 0;
        TensorElements e = TensorElements.of(v);
        for (long i = 0; i < N; i++) {
            for (long j = 0; j < N; j++) {
                s += e.getFloat(i, j);
            }
        }
        return s;
    }

    /** {@return the sum of every element through the strided view} */
    @Benchmark
    @OperationsPerInvocation(N * N)
    public float getStrided() {
        return sum(strided);
    }

    /** {@return the sum of every element through the tiled view} */
    @Benchmark
    @OperationsPerInvocation(N * N)
    public float getTiled() {
        return sum(tiled);
    }
}
