package dev.tensorbuf.ops;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.ops.copy.internal.Kernel;
import dev.tensorbuf.ops.copy.internal.Step;
import dev.tensorbuf.ops.copy.internal.ViewAdapter;
import dev.tensorbuf.views.MapForm;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Copies from and into views that are neither strided nor tiled (reshapes of transposes, of
 * reversed and strided slices), checked element by element against the brute-force
 * {@link Reference}. Such a view's map is strided once its dimensions are split in a mixed
 * radix, and the copy then runs the strided kernels instead of gathering element by element:
 * that is asserted too, where the split exists.
 */
class GeneralViewCopyTest {
    private static final List<CopyEngine> ENGINES = List.of(CopyEngine.of(1, false), CopyEngine.of(1, true),
            CopyEngine.of(2, true, 0));
    private static final int CHAINS = 300;

    /** The kernels of the second plan: a small general view's first copy gathers without looking for a split. */
    private static List<Kernel> kernels(TensorView src, TensorView dst) {
        Access s = ViewAdapter.access(src).orElseThrow();
        Access d = ViewAdapter.destination(dst).orElseThrow();
        AccessCopies.plan(s, d);
        return AccessCopies.steps(AccessCopies.plan(s, d)).stream()
                .map(step -> step instanceof Step.Run r ? r.kernel() : step instanceof Step.Zero ? Kernel.ZERO : Kernel.GATHER)
                .toList();
    }

    private static TensorView dense(Allocator arena, long[] dims) {
        long n = Reference.count(dims);
        return TensorView.of(arena.allocate(Math.max(4, 4 * n)), "f32" + Arrays.toString(dims).replace(" ", ""));
    }

    @Test
    void aFlattenedTransposeIsCopiedByTheTransposeKernelBothWays() {
        try (Allocator arena = Allocators.confined()) {
            long[] dims = {48, 40, 3};
            TensorView src = dense(arena, dims);
            Reference ref = Reference.build(dims, i -> (i[0] * 40 + i[1]) * 3 + i[2] + 0.5);
            TensorElements.of(src).copyFrom(toFloats(ref.values()));
            TensorView flat = Ops.reshape(Ops.transpose(src, 2, 0, 1), 48 * 40 * 3);
            assertTrue(flat.form() instanceof MapForm.Tiled || flat.form() instanceof MapForm.General,
                    "the view is not strided: " + flat.form());
            Reference expected = ref.transpose(new int[] {2, 0, 1}).reshape(new long[] {48 * 40 * 3});
            TensorView out = dense(arena, new long[] {48 * 40 * 3});
            assertFalse(kernels(flat, out).contains(Kernel.GATHER), "kernels " + kernels(flat, out));
            for (CopyEngine engine : ENGINES) {
                TensorElements.of(out).copyFrom(new float[48 * 40 * 3]);
                engine.copy(flat, out);
                assertArrayEquals(expected.values(), TensorElements.of(out).toDoubleArray(), "gathered by " + engine);
            }
            // The same view as a destination: a dense source scattered through the split digits.
            TensorView back = dense(arena, dims);
            TensorView backFlat = Ops.reshape(Ops.transpose(back, 2, 0, 1), 48 * 40 * 3);
            assertFalse(kernels(out, backFlat).contains(Kernel.GATHER), "kernels " + kernels(out, backFlat));
            for (CopyEngine engine : ENGINES) {
                TensorElements.of(back).copyFrom(new float[48 * 40 * 3]);
                engine.copy(out, backFlat);
                assertArrayEquals(ref.values(), TensorElements.of(back).toDoubleArray(), "scattered by " + engine);
            }
        }
    }

