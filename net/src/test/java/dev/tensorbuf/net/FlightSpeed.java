package dev.tensorbuf.net;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The speed harness of {@code bench/peers/flight_speed.sh} (not a test): fetches an f32 tensor of
 * {@code MiB} mebibytes over loopback into one preallocated buffer, from one tensorbuf server,
 * from two at once (each serving half the rows), and from a pyarrow.flight server in Python
 * serving the same array, beside {@code MemorySegment.copy} of the same bytes. Prints one line
 * per case: best and median GB/s of {@code reps} runs.
 *
 * <p>Usage: {@code FlightSpeed DIR MiB REPS PYTHON PY_SERVER_SCRIPT [BATCH_BYTES]}
 */
public final class FlightSpeed {
    private FlightSpeed() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long mib = Long.parseLong(args[1]);
        int reps = Integer.parseInt(args[2]);
        String python = args[3];
        String pyServer = args[4];
        long batchBytes = args.length > 5 ? Long.parseLong(args[5]) : TensorServer.Options.defaults().batchBytes();
        long cols = 1024;
        long rows = mib * (1 << 20) / (cols * 4);
        long bytes = rows * cols * 4;
        Path whole = Files.createDirectories(dir.resolve("whole"));
        Path a = Files.createDirectories(dir.resolve("a"));
        Path b = Files.createDirectories(dir.resolve("b"));
        try (Allocator arena = Allocators.shared()) {
            MemoryBuffer src = arena.allocate(bytes);
            TensorView x = TensorView.strided(src, DType.F32, StridedLayout.packed(rows, cols));
            MemorySegment s = src.segment();
            for (long i = 0; i < rows * cols; i++) {
                s.setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, i, (float) (i % 1000));
            }
            Npy.write(whole.resolve("x.npy"), DenseTensor.of(x));
            long half = rows / 2;
            Npy.write(a.resolve("x.npy"), new DenseTensor(DType.F32, List.of(half, cols), s.asSlice(0, half * cols * 4)));
            Npy.write(b.resolve("x.npy"), new DenseTensor(DType.F32, List.of(rows - half, cols),
                    s.asSlice(half * cols * 4, (rows - half) * cols * 4)));
            MemoryBuffer dst = arena.allocate(bytes);
            TensorView into = TensorView.strided(dst, DType.F32, StridedLayout.packed(rows, cols));
            System.out.printf(Locale.ROOT, "tensor f32[%d,%d], %d bytes, %d runs each, %d-byte batches, %d cores%n", rows, cols,
                    bytes, reps, batchBytes, Runtime.getRuntime().availableProcessors());

            report("MemorySegment.copy", bytes, reps, () -> MemorySegment.copy(s, 0, dst.segment(), 0, bytes));
            try (TensorServer one = TensorServer.start(whole, TensorServer.Options.defaults().withPort(0).withBatchBytes(batchBytes));
                 TensorClient c = client(one.location().getUri())) {
                report("tensorbuf serve, 1 server", bytes, reps, () -> c.fetch(TensorTicket.of("x.npy", ""), into, n -> { }));
                check(x, into);
            }
            try (TensorServer sa = TensorServer.start(a, TensorServer.Options.defaults().withPort(0).withBatchBytes(batchBytes));
                 TensorServer sb = TensorServer.start(b, TensorServer.Options.defaults().withPort(0).withBatchBytes(batchBytes));
                 TensorClient ca = client(sa.location().getUri());
                 TensorClient cb = client(sb.location().getUri())) {
                report("tensorbuf serve, 2 servers at once", bytes, reps, () -> TensorClient.fetchAll(List.of(
                        new TensorClient.Part(ca, TensorTicket.of("x.npy", ""), List.of(0L, 0L)),
                        new TensorClient.Part(cb, TensorTicket.of("x.npy", ""), List.of(half, 0L))), into));
                check(x, into);
            }
            Process py = new ProcessBuilder(python, pyServer, whole.resolve("x.npy").toString())
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(py.getInputStream(), StandardCharsets.UTF_8));
                String port = out.readLine();
                try (TensorClient c = client(URI.create("grpc+tcp://127.0.0.1:" + port.strip()))) {
                    report("pyarrow.flight server (Python)", bytes, reps, () -> c.fetch(TensorTicket.of("x.npy", ""), into, n -> { }));
                    check(x, into);
                }
            } finally {
                py.destroy();
                py.waitFor();
            }
        }
    }

    private static TensorClient client(URI uri) throws Exception {
        return TensorClient.connect(URI.create(uri.toString()), TensorClient.Options.defaults());
    }

    private static void check(TensorView want, TensorView got) {
        MemorySegment w = want.buffer().segment();
        MemorySegment g = got.buffer().segment();
        if (w.mismatch(g) != -1) {
            throw new AssertionError("fetched bytes differ at " + w.mismatch(g));
        }
        g.fill((byte) 0);
    }

    /**
     * Prints wall-clock GB/s and this JVM's CPU seconds per GiB. The CPU figure holds up on a
     * loaded machine where GB/s does not; with the Python server it is the client's alone, so the
     * difference between rows is what the in-process tensorbuf servers spend.
     */
    private static void report(String what, long bytes, int reps, Runnable run) {
        run.run(); // warm-up
        double[] gbs = new double[reps];
        double[] cpu = new double[reps];
        for (int i = 0; i < reps; i++) {
            long c0 = cpuNanos();
            long t0 = System.nanoTime();
            run.run();
            gbs[i] = bytes / (double) (System.nanoTime() - t0);
            cpu[i] = (cpuNanos() - c0) / 1e9 / (bytes / (double) (1L << 30));
        }
        Arrays.sort(gbs);
        Arrays.sort(cpu);
        System.out.printf(Locale.ROOT, "%-36s best %6.2f GB/s, median %6.2f GB/s, JVM CPU median %5.2f s/GiB%n", what,
                gbs[reps - 1], gbs[reps / 2], cpu[reps / 2]);
    }

    private static long cpuNanos() {
        return ProcessHandle.current().info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(0L);
    }

}
