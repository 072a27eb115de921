package dev.tensorbuf.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.net.internal.LargeFrames;
import dev.tensorbuf.testing.PythonPeer;
import dev.tensorbuf.views.TensorView;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TensorClient} offers to read DATA frames of 256 KiB (internal.LargeFrames), and servers
 * then send them: seen on the wire by a proxy between client and server that reads the HTTP/2
 * frames of both directions. pyarrow's client offers 4 MiB of its own: batches lent straight from
 * the file reach it whole.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LargeFramesTest {
    @TempDir
    Path dir;

    /** HTTP/2 frames seen going one way: type, length, and SETTINGS' pairs. */
    static final class Frames {
        final List<int[]> frames = new ArrayList<>();   // {type, length}
        final List<long[]> settings = new ArrayList<>(); // {id, value}

        synchronized int largestData() {
            return frames.stream().filter(f -> f[0] == 0).mapToInt(f -> f[1]).max().orElse(0);
        }

        synchronized List<long[]> settings() {
            return List.copyOf(settings);
        }
    }

    /** Copies {@code in} to {@code out}, reading the HTTP/2 frames that pass (after the client's 24-byte preface, if {@code preface}). */
    static void pump(InputStream in, OutputStream out, boolean preface, Frames seen) {
        try (in; out) {
            DataInputStream d = new DataInputStream(in);
            if (preface) {
                byte[] magic = new byte[24];
                d.readFully(magic);
                out.write(magic);
            }
            byte[] header = new byte[9];
            while (true) {
                d.readFully(header);
                int length = (header[0] & 0xff) << 16 | (header[1] & 0xff) << 8 | header[2] & 0xff;
                int type = header[3] & 0xff;
                byte[] payload = new byte[length];
                d.readFully(payload);
                synchronized (seen) {
                    seen.frames.add(new int[] {type, length});
                    if (type == 4) {
                        for (int i = 0; i + 6 <= length; i += 6) {
                            long id = (payload[i] & 0xff) << 8 | payload[i + 1] & 0xff;
                            long value = (payload[i + 2] & 0xffL) << 24 | (payload[i + 3] & 0xff) << 16
                                    | (payload[i + 4] & 0xff) << 8 | payload[i + 5] & 0xff;
                            seen.settings.add(new long[] {id, value});
                        }
                    }
                }
                out.write(header);
                out.write(payload);
            }
        } catch (IOException end) {
            // a side closed
        }
    }

    @Test
    void theClientOffersLargeFramesAndTheServerSendsThemWithTheSameBytes() throws Exception {
        try (Allocator arena = Allocators.shared()) {
            TensorView x = TensorClientTest.counting(arena, 1024, 2048); // 8 MiB
            Npy.write(dir.resolve("x.npy"), DenseTensor.of(x));
            Frames up = new Frames();
            Frames down = new Frames();
            try (TensorServer server = TensorServer.start(dir, TensorServer.Options.defaults().withPort(0).withBatchBytes(1 << 20));
                 ServerSocket proxy = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                Thread.ofPlatform().daemon().start(() -> {
                    try {
                        Socket c = proxy.accept();
                        Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
                        Thread.ofPlatform().daemon().start(() -> pump(uncheck(c::getInputStream), uncheck(s::getOutputStream), true, up));
                        pump(s.getInputStream(), c.getOutputStream(), false, down);
                    } catch (IOException e) {
                        // the test fails on the fetch
                    }
                });
                try (TensorClient client = TensorClient.connect(URI.create("grpc+tcp://127.0.0.1:" + proxy.getLocalPort()),
                        TensorClient.Options.defaults().withTimeout(Duration.ofSeconds(60)))) {
                    TensorView got = client.fetch(TensorTicket.of("x.npy", ""), arena);
                    assertEquals(-1, x.buffer().segment().mismatch(got.buffer().segment()));
                }
            }
            assertTrue(up.settings().stream().anyMatch(s -> s[0] == 5 && s[1] == LargeFrames.MAX_FRAME_SIZE),
                    "the client's SETTINGS offer MAX_FRAME_SIZE " + LargeFrames.MAX_FRAME_SIZE);
            // HTTP/2's default is 16 KiB; the server may send up to the offer, as its window allows.
            assertTrue(down.largestData() > 16384, "largest DATA frame " + down.largestData());
            assertTrue(down.largestData() <= LargeFrames.MAX_FRAME_SIZE, "largest DATA frame " + down.largestData());
        }
    }

    @Test
    void pyarrowsClientReadsAWholeTensorSentInBatchesOverItsOwnLargeFrames() throws Exception {
        PythonPeer.assumeModules("numpy", "pyarrow", "pyarrow.flight");
        try (Allocator arena = Allocators.shared()) {
            Path served = Files.createDirectories(dir.resolve("served"));
            Npy.write(served.resolve("x.npy"), DenseTensor.of(TensorClientTest.counting(arena, 1024, 2048))); // 8 MiB
            try (TensorServer server = TensorServer.start(served, TensorServer.Options.defaults().withPort(0)
                    .withBatchBytes(3 << 20))) {
                String out = PythonPeer.runScript("/peers/arrow_peer.py", Files.createDirectories(dir.resolve("py")), "flight-get",
                        Integer.toString(server.port()), "{\"path\": \"x.npy\"}", served.resolve("x.npy").toString());
                assertEquals("ok 1024 3", out.strip(), "1024 rows in batches of 384, 384 and 256 (3 MiB, 3 MiB, 2 MiB)");
            }
        }
    }

    interface IoSupplier<T> {
        T get() throws IOException;
    }

    static <T> T uncheck(IoSupplier<T> s) {
        try {
            return s.get();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
