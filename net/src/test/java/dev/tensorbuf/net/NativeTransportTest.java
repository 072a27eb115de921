package dev.tensorbuf.net;

import static dev.tensorbuf.net.TensorClientTest.counting;
import static dev.tensorbuf.net.TensorClientTest.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.views.TensorView;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's transport, seen from outside by its event-loop threads' names: gRPC's epoll loops
 * ({@code grpc-default-worker-ELG-...}) on Linux x86-64, where the native library ships, and its
 * NIO loops ({@code grpc-nio-worker-ELG-...}) when that library cannot be loaded (here: Netty may
 * not unpack it into its work directory), the server then serving all the same.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NativeTransportTest {
    private static final boolean LINUX_X86_64 = System.getProperty("os.name").toLowerCase(Locale.ROOT).startsWith("linux")
            && List.of("amd64", "x86_64").contains(System.getProperty("os.arch"));

    @TempDir
    Path dir;

    @Test
    void epollWhereItsLibraryLoads() throws Exception {
        assumeTrue(LINUX_X86_64, "the epoll library shipped is for Linux x86-64; this is "
                + System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        assertEquals("grpc-default-wo", serveAndFetch("default", List.of()));
    }

    @Test
    void nioWhenTheNativeLibraryCannotLoad() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "thread names are read from /proc");
        assertEquals("grpc-nio-worker", serveAndFetch("nio", List.of("-Dio.netty.native.workdir=/proc/nonexistent")));
    }

    /** {@return the name (as Linux truncates it) of the server's thread that sent a fetched tensor, checked whole} */
    private String serveAndFetch(String name, List<String> jvmOptions) throws Exception {
        Path served = Files.createDirectories(dir.resolve(name));
        Path portFile = dir.resolve(name + ".port");
        Path log = dir.resolve(name + ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED",
                "--add-opens=java.base/java.nio=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx256m",
                "-XX:TieredStopAtLevel=1"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ServeMain.class.getName(), served.toString(),
                portFile.toString(), Integer.toString(1 << 16)));
        try (Allocator arena = Allocators.shared()) {
            TensorView x = counting(arena, 300, 257);
            Npy.write(served.resolve("x.npy"), DenseTensor.of(x));
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                URI uri = ReshardAcrossProcessesTest.awaitPort(p, portFile, log);
                try (TensorClient c = TensorClient.connect(uri, TensorClient.Options.defaults())) {
                    TensorView got = c.fetch(TensorTicket.of("x.npy", ""), arena);
                    assertEquals(-1, x.buffer().segment().mismatch(got.buffer().segment()), "the fetched bytes");
                }
                List<String> loops = threadNames(p.pid()).stream().filter(t -> t.startsWith("grpc-") && t.contains("wo")).toList();
                assertTrue(p.isAlive(), () -> "the server ended: " + read(log));
                assertEquals(1, loops.stream().distinct().count(), () -> "one kind of worker loop: " + loops + "; " + read(log));
                return loops.getFirst();
            } finally {
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    private static List<String> threadNames(long pid) throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            return tasks.map(t -> {
                try {
                    return Files.readString(t.resolve("comm")).strip();
                } catch (IOException gone) {
                    return "";
                }
            }).toList();
        }
    }
}
