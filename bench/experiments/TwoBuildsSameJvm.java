import java.lang.foreign.*;
import java.lang.reflect.*;
import java.net.*;
import java.nio.file.*;
import java.util.*;

/**
 * One copy in two builds of the project, in one JVM, alternating: each build's class folders
 * ({@code memory views ops interop bench}, {@code target/classes} after
 * {@code mvn -q -o -pl bench -am compile}) in a class loader of its own, and per round 2,000 calls
 * of each, in turns, timed in this thread's CPU time (a loaded machine's other processes do not
 * count). Two ways of calling: "prepared" runs the bench case's plan made once
 * ({@code CopyCase.prepare}), "views" copies {@code Ops.transpose} of an NHWC view, made each call,
 * into an NCHW view, so that adapting the views and finding the cached plan count too.
 *
 * <pre>
 * git archive BASE | tar -x -C /tmp/base &amp;&amp; (cd /tmp/base &amp;&amp; mvn -B -q -o -pl bench -am compile)
 * mvn -B -q -o -pl bench -am compile
 * java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector bench/experiments/TwoBuildsSameJvm.java \
 *     /tmp/base . ~/.m2/repository/org/agrona/agrona/2.6.0/agrona-2.6.0.jar 30
 * </pre>
 */
public class TwoBuildsSameJvm {
    static ClassLoader loader(String root, String agrona) throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String m : new String[] {"memory", "views", "ops", "interop", "bench"}) {
            urls.add(Path.of(root, m, "target", "classes").toUri().toURL());
        }
        urls.add(Path.of(agrona).toUri().toURL());
        return new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
    }

    interface Op { void run() throws Exception; }

    static Op prepared(ClassLoader l, String name) throws Exception {
        Class<?> cc = l.loadClass("dev.tensorbuf.bench.CopyCase");
        Class<?> ce = l.loadClass("dev.tensorbuf.ops.copy.CopyEngine");
        Object engine = ce.getMethod("of", int.class).invoke(null, 1);
        Object c = cc.getMethod("byName", String.class).invoke(null, name);
        Object p = cc.getMethod("prepare", SegmentAllocator.class, ce).invoke(c, Arena.ofShared(), engine);
        Method run = p.getClass().getMethod("run");
        return () -> run.invoke(p);
    }

    static Op views(ClassLoader l) throws Exception {
        Class<?> allocators = l.loadClass("dev.tensorbuf.memory.Allocators");
        Object alloc = allocators.getMethod("shared").invoke(null);
        Class<?> mb = l.loadClass("dev.tensorbuf.memory.MemoryBuffer");
        Method allocate = alloc.getClass().getMethod("allocate", long.class);
        allocate.setAccessible(true);
        Object a = allocate.invoke(alloc, 4L * 3 * 224 * 224);
        Object b = allocate.invoke(alloc, 4L * 3 * 224 * 224);
        Class<?> tv = l.loadClass("dev.tensorbuf.views.TensorView");
        Method of = tv.getMethod("of", mb, String.class);
        Object nhwc = of.invoke(null, a, "f32[1,224,224,3]{3,2,1,0}");
        Object nchw = of.invoke(null, b, "f32[1,3,224,224]{3,2,1,0}");
        Class<?> ops = l.loadClass("dev.tensorbuf.ops.Ops");
        Method transpose = ops.getMethod("transpose", tv, int[].class);
        Class<?> ce = l.loadClass("dev.tensorbuf.ops.copy.CopyEngine");
        Object engine = ce.getMethod("of", int.class).invoke(null, 1);
        Method copy = ce.getMethod("copy", tv, tv);
        return () -> copy.invoke(engine, transpose.invoke(null, nhwc, new int[] {0, 3, 1, 2}), nchw);
    }

    static final java.lang.management.ThreadMXBean CPU = java.lang.management.ManagementFactory.getThreadMXBean();

    /** Microseconds of this thread's CPU time per call: under load, wall time counts other processes' turns. */
    static double time(Op op, int n) throws Exception {
        long t0 = CPU.getCurrentThreadCpuTime();
        for (int i = 0; i < n; i++) op.run();
        return (CPU.getCurrentThreadCpuTime() - t0) / 1e3 / n;
    }

    public static void main(String[] args) throws Exception {
        String agrona = args[2];
        ClassLoader base = loader(args[0], agrona), mine = loader(args[1], agrona);
        String[] kinds = {"prepared", "views"};
        for (String kind : kinds) {
            Op ob = kind.equals("prepared") ? prepared(base, "nhwc_to_nchw_f32_1x3x224x224") : views(base);
            Op om = kind.equals("prepared") ? prepared(mine, "nhwc_to_nchw_f32_1x3x224x224") : views(mine);
            for (int w = 0; w < 3; w++) { time(ob, 2000); time(om, 2000); }
            List<Double> rb = new ArrayList<>(), rm = new ArrayList<>();
            for (int r = 0; r < Integer.parseInt(args[3]); r++) {
                if (r % 2 == 0) {
                    rb.add(time(ob, 2000));
                    rm.add(time(om, 2000));
                } else {
                    rm.add(time(om, 2000));
                    rb.add(time(ob, 2000));
                }
            }
            Collections.sort(rb); Collections.sort(rm);
            System.out.printf("%s nhwc_to_nchw_f32_1x3x224x224: base median %.2f us (min %.2f), this branch median %.2f us (min %.2f), ratio base/branch %.3f%n",
                    kind, rb.get(rb.size() / 2), rb.get(0), rm.get(rm.size() / 2), rm.get(0), rb.get(rb.size() / 2) / rm.get(rm.size() / 2));
        }
    }
}
