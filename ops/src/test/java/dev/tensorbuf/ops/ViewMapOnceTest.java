package dev.tensorbuf.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.ops.indexing.HloIndexing;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import dev.tensorbuf.ops.internal.Bitcast;
import dev.tensorbuf.ops.internal.DynamicSlice;
import dev.tensorbuf.ops.internal.Reshape;
import dev.tensorbuf.ops.internal.Slice;
import dev.tensorbuf.ops.internal.Transpose;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaShape;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * dynamic-slice and bitcast: the view op and HLO indexing use one map each, and on random shapes,
 * layouts and offsets (out of range included) both agree with a brute-force reference at every
 * output index: the view's map gives the element's offset in the buffer, HLO indexing's the
 * operand index (its offsets runtime variables, clamped into their ranges as XLA clamps them).
 * A bitcast's source is made from its XLA shape or by view ops at an element offset; the view
 * shares its buffer and reads, at every index, where the source reads at HLO indexing's index.
 * Seed printed; {@code -Dtensorbuf.seed=N} replays it.
 */
class ViewMapOnceTest {
    private static final int CASES = 200;

    @Test
    void dynamicSliceViewAndHloIndexingAgree() {
        long seed = ViewOpChains.seed("dynamicSliceViewAndHloIndexingAgree");
        Random rnd = new Random(seed);
        Allocator arena = Allocators.shared();
        for (int c = 0; c < CASES; c++) {
            int rank = 1 + rnd.nextInt(3);
            long[] dims = new long[rank];
            long[] sizes = new long[rank];
            long[] offsets = new long[rank];
            for (int i = 0; i < rank; i++) {
                dims[i] = 1 + rnd.nextInt(6);
                sizes[i] = rnd.nextInt((int) dims[i] + 1);
                offsets[i] = rnd.nextInt((int) dims[i] + 7) - 3;
            }
            String what = "dynamic-slice of f32" + Arrays.toString(dims) + " sizes " + Arrays.toString(sizes)
                    + " offsets " + Arrays.toString(offsets) + "; seed " + seed;
            TensorView source = TensorView.of(arena.allocate(4 * Math.max(1, count(dims))), shape(dims, null));
            IndexingMap view = DynamicSlice.apply(source, offsets, sizes).indexingMap();

            StringBuilder hlo = new StringBuilder("HloModule m\nENTRY e {\n  p = " + shape(dims, null) + " parameter(0)\n");
            List<String> operands = new ArrayList<>(List.of("p"));
            for (int i = 0; i < rank; i++) {
                hlo.append("  o").append(i).append(" = s32[] parameter(").append(i + 1).append(")\n");
                operands.add("o" + i);
            }
            hlo.append("  ROOT ds = ").append(shape(sizes, null)).append(" dynamic-slice(").append(String.join(", ", operands))
                    .append("), dynamic_slice_sizes={").append(join(sizes)).append("}\n}\n");
            HloModule module = HloModule.parse(hlo.toString());
            Set<OperandIndexing> indexing = HloIndexing.outputToInput(module, module.entry().root()).operand(0);
            assertEquals(1, indexing.size(), what);
            OperandIndexing o = indexing.iterator().next();
            long[] runtime = new long[o.runtimeVariables().size()];
            List<Interval> ranges = o.map().runtimeVarBounds();
            for (int j = 0; j < runtime.length; j++) {
                int i = Integer.parseInt(o.runtimeVariables().get(j).instruction().name().substring(1));
                runtime[j] = Math.clamp(offsets[i], ranges.get(j).lo(), ranges.get(j).hi());
            }
            for (long[] idx : indices(sizes)) {
                long[] expected = new long[rank];
                for (int i = 0; i < rank; i++) {
                    expected[i] = idx[i] + Math.clamp(offsets[i], 0, dims[i] - sizes[i]);
                }
                assertArrayEquals(expected, o.map().evaluate(idx, new long[0], runtime), what + " at " + Arrays.toString(idx));
                assertEquals(rowMajor(dims, expected), view.evaluate(idx)[0], what + ": the view at " + Arrays.toString(idx));
            }
        }
    }

