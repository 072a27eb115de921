package dev.tensorbuf.bench;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Indexing maps: how long the simplifier takes on the maps views produce (a reshape chain, a
 * tiled layout), and what one point costs through the compiled evaluator.
 *
 * {@snippet lang=shell :
 * java -jar bench/target/benchmarks.jar IndexingBenchmark -f 1
 * }
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class IndexingBenchmark {
    /** Points evaluated per benchmark call, so the loop's own cost is spread thin. */
    private static final int POINTS = 4096;

    /** Seed 004: f32[10,10,10] -> [50,20] -> [10,10,10] composed by hand; simplifies to the identity. */
    private static final String RESHAPE_CHAIN = "(d0, d1, d2) -> ((d0 * 5 + d1 floordiv 2) floordiv 5, "
            + "((d0 * 5 + d1 floordiv 2) mod 5) * 2 + ((d1 mod 2) * 10 + d2) floordiv 10, "
            + "((d1 mod 2) * 10 + d2) mod 10), domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]";

    private IndexingMap reshapeChain;
    private IndexingMap tiledLayout;
    private IndexingMap.Compiled strided4d;
    private IndexingMap.Compiled tiled2d;
    private long[][] points4d;
    private long[][] points2d;

    @Setup
    public void setUp() {
        reshapeChain = IndexingMap.parse(RESHAPE_CHAIN);
        tiledLayout = ArrayShape.parse("f32[1000,1000]{1,0:T(8,128)}").toIndexingMap();
        strided4d = StridedLayout.of(new long[] {32, 64, 112, 112}, new long[] {802816, 1, 7168, 64})
                .toIndexingMap().compile();
        tiled2d = tiledLayout.compile();
        java.util.Random r = new java.util.Random(42);
        points4d = new long[POINTS][];
        points2d = new long[POINTS][];
        for (int i = 0; i < POINTS; i++) {
            points4d[i] = new long[] {r.nextInt(32), r.nextInt(64), r.nextInt(112), r.nextInt(112)};
            points2d[i] = new long[] {r.nextInt(1000), r.nextInt(1000)};
        }
    }

    @Benchmark
    public IndexingMap simplifyReshapeChain() {
        return reshapeChain.simplify();
    }

    @Benchmark
    public IndexingMap simplifyTiledLayoutMap() {
        return tiledLayout.simplify();
    }

    @Benchmark
    public IndexingMap lowerAndSimplifyTiledLayout() {
        return ArrayShape.parse("bf16[4096,4096]{1,0:T(8,128)(2,1)}").toIndexingMap().simplify();
    }

    @Benchmark
    @OperationsPerInvocation(POINTS)
    public long evaluateStrided4dPerPoint() {
        long sum = 0;
        for (long[] p : points4d) {
            sum += strided4d.evaluate(0, p);
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(POINTS)
    public long evaluateTiled2dPerPoint() {
        long sum = 0;
        for (long[] p : points2d) {
            sum += tiled2d.evaluate(0, p);
        }
        return sum;
    }
}
