package dev.tensorbuf.bench;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Copies of staircases with no repeating row pattern: {@code f32[2000,2000]} and
 * {@code f32[2000,1]} joined along 1 (rows of 2,001, a length with no factor in common with the
 * row widths below, so the part boundary's pattern repeats only every 2,001 rows, past
 * {@code MAX_PERIOD}), reshaped to rows of {@code width} and cropped by a column each side (so no
 * regrouping makes it a box a part), copied by one thread into a destination of the same dims laid
 * out transposed, 2M to 4M elements:
 * <ul>
 * <li>{@code tiny}: rows of 4, 1,000,500 rows of 2 elements (2M elements), which halving cut
 *     into boxes of some 16 elements around each lap's edge;
 * <li>{@code rows1000}: rows of 1,000, 4,002 rows, about 6,000 boxes of some 660 elements;
 * <li>{@code long}: rows of 2,000, 2,001 rows, about 4,000 boxes of some 1,000;
 * <li>{@code parts21}: instead 21 parts {@code f32[2000,p]}, {@code p} the primes 11 to 97 (rows of
 *     1,043 joined), reshaped to rows of 2,000 and cropped: every row of the view wraps the joined
 *     rows, about 43,000 boxes of some 48 elements (2M elements), which went element by element;
 * <li>{@code parts64}: 64 parts {@code f32[2003,w]}, {@code w} 12 to 20 (rows of about 1,030
 *     joined), reshaped to rows of 2,003 and cropped: 129,049 boxes of 16 elements (2.1M elements),
 *     past the 65,536 a cut holds at once, so cut a band of rows at a time into a table of
 *     primitive arrays kept between copies (they went element by element; then a banded cut was
 *     made again each copy);
 * <li>{@code ipad}: {@code f32[1001,700]} and {@code f32[1001,301]} joined along 1, padded with a
 *     fill column between every two columns (an interior pad, rows of 2,001), reshaped to rows of
 *     1,001 and cropped: 10,981 boxes of stride 2 (2M elements; the pad's nested modulo
 *     halved down to boxes of about one element, and went element by element);
 * <li>{@code narrow}: 100 parts {@code f32[301,w]}, {@code w} 1 to 6, reshaped to rows of 301 and
 *     cropped (about 107,000 elements): its cut was refused for boxes under 8 elements on average
 *     and went element by element; now 4,308 boxes (residue classes of rows, strided) of 21 forms;
 * <li>{@code tiled}: 64 parts {@code f32[1100,w]}, {@code w} 12 to 20, as {@code parts64} (rows of
 *     1,100, cropped: about 71,000 boxes, past the 65,536 a cut holds at once) into a destination
 *     tiled {@code {1,0:T(8,128)}}, not strided: each box of that side was planned on its own
 *     (some 2 ms a box); {@code tiledsmall} the same of rows of 200: about 13,800 boxes, under the
 *     65,536 a cut holds at once, so cut whole into pairs rather than a banded table;
 * <li>{@code s4small}: two packed parts {@code s4[2048,2048]{1,0:E(4)}} (4M slots, 2 MiB each)
 *     joined along 1, flattened, cut to rows of 1,000 and cropped to 3 rows of 200 columns that
 *     cross from one part into the other (600 elements), into {@code f32}; {@code s4into} the
 *     reverse, {@code f32} into that crop of patterned parts. Both parts were unpacked whole (and
 *     packed back whole) for each copy; now only the 4,400 slots of its pieces' intervals are (it
 *     reaches 1,400).
 * </ul>
 * {@code firstCopy} is the first copy in a fresh JVM (one per fork: the cut, the planning and the
 * kernels before the JIT has compiled them); {@code repeated} a copy of the same views again and
 * again (the cut kept). {@link #main} times the same in the thread's CPU time, steadier than JMH's
 * wall time on a shared machine: run it in fresh JVMs, in turns with the base build's jar.
 * {@snippet lang=shell :
 * java -jar bench/target/benchmarks.jar StaircaseCopyBenchmark.firstCopy -f 8
 * java -jar bench/target/benchmarks.jar StaircaseCopyBenchmark.repeated -f 2
 * java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector \
 *     -cp bench/target/benchmarks.jar dev.tensorbuf.bench.StaircaseCopyBenchmark rows1000 41
 * # rows1000: first copy 549.3 ms cpu, then median 34.4 ms cpu of 41 (min 28.2, max 111.9)
 * }
 */
@State(Scope.Thread)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector"})
public class StaircaseCopyBenchmark {
    private static final int ROWS = 2000;
    private static final int COLS = 2000;

    /**
     * The staircase: {@code tiny}, {@code rows1000}, {@code long}, {@code parts21}, {@code parts64},
     * {@code ipad}, {@code narrow}, {@code tiled}, {@code tiledsmall}, {@code s4small} or {@code s4into}.
     */
    @Param({"tiny", "rows1000", "long", "parts21", "parts64", "ipad", "narrow", "tiled", "tiledsmall", "s4small",
            "s4into"})
    public String shape;

    private TensorView src;
    private TensorView dst;
    private CopyEngine engine;
    private Allocator arena;

    /** Allocates and fills both parts, builds the cropped staircase and its transposed destination. */
    @Setup(Level.Trial)
    public void setUp() {
        arena = Allocators.shared();
        engine = CopyEngine.of(1);
        if (shape.equals("parts64") || shape.equals("ipad") || shape.equals("narrow") || shape.startsWith("tiled")) {
            setUpJoined();
            return;
        }
        if (shape.equals("s4small") || shape.equals("s4into")) {
            setUpPacked(shape.equals("s4into"));
            return;
        }
        long width = switch (shape) {
            case "tiny" -> 4;
            case "rows1000" -> 1000;
            case "long", "parts21" -> 2000;
            default -> throw new IllegalArgumentException("shape " + shape);
        };
        if (shape.equals("parts21")) {
            List<TensorView> parts = new java.util.ArrayList<>();
            long joined = 0;
            for (int p = 11; p < 100; p++) {
                if (java.math.BigInteger.valueOf(p).isProbablePrime(20)) {
                    MemoryBuffer b = arena.allocate((long) ROWS * p * 4);
                    for (long i = 0; i < (long) ROWS * p; i++) {
                        b.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, i * 0.25f + p);
                    }
                    parts.add(TensorView.of(b, "f32[" + ROWS + "," + p + "]{1,0}"));
                    joined += p;
                }
            }
            long rows = (long) ROWS * joined / width;
            src = Ops.slice(Ops.reshape(Ops.concatenate(1, parts), rows, width), new long[] {0, 1},
                    new long[] {rows, width - 1}, new long[] {1, 1});
            dst = Ops.transpose(TensorView.of(arena.allocate(rows * (width - 2) * 4), "f32[" + (width - 2) + "," + rows
                    + "]{1,0}"), 1, 0);
            return;
        }
        MemoryBuffer xb = arena.allocate((long) ROWS * COLS * 4);
        MemoryBuffer yb = arena.allocate((long) ROWS * 4);
        MemorySegment x = xb.segment();
        MemorySegment y = yb.segment();
        for (long i = 0; i < (long) ROWS * COLS; i++) {
            x.setAtIndex(ValueLayout.JAVA_FLOAT, i, i * 0.5f);
        }
        for (long i = 0; i < ROWS; i++) {
            y.setAtIndex(ValueLayout.JAVA_FLOAT, i, -i);
        }
        TensorView joined = Ops.concatenate(1, List.of(
                TensorView.of(xb, "f32[" + ROWS + "," + COLS + "]{1,0}"),
                TensorView.of(yb, "f32[" + ROWS + ",1]{1,0}")));
        long rows = (long) ROWS * (COLS + 1) / width;
        src = Ops.slice(Ops.reshape(joined, rows, width), new long[] {0, 1}, new long[] {rows, width - 1},
                new long[] {1, 1});
        long cols = width - 2;
        dst = Ops.transpose(TensorView.of(arena.allocate(rows * cols * 4), "f32[" + cols + "," + rows + "]{1,0}"), 1, 0);
        engine = CopyEngine.of(1);
    }

    /**
     * {@code parts64}, {@code ipad}, {@code narrow}, {@code tiled} and {@code tiledsmall}: parts joined
     * (and padded), reshaped to rows as long as theirs, cropped.
     */
    private void setUpJoined() {
        boolean pad = shape.equals("ipad");
        boolean narrow = shape.equals("narrow");
        boolean tiled = shape.startsWith("tiled");
        long rows = pad ? 1001 : narrow ? 301 : shape.equals("tiledsmall") ? 200 : tiled ? 1100 : 2003;
        int[] widths = pad ? new int[] {700, 301} : new int[narrow ? 100 : 64];
        java.util.Random random = new java.util.Random(64);
        List<TensorView> parts = new java.util.ArrayList<>();
        long joined = 0;
        for (int k = 0; k < widths.length; k++) {
            int w = pad ? widths[k] : narrow ? 1 + random.nextInt(6) : 12 + random.nextInt(9);
            MemoryBuffer b = arena.allocate(rows * w * 4);
            for (long i = 0; i < rows * w; i++) {
                b.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, i * 0.25f + k);
            }
            parts.add(TensorView.of(b, "f32[" + rows + "," + w + "]{1,0}"));
            joined += w;
        }
        TensorView all = Ops.concatenate(1, parts);
        if (pad) {
            all = Ops.pad(all, new long[] {0, 0}, new long[] {0, 0}, new long[] {0, 1}, -1.0);
            joined = 2 * joined - 1;
        }
        // Rows of the view as long as the parts' rows: the reshape is exact.
        long width = rows;
        long viewRows = rows * joined / width;
        src = Ops.slice(Ops.reshape(all, viewRows, width), new long[] {0, 1}, new long[] {viewRows, width - 1},
                new long[] {1, 1});
        if (tiled) {
            long bytes = Math.ceilDiv(viewRows, 8) * 8 * Math.ceilDiv(width - 2, 128) * 128 * 4;
            dst = TensorView.of(arena.allocate(bytes), "f32[" + viewRows + "," + (width - 2) + "]{1,0:T(8,128)}");
            return;
        }
        dst = Ops.transpose(TensorView.of(arena.allocate(viewRows * (width - 2) * 4), "f32[" + (width - 2) + ","
                + viewRows + "]{1,0}"), 1, 0);
    }

    /** {@code s4small} and {@code s4into}: a crop of 600 elements of two packed parts of 4M slots, and {@code f32}. */
    private void setUpPacked(boolean into) {
        java.util.Random random = new java.util.Random(4);
        List<TensorView> parts = new java.util.ArrayList<>();
        for (int k = 0; k < 2; k++) {
            MemoryBuffer b = arena.allocate(2048L * 2048 / 2);
            byte[] bytes = new byte[(int) b.byteSize()];
            random.nextBytes(bytes);
            b.segment().copyFrom(MemorySegment.ofArray(bytes));
            parts.add(TensorView.of(b, "s4[2048,2048]{1,0:E(4)}"));
        }
        long total = 2048L * 4096;
        long rows = total / 1000;
        TensorView flat = Ops.slice(Ops.reshape(Ops.concatenate(1, parts), total), new long[] {0}, new long[] {rows * 1000},
                new long[] {1});
        TensorView crop = Ops.slice(Ops.reshape(flat, rows, 1000), new long[] {4097, 100}, new long[] {4100, 300},
                new long[] {1, 1});
        TensorView dense = TensorView.of(arena.allocate(600 * 4), "f32[3,200]{1,0}");
        src = into ? dense : crop;
        dst = into ? crop : dense;
    }

    /**
     * Times the first copy of {@code args[0]} in this JVM, then {@code args[1]} copies more, in the
     * thread's CPU time, and prints them.
     *
     * @param args the shape ({@code tiny}, {@code rows1000}, {@code long}, {@code parts21}, {@code parts64}, {@code ipad},
     *     {@code narrow}, {@code tiled}, {@code tiledsmall}, {@code s4small}, {@code s4into}) and the copies after
     *     the first
     */
    public static void main(String[] args) {
        StaircaseCopyBenchmark b = new StaircaseCopyBenchmark();
        b.shape = args[0];
        int copies = Integer.parseInt(args[1]);
        b.setUp();
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        long start = cpu.getCurrentThreadCpuTime();
        b.firstCopy();
        double first = (cpu.getCurrentThreadCpuTime() - start) / 1e6;
        double[] more = new double[copies];
        for (int i = 0; i < copies; i++) {
            start = cpu.getCurrentThreadCpuTime();
            b.repeated();
            more[i] = (cpu.getCurrentThreadCpuTime() - start) / 1e6;
        }
        Arrays.sort(more);
        System.out.printf("%s: first copy %.1f ms cpu, then median %.1f ms cpu of %d (min %.1f, max %.1f)%n", b.shape,
                first, more[copies / 2], copies, more[0], more[copies - 1]);
        b.arena.close();
    }

    /** The first copy of the shape in this JVM: one per fork. */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 0)
    @Measurement(iterations = 1)
    public TensorView firstCopy() {
        engine.copy(src, dst);
        return dst;
    }

    /** The same copy again and again. */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @Warmup(iterations = 3, time = 2)
    @Measurement(iterations = 5, time = 2)
    public TensorView repeated() {
        engine.copy(src, dst);
        return dst;
    }
}
