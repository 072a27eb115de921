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
import java.lang.foreign.ValueLayout;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The speed harness of {@code bench/peers/flight_speed.sh} (not a test): serves an f32 tensor of
 * {@code MiB} mebibytes over loopback from tensorbuf servers and from a pyarrow.flight server,
 * each in a process of its own, and fetches it with the same clients from each: TensorClient in
 * this JVM (into one preallocated buffer) and pyarrow.flight's client in Python
 * ({@code flight_client.py}, into one preallocated ndarray). The cases take turns, one fetch each
 * per round, so that a busy machine slows them alike. Prints per case the best and median GB/s and
 * the median CPU seconds per GiB of the client and of the server(s), beside
 * {@code MemorySegment.copy} of the same bytes.
 *
 * <p>Usage: {@code FlightSpeed DIR MiB ROUNDS PYTHON PY_SERVER PY_CLIENT BATCH_BYTES JAVA_OPTS...}
 * (JAVA_OPTS: the server JVMs' options, e.g. {@code --enable-native-access=ALL-UNNAMED})
 */
public final class FlightSpeed {
    private FlightSpeed() {
    }

    /** A server process and its address. */
    private record Server(Process process, URI uri) {
        long cpuNanos() {
            return process.info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(0L);
        }
    }

    /** One fetch's figures: seconds, client CPU seconds, server(s) CPU seconds, the client JVM's page faults. */
    private record Sample(double seconds, double clientCpu, double serverCpu, long clientFaults) {
        Sample(double seconds, double clientCpu, double serverCpu) {
            this(seconds, clientCpu, serverCpu, -1);
        }
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long mib = Long.parseLong(args[1]);
        int rounds = Integer.parseInt(args[2]);
        String python = args[3];
        String pyServer = args[4];
        String pyClient = args[5];
        long batchBytes = Long.parseLong(args[6]);
        List<String> javaOpts = List.of(args).subList(7, args.length);
        long cols = 1024;
        long rows = mib * (1 << 20) / (cols * 4);
        long bytes = rows * cols * 4;
        double gib = bytes / (double) (1L << 30);
        Path whole = Files.createDirectories(dir.resolve("whole"));
        Path a = Files.createDirectories(dir.resolve("a"));
        Path b = Files.createDirectories(dir.resolve("b"));
        List<Server> servers = new ArrayList<>();
        try (Allocator arena = Allocators.shared()) {
            MemoryBuffer src = arena.allocate(bytes);
            TensorView x = TensorView.strided(src, DType.F32, StridedLayout.packed(rows, cols));
            MemorySegment s = src.segment();
            for (long i = 0; i < rows * cols; i++) {
                s.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) (i % 1000));
            }
            Npy.write(whole.resolve("x.npy"), DenseTensor.of(x));
            long half = rows / 2;
            Npy.write(a.resolve("x.npy"), new DenseTensor(DType.F32, List.of(half, cols), s.asSlice(0, half * cols * 4)));
            Npy.write(b.resolve("x.npy"), new DenseTensor(DType.F32, List.of(rows - half, cols),
                    s.asSlice(half * cols * 4, (rows - half) * cols * 4)));
            MemoryBuffer dst = arena.allocate(bytes);
            TensorView into = TensorView.strided(dst, DType.F32, StridedLayout.packed(rows, cols));
            System.out.printf(Locale.ROOT, "tensor f32[%d,%d], %d bytes, %d rounds, %d-byte batches, %d cores, servers in"
                    + " processes of their own%n", rows, cols, bytes, rounds, batchBytes, Runtime.getRuntime().availableProcessors());
            Sample copy = time(() -> MemorySegment.copy(s, 0, dst.segment(), 0, bytes), List.of());
            for (int i = 0; i < 3; i++) {
                Sample c = time(() -> MemorySegment.copy(s, 0, dst.segment(), 0, bytes), List.of());
                copy = c.seconds() < copy.seconds() ? c : copy;
            }
            System.out.printf(Locale.ROOT, "%-44s best %6.2f GB/s%n", "MemorySegment.copy", bytes / copy.seconds() / 1e9);

            Server ours = java(dir, whole, "whole", batchBytes, javaOpts);
            Server oursA = java(dir, a, "a", batchBytes, javaOpts);
            Server oursB = java(dir, b, "b", batchBytes, javaOpts);
            Server py = python(python, pyServer, whole.resolve("x.npy"));
            servers.addAll(List.of(ours, oursA, oursB, py));
            Map<String, List<Sample>> samples = new LinkedHashMap<>();
            try (TensorClient c1 = client(ours.uri());
                 TensorClient ca = client(oursA.uri());
                 TensorClient cb = client(oursB.uri());
                 TensorClient cp = client(py.uri())) {
                Map<String, Runnable> javaCases = new LinkedHashMap<>();
                Map<String, List<Server>> javaServers = new LinkedHashMap<>();
                javaCases.put("TensorClient <- tensorbuf serve", () -> c1.fetch(TensorTicket.of("x.npy", ""), into, n -> { }));
                javaServers.put("TensorClient <- tensorbuf serve", List.of(ours));
                javaCases.put("TensorClient <- pyarrow.flight server", () -> cp.fetch(TensorTicket.of("x.npy", ""), into, n -> { }));
                javaServers.put("TensorClient <- pyarrow.flight server", List.of(py));
                javaCases.put("TensorClient <- 2 tensorbuf servers at once", () -> TensorClient.fetchAll(List.of(
                        new TensorClient.Part(ca, TensorTicket.of("x.npy", ""), List.of(0L, 0L)),
                        new TensorClient.Part(cb, TensorTicket.of("x.npy", ""), List.of(half, 0L))), into));
                javaServers.put("TensorClient <- 2 tensorbuf servers at once", List.of(oursA, oursB));
                for (Map.Entry<String, Runnable> e : javaCases.entrySet()) {
                    e.getValue().run(); // warm-up, and the check
                    check(x, into);
                    e.getValue().run();
                }
                for (int r = 0; r < rounds; r++) {
                    for (Map.Entry<String, Runnable> e : javaCases.entrySet()) {
                        samples.computeIfAbsent(e.getKey(), k -> new ArrayList<>())
                                .add(time(e.getValue(), javaServers.get(e.getKey())));
                    }
                    samples.computeIfAbsent("pyarrow client <- tensorbuf serve", k -> new ArrayList<>())
                            .addAll(pythonClient(python, pyClient, ours, rows, cols));
                    samples.computeIfAbsent("pyarrow client <- pyarrow.flight server", k -> new ArrayList<>())
                            .addAll(pythonClient(python, pyClient, py, rows, cols));
                }
                check(x, into);
            }
            for (Map.Entry<String, List<Sample>> e : samples.entrySet()) {
                List<Sample> l = e.getValue();
                double[] gbs = l.stream().mapToDouble(v -> bytes / v.seconds() / 1e9).sorted().toArray();
                double client = median(l.stream().mapToDouble(v -> v.clientCpu() / gib).toArray());
                double server = median(l.stream().mapToDouble(v -> v.serverCpu() / gib).toArray());
                double faults = median(l.stream().mapToDouble(v -> v.clientFaults() / gib).toArray());
                System.out.printf(Locale.ROOT, "%-44s best %6.2f GB/s, median %6.2f GB/s, CPU s/GiB: client %5.2f, server %5.2f"
                        + " (%d fetches)%s%n", e.getKey(), gbs[gbs.length - 1], median(gbs), client, server, l.size(),
                        faults < 0 ? "" : String.format(Locale.ROOT, "; client page faults/GiB %.0f", faults));
            }
        } finally {
            for (Server v : servers) {
                v.process().destroy();
                v.process().waitFor();
            }
        }
    }

    private static Server java(Path dir, Path served, String name, long batchBytes, List<String> javaOpts) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path portFile = dir.resolve(name + ".port");
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(javaOpts);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ServeMain.class.getName(), served.toString(),
                portFile.toString(), Long.toString(batchBytes)));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT)
                .redirectOutput(ProcessBuilder.Redirect.INHERIT).start();
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (!Files.exists(portFile)) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                p.destroy();
                throw new IllegalStateException("the tensorbuf server over " + served + " did not start");
            }
            Thread.sleep(50);
        }
        return new Server(p, URI.create("grpc+tcp://127.0.0.1:" + Files.readString(portFile).strip()));
    }

    /**
     * {@return {@code pb} without the malloc tunables the harness gives the JVMs, as the tensorbuf
     * launcher does} Python runs as its users run it: glibc's defaults.
     */
    private static ProcessBuilder asUsersRunIt(ProcessBuilder pb) {
        pb.environment().remove("GLIBC_TUNABLES");
        return pb;
    }

    private static Server python(String python, String script, Path npy) throws Exception {
        Process p = asUsersRunIt(new ProcessBuilder(python, script, npy.toString())).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String port = out.readLine();
        if (port == null) {
            throw new IllegalStateException("the pyarrow.flight server did not start");
        }
        return new Server(p, URI.create("grpc+tcp://127.0.0.1:" + port.strip()));
    }

    /** Runs the Python client (a warm-up and two timed fetches); its lines give the seconds and its own CPU. */
    private static List<Sample> pythonClient(String python, String script, Server server, long rows, long cols)
            throws Exception {
        long s0 = server.cpuNanos();
        Process p = asUsersRunIt(new ProcessBuilder(python, script, Integer.toString(server.uri().getPort()), Long.toString(rows),
                Long.toString(cols), "2")).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        List<Sample> out = new ArrayList<>();
        List<String> lines = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("the pyarrow client failed against " + server.uri() + ": " + lines);
        }
        // The server's CPU over the run covers the warm-up too: three fetches.
        double serverPerFetch = (server.cpuNanos() - s0) / 1e9 / (lines.size() + 1);
        for (String l : lines) {
            String[] f = l.split(" ");
            out.add(new Sample(Double.parseDouble(f[0]), Double.parseDouble(f[1]), serverPerFetch));
        }
        return out;
    }

    private static TensorClient client(URI uri) throws Exception {
        return TensorClient.connect(uri, TensorClient.Options.defaults());
    }

    private static void check(TensorView want, TensorView got) {
        MemorySegment w = want.buffer().segment();
        MemorySegment g = got.buffer().segment();
        if (w.mismatch(g) != -1) {
            throw new AssertionError("fetched bytes differ at " + w.mismatch(g));
        }
        g.fill((byte) 0);
    }

    private static Sample time(Runnable run, List<Server> servers) {
        long c0 = cpuNanos();
        long s0 = servers.stream().mapToLong(Server::cpuNanos).sum();
        long f0 = minorFaults();
        long t0 = System.nanoTime();
        run.run();
        long t = System.nanoTime() - t0;
        return new Sample(t / 1e9, (cpuNanos() - c0) / 1e9, (servers.stream().mapToLong(Server::cpuNanos).sum() - s0) / 1e9,
                minorFaults() - f0);
    }

    /** {@return this process's minor page faults so far (Linux), or 0}: fresh memory written costs one per page */
    private static long minorFaults() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[7]);
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        java.util.Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    private static long cpuNanos() {
        return ProcessHandle.current().info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(0L);
    }
}
