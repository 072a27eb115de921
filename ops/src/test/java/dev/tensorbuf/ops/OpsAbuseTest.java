package dev.tensorbuf.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every op of {@link Ops} and the copy engine's copy and materialize, called at random with
 * mostly invalid arguments (bad permutations, slice bounds and strides, pad widths, reshape
 * sizes, concatenation dims, wild dynamic-slice offsets, mismatched or read-only destinations)
 * on chains of earlier results. A failure must be one of the documented exception types with a
 * message; a success must equal the brute-force {@link Reference} at every element. Seed
 * printed; {@code -Dtensorbuf.seed=N} replays it.
 */
class OpsAbuseTest {
    private static final int CHAINS = 1_500;
    private static final int STEPS = 4;
    private static final long[] WILD = {-1, Long.MIN_VALUE, Long.MAX_VALUE, 1L << 40, Integer.MAX_VALUE};

    private final Map<String, Integer> outcomes = new TreeMap<>();
    /** The successful steps of the current chain, for failure messages. */
    private final List<String> history = new ArrayList<>();

    /** A view and the reference it must equal. */
    private record Pair(TensorView view, Reference ref) {
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void randomOpsAndCopiesThrowOnlyDocumentedExceptionsAndAgreeWithBruteForce() {
        String fixed = System.getProperty("tensorbuf.seed");
        long seed = fixed != null ? Long.parseLong(fixed) : System.nanoTime();
        System.out.println("OpsAbuseTest seed " + seed + " (rerun with -Dtensorbuf.seed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        CopyEngine engine = CopyEngine.of(2, true, 0); // every copy above 0 bytes may go parallel
        try (Allocator arena = Allocators.confined()) {
            for (int c = 0; c < CHAINS; c++) {
                history.clear();
                List<Pair> pool = new ArrayList<>();
                pool.add(source(arena, random));
                pool.add(source(arena, random));
                for (int s = 0; s < STEPS; s++) {
                    Pair in = pool.get(random.nextInt(pool.size()));
                    Pair other = pool.get(random.nextInt(pool.size()));
                    int op = random.nextInt(10);
                    Pair out = switch (op) {
                        case 0 -> transpose(in, random, seed, c);
                        case 1 -> slice(in, random, seed, c);
                        case 2 -> reverse(in, random, seed, c);
                        case 3 -> broadcast(in, random, seed, c);
                        case 4 -> pad(in, random, seed, c);
                        case 5 -> reshape(in, random, seed, c);
                        case 6 -> concatenate(in, other, random, seed, c);
                        case 7 -> dynamicSlice(in, random, seed, c);
                        case 8 -> copy(engine, arena, in, other, random, seed, c);
                        default -> materialize(engine, arena, in, random, seed, c);
                    };
                    if (out != null) {
                        check(out, seed, c);
                        pool.add(out);
                    }
                }
            }
        }
        System.out.println("OpsAbuseTest outcomes " + outcomes);
        for (String op : new String[] {"transpose", "slice", "reverse", "broadcast", "pad", "reshape", "concatenate",
            "dynamicSlice", "copy", "materialize"}) {
            assertTrue(outcomes.containsKey(op + ": ok"), () -> op + " never succeeded: " + outcomes);
            assertTrue(outcomes.keySet().stream().anyMatch(k -> k.startsWith(op + ": Illegal") || k.startsWith(op + ": Index")),
                    () -> op + " never refused: " + outcomes);
        }
    }

    /** Found by the random test (seed 4156354796320): the emptied data piece read offset 0 at rank 0. */
    @Test
    void padThatCropsTheOnlyElementReshapedToAScalarReadsTheFill() {
        try (Allocator arena = Allocators.confined()) {
            TensorView v = TensorView.of(arena.allocate(8), "f32[1]{0:T(2)}");
            TensorElements.of(v).setFloat(1f, 0);
            TensorView padded = Ops.pad(v, new long[] {3}, new long[] {-3}, new long[] {1}, -7.5);
            assertEquals(-7.5, TensorElements.of(padded).getDouble(0));
            assertEquals(-7.5, TensorElements.of(Ops.reshape(padded)).getDouble(), "the scalar is padding, not the cropped element");
        }
    }

    private static Pair source(Allocator arena, SplittableRandom random) {
        int rank = random.nextInt(4);
        long[] dims = new long[rank];
        for (int d = 0; d < rank; d++) {
            dims[d] = random.nextInt(5);
        }
        int[] minorToMajor = permutation(random, rank);
        StringBuilder text = new StringBuilder("f32[");
        for (int d = 0; d < rank; d++) {
            text.append(d > 0 ? "," : "").append(dims[d]);
        }
        text.append("]{");
        for (int d = 0; d < rank; d++) {
            text.append(d > 0 ? "," : "").append(minorToMajor[d]);
        }
        if (rank > 0 && random.nextInt(3) == 0) {
            text.append(":T(2)");
        }
        text.append('}');
        if (rank == 0) {
            text.setLength(text.length() - 2); // XLA writes a scalar as f32[], with no layout
        }
        ArrayShape shape = (ArrayShape) dev.tensorbuf.views.XlaShape.parse(text.toString());
        TensorView view = TensorView.of(arena.allocate(Math.max(1, shape.arraySize())), shape);
        Reference ref = Reference.build(dims, index -> 1 + new Reference(dims, new double[0]).position(index));
        TensorElements.of(view).forEachIndex(index -> TensorElements.of(view).setDouble(ref.at(index), index));
        return new Pair(view, ref);
    }

    private static int[] permutation(SplittableRandom random, int rank) {
        int[] p = new int[rank];
        for (int i = 0; i < rank; i++) {
            p[i] = i;
        }
        for (int i = rank - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }

    private static long dim(Pair p, int d) {
        return p.ref().dims()[d];
    }

    /** {@return a value near the interesting edges of {@code [0, bound]}, or a wild one} */
    private static long near(SplittableRandom random, long bound) {
        return switch (random.nextInt(12)) {
            case 0 -> WILD[random.nextInt(WILD.length)];
            case 1 -> -1 - random.nextInt(3);
            case 2 -> bound + 1 + random.nextInt(2);
            default -> random.nextLong(0, bound + 1);
        };
    }

    private Pair transpose(Pair in, SplittableRandom random, long seed, int c) {
        int rank = in.ref().dims().length;
        int[] perm = permutation(random, rank);
        if (random.nextInt(3) == 0 && rank > 0) {
            perm[random.nextInt(rank)] = random.nextInt(-1, rank + 1); // a duplicate or out of range
        } else if (random.nextInt(8) == 0) {
            perm = Arrays.copyOf(perm, rank + 1);
        }
        int[] p = perm;
        return attempt("transpose", seed, c, "transpose " + Arrays.toString(p) + " of " + in.view(),
                () -> Ops.transpose(in.view(), p), () -> in.ref().transpose(p));
    }

    private Pair slice(Pair in, SplittableRandom random, long seed, int c) {
        int rank = in.ref().dims().length + (random.nextInt(12) == 0 ? 1 : 0);
        long[] start = new long[rank];
        long[] limit = new long[rank];
        long[] stride = new long[rank];
        for (int d = 0; d < rank; d++) {
            long size = d < in.ref().dims().length ? dim(in, d) : 1;
            start[d] = near(random, size);
            limit[d] = random.nextInt(4) == 0 ? near(random, size) : random.nextLong(Math.max(0, Math.min(start[d], size)), size + 1);
            stride[d] = random.nextInt(10) == 0 ? random.nextLong(-2, 1) : 1 + random.nextInt(3);
        }
        return attempt("slice", seed, c, "slice " + Arrays.toString(start) + " " + Arrays.toString(limit) + " "
                + Arrays.toString(stride) + " of " + in.view(),
                () -> Ops.slice(in.view(), start, limit, stride), () -> in.ref().slice(start, limit, stride));
    }

    private Pair reverse(Pair in, SplittableRandom random, long seed, int c) {
        int rank = in.ref().dims().length;
        int lo = random.nextInt(6) == 0 ? -1 : 0;
        int hi = rank + (random.nextInt(6) == 0 ? 1 : 0);
        int[] dims = random.ints(random.nextInt(rank + 2), lo, Math.max(lo + 1, hi)).toArray();
        return attempt("reverse", seed, c, "reverse " + Arrays.toString(dims) + " of " + in.view(), () -> Ops.reverse(in.view(), dims), () -> {
            boolean[] flags = new boolean[rank];
            for (int d : dims) {
                flags[d] = true;
            }
            return in.ref().reverse(flags);
        });
    }

    private Pair broadcast(Pair in, SplittableRandom random, long seed, int c) {
        int rank = in.ref().dims().length;
        int outRank = rank + random.nextInt(3) - (random.nextInt(8) == 0 ? 1 : 0);
        if (outRank < 0 || outRank > 4) {
            outRank = rank;
        }
        int[] mapping = permutation(random, outRank);
        int[] bd = Arrays.copyOf(mapping, Math.min(rank, outRank));
        Arrays.sort(bd);
        if (random.nextInt(5) == 0 && bd.length > 0) {
            bd[random.nextInt(bd.length)] = random.nextInt(-1, outRank + 1);
        }
        long[] out = new long[outRank];
        for (int d = 0; d < outRank; d++) {
            out[d] = random.nextInt(3);
        }
        for (int j = 0; j < bd.length; j++) {
            if (bd[j] >= 0 && bd[j] < outRank && random.nextInt(6) != 0) {
                out[bd[j]] = dim(in, j);
            }
        }
        return attempt("broadcast", seed, c, "broadcast to " + Arrays.toString(out) + " along " + Arrays.toString(bd)
                + " of " + in.view(), () -> Ops.broadcast(in.view(), out, bd), () -> in.ref().broadcast(out, bd));
    }

    private Pair pad(Pair in, SplittableRandom random, long seed, int c) {
        int rank = in.ref().dims().length + (random.nextInt(15) == 0 ? 1 : 0);
        long[] low = new long[rank];
        long[] high = new long[rank];
        long[] interior = new long[rank];
        for (int d = 0; d < rank; d++) {
            low[d] = random.nextInt(12) == 0 ? WILD[random.nextInt(WILD.length)] : random.nextInt(-3, 4);
            high[d] = random.nextInt(-3, 4);
            interior[d] = random.nextInt(10) == 0 ? -1 : random.nextInt(3);
        }
        double fill = random.nextInt(10) == 0 ? Double.NaN : -7.5;
        return attempt("pad", seed, c, "pad " + Arrays.toString(low) + " " + Arrays.toString(high) + " "
                + Arrays.toString(interior) + " of " + in.view(),
                () -> Ops.pad(in.view(), low, high, interior, fill), () -> in.ref().pad(low, high, interior, fill));
    }

    private Pair reshape(Pair in, SplittableRandom random, long seed, int c) {
        long count = Reference.count(in.ref().dims());
        long[] out;
        if (random.nextInt(3) == 0) {
            out = new long[random.nextInt(4)];
            for (int d = 0; d < out.length; d++) {
                out[d] = random.nextInt(8) == 0 ? WILD[random.nextInt(WILD.length)] : random.nextInt(6);
            }
        } else {
            List<Long> factors = new ArrayList<>();
            long rest = count;
            for (long f = 2; f <= rest; f++) {
                while (rest % f == 0) {
                    factors.add(f);
                    rest /= f;
                }
            }
            if (count == 0) {
                factors.add(0L);
            }
            List<Long> dims = new ArrayList<>();
            for (long f : factors) {
                if (dims.isEmpty() || random.nextBoolean()) {
                    dims.add(f);
                } else {
                    dims.set(dims.size() - 1, dims.getLast() * f);
                }
            }
            if (random.nextBoolean()) {
                dims.add(random.nextInt(dims.size() + 1), 1L);
            }
            out = Extents.toArray(dims);
        }
        return attempt("reshape", seed, c, "reshape to " + Arrays.toString(out) + " of " + in.view(),
                () -> Ops.reshape(in.view(), out), () -> in.ref().reshape(out));
    }

    private Pair concatenate(Pair a, Pair b, SplittableRandom random, long seed, int c) {
        int rank = a.ref().dims().length;
        int dim = random.nextInt(-1, rank + 1);
        return attempt("concatenate", seed, c, "concatenate along " + dim + " of " + a.view() + " and " + b.view(),
                () -> Ops.concatenate(dim, List.of(a.view(), b.view())), () -> a.ref().concatenate(dim, b.ref()));
    }

    private Pair dynamicSlice(Pair in, SplittableRandom random, long seed, int c) {
        int rank = in.ref().dims().length + (random.nextInt(15) == 0 ? -1 : 0);
        if (rank < 0) {
            rank = 0;
        }
        long[] offsets = new long[rank];
        long[] sizes = new long[rank];
        for (int d = 0; d < rank; d++) {
            long size = d < in.ref().dims().length ? dim(in, d) : 1;
            offsets[d] = random.nextInt(4) == 0 ? WILD[random.nextInt(WILD.length)] : random.nextLong(-3, size + 4);
            sizes[d] = random.nextInt(8) == 0 ? near(random, size) : random.nextLong(0, size + 1);
        }
        return attempt("dynamicSlice", seed, c, "dynamicSlice " + Arrays.toString(offsets) + " " + Arrays.toString(sizes)
                + " of " + in.view(),
                () -> Ops.dynamicSlice(in.view(), offsets, sizes), () -> in.ref().dynamicSlice(offsets, sizes));
    }

    private Pair copy(CopyEngine engine, Allocator arena, Pair src, Pair dstShape, SplittableRandom random, long seed, int c) {
        // A fresh destination: a row-major buffer of the other view's dims (often mismatched), or of the source's.
        long[] dims = random.nextInt(3) == 0 ? dstShape.ref().dims() : src.ref().dims();
        long count = Reference.count(dims);
        MemoryBuffer buffer = arena.allocate(Math.max(1, 4 * count));
        TensorView dst = TensorView.strided(random.nextInt(8) == 0 ? buffer.asReadOnly() : buffer, DType.F32,
                StridedLayout.packed(dims));
        TensorView target = random.nextInt(4) == 0 && dims.length > 0 ? Ops.reverse(dst, 0) : dst;
        return attempt("copy", seed, c, "copy " + src.view() + " into " + target, () -> {
            engine.copy(src.view(), target);
            return target;
        }, src::ref);
    }

    private Pair materialize(CopyEngine engine, Allocator arena, Pair src, SplittableRandom random, long seed, int c) {
        long[] dims = src.ref().dims().clone();
        if (random.nextInt(5) == 0 && dims.length > 0) {
            dims[random.nextInt(dims.length)] += 1;
        }
        int[] order = permutation(random, dims.length);
        long[] strides = new long[dims.length];
        long step = 1;
        for (int k = dims.length - 1; k >= 0; k--) {
            strides[order[k]] = step;
            step *= Math.max(1, dims[order[k]]) + random.nextInt(2);
        }
        if (random.nextInt(6) == 0 && dims.length > 0) {
            strides[random.nextInt(dims.length)] *= -1;
        }
        String what = "materialize " + src.view() + " as sizes " + Arrays.toString(dims) + " strides " + Arrays.toString(strides);
        return attempt("materialize", seed, c, what,
                () -> engine.materialize(src.view(), DType.F32, StridedLayout.of(dims, strides, 0), arena), src::ref);
    }

    private static boolean small(TensorView view) {
        long n = 1;
        for (long d : view.dims()) {
            if (d > 1 << 16) {
                return false;
            }
            n *= d;
        }
        return n <= 1 << 16;
    }

    private void check(Pair p, long seed, int c) {
        assertEquals(Arrays.toString(p.ref().dims()), p.view().dims().toString(), "dims, chain " + c + " seed " + seed);
        assertEquals(Reference.count(p.ref().dims()), p.ref().values().length,
                () -> "chain " + c + " (seed " + seed + "): " + p.view() + " has " + p.view().elementCount()
                        + " elements, but the reference of its source had " + p.ref().values().length);
        TensorElements.of(p.view()).forEachIndex(index -> {
            double want = p.ref().at(index);
            double got = TensorElements.of(p.view()).getDouble(index);
            if (Double.compare(want, got) != 0) {
                fail("chain " + c + " (seed " + seed + "): " + p.view() + " at " + Arrays.toString(index) + " is " + got
                        + ", the reference says " + want + "; steps: " + String.join("; ", history));
            }
        });
    }

    /** Runs the op; on success the reference (outside the catch, so its own failures surface) joins it. */
    private Pair attempt(String name, long seed, int c, String what, Supplier<TensorView> op, Supplier<Reference> reference) {
        TensorView out;
        try {
            out = op.get();
        } catch (IllegalArgumentException | IndexOutOfBoundsException | IllegalStateException
                 | UnsupportedOperationException e) {
            if (e.getMessage() == null || e.getMessage().isBlank()) {
                fail("chain " + c + " (seed " + seed + "): " + what + " threw " + e + " without a message", e);
            }
            outcomes.merge(name + ": " + e.getClass().getSimpleName(), 1, Integer::sum);
            return null;
        } catch (RuntimeException | Error e) {
            fail("chain " + c + " (seed " + seed + "): " + what + " threw an undocumented " + e, e);
            return null;
        }
        outcomes.merge(name + ": ok", 1, Integer::sum);
        history.add(what);
        if (!small(out)) {
            // A huge lazy view (a pad by 2^40): too big for the reference; its corners must read.
            long[] first = new long[out.rank()];
            long[] last = new long[out.rank()];
            boolean empty = false;
            for (int d = 0; d < out.rank(); d++) {
                last[d] = out.dims().get(d) - 1;
                empty |= last[d] < 0;
            }
            if (!empty) {
                TensorElements.of(out).getDouble(first);
                TensorElements.of(out).getDouble(last);
            }
            outcomes.merge(name + ": ok, huge (corners read)", 1, Integer::sum);
            return null;
        }
        Reference ref;
        try {
            ref = reference.get();
        } catch (RuntimeException e) {
            throw new AssertionError("chain " + c + " (seed " + seed + "): " + what + " succeeded as " + out
                    + " but the arguments are outside the op's contract: " + e, e);
        }
        return new Pair(out, ref);
    }
}
