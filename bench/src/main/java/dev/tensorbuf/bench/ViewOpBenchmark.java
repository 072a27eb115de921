package dev.tensorbuf.bench;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.MapForm;
import dev.tensorbuf.views.TensorView;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Time to make each view op on a 1 GiB tensor, {@code f32[256,1024,1024]{2,1,0}}: the op's map
 * is built and composed into the source's, no byte touched. The buffer is a 1 GiB device buffer
 * (address only: ops never read memory). The {@code ...Tiled} cases start from
 * {@code f32[256,1024,1024]{2,1,0:T(8,128)}}, whose map is not affine. {@code transposeThenForm}
 * adds the first {@code form()} call, where the composed map is simplified and classified.
 *
 * {@snippet lang=shell :
 * java --enable-native-access=ALL-UNNAMED -jar bench/target/benchmarks.jar ViewOpBenchmark -f 1 -wi 3 -i 5 -w 1 -r 1
 * # transpose ~157 ns/op, slice ~130 ns/op: issue 5 asks for < 1 us (bench/RESULTS.md, "Ops: view creation")
 * }
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ViewOpBenchmark {
    private TensorView view;
    private TensorView tiled;
    private TensorView scalar;
    private ArrayShape bitcastTarget;
    private ArrayShape tiledBitcastTarget;
    private ArrayShape tiledShape;
    private MemoryBuffer gib;

    @Setup(Level.Trial)
    public void setUp() {
        gib = MemoryBuffer.foreign(0x10_0000_0000L, 1L << 30, MemorySpace.DEVICE, "bench", () -> { });
        view = TensorView.of(gib, "f32[256,1024,1024]{2,1,0}");
        tiled = TensorView.of(gib, "f32[256,1024,1024]{2,1,0:T(8,128)}");
        scalar = TensorView.scalar(view.dtype(), 0);
        bitcastTarget = ArrayShape.parse("f32[1024,1024,256]{0,1,2}");
        tiledBitcastTarget = ArrayShape.parse("f32[256,1024,8,128]{3,2,1,0}");
        tiledShape = ArrayShape.parse("f32[256,1024,1024]{2,1,0:T(8,128)}");
    }

    @Benchmark
    public TensorView transpose() {
        return Ops.transpose(view, 2, 0, 1);
    }

    @Benchmark
    public TensorView transposeTiled() {
        return Ops.transpose(tiled, 2, 0, 1);
    }

    @Benchmark
    public TensorView slice() {
        return Ops.slice(view, new long[] {1, 2, 3}, new long[] {255, 1000, 1000}, new long[] {2, 1, 3});
    }

    @Benchmark
    public TensorView reverse() {
        return Ops.reverse(view, 0, 2);
    }

    @Benchmark
    public TensorView broadcast() {
        return Ops.broadcast(view, new long[] {4, 256, 1024, 1024}, 1, 2, 3);
    }

    @Benchmark
    public TensorView pad() {
        return Ops.pad(view, new long[] {1, 0, 2}, new long[] {1, 3, 0}, new long[] {0, 1, 0}, scalar);
    }

    @Benchmark
    public TensorView reshape() {
        return Ops.reshape(view, 256, 1 << 20);
    }

    @Benchmark
    public TensorView bitcast() {
        return Ops.bitcast(view, bitcastTarget);
    }

    @Benchmark
    public TensorView concatenate() {
        return Ops.concatenate(0, view, view);
    }

    @Benchmark
    public TensorView dynamicSlice() {
        return Ops.dynamicSlice(view, new long[] {300, 5, -4}, new long[] {16, 512, 512});
    }

    @Benchmark
    public MapForm transposeThenForm() {
        return Ops.transpose(view, 2, 0, 1).form();
    }

    @Benchmark
    public TensorView sliceTiled() {
        return Ops.slice(tiled, new long[] {1, 2, 3}, new long[] {255, 1000, 1000}, new long[] {2, 1, 3});
    }

    @Benchmark
    public TensorView reshapeTiled() {
        return Ops.reshape(tiled, 256, 1 << 20);
    }

    @Benchmark
    public TensorView padTiled() {
        return Ops.pad(tiled, new long[] {1, 0, 2}, new long[] {1, 3, 0}, new long[] {0, 1, 0}, scalar);
    }

    @Benchmark
    public TensorView padInteriorEveryDim() {
        return Ops.pad(view, new long[] {-1, 2, 3}, new long[] {4, -5, 6}, new long[] {1, 2, 3}, scalar);
    }

    @Benchmark
    public TensorView concatenateTiled() {
        return Ops.concatenate(1, tiled, view, tiled);
    }

    @Benchmark
    public TensorView bitcastToTiled() {
        // Row-major to T(8,128) over the same bytes: 8x128 tiles divide 1024x1024, so no padding.
        return Ops.bitcast(view, tiledShape);
    }

    @Benchmark
    public TensorView ofTiledShape() {
        return TensorView.of(gib, tiledShape);
    }

    @Benchmark
    public TensorView bitcastTiled() {
        // The T(8,128) tiles of the source are the two minor dims of the target: the same bytes.
        return Ops.bitcast(tiled, tiledBitcastTarget);
    }

    @Benchmark
    public TensorView transposeOfPad() {
        return Ops.transpose(Ops.pad(view, new long[] {1, 0, 2}, new long[] {1, 3, 0}, new long[] {0, 1, 0}, scalar), 2, 0, 1);
    }
}
