package dev.tensorbuf.bench;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Copies of packed views that reach far more slots than they have elements, in two builds taking
 * turns in one JVM ({@link TwoBuilds}), timed in the calling thread's CPU time (the engine is
 * made with one thread, so the copy runs there). Issue 36: such views went element by element;
 * they are now staged through their own slots, gathered a byte each.
 * <ul>
 * <li>{@code s4Every1000thToF32}: every 1000th element of {@code s4[16777216]{0:E(4)}} into
 *     {@code f32[16778]};
 * <li>{@code f32ToS4Every1000th}: the reverse, into the packed buffer's slots;
 * <li>{@code tiledS4CropToF32}: a {@code [64,64]} crop of {@code s4[4096,4096]{1,0:T(8,128)(2,1)E(4)}}
 *     into {@code f32[64,64]}.
 * </ul>
 * {@snippet lang=shell :
 * # two checkouts with memory, views and ops compiled (mvn -o -q -pl ops -am compile), 15 rounds:
 * java --enable-native-access=ALL-UNNAMED -cp bench/target/classes dev.tensorbuf.bench.SparsePackedCopy \
 *     /path/to/base . ~/.m2/repository/org/agrona/agrona/2.6.0/agrona-2.6.0.jar 15
 * # s4Every1000thToF32: A median ... us cpu (min-max), B median ... us cpu (min-max), B/A ...
 * }
 */
public final class SparsePackedCopy {
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
    private static final long N = 1L << 24;
    /** Copies a sample times; untimed turns per side first, so both builds run compiled code. */
    private static final int COPIES = 20;
    private static final int WARMUPS = 50;
    private static final String[] CASES = {"s4Every1000thToF32", "f32ToS4Every1000th", "tiledS4CropToF32"};

    private SparsePackedCopy() {
    }

    /**
     * Arguments: buildA buildB agronaJar rounds [case ...]. Prints per case the median, over
     * rounds, of the mean CPU time of one copy in a turn of 20, in each build, and the ratio.
     */
    public static void main(String[] args) throws Throwable {
        ClassLoader[] builds = {TwoBuilds.loader(args[0], args[2]), TwoBuilds.loader(args[1], args[2])};
        int rounds = Integer.parseInt(args[3]);
        List<String> names = args.length > 4 ? Arrays.asList(args).subList(4, args.length) : List.of(CASES);
        for (String name : names) {
            MethodHandle a = copier(builds[0], name);
            MethodHandle b = copier(builds[1], name);
            double[][] us = TwoBuilds.inTurns(WARMUPS, rounds, () -> time(a), () -> time(b));
            double ma = us[0][rounds / 2];
            double mb = us[1][rounds / 2];
            System.out.printf("%s: A median %.1f us cpu (%.1f-%.1f), B median %.1f us cpu (%.1f-%.1f), B/A %.4f%n", name,
                    ma, us[0][0], us[0][rounds - 1], mb, us[1][0], us[1][rounds - 1], mb / ma);
        }
    }

    /** {@return the mean CPU time of one copy, in microseconds, over {@link #COPIES} copies} */
    private static double time(MethodHandle copy) throws Throwable {
        long t0 = CPU.getCurrentThreadCpuTime();
        for (int i = 0; i < COPIES; i++) {
            copy.invoke();
        }
        return (CPU.getCurrentThreadCpuTime() - t0) / 1e3 / COPIES;
    }

    /** {@return the case's copy in build {@code l}, its views made and filled, as a handle of no arguments} */
    private static MethodHandle copier(ClassLoader l, String name) throws Throwable {
        Class<?> mb = l.loadClass("dev.tensorbuf.memory.MemoryBuffer");
        Class<?> tv = l.loadClass("dev.tensorbuf.views.TensorView");
        Class<?> ops = l.loadClass("dev.tensorbuf.ops.Ops");
        Class<?> engineClass = l.loadClass("dev.tensorbuf.ops.copy.CopyEngine");
        Object allocator = l.loadClass("dev.tensorbuf.memory.Allocators").getMethod("shared").invoke(null);
        java.lang.reflect.Method allocate = l.loadClass("dev.tensorbuf.memory.Allocator").getMethod("allocate", long.class);
        java.lang.reflect.Method of = tv.getMethod("of", mb, String.class);
        java.lang.reflect.Method slice = ops.getMethod("slice", tv, long[].class, long[].class, long[].class);
        Random r = new Random(36);
        Object packed;
        Object dense;
        boolean intoPacked = name.equals("f32ToS4Every1000th");
        switch (name) {
            case "s4Every1000thToF32", "f32ToS4Every1000th" -> {
                Object buffer = allocate.invoke(allocator, N / 2);
                fill(segment(mb, buffer), r);
                packed = slice.invoke(null, of.invoke(null, buffer, "s4[" + N + "]{0:E(4)}"), new long[] {0},
                        new long[] {N}, new long[] {1000});
                long n = Math.ceilDiv(N, 1000);
                dense = of.invoke(null, allocate.invoke(allocator, 4 * n), "f32[" + n + "]{0}");
            }
            case "tiledS4CropToF32" -> {
                String shape = "s4[4096,4096]{1,0:T(8,128)(2,1)E(4)}";
                Object buffer = allocate.invoke(allocator, 4096L * 4096 / 2);
                fill(segment(mb, buffer), r);
                packed = slice.invoke(null, of.invoke(null, buffer, shape), new long[] {1000, 2000},
                        new long[] {1064, 2064}, new long[] {1, 1});
                dense = of.invoke(null, allocate.invoke(allocator, 4L * 64 * 64), "f32[64,64]{1,0}");
            }
            default -> throw new IllegalArgumentException("no case " + name + ", cases: " + Arrays.toString(CASES));
        }
        // Values an s4 holds, for the copy into it.
        MemorySegment d = segment(mb, tv.getMethod("buffer").invoke(dense));
        for (long k = 0; k < d.byteSize() / 4; k++) {
            d.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, k, r.nextInt(16) - 8);
        }
        Object engine = engineClass.getMethod("of", int.class).invoke(null, 1);
        MethodHandle copy = MethodHandles.publicLookup().findVirtual(engineClass, "copy",
                MethodType.methodType(void.class, tv, tv));
        return intoPacked ? MethodHandles.insertArguments(copy, 0, engine, dense, packed)
                : MethodHandles.insertArguments(copy, 0, engine, packed, dense);
    }

    private static MemorySegment segment(Class<?> mb, Object buffer) throws Throwable {
        return (MemorySegment) mb.getMethod("segment").invoke(buffer);
    }

    private static void fill(MemorySegment s, Random r) {
        byte[] bytes = new byte[(int) Math.min(s.byteSize(), 1 << 20)];
        r.nextBytes(bytes);
        for (long at = 0; at < s.byteSize(); at += bytes.length) {
            MemorySegment.copy(bytes, 0, s, ValueLayout.JAVA_BYTE, at, (int) Math.min(bytes.length, s.byteSize() - at));
        }
    }
}
