import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.PooledAllocator;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.StridedLayout.TensorFormat;
import dev.tensorbuf.views.TensorView;
import java.util.*;

/**
 * Per-call time of small copies, materialize and view ops. Output: one line per case,
 * "case size variant us_median us_min". Args: [warmupSeconds] [sampleMs] [samples] [filter]
 *
 *   java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -cp cli/target/tensorbuf.jar \
 *       bench/experiments/Small.java [warmupSeconds] [sampleMs] [samples] [filter]
 */
public class Small {
    static double warmS = 3, sampleMs = 150; static int samples = 5;
    static volatile Object sink;
    static final CopyEngine E = CopyEngine.defaults();
    static final Allocator ARENA = Allocators.shared();
    static final PooledAllocator POOL = PooledAllocator.builder().largestSizeClass(8 << 20).build();
    static final long[] SIZES = {64, 1024, 16 << 10, 256 << 10, 1 << 20};
    static String filter = "";

    static String label(long s) {
        return s >= (1 << 20) ? (s >> 20) + "MiB" : s >= 1024 ? (s >> 10) + "KiB" : s + "B";
    }

    /** shapes: 2-D r x c with r*c = n, r <= c */
    static long[] twoD(long n) {
        long r = 1;
        while (r * r * 4 <= n) r *= 2; // r ~ sqrt(n)
        while (n % r != 0) r /= 2;
        if (r * r < n && (n / r) > r) { /* fine */ }
        return new long[]{r, n / r};
    }

    static void time(String name, long size, String variant, Runnable r) {
        if (!filter.isEmpty() && !(name + " " + variant).contains(filter)) return;
        // warm up
        long end = System.nanoTime() + (long) (warmS * 1e9);
        long calls = 0;
        while (System.nanoTime() < end) { r.run(); calls++; }
        double perCallNs = (warmS * 1e9) / calls;
        long iters = Math.max(1, (long) (sampleMs * 1e6 / perCallNs));
        double[] us = new double[samples];
        for (int s = 0; s < samples; s++) {
            long t0 = System.nanoTime();
            for (long i = 0; i < iters; i++) r.run();
            us[s] = (System.nanoTime() - t0) / 1e3 / iters;
        }
        Arrays.sort(us);
        System.out.printf(Locale.ROOT, "%-14s %-7s %-22s %10.3f %10.3f%n", name, label(size), variant, us[samples / 2], us[0]);
        System.out.flush();
    }

    static TensorView view(long bytes, String shape) {
        return TensorView.of(ARENA.allocate(Math.max(bytes, 64)), shape);
    }

    static String dims(long... d) {
        StringBuilder b = new StringBuilder();
        for (long x : d) b.append(b.isEmpty() ? "" : ",").append(x);
        return b.toString();
    }

