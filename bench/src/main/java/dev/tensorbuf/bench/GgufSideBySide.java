package dev.tensorbuf.bench;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.quant.internal.BlockKernels;
import dev.tensorbuf.ops.quant.BlockTensor;
import dev.tensorbuf.views.BlockType;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Random;

/**
 * The GGUF side-by-side of bench/RESULTS.md, one engine thread unless {@code --threads N} comes
 * first, beside {@code gguf_side_by_side.py}
 * (gguf-py's NumPy {@code dequantize}/{@code quantize} of tensors built the same way): Q8_0, Q4_0
 * and Q4_K to f32 and Q6_K to bf16 (or any case {@code TYPE:f16}, {@code TYPE:bf16}) with 256 MiB of output ({@link BlockTensor#dequantize}, the
 * planner's dequantize steps on one engine thread), f32 to Q8_0 from 256 MiB of input, each
 * beside {@code MemorySegment.copy} of the output's bytes. Prints the median of 5 timed runs after
 * 2 warm-up runs, the two measured in turn so that both see the same load on a shared machine. A harness rather than JMH: each run moves hundreds of MiB, so the timer's cost
 * is nil, and the numbers sit beside a Python process timed the same way. With {@code --threads N}
 * the dequantizations run on an engine of N threads (what {@code CopyEngine.defaults()} gives a
 * user on an N-core machine), the copy beside them is cut across as many ({@link ParallelCopy}),
 * and the CPU figures are the process's rather than the thread's. Quantizing stays on one thread:
 * it is a kernel call, not an engine plan.
 * {@snippet lang=shell :
 * java --add-modules jdk.incubator.vector -cp memory/target/classes:views/target/classes:ops/target/classes:bench/target/classes \
 *     dev.tensorbuf.bench.GgufSideBySide
 * }
 *
 * <p>The order of the cases once mattered in one JVM: a kernel C2 compiled after other block types
 * ran was up to 2.5 times slower. Two causes, both mended in the kernels: the Vector API's segment
 * loads and stores go through JDK methods every kernel shares, and C2 took the segment's class
 * from those methods' type profile, into which the JDK's own fallback for a vector reinterpret
 * (run before C2 compiles Q6_K's kernel) puts heap segments; the kernels now cast their segments
 * to the native class themselves ({@code VectorBlocks.NATIVE}). And Q4_0/Q4_K widened 16 codes
 * with a part-1 {@code convertShape}, a slice whose compiled code varied with what ran before;
 * they now widen 8 bytes at a time as Q8_0 does. Run the cases in both orders to check. Q6_K -> bf16
 * alone still took 40 or 90 ms of CPU from run to run: its block codes went through a heap
 * {@code byte[256]} (now 64-byte aligned native memory), and its 16 sub-block scales, like Q4_K's
 * scales and mins, through an array made per call that C2 scalar-replaced in some JVMs only (now
 * locals, {@code VectorBlocks}); the page-fault column shows such an allocation (645 faults a run
 * of Q6_K -> bf16 where it stayed, about 1 otherwise). Without either, its CPU time still spread
 * 26-49 ms between JVMs at load 17-24 on 2 cores, as the copy's did 17-32. Compare the CPU figures:
 * on a loaded machine the wall ones mostly time the wait.
 */
public final class GgufSideBySide {
    private static final long OUTPUT_BYTES = 256L << 20;

    private GgufSideBySide() {
    }

    /** Runs every case and prints one line each. */
    public static void main(String[] args) {
        try (Allocator arena = Allocators.shared()) {
            int threads = 1;
            int first = 0;
            if (args.length >= 2 && args[0].equals("--threads")) {
                threads = Integer.parseInt(args[1]);
                first = 2;
            }
            String[] cases = args.length > first ? Arrays.copyOfRange(args, first, args.length)
                    : new String[] {"Q8_0", "Q4_0", "Q4_K", "Q6_K:bf16", "quantize"};
            for (String c : cases) {
                run(arena, c, threads);
            }
        }
    }

