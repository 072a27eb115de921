package dev.tensorbuf.bench;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.MapForm;
import dev.tensorbuf.views.TensorView;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
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
 * {@link #main} compares the bitcasts of two builds in one JVM instead, each build's classes in a
 * class loader of their own, taking turns, timed in the thread's CPU time.
 *
 * {@snippet lang=shell :
 * java --enable-native-access=ALL-UNNAMED -jar bench/target/benchmarks.jar ViewOpBenchmark -f 1 -wi 3 -i 5 -w 1 -r 1
 * # transpose ~157 ns/op, slice ~130 ns/op: issue 5 asks for < 1 us (bench/RESULTS.md, "Ops: view creation")
 * # two builds (each with memory, views and ops compiled under target/classes), 21 rounds:
 * java -cp bench/target/benchmarks.jar dev.tensorbuf.bench.ViewOpBenchmark /path/to/base . \
 *     ~/.m2/repository/org/agrona/agrona/2.6.0/agrona-2.6.0.jar 21
 * # bitcast: A median ... ns cpu (min-max), B median ... ns cpu (min-max), B/A ...
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
    private ArrayShape regroupTarget;
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
        regroupTarget = ArrayShape.parse(REGROUP);
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
    public TensorView bitcastRegroup() {
        // Physical [256,1024,1024] -> [512,512,1024], then a transpose to the target's logical order.
        return Ops.bitcast(view, regroupTarget);
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

    private static final String REGROUP = "f32[1024,512,512]{0,2,1}";
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
    /** The bitcast cases of {@link #main}: name, source shape, target shape. */
    private static final String[][] BITCASTS = {
        {"bitcast", "f32[256,1024,1024]{2,1,0}", "f32[1024,1024,256]{0,1,2}"},
        {"bitcastRegroup", "f32[256,1024,1024]{2,1,0}", REGROUP},
        {"bitcastToTiled", "f32[256,1024,1024]{2,1,0}", "f32[256,1024,1024]{2,1,0:T(8,128)}"},
        {"bitcastTiled", "f32[256,1024,1024]{2,1,0:T(8,128)}", "f32[256,1024,8,128]{3,2,1,0}"},
    };

    /**
     * Two builds in this JVM, taking turns (which goes first alternates), each case warmed up
     * first; prints per case the median of this thread's CPU time per bitcast (over 100,000 a
     * turn) and the ratio. Arguments: buildA buildB agronaJar rounds [case ...]; a build is a
     * checkout whose memory, views and ops modules are compiled
     * ({@code mvn -o -q -pl ops -am compile}).
     */
    public static void main(String[] args) throws Throwable {
        ClassLoader[] builds = {TwoBuilds.loader(args[0], args[2]), TwoBuilds.loader(args[1], args[2])};
        int rounds = Integer.parseInt(args[3]);
        List<String> names = args.length > 4 ? Arrays.asList(args).subList(4, args.length)
                : Arrays.stream(BITCASTS).map(c -> c[0]).toList();
        for (String n : names) {
            String[] c = Arrays.stream(BITCASTS).filter(b -> b[0].equals(n)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no case " + n));
            MethodHandle opA = bitcaster(builds[0], c[1], c[2]);
            MethodHandle opB = bitcaster(builds[1], c[1], c[2]);
            double[][] ns = TwoBuilds.inTurns(20, rounds, () -> time(opA), () -> time(opB));
            double a = ns[0][rounds / 2];
            double b = ns[1][rounds / 2];
            System.out.printf("%s: A median %.0f ns cpu (%.0f-%.0f), B median %.0f ns cpu (%.0f-%.0f), B/A %.2f%n", n,
                    a, ns[0][0], ns[0][rounds - 1], b, ns[1][0], ns[1][rounds - 1], b / a);
        }
    }

    private static double time(MethodHandle op) throws Throwable {
        int n = 100_000;
        Object sink = null;
        long t0 = CPU.getCurrentThreadCpuTime();
        for (int i = 0; i < n; i++) {
            sink = op.invoke();
        }
        long t = CPU.getCurrentThreadCpuTime() - t0;
        if (sink == null) {
            throw new AssertionError("no view");
        }
        return (double) t / n;
    }

    /** {@return {@code Ops.bitcast(source, target)} in build {@code l}, its arguments bound, through a method handle} */
    private static MethodHandle bitcaster(ClassLoader l, String source, String target) throws Throwable {
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        Class<?> mb = l.loadClass("dev.tensorbuf.memory.MemoryBuffer");
        Class<?> space = l.loadClass("dev.tensorbuf.memory.MemorySpace");
        Object device = space.getField("DEVICE").get(null);
        Object gib = mb.getMethod("foreign", long.class, long.class, space, String.class, Runnable.class)
                .invoke(null, 0x10_0000_0000L, 1L << 30, device, "bench", (Runnable) () -> { });
        Class<?> tv = l.loadClass("dev.tensorbuf.views.TensorView");
        Class<?> shape = l.loadClass("dev.tensorbuf.views.ArrayShape");
        Object view = tv.getMethod("of", mb, String.class).invoke(null, gib, source);
        Object to = shape.getMethod("parse", String.class).invoke(null, target);
        MethodHandle bitcast = lookup.findStatic(l.loadClass("dev.tensorbuf.ops.Ops"), "bitcast",
                MethodType.methodType(tv, tv, shape));
        return MethodHandles.insertArguments(bitcast, 0, view, to).asType(MethodType.methodType(Object.class));
    }
}
