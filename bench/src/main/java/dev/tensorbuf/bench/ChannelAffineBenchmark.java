package dev.tensorbuf.bench;

import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code CopyEngine.copy} with a {@link ChannelAffine} (ImageNet's per-channel scale and bias) on
 * the general paths besides u8 -> f32 image staging: f32 NCHW -> NHWC with the channel innermost,
 * f16 -> f32, u8 NHWC -> bf16 NCHW, and u8 NHWC -> f32 NCHW (the byte-plane loops) for reference,
 * all [8, 3, 224, 224]. {@link #main} compares two builds in one JVM instead, each build's classes
 * in a class loader of their own, taking turns, timed in the thread's CPU time, which a shared
 * machine disturbs less than wall time.
 * {@snippet lang=shell :
 * java -jar bench/target/benchmarks.jar ChannelAffineBenchmark -f 1 -wi 3 -i 5
 * # two builds (each with memory, views and ops compiled under target/classes), 21 rounds:
 * java --add-modules jdk.incubator.vector -cp bench/target/benchmarks.jar \
 *     dev.tensorbuf.bench.ChannelAffineBenchmark /path/to/base . ~/.m2/repository/org/agrona/agrona/2.6.0/agrona-2.6.0.jar 21
 * }
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector"})
public class ChannelAffineBenchmark {
    /** The case: source, transpose (or none), destination, channel dim ({@link #CASES}). */
    @Param({"f32_nchw_to_nhwc", "f16_to_f32_nchw", "u8_nhwc_to_bf16_nchw", "u8_nhwc_to_f32_nchw"})
    public String name;

    /** Threads for the engine. */
    @Param({"1"})
    public int threads;

    /** A case: its source shape (filled with pixel values 0-255), the transpose read from it (or null), the destination, the channel dim. */
    record Case(String name, String src, int[] perm, String dst, int channelDim) {
    }

    static final List<Case> CASES = List.of(
            new Case("f32_nchw_to_nhwc", "f32[8,3,224,224]{3,2,1,0}", new int[] {0, 2, 3, 1}, "f32[8,224,224,3]{3,2,1,0}", 3),
            new Case("f16_to_f32_nchw", "f16[8,3,224,224]{3,2,1,0}", null, "f32[8,3,224,224]{3,2,1,0}", 1),
            new Case("u8_nhwc_to_bf16_nchw", "u8[8,224,224,3]{3,2,1,0}", new int[] {0, 3, 1, 2}, "bf16[8,3,224,224]{3,2,1,0}", 1),
            new Case("u8_nhwc_to_f32_nchw", "u8[8,224,224,3]{3,2,1,0}", new int[] {0, 3, 1, 2}, "f32[8,3,224,224]{3,2,1,0}", 1));

    /** ImageNet's mean and std as a scale and bias: {@code x / std - mean / std}. */
    static final List<Float> SCALE = List.of(1 / 58.395f, 1 / 57.12f, 1 / 57.375f);
    static final List<Float> BIAS = List.of(-2.1179f, -2.0357f, -1.8044f);
    private static final long ELEMENTS = 8L * 3 * 224 * 224;

    private MemoryBuffer a;
    private MemoryBuffer b;
    private CopyEngine engine;
    private TensorView src;
    private TensorView dst;
    private ChannelAffine affine;

    /** Allocates and fills the source; the destination is touched by a first copy. */
    @Setup(Level.Trial)
    public void setUp() {
        Case c = byName(name);
        a = Allocators.shared().allocate(ELEMENTS * 4);
        b = Allocators.shared().allocate(ELEMENTS * 4);
        fill(a.segment(), c.src());
        TensorView s = TensorView.of(a, c.src());
        src = c.perm() == null ? s : Ops.transpose(s, c.perm());
        dst = TensorView.of(b, c.dst());
        affine = new ChannelAffine(c.channelDim(), SCALE, BIAS);
        engine = CopyEngine.of(threads);
        engine.copy(src, dst, affine);
    }

    /** Frees both buffers. */
    @TearDown(Level.Trial)
    public void tearDown() {
        a.close();
        b.close();
    }

    /** One copy with the scale and bias. */
    @Benchmark
    public void copy() {
        engine.copy(src, dst, affine);
    }

    static Case byName(String name) {
        return CASES.stream().filter(c -> c.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no case " + name + "; one of "
                        + CASES.stream().map(Case::name).toList()));
    }

    /** Pixel values 0-255 in the source's type (u8, f16 or f32), a pattern that is not constant along any dim. */
    static void fill(MemorySegment m, String shape) {
        for (long i = 0; i < ELEMENTS; i++) {
            int v = (int) ((i * 7919 + (i >>> 9)) & 0xff);
            if (shape.startsWith("u8")) {
                m.set(ValueLayout.JAVA_BYTE, i, (byte) v);
            } else if (shape.startsWith("f16")) {
                m.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, Float.floatToFloat16(v));
            } else {
                m.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, v);
            }
        }
    }

    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

    /**
     * Two builds in this JVM, taking turns (which goes first alternates), each case warmed up
     * first; prints per case the median of this thread's CPU time per copy (over 5 copies a turn)
     * and the ratio. Arguments: buildA buildB agronaJar rounds [case ...]; a build is a checkout
     * whose memory, views and ops modules are compiled ({@code mvn -o -q -pl ops -am compile}).
     */
    public static void main(String[] args) throws Throwable {
        ClassLoader[] builds = {TwoBuilds.loader(args[0], args[2]), TwoBuilds.loader(args[1], args[2])};
        int rounds = Integer.parseInt(args[3]);
        List<String> names = args.length > 4 ? Arrays.asList(args).subList(4, args.length)
                : CASES.stream().map(Case::name).toList();
        for (String n : names) {
            Runnable copyA = copier(builds[0], byName(n));
            Runnable copyB = copier(builds[1], byName(n));
            double[][] ms = TwoBuilds.inTurns(3, rounds, () -> time(copyA), () -> time(copyB));
            double m0 = ms[0][rounds / 2];
            double m1 = ms[1][rounds / 2];
            System.out.printf("%s [8,3,224,224]: A median %.2f ms cpu, B median %.2f ms cpu, A/B %.2f%n", n, m0, m1, m0 / m1);
        }
    }

    private static double time(Runnable copy) {
        long t0 = CPU.getCurrentThreadCpuTime();
        for (int i = 0; i < 5; i++) {
            copy.run();
        }
        return (CPU.getCurrentThreadCpuTime() - t0) / 5e6;
    }

    /** One case's copy in build {@code l}, through reflection: a single-threaded engine, as the JMH default. */
    private static Runnable copier(ClassLoader l, Case c) throws Exception {
        Object alloc = l.loadClass("dev.tensorbuf.memory.Allocators").getMethod("shared").invoke(null);
        Class<?> mb = l.loadClass("dev.tensorbuf.memory.MemoryBuffer");
        Method allocate = l.loadClass("dev.tensorbuf.memory.Allocator").getMethod("allocate", long.class);
        Object a = allocate.invoke(alloc, ELEMENTS * 4);
        Object b = allocate.invoke(alloc, ELEMENTS * 4);
        fill((MemorySegment) mb.getMethod("segment").invoke(a), c.src());
        Class<?> tv = l.loadClass("dev.tensorbuf.views.TensorView");
        Method of = tv.getMethod("of", mb, String.class);
        Object s = of.invoke(null, a, c.src());
        Object view = c.perm() == null ? s
                : l.loadClass("dev.tensorbuf.ops.Ops").getMethod("transpose", tv, int[].class).invoke(null, s, c.perm());
        Object d = of.invoke(null, b, c.dst());
        Class<?> ce = l.loadClass("dev.tensorbuf.ops.copy.CopyEngine");
        Class<?> ca = l.loadClass("dev.tensorbuf.ops.copy.ChannelAffine");
        Object engine = ce.getMethod("of", int.class).invoke(null, 1);
        Object affine = ca.getConstructor(int.class, List.class, List.class).newInstance(c.channelDim(), SCALE, BIAS);
        Method copy = ce.getMethod("copy", tv, tv, ca);
        return () -> {
            try {
                copy.invoke(engine, view, d, affine);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        };
    }
}