    @Test
    void randomReshapesOfTransposesCopyAsTheReferenceSays() {
        long seed = ViewOpChains.seed("randomReshapesOfTransposesCopyAsTheReferenceSays");
        Random rnd = new Random(seed);
        int gathered = 0;
        int merges = 0;
        try (Allocator arena = Allocators.confined()) {
            for (int c = 0; c < CHAINS; c++) {
                int rank = 2 + rnd.nextInt(3);
                long[] dims = new long[rank];
                for (int i = 0; i < rank; i++) {
                    dims[i] = new long[] {1, 2, 3, 4, 5, 6, 8}[rnd.nextInt(7)];
                }
                TensorView src = dense(arena, dims);
                Reference ref = Reference.build(dims, i -> {
                    double v = 1;
                    for (int k = 0; k < i.length; k++) {
                        v = v * 10 + i[k];
                    }
                    return v;
                });
                TensorElements.of(src).copyFrom(toFloats(ref.values()));
                StringBuilder chain = new StringBuilder(Arrays.toString(dims));
                TensorView view = src;
                if (rnd.nextBoolean()) {
                    int d = rnd.nextInt(rank);
                    view = Ops.reverse(view, d);
                    ref = ref.reverse(reversed(rank, d));
                    chain.append(" reverse ").append(d);
                }
                if (rnd.nextInt(3) == 0) {
                    int d = rnd.nextInt(rank);
                    long[] start = new long[rank];
                    long[] limit = ref.dims().clone();
                    long[] stride = filled(rank, 1);
                    stride[d] = 2;
                    view = Ops.slice(view, start, limit, stride);
                    ref = ref.slice(start, limit, stride);
                    chain.append(" slice ::2 of ").append(d);
                }
                int[] perm = ViewOpChains.permutation(rnd, rank);
                view = Ops.transpose(view, perm);
                ref = ref.transpose(perm);
                chain.append(" transpose ").append(Arrays.toString(perm));
                // Merge runs of adjacent dimensions, or (one time in four) regroup all of them freely.
                long[] cur = ref.dims();
                long[] out;
                boolean free = rnd.nextInt(4) == 0;
                if (free) {
                    out = ViewOpChains.regroup(rnd, Reference.count(cur));
                } else {
                    List<Long> merged = new ArrayList<>();
                    long run = 1;
                    for (int i = 0; i < cur.length; i++) {
                        run *= cur[i];
                        if (i == cur.length - 1 || rnd.nextBoolean()) {
                            merged.add(run);
                            run = 1;
                        }
                    }
                    out = merged.stream().mapToLong(Long::longValue).toArray();
                    merges++;
                }
                view = Ops.reshape(view, out);
                ref = ref.reshape(out);
                chain.append(" reshape ").append(Arrays.toString(out));
                if (Reference.count(out) == 0) {
                    continue;
                }
                TensorView dst = dense(arena, out);
                boolean gathers = kernels(view, dst).contains(Kernel.GATHER);
                if (gathers) {
                    gathered++;
                    assertTrue(free, "a merge of adjacent dims after a transpose was gathered: " + chain + " -> " + view);
                }
                for (CopyEngine engine : ENGINES) {
                    TensorElements.of(dst).copyFrom(new float[(int) Reference.count(out)]);
                    engine.copy(view, dst);
                    assertArrayEquals(ref.values(), TensorElements.of(dst).toDoubleArray(), chain + " -> " + view + " by " + engine);
                }
                // Back through the view as a destination, from the dense copy, into a zeroed source.
                TensorElements.of(src).copyFrom(new float[(int) Reference.count(dims)]);
                for (CopyEngine engine : ENGINES) {
                    engine.copy(dst, view);
                    // Read through the view: exactly the elements it reaches, each holding its value again.
                    assertArrayEquals(ref.values(), TensorElements.of(view).toDoubleArray(), "into " + chain + " -> " + view + " by " + engine);
                }
            }
        }
        System.out.println(merges + " merges of adjacent dims and " + (CHAINS - merges) + " free regroupings; " + gathered
                + " gathered (free regroupings whose radices do not nest)");
    }

    private static boolean[] reversed(int rank, int d) {
        boolean[] r = new boolean[rank];
        r[d] = true;
        return r;
    }

    private static long[] filled(int rank, long v) {
        long[] a = new long[rank];
        Arrays.fill(a, v);
        return a;
    }

    private static float[] toFloats(double[] v) {
        float[] f = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            f[i] = (float) v[i];
        }
        return f;
    }

    private static void assertArrayEquals(double[] expected, double[] got, String what) {
        assertEquals(expected.length, got.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], got[i], what + ": element " + i);
        }
    }
}
