package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.ops.copy.internal.Step;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.indexing.IndexingMap;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Which arithmetic a per-channel scale and bias uses: doubles into f64, floats into every other
 * type. Each case's values differ between the two (f32 arithmetic rounds 0.1 to
 * 0.10000000149011612, 16777217 to 16777216, and 1e300 to infinity).
 */
class ChannelAffineTest {
    /** Scalar, vector, and vector split across two threads from the first byte. */
    private static final List<CopyEngine> ENGINES = List.of(CopyEngine.of(1, false), CopyEngine.of(1, true),
            CopyEngine.of(2, true, 0));

    /** Channel 0: scale 1, bias 0 (the identity); channel 1: scale 4, bias 0.5 (both exact in floats and doubles). */
    private static final ChannelAffine ROWS = new ChannelAffine(0, List.of(1f, 4f), List.of(0f, 0.5f));

    private static final double[] F64_ROW = {0.1, 1e300, -1.0 / 3, 16777217.0, 2.5e-310, 123456789.123};

    @Test
    void f64DestinationsScaleInDoubles() {
        // Row 1 is fma(x, 4, 0.5) in doubles; in floats x would first round (0.1 to 0.10000000149011612, 1e300 to infinity).
        double[] expected = new double[12];
        for (int i = 0; i < 6; i++) {
            expected[i] = F64_ROW[i];
            expected[6 + i] = Math.fma(F64_ROW[i], 4, 0.5);
        }
        assertEquals(0.9, expected[6], "4 * 0.1 + 0.5 in doubles");
        assertEquals(4e300, expected[7]);
        assertEquals(67108868.5, expected[9], "4 * 16777217 + 0.5");
        try (Arena arena = Arena.ofShared()) {
            for (CopyEngine engine : ENGINES) {
                for (Layouts l : Layouts.ALL) {
                    Access src = l.source(arena, DType.F64, ChannelAffineTest::putDouble, F64_ROW);
                    Access dst = l.destination(arena, DType.F64);
                    assertEquals(l == Layouts.GATHERED, AccessCopies.steps(AccessCopies.plan(src, dst, ROWS)).getFirst() instanceof Step.Gather,
                            () -> l + " gathers");
                    AccessCopies.copy(engine, src, dst, ROWS);
                    assertArrayEquals(expected, l.read(dst), () -> "f64 -> f64 " + l + " on " + describe(engine));
                    AccessCopies.copy(engine, src, dst, new ChannelAffine(1, List.of(1f, 1f, 1f, 1f, 1f, 1f),
                            List.of(0f, 0f, 0f, 0f, 0f, 0f)));
                    double[] identity = new double[12];
                    System.arraycopy(F64_ROW, 0, identity, 0, 6);
                    System.arraycopy(F64_ROW, 0, identity, 6, 6);
                    assertArrayEquals(identity, l.read(dst),
                            () -> "f64 -> f64, channel innermost, scale 1 bias 0, " + l + " on " + describe(engine));
                }
            }
        }
    }

    @Test
    void integersIntoF64ScaleInDoubles() {
        long[] values = {16777217, 123456789, -2147483647, 2147483647, 33554435, -16777219};
        double[] expected = new double[12];
        for (int i = 0; i < 6; i++) {
            expected[i] = values[i];
            expected[6 + i] = 4.0 * values[i] + 0.5;
        }
        assertEquals(16777217.0, expected[0]);
        assertEquals(67108868.5, expected[6]);
        long[] wide = {9007199254740991L, -9007199254740991L, 1L << 40, 3, -5, 4503599627370495L};
        double[] expectedWide = new double[12];
        for (int i = 0; i < 6; i++) {
            expectedWide[i] = wide[i];
            expectedWide[6 + i] = Math.fma((double) wide[i], 4, 0.5);
        }
        assertEquals(9007199254740991.0, expectedWide[0], "2^53 - 1 is a double");
        assertEquals(18014398509481980.0, expectedWide[11], "4 * (2^52 - 1) + 0.5 rounds to even");
        try (Arena arena = Arena.ofShared()) {
            for (CopyEngine engine : ENGINES) {
                for (Layouts l : Layouts.ALL) {
                    Access s32 = l.source(arena, DType.S32, (m, i, v) -> m.setAtIndex(ValueLayout.JAVA_INT, i, (int) v),
                            Arrays.stream(values).asDoubleStream().toArray());
                    Access dst = l.destination(arena, DType.F64);
                    AccessCopies.copy(engine, s32, dst, ROWS);
                    assertArrayEquals(expected, l.read(dst), () -> "s32 -> f64 " + l + " on " + describe(engine));
                    Access s64 = l.source(arena, DType.S64, null, null);
                    l.fillLongs(s64, wide);
                    AccessCopies.copy(engine, s64, dst, ROWS);
                    assertArrayEquals(expectedWide, l.read(dst), () -> "s64 -> f64 " + l + " on " + describe(engine));
                }
            }
        }
    }