    private static void run(Allocator arena, String c, int threads) {
        CopyEngine engine = CopyEngine.of(threads);
        if (c.equals("quantize")) {
            long values = OUTPUT_BYTES / 4;
            MemoryBuffer in = arena.allocate(4 * values, 64);
            Random random = new Random(38);
            for (long i = 0; i < values; i++) {
                in.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) random.nextGaussian());
            }
            MemoryBuffer out = arena.allocate(BlockType.Q8_0.byteSize(values), 64);
            MemoryBuffer copy = arena.allocate(out.byteSize(), 64);
            double[] qm = medians(false, () -> BlockKernels.defaults().quantize(BlockType.Q8_0, in.segment(), 0, out.segment(), 0,
                    values / 32), () -> MemorySegment.copy(out.segment(), 0, copy.segment(), 0, out.byteSize()));
            double q = qm[0];
            double m = qm[1];
            System.out.printf("f32 -> Q8_0   %4d MiB in  %8.1f ms  %6.0f MiB/s of input; copy of the %d MiB output %6.1f ms;"
                    + " CPU %.1f / %.1f ms; page faults a run %.0f / %.0f%n", 4 * values >> 20, q, (4 * values >> 20) / q * 1000,
                    out.byteSize() >> 20, m, qm[2], qm[3], qm[4], qm[5]);
            return;
        }
        // TYPE (to f32) or TYPE:bf16, TYPE:f16
        String into = c.contains(":") ? c.substring(c.indexOf(':') + 1) : "f32";
        BlockType type = BlockType.fromName(c.contains(":") ? c.substring(0, c.indexOf(':')) : c);
        long values = OUTPUT_BYTES / (into.equals("f32") ? 4 : 2);
        MemoryBuffer blocks = arena.allocate(type.byteSize(values), 64);
        fill(blocks.segment(), type, values);
        MemoryBuffer out = arena.allocate(OUTPUT_BYTES, 64);
        MemoryBuffer copy = arena.allocate(OUTPUT_BYTES, 64);
        out.segment().fill((byte) 1);
        copy.segment().fill((byte) 1);
        // Through the planner's dequantize steps, as a user's BlockTensor.dequantize goes, on the engine's threads.
        long cols = 4096;
        BlockTensor t = BlockTensor.of(blocks, type, values / cols, cols);
        TensorView dst = TensorView.of(out, into + "[" + values / cols + "," + cols + "]");
        Runnable dequantize = () -> t.dequantize(dst, engine);
        double[] dm;
        try (ParallelCopy baseline = new ParallelCopy(out.segment(), copy.segment(), threads)) {
            dm = medians(threads > 1, dequantize, baseline::run);
        }
        double d = dm[0];
        double m = dm[1];
        System.out.printf("%-5s -> %-4s %4d MiB out %8.1f ms  %6.0f MiB/s of output; MemorySegment.copy %6.1f ms: ratio %.2f;"
                + " CPU %.1f / %.1f ms: ratio %.2f; page faults a run %.0f / %.0f%n", type, into,
                OUTPUT_BYTES >> 20, d, (OUTPUT_BYTES >> 20) / d * 1000, m, m / d, dm[2], dm[3], dm[3] / dm[2], dm[4], dm[5]);
    }

    /** Random blocks whose f16 scales are small finite numbers, as real weights have. */
    private static void fill(MemorySegment blocks, BlockType type, long values) {
        Random random = new Random(38);
        byte[] chunk = new byte[1 << 20];
        for (long at = 0; at < blocks.byteSize(); at += chunk.length) {
            random.nextBytes(chunk);
            MemorySegment.copy(chunk, 0, blocks, ValueLayout.JAVA_BYTE, at, (int) Math.min(chunk.length, blocks.byteSize() - at));
        }
        int[] scales = switch (type) {
            case Q8_0, Q4_0, Q5_0 -> new int[] {0};
            case Q4_1, Q5_1, Q4_K, Q5_K -> new int[] {0, 2};
            case Q2_K -> new int[] {80, 82};
            case Q3_K -> new int[] {108};
            case Q6_K -> new int[] {208};
            default -> new int[0];
        };
        for (long b = 0; b < values / type.blockValues(); b++) {
            for (int at : scales) {
                blocks.set(ValueLayout.JAVA_SHORT_UNALIGNED, b * type.blockBytes() + at, Float.floatToFloat16(random.nextFloat() * 0.01f));
            }
        }
    }

    /**
     * {@return the median wall milliseconds of {@code a} and of {@code b}, run in turn, then their
     * median CPU milliseconds (on this thread, or with {@code process} the process's, which a
     * multi-threaded engine needs), then the process's mean page faults (minor and major)
     * a run of each} On a shared machine the CPU time is the steadier figure; on one thread it is all the work
     * because the engine's one thread is this one. Faults show a kernel that allocates as it runs:
     * both sides write memory touched in the warm-up, so a run of either should fault next to never.
     */
    private static double[] medians(boolean process, Runnable a, Runnable b) {
        java.lang.management.ThreadMXBean threadCpu = java.lang.management.ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean processCpu =
                (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        java.util.function.LongSupplier cpu = process ? processCpu::getProcessCpuTime : threadCpu::getCurrentThreadCpuTime;
        for (int i = 0; i < 2; i++) {
            a.run();
            b.run();
        }
        double[] ta = new double[5];
        double[] tb = new double[5];
        double[] ca = new double[5];
        double[] cb = new double[5];
        long fa = 0;
        long fb = 0;
        for (int i = 0; i < ta.length; i++) {
            long f0 = pageFaults();
            long c0 = cpu.getAsLong();
            long t0 = System.nanoTime();
            a.run();
            long t1 = System.nanoTime();
            long c1 = cpu.getAsLong();
            long f1 = pageFaults();
            b.run();
            long t2 = System.nanoTime();
            long c2 = cpu.getAsLong();
            long f2 = pageFaults();
            fa += f1 - f0;
            fb += f2 - f1;
            ta[i] = (t1 - t0) / 1e6;
            tb[i] = (t2 - t1) / 1e6;
            ca[i] = (c1 - c0) / 1e6;
            cb[i] = (c2 - c1) / 1e6;
        }
        Arrays.sort(ta);
        Arrays.sort(tb);
        Arrays.sort(ca);
        Arrays.sort(cb);
        return new double[] {ta[ta.length / 2], tb[tb.length / 2], ca[ca.length / 2], cb[cb.length / 2],
            (double) fa / ta.length, (double) fb / tb.length};
    }

    /** {@return the process's minor plus major page faults so far, from /proc/self/stat (Linux), or 0 where it cannot be read} */
    private static long pageFaults() {
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/stat"));
            // After the command name, which is in parentheses and may hold spaces: state is field 3,
            // minflt field 10, majflt field 12.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[7]) + Long.parseLong(f[9]);
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
    }
}