    /**
     * Four variants of one copy: with a prebuilt src view, with the op made per call, the
     * explanation alone (planning without copying), and the explanation's plan run again.
     */
    static void copyCase(String name, long size, TensorView srcView, java.util.function.Supplier<TensorView> srcPerCall,
                         TensorView dst, ChannelAffine affine) {
        Runnable viewCopy = affine == null ? () -> E.copy(srcView, dst) : () -> E.copy(srcView, dst, affine);
        time(name, size, "view(prebuilt)", viewCopy);
        if (srcPerCall != null) {
            time(name, size, "view(op per call)", affine == null ? () -> E.copy(srcPerCall.get(), dst)
                    : () -> E.copy(srcPerCall.get(), dst, affine));
        }
        time(name, size, "explain only", () -> sink = E.explain(srcView, dst, affine));
        // A copy the engine plans in one piece keeps its plan in the explanation; run it alone.
        CopyPlan p = E.explain(srcView, dst, affine).plan().orElse(null);
        if (p != null) {
            time(name, size, "execute(plan)", () -> E.execute(p));
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0) warmS = Double.parseDouble(args[0]);
        if (args.length > 1) sampleMs = Double.parseDouble(args[1]);
        if (args.length > 2) samples = Integer.parseInt(args[2]);
        if (args.length > 3) filter = args[3];
        System.out.println("# vector kernels: " + E.vectorKernels() + ", parallelism " + E.parallelism());
        for (long size : SIZES) {
            long n = size / 4;
            // contiguous f32 -> f32
            {
                TensorView s = view(size, "f32[" + n + "]"), d = view(size, "f32[" + n + "]");
                copyCase("contig", size, s, null, d, null);
            }
            // 2-D transpose
            {
                long[] rc = twoD(n);
                TensorView s = view(size, "f32[" + rc[0] + "," + rc[1] + "]"), d = view(size, "f32[" + rc[1] + "," + rc[0] + "]");
                copyCase("transpose2d", size, Ops.transpose(s, 1, 0), () -> Ops.transpose(s, 1, 0), d, null);
            }
            // a transpose flattened: neither strided nor tiled (a general view, gathered)
            {
                long[] rc = twoD(n);
                TensorView s = view(size, "f32[" + rc[0] + "," + rc[1] + "]"), d = view(size, "f32[" + n + "]");
                copyCase("flatten(transpose)", size, Ops.reshape(Ops.transpose(s, 1, 0), n),
                        () -> Ops.reshape(Ops.transpose(s, 1, 0), n), d, null);
            }
            // NCHW -> NHWC, C = 4, H = W
            {
                long hw = n / 4, h = (long) Math.sqrt(hw);
                String nchw = "f32[1,4," + h + "," + h + "]", nhwc = "f32[1," + h + "," + h + ",4]";
                TensorView s = view(size, nchw), d = view(size, nhwc);
                copyCase("nchw2nhwc", size, Ops.transpose(s, 0, 2, 3, 1), () -> Ops.transpose(s, 0, 2, 3, 1), d, null);
            }
            // f32 -> bf16
            {
                TensorView s = view(size, "f32[" + n + "]"), d = view(size / 2, "bf16[" + n + "]");
                copyCase("f32->bf16", size, s, null, d, null);
            }
            // f32 -> {1,0:T(8,128)}
            {
                long[] rc = tileShape(n);
                ArrayShape t = ArrayShape.parse("f32[" + rc[0] + "," + rc[1] + "]{1,0:T(8,128)}");
                TensorView s = view(size, "f32[" + rc[0] + "," + rc[1] + "]");
                TensorView d = TensorView.of(ARENA.allocate(Math.max(t.physicalByteSize(), 64)), t);
                copyCase("f32->T(8,128)", size, s, null, d, null);
            }
            // u8 NHWC -> f32 NCHW, scale and bias, C = 3
            {
                long h = Math.max(1, (long) Math.sqrt(size / 12.0));
                TensorView px = view(h * h * 3, "u8[1," + h + "," + h + ",3]");
                TensorView d = view(h * h * 12, "f32[1,3," + h + "," + h + "]");
                ChannelAffine aff = new ChannelAffine(1, List.of(1 / 58.395f, 1 / 57.12f, 1 / 57.375f),
                        List.of(-123.675f / 58.395f, -116.28f / 57.12f, -103.53f / 57.375f));
                copyCase("u8nhwc->f32nchw", size, Ops.transpose(px, 0, 3, 1, 2), () -> Ops.transpose(px, 0, 3, 1, 2), d, aff);
            }
            // materialize
            {
                long[] rc = twoD(n);
                TensorView s = view(size, "f32[" + rc[0] + "," + rc[1] + "]");
                ArrayShape tshape = ArrayShape.parse("f32[" + rc[1] + "," + rc[0] + "]{1,0}");
                TensorView st = Ops.transpose(s, 1, 0);
                time("mat.transpose", size, "pool", () -> E.materialize(Ops.transpose(s, 1, 0), tshape, POOL).buffer().close());
                time("mat.transpose", size, "pool(prebuilt view)", () -> E.materialize(st, tshape, POOL).buffer().close());
                time("mat.transpose", size, "confined per call", () -> {
                    try (Allocator a = Allocators.confined()) { sink = E.materialize(Ops.transpose(s, 1, 0), tshape, a); }
                });
                ArrayShape bf = ArrayShape.parse("bf16[" + rc[0] + "," + rc[1] + "]{1,0}");
                time("mat.f32->bf16", size, "pool", () -> E.materialize(s, bf, POOL).buffer().close());
                long[] tr = tileShape(n);
                TensorView s2 = view(size, "f32[" + tr[0] + "," + tr[1] + "]");
                ArrayShape tiled = ArrayShape.parse("f32[" + tr[0] + "," + tr[1] + "]{1,0:T(8,128)}");
                time("mat.T(8,128)", size, "pool", () -> E.materialize(s2, tiled, POOL).buffer().close());
                // strided-layout overload (no zero fill?)
                time("mat.transpose", size, "pool strided-layout", () -> E.materialize(Ops.transpose(s, 1, 0), DType.F32,
                        StridedLayout.packed(rc[1], rc[0]), POOL).buffer().close());
                // baseline: allocation alone
                time("alloc+close", size, "pool", () -> POOL.allocate(size).close());
            }
        }
        // view ops on small shapes
        {
            TensorView v = view(64 * 128 * 4, "f32[64,64]");
            TensorView v4 = view(1 * 4 * 16 * 16 * 4, "f32[1,4,16,16]");
            time("view.transpose", 16384, "create", () -> sink = Ops.transpose(v, 1, 0));
            time("view.transpose", 16384, "create+form", () -> sink = Ops.transpose(v, 1, 0).form());
            time("view.transpose", 16384, "create+isStrided", () -> sink = Ops.transpose(v, 1, 0).isStrided());
            time("view.nhwc", 4096, "create+form", () -> sink = Ops.transpose(v4, 0, 2, 3, 1).form());
            time("view.slice", 16384, "create", () -> sink = Ops.slice(v, new long[]{0, 0}, new long[]{64, 64}, new long[]{2, 1}));
            time("view.slice", 16384, "create+form", () -> sink = Ops.slice(v, new long[]{0, 0}, new long[]{64, 64}, new long[]{2, 1}).form());
            time("view.reshape", 16384, "create", () -> sink = Ops.reshape(v, 16, 256));
            time("view.reshape", 16384, "create+form", () -> sink = Ops.reshape(v, 16, 256).form());
            time("view.reshapeT", 16384, "create+form", () -> sink = Ops.reshape(Ops.transpose(v, 1, 0), 16, 256).form());
            time("view.of tiled", 16384, "create", () -> sink = TensorView.of(v.buffer(), "f32[64,64]{1,0:T(8,128)}"));
            time("view.of tiled", 16384, "create+form", () -> sink = TensorView.of(v.buffer(), "f32[64,64]{1,0:T(8,128)}").form());
            ArrayShape pre = ArrayShape.parse("f32[64,64]{1,0:T(8,128)}");
            time("view.of tiled", 16384, "create(parsed)+form", () -> sink = TensorView.of(v.buffer(), pre).form());
        }
        // worker threads started?
        long workers = Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().toLowerCase().contains("copy")).count();
        System.out.println("# threads named *copy*: " + workers + " " + Thread.getAllStackTraces().keySet().stream().map(Thread::getName).sorted().toList());
    }

    static long[] tileShape(long n) {
        // rows x cols: 16 -> 2x8, 256 -> 2x128, 4096 -> 32x128, 65536 -> 256x256, 262144 -> 512x512
        if (n <= 16) return new long[]{2, 8};
        if (n <= 256) return new long[]{2, 128};
        if (n <= 4096) return new long[]{32, 128};
        long[] rc = twoD(n);
        return rc;
    }
}
