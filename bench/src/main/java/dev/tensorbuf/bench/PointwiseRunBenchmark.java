package dev.tensorbuf.bench;

import dev.tensorbuf.interop.NativeMemory;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.exec.Execution;
import dev.tensorbuf.ops.exec.HloExecutor;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;
import java.util.Arrays;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Image staging as jax writes it, run by {@code HloExecutor} in process: u8 NHWC pixels to NCHW
 * normalised per channel, {@code transpose((convert(x) - mean) / std)}, into f32 or bf16; the
 * elementwise chain and the transpose are one pass. The same module, lowered by jax, is what
 * bench/peers/pointwise_compare.py times jax (jitted, warm) and NumPy on.
 * {@snippet lang=shell :
 * java -jar bench/target/benchmarks.jar PointwiseRunBenchmark -f 1 -wi 2 -i 5 -p out=f32 -p result=kept,fresh
 * }
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector"})
public class PointwiseRunBenchmark {
    /** The output type. */
    @Param({"f32", "bf16"})
    public String out;

    /** The batch: [batch, 224, 224, 3] pixels. */
    @Param({"256"})
    public int batch;

    /**
     * Where the result goes: {@code kept}, one buffer the run writes into batch after batch, as a
     * staging loop does ({@code HloExecutor.execute(..., into)}); {@code fresh}, a new one each run,
     * freed after, which pays the first touch of its pages every time.
     */
    @Param({"kept", "fresh"})
    public String result;

    private String module;
    private HloModule parsed;
    private TensorView pixels;
    private Allocator keptMemory;
    private TensorView kept;

    /** The module as jax lowers {@code jnp.transpose((x.astype(f32) - mean) / std, (0, 3, 1, 2))}, then the cast. */
    static String module(int batch, String out) {
        String n = Integer.toString(batch);
        String cast = out.equals("f32") ? "" : "  c = bf16[" + n + ",224,224,3]{3,2,1,0} convert(div.7)\n";
        String last = out.equals("f32") ? "div.7" : "c";
        return """
                HloModule jit_norm

                ENTRY main.1 {
                  x.1 = u8[BATCH,224,224,3]{3,2,1,0} parameter(0)
                  convert_element_type.1 = f32[BATCH,224,224,3]{3,2,1,0} convert(x.1)
                  constant.3 = f32[3]{0} constant({123.7, 116.3, 103.5})
                  sub.6 = f32[BATCH,224,224,3]{3,2,1,0} broadcast(constant.3), dimensions={3}
                  sub.7 = f32[BATCH,224,224,3]{3,2,1,0} subtract(convert_element_type.1, sub.6)
                  constant.2 = f32[3]{0} constant({58.4, 57.1, 57.4})
                  div.6 = f32[BATCH,224,224,3]{3,2,1,0} broadcast(constant.2), dimensions={3}
                  div.7 = f32[BATCH,224,224,3]{3,2,1,0} divide(sub.7, div.6)
                CAST  ROOT transpose.1 = OUT[BATCH,3,224,224]{3,2,1,0} transpose(LAST), dimensions={0,3,1,2}
                }
                """.replace("BATCH", n).replace("CAST", cast).replace("OUT", out).replace("LAST", last);
    }

    /** Random pixels, the module text. */
    @Setup(Level.Trial)
    public void setUp() {
        module = module(batch, out);
        parsed = HloModule.parse(module);
        pixels = TensorView.of(Allocators.shared().allocate(batch * 224L * 224 * 3), ArrayShape.of(DType.U8, batch, 224, 224, 3));
        byte[] b = new byte[(int) pixels.elementCount()];
        new Random(1).nextBytes(b);
        pixels.buffer().segment().copyFrom(java.lang.foreign.MemorySegment.ofArray(b));
        if (result.equals("kept")) {
            keptMemory = memory();
            long bytes = batch * 3L * 224 * 224 * (out.equals("f32") ? 4 : 2);
            kept = TensorView.of(keptMemory.allocate(bytes), out + "[" + batch + ",3,224,224]{3,2,1,0}");
            kept.buffer().segment().fill((byte) 0); // touched once here, as a staging loop's first batch does
        } else if (!result.equals("fresh")) {
            throw new IllegalArgumentException("result is kept or fresh, not " + result);
        }
    }

    /** Frees the kept result. */
    @TearDown(Level.Trial)
    public void tearDown() {
        if (keptMemory != null) {
            keptMemory.close();
        }
    }

    /**
     * Huge pages where Linux has them, as NumPy's arrays of this size are: faulting in 4 KiB
     * pages one by one costs more than the pass itself on a busy machine.
     */
    private static Allocator memory() {
        return NativeMemory.hugePagesAvailable() ? NativeMemory.hugePageAllocator() : Allocators.shared();
    }

    /** One run: plan, one pass into the NCHW result (kept, or new and freed after). */
    @Benchmark
    public long run() {
        try (Execution e = kept != null ? HloExecutor.execute(parsed, module, Map.of("0", pixels), kept)
                : HloExecutor.execute(parsed, module, Map.of("0", pixels), memory())) {
            return e.result().elementCount();
        }
    }

    /**
     * Times {@code samples} warm runs after {@code warmup}, printing each in ms, one per line:
     * what pointwise_compare.py reads when it alternates with the peers.
     * Arguments: out (f32|bf16) batch warmup samples [kept|fresh, kept when absent].
     */
    public static void main(String[] args) {
        PointwiseRunBenchmark b = new PointwiseRunBenchmark();
        b.out = args[0];
        b.batch = Integer.parseInt(args[1]);
        b.result = args.length > 4 ? args[4] : "kept";
        b.setUp();
        int warmup = Integer.parseInt(args[2]);
        int samples = Integer.parseInt(args[3]);
        for (int i = 0; i < warmup; i++) {
            b.run();
        }
        double[] ms = new double[samples];
        for (int i = 0; i < samples; i++) {
            long t = System.nanoTime();
            b.run();
            ms[i] = (System.nanoTime() - t) / 1e6;
            System.out.printf("%.3f%n", ms[i]);
        }
        Arrays.sort(ms);
        System.err.printf("median %.1f ms%n", ms[samples / 2]);
        b.tearDown();
    }
}