    /** Every narrower destination keeps float arithmetic: 16777217 as a float is 16777216. */
    @Test
    void f32DestinationsStillScaleInFloats() {
        try (Arena arena = Arena.ofShared()) {
            for (CopyEngine engine : ENGINES) {
                Access src = Access.strided(arena.allocate(16), DType.S32, StridedLayout.packed(2, 2));
                src.segment().setAtIndex(ValueLayout.JAVA_INT, 0, 16777217);
                src.segment().setAtIndex(ValueLayout.JAVA_INT, 1, 16777219);
                src.segment().setAtIndex(ValueLayout.JAVA_INT, 2, 16777217);
                src.segment().setAtIndex(ValueLayout.JAVA_INT, 3, 3);
                Access dst = Access.strided(arena.allocate(16), DType.F32, StridedLayout.packed(2, 2));
                AccessCopies.copy(engine, src, dst, ROWS);
                // fma(16777216f, 4, 0.5) = 67108864.5 rounds to the float 67108864.
                assertArrayEquals(new float[] {16777216f, 16777220f, 67108864f, 12.5f},
                        dst.segment().toArray(ValueLayout.JAVA_FLOAT), () -> "s32 -> f32 on " + describe(engine));
            }
        }
    }

    /** Between views: one planned copy, and through temporaries for a source over several pieces. */
    @Test
    void viewCopiesIntoF64ScaleInDoubles() {
        try (Allocator allocator = Allocators.shared()) {
            TensorView src = TensorView.strided(allocator.allocate(96), DType.F64, StridedLayout.packed(2, 6));
            double[] values = new double[12];
            System.arraycopy(F64_ROW, 0, values, 0, 6);
            System.arraycopy(F64_ROW, 0, values, 6, 6);
            TensorElements.of(src).copyFrom(values);
            TensorView joined = TensorView.concatenated(0, List.of(
                    dev.tensorbuf.ops.Ops.slice(src, new long[] {0, 0}, new long[] {1, 6}, new long[] {1, 1}),
                    dev.tensorbuf.ops.Ops.slice(src, new long[] {1, 0}, new long[] {2, 6}, new long[] {1, 1})));
            double[] expected = new double[12];
            for (int i = 0; i < 6; i++) {
                expected[i] = F64_ROW[i];
                expected[6 + i] = Math.fma(F64_ROW[i], 4, 0.5);
            }
            for (CopyEngine engine : ENGINES) {
                for (TensorView from : List.of(src, joined)) {
                    TensorView dst = TensorView.of(allocator.allocate(96), "f64[2,6]{1,0}");
                    engine.copy(from, dst, ROWS);
                    assertArrayEquals(expected, TensorElements.of(dst).toDoubleArray(), () -> "from " + from + " on " + describe(engine));
                }
            }
        }
    }

    private static String describe(CopyEngine engine) {
        return "engine(parallelism " + engine.parallelism() + ", vector " + engine.vectorKernels() + ")";
    }

    private static void putDouble(MemorySegment m, long i, double v) {
        m.setAtIndex(ValueLayout.JAVA_DOUBLE, i, v);
    }

    private interface Put {
        void set(MemorySegment m, long index, double value);
    }

    /**
     * How the [2, 6] sides are laid out: dense; strided (the source every other element with its
     * rows swapped, the destination's columns reversed); and a source read through a map with no
     * strided form (the gather kernel).
     */
    private enum Layouts {
        DENSE, STRIDED, GATHERED;

        static final List<Layouts> ALL = List.of(values());

        /** A [2, 6] source whose both rows hold {@code row}. */
        Access source(Arena arena, DType t, Put put, double[] row) {
            int w = t.byteWidth();
            Access a = switch (this) {
                case DENSE -> Access.strided(arena.allocate(12L * w), t, StridedLayout.packed(2, 6));
                // Every other element, the rows swapped: offset 12 + 2j for row 0, 2j for row 1.
                case STRIDED -> Access.strided(arena.allocate(24L * w), t,
                        StridedLayout.of(new long[] {2, 6}, new long[] {-12, 2}, 12));
                // Element i of the row-major order at (i + 3) mod 12: a rotation, no strided form.
                case GATHERED -> Access.mapped(arena.allocate(12L * w), t,
                        IndexingMap.parse("(d0, d1) -> ((d0 * 6 + d1 + 3) mod 12), domain: d0 in [0, 1], d1 in [0, 5]"));
            };
            if (put != null) {
                for (long r = 0; r < 2; r++) {
                    for (int j = 0; j < 6; j++) {
                        put.set(a.segment(), CopyOracle.offset(a, new long[] {r, j}), row[j]);
                    }
                }
            }
            return a;
        }

        void fillLongs(Access a, long[] row) {
            for (long r = 0; r < 2; r++) {
                for (int j = 0; j < 6; j++) {
                    a.segment().setAtIndex(ValueLayout.JAVA_LONG, CopyOracle.offset(a, new long[] {r, j}), row[j]);
                }
            }
        }

        /** A [2, 6] destination: dense, or columns reversed with a stride of 3. */
        Access destination(Arena arena, DType t) {
            return this == STRIDED ? Access.strided(arena.allocate(36L * t.byteWidth()), t,
                    StridedLayout.of(new long[] {2, 6}, new long[] {18, -3}, 15))
                    : Access.strided(arena.allocate(12L * t.byteWidth()), t, StridedLayout.packed(2, 6));
        }

        /** The destination's elements in logical order. */
        double[] read(Access dst) {
            double[] out = new double[12];
            for (int i = 0; i < 12; i++) {
                out[i] = dst.segment().getAtIndex(ValueLayout.JAVA_DOUBLE,
                        CopyOracle.offset(dst, new long[] {i / 6, i % 6}));
            }
            return out;
        }
    }
}