    @Test
    void bitcastViewAndHloIndexingAgree() {
        long seed = ViewOpChains.seed("bitcastViewAndHloIndexingAgree");
        Random rnd = new Random(seed);
        Allocator arena = Allocators.shared();
        for (int c = 0; c < CASES; c++) {
            long[] in = new long[1 + rnd.nextInt(3)];
            for (int i = 0; i < in.length; i++) {
                in[i] = 1 + rnd.nextInt(4);
            }
            long[] out = ViewOpChains.regroup(rnd, count(in));
            List<Integer> inOrder = layout(rnd, in.length);
            ArrayShape inShape = (ArrayShape) XlaShape.parse(shape(in, inOrder));
            ArrayShape outShape = (ArrayShape) XlaShape.parse(shape(out, layout(rnd, out.length)));
            // Half the sources are made from the XLA shape; half by view ops, at an element offset:
            // a slice of a flat buffer, reshaped to the physical dims and transposed to the logical.
            long offset = rnd.nextBoolean() ? 0 : 1 + rnd.nextInt(5);
            MemoryBuffer buffer = arena.allocate(4 * (offset + count(in)));
            TensorView source = offset == 0 ? TensorView.of(buffer, inShape) : byViewOps(buffer, offset, inShape, inOrder);
            String what = "bitcast of " + source + " (" + inShape + " at " + offset + ") to " + outShape + "; seed " + seed;
            TensorView bitcast = Bitcast.apply(source, outShape);
            IndexingMap view = bitcast.indexingMap();
            assertSame(buffer, bitcast.buffer(), what + ": the source's buffer");
            assertTrue(bitcast.stridedLayout().isPresent(), what + ": strided by arithmetic");
            HloModule module = HloModule.parse("HloModule m\nENTRY e {\n  p = " + inShape + " parameter(0)\n  ROOT b = "
                    + outShape + " bitcast(p)\n}\n");
            Set<OperandIndexing> indexing = HloIndexing.outputToInput(module, module.entry().root()).operand(0);
            assertEquals(1, indexing.size(), what);
            IndexingMap hlo = indexing.iterator().next().map();
            assertEquals(Bitcast.outputToInput(inShape, outShape), hlo, what + ": HLO indexing uses the view op's map");
            IndexingMap sourceMap = source.indexingMap();
            for (long[] idx : indices(out)) {
                // The same bytes: output element idx sits at its physical position under the output's layout.
                long physical = physical(outShape, idx);
                assertEquals(offset + physical, view.evaluate(idx)[0], what + ": the view at " + Arrays.toString(idx));
                long[] operandIndex = hlo.evaluate(idx);
                assertEquals(physical, physical(inShape, operandIndex), what + ": HLO indexing at " + Arrays.toString(idx)
                        + " reads " + Arrays.toString(operandIndex));
                assertEquals(sourceMap.evaluate(operandIndex)[0], view.evaluate(idx)[0],
                        what + ": the view reads where the source does at HLO indexing's index, at " + Arrays.toString(idx));
            }
        }
    }

    /** {@return a view whose map is {@code shape}'s layout at element {@code offset} of the buffer, made by view ops} */
    private static TensorView byViewOps(MemoryBuffer buffer, long offset, ArrayShape shape, List<Integer> minorToMajor) {
        long n = shape.elementCount();
        TensorView flat = TensorView.of(buffer, "f32[" + (offset + n) + "]{0}");
        int rank = shape.rank();
        long[] physical = new long[rank];
        int[] perm = new int[rank];
        for (int k = 0; k < rank; k++) {
            int logical = minorToMajor.get(rank - 1 - k);
            physical[k] = shape.dim(logical);
            perm[logical] = k;
        }
        TensorView rows = Reshape.apply(Slice.apply(flat, new long[] {offset}, new long[] {offset + n}, new long[] {1}), physical);
        return Transpose.apply(rows, perm);
    }

    /** {@return a random minor-to-major order} */
    private static List<Integer> layout(Random rnd, int rank) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < rank; i++) {
            order.add(i);
        }
        Collections.shuffle(order, rnd);
        return order;
    }

    private static String shape(long[] dims, List<Integer> minorToMajor) {
        List<Integer> m2m = minorToMajor;
        if (m2m == null) {
            m2m = new ArrayList<>();
            for (int i = dims.length - 1; i >= 0; i--) {
                m2m.add(i);
            }
        }
        return "f32[" + join(dims) + "]{" + m2m.stream().map(String::valueOf).collect(Collectors.joining(",")) + "}";
    }

    private static String join(long[] values) {
        return Arrays.stream(values).mapToObj(String::valueOf).collect(Collectors.joining(","));
    }

    private static long count(long[] dims) {
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        return n;
    }

    private static long rowMajor(long[] dims, long[] idx) {
        long off = 0;
        for (int i = 0; i < dims.length; i++) {
            off = off * dims[i] + idx[i];
        }
        return off;
    }

    /** {@return the element's position in memory under the shape's (untiled) layout: minor dims step by 1} */
    private static long physical(ArrayShape shape, long[] idx) {
        List<Integer> m2m = shape.requireLayout().minorToMajor();
        long off = 0;
        long step = 1;
        for (int d : m2m) {
            off += idx[d] * step;
            step *= shape.dim(d);
        }
        return off;
    }

    private static List<long[]> indices(long[] dims) {
        List<long[]> all = new ArrayList<>();
        long n = count(dims);
        for (long k = 0; k < n; k++) {
            long[] idx = new long[dims.length];
            long r = k;
            for (int i = dims.length - 1; i >= 0; i--) {
                idx[i] = r % dims[i];
                r /= dims[i];
            }
            all.add(idx);
        }
        return all;
    }
}
