package dev.tensorbuf.bench;

import dev.tensorbuf.ops.copy.CopyEngine;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorSpecies;
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
 * How fast this host writes the broadcast's 103 MB (f32 [1,64,1,1] -> [32,64,112,112]: 2048 runs
 * of 50,176 bytes) by each way a Java program has, on 1 or 2 threads, each thread writing one
 * contiguous share (as PyTorch's {@code parallel_for} splits it): the engine's broadcast itself;
 * per-run vector fills with 256-bit and 512-bit stores (what {@code VectorFill} does); per-run
 * {@code MemorySegment.fill} of a byte (the JDK's setMemory stub); one {@code fill} per share; and
 * {@code MemorySegment.copy} of a hot block of {@link #block} bytes over the share, block after
 * block (the copy stub, which streams its stores from 2.5 MiB). Ordinary stores read each
 * destination line before writing it; a way that writes at about twice their speed does not.
 * {@link #pieces256} splits as the engine does instead: four pieces a thread, taken in turn by the
 * caller and the pool, the caller polling for the pieces others took. {@link #main} times the ways
 * in turns in the CPU time of all the JVM's threads, which a host whose cores other programs share
 * disturbs less than wall time.
 * {@snippet lang=shell :
 * java -jar bench/target/benchmarks.jar FillWriteBenchmark -f 1 -wi 3 -i 5 -w 500ms -r 500ms
 * # in turns, CPU time: threads, rounds, then the ways (engine vector256 pieces256 vector512 fillRuns fillShare copy:BYTES ...)
 * java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -cp bench/target/benchmarks.jar \
 *     dev.tensorbuf.bench.FillWriteBenchmark 2 5 engine vector256 fillShare copy:4096 copy:2621440
 * }
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector"})
public class FillWriteBenchmark {
    private static final String CASE = "broadcast_f32_1x64x1x1_to_32x64x112x112";
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final long RUN = 112 * 112 * 4;
    private static final long RUNS = 32 * 64;
    private static final long BYTES = RUN * RUNS;

    /** Threads writing (contiguous shares). */
    @Param({"1", "2"})
    public int threads;

    /** Hot block copied over the destination by {@link #copyBlocks}, bytes. */
    @Param({"4096", "65536", "262144", "1048576", "2621440", "4194304"})
    public long block;

    private BenchMemory memory;
    private MemorySegment dst;
    private MemorySegment hot;
    private ExecutorService pool;
    private CopyCase.Prepared engine;
    private dev.tensorbuf.ops.copy.CopyPlan engineHere;
    private CopyEngine engineOwn;

    /** Allocates and touches the destination and the block; starts the threads. */
    @Setup(Level.Trial)
    public void setUp() {
        memory = BenchMemory.open();
        dst = memory.allocate(BYTES, 1 << 21);
        dst.fill((byte) 1);
        hot = memory.allocate(block, 4096);
        hot.fill((byte) 3);
        pool = Executors.newFixedThreadPool(threads);
        engine = CopyCase.byName(CASE).prepare(memory, CopyEngine.of(threads));
        MemorySegment bias = memory.allocate(64 * 4, 64);
        engineOwn = CopyEngine.of(threads);
        engineHere = dev.tensorbuf.ops.copy.internal.AccessCopies.plan(
                dev.tensorbuf.ops.copy.internal.Access.strided(bias, dev.tensorbuf.views.DType.F32,
                        dev.tensorbuf.views.StridedLayout.of(new long[] {32, 64, 112, 112}, new long[] {0, 1, 0, 0})),
                dev.tensorbuf.ops.copy.internal.Access.strided(dst, dev.tensorbuf.views.DType.F32,
                        dev.tensorbuf.views.StridedLayout.packed(32, 64, 112, 112)), null);
    }

    /** Stops the threads, frees the memory. */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        pool.shutdown();
        pool.awaitTermination(10, TimeUnit.SECONDS);
        engine.close();
        memory.close();
    }

    private interface Share {
        void write(long fromRun, long toRun);
    }

    /** Runs {@code s} on {@link #threads} threads, each over a contiguous share of the runs. */
    private void shares(Share s) throws Exception {
        if (threads == 1) {
            s.write(0, RUNS);
            return;
        }
        Future<?>[] f = new Future<?>[threads];
        for (int t = 0; t < threads; t++) {
            long a = RUNS * t / threads;
            long b = RUNS * (t + 1) / threads;
            f[t] = pool.submit(() -> s.write(a, b));
        }
        for (Future<?> x : f) {
            x.get();
        }
    }

    /** The engine's broadcast (its own threads). */
    @Benchmark
    public void engine() {
        engine.run();
    }

    /** The engine's broadcast into this benchmark's destination (2 MiB-aligned) instead of the case's. */
    @Benchmark
    public void engineHere() {
        engineOwn.execute(engineHere);
    }

    /** Per-run fills with 256-bit stores. */
    @Benchmark
    public void vector256() throws Exception {
        shares((a, b) -> vectorRuns256(a, b));
    }

    /**
     * Per-run fills with 256-bit stores in {@code 4 * threads} pieces taken in turn, the caller
     * polling at the end for pieces others took, as the engine's batches do.
     */
    @Benchmark
    public void pieces256() throws Exception {
        if (threads == 1) {
            vectorRuns256(0, RUNS);
            return;
        }
        int count = 4 * threads;
        java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger done = new java.util.concurrent.atomic.AtomicInteger();
        Runnable drain = () -> {
            for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                vectorRuns256(RUNS * i / count, RUNS * (i + 1) / count);
                done.incrementAndGet();
            }
        };
        for (int t = 1; t < threads; t++) {
            pool.execute(drain);
        }
        drain.run();
        while (done.get() < count) {
            Thread.onSpinWait();
        }
    }

    /** Per-run fills with 512-bit stores (the widest here). */
    @Benchmark
    public void vector512() throws Exception {
        shares((a, b) -> vectorRuns512(a, b));
    }

    /** Per-run {@code MemorySegment.fill} of a byte (the setMemory stub). */
    @Benchmark
    public void segmentFillRuns() throws Exception {
        shares((a, b) -> {
            for (long r = a; r < b; r++) {
                dst.asSlice(r * RUN, RUN).fill((byte) r);
            }
        });
    }

    /** One {@code MemorySegment.fill} per share. */
    @Benchmark
    public void segmentFillShare() throws Exception {
        shares((a, b) -> dst.asSlice(a * RUN, (b - a) * RUN).fill((byte) a));
    }

    /** {@code MemorySegment.copy} of the hot block, block after block over the share. */
    @Benchmark
    public void copyBlocks() throws Exception {
        shares((a, b) -> {
            long end = b * RUN;
            for (long o = a * RUN; o < end; o += block) {
                MemorySegment.copy(hot, 0, dst, o, Math.min(block, end - o));
            }
        });
    }

    /**
     * Times the ways named in {@code args[2..]} in turns, {@code args[1]} rounds on {@code args[0]}
     * threads: per way and round the median of 9 operations (after 3 not counted), in wall time and
     * in the process's CPU time; prints GB/s written (the bench's counted GB/s are twice these).
     */
    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        String[] ways = java.util.Arrays.copyOfRange(args, 2, args.length);
        FillWriteBenchmark[] states = new FillWriteBenchmark[ways.length];
        for (int i = 0; i < ways.length; i++) {
            states[i] = new FillWriteBenchmark();
            states[i].threads = threads;
            states[i].block = ways[i].startsWith("copy:") ? Long.parseLong(ways[i].substring(5)) : 4096;
            states[i].setUp();
        }
        double[][] wall = new double[ways.length][rounds];
        double[][] cpu = new double[ways.length][rounds];
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < ways.length; i++) {
                // Each round starts with a different way, so none always follows the same one.
                int k = (i + r) % ways.length;
                FillWriteBenchmark b = states[k];
                double[] w = new double[9];
                double[] c = new double[9];
                for (int n = -3; n < 9; n++) {
                    long c0 = threadsCpu();
                    long t0 = System.nanoTime();
                    b.way(ways[k]);
                    long t1 = System.nanoTime();
                    long c1 = threadsCpu();
                    if (n >= 0) {
                        w[n] = (t1 - t0) / 1e9;
                        c[n] = (c1 - c0) / 1e9;
                    }
                }
                java.util.Arrays.sort(w);
                java.util.Arrays.sort(c);
                wall[k][r] = BYTES / w[4] / 1e9;
                cpu[k][r] = BYTES / c[4] / 1e9;
            }
        }
        System.out.printf("%d thread(s), %d rounds, GB/s written: median (min-max by round), wall | per CPU-second%n",
                threads, rounds);
        for (int i = 0; i < ways.length; i++) {
            System.out.printf("%-14s %s | %s%n", ways[i], summary(wall[i]), summary(cpu[i]));
            states[i].tearDown();
        }
    }

    /** {@return the CPU time of all the JVM's threads, ns} (the process's own figure ticks in 10 ms steps) */
    private static long threadsCpu() {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (long id : mx.getAllThreadIds()) {
            sum += Math.max(0, mx.getThreadCpuTime(id));
        }
        return sum;
    }

    private static String summary(double[] x) {
        double[] s = x.clone();
        java.util.Arrays.sort(s);
        return String.format("%5.1f (%4.1f-%4.1f)", s[s.length / 2], s[0], s[s.length - 1]);
    }

    private void way(String name) throws Exception {
        switch (name.startsWith("copy:") ? "copy" : name) {
            case "engine" -> engine();
            case "engineHere" -> engineHere();
            case "vector256" -> vector256();
            case "vector512" -> vector512();
            case "pieces256" -> pieces256();
            case "fillRuns" -> segmentFillRuns();
            case "fillShare" -> segmentFillShare();
            case "copy" -> copyBlocks();
            default -> throw new IllegalArgumentException("no way " + name
                    + "; known: engine engineHere vector256 pieces256 vector512 fillRuns fillShare copy:BYTES");
        }
    }

    // The species are constants: a species passed as an argument leaves the loop boxed, not compiled to stores.
    private static final VectorSpecies<Long> S256 = LongVector.SPECIES_256;
    private static final VectorSpecies<Long> S512 = LongVector.SPECIES_PREFERRED;

    private void vectorRuns256(long fromRun, long toRun) {
        int w = S256.vectorByteSize();
        for (long r = fromRun; r < toRun; r++) {
            LongVector v = LongVector.broadcast(S256, r * 0x0000_0001_0000_0001L);
            long o = r * RUN;
            long end = o + RUN - w;
            for (; o < end; o += w) {
                v.intoMemorySegment(dst, o, ORDER);
            }
            v.intoMemorySegment(dst, end, ORDER);
        }
    }

    private void vectorRuns512(long fromRun, long toRun) {
        int w = S512.vectorByteSize();
        for (long r = fromRun; r < toRun; r++) {
            LongVector v = LongVector.broadcast(S512, r * 0x0000_0001_0000_0001L);
            long o = r * RUN;
            long end = o + RUN - w;
            for (; o < end; o += w) {
                v.intoMemorySegment(dst, o, ORDER);
            }
            v.intoMemorySegment(dst, end, ORDER);
        }
    }
}
