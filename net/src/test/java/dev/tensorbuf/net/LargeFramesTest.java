package dev.tensorbuf.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.net.internal.LargeFrames;
import dev.tensorbuf.views.TensorView;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TensorClient} offers to read DATA frames of 1 MiB (internal.LargeFrames), and servers then
 * send them: seen on the wire by a proxy between client and server that reads the HTTP/2 frames of
 * both directions. The client gathers a frame spread over many socket reads without copying it
 * into one buffer: the proxy can pass the server's bytes on in small odd pieces, so that frames
 * and messages end inside reads, and the fetched bytes must still be the tensor's.
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

        synchronized long dataFrames() {
            return frames.stream().filter(f -> f[0] == 0 && f[1] > 0).count();
        }

        synchronized List<long[]> settings() {
            return List.copyOf(settings);
        }
    }

    /**
     * Copies {@code in} to {@code out}, reading the HTTP/2 frames that pass (after the client's
     * 24-byte preface, if {@code preface}); with {@code piece} above 0, writes each frame's payload on
     * in pieces of that many bytes.
     */
    static void pump(InputStream in, OutputStream out, boolean preface, Frames seen, int piece) {
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
                if (piece <= 0) {
                    out.write(payload);
                    continue;
                }
                // Never holding bytes back: a server may be waiting for the window this frame's end returns.
                for (int at = 0; at < length; at += piece) {
                    out.write(payload, at, Math.min(piece, length - at));
                    out.flush();
                }
            }
        } catch (IOException end) {
            // a side closed
        }
    }

    /** Fetches {@code x.npy} through a proxy that records the frames both ways; {@return the frames the server sent} */
    private Frames fetchThroughProxy(TensorView x, Allocator arena, long batchBytes, int piece, Frames up) throws Exception {
        Npy.write(dir.resolve("x.npy"), DenseTensor.of(x));
        Frames down = new Frames();
        try (TensorServer server = TensorServer.start(dir, TensorServer.Options.defaults().withPort(0).withBatchBytes(batchBytes));
             ServerSocket proxy = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread.ofPlatform().daemon().start(() -> {
                try {
                    Socket c = proxy.accept();
                    Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
                    c.setTcpNoDelay(true);
                    s.setTcpNoDelay(true);
                    Thread.ofPlatform().daemon().start(() -> pump(uncheck(c::getInputStream), uncheck(s::getOutputStream), true, up, 0));
                    pump(s.getInputStream(), c.getOutputStream(), false, down, piece);
                } catch (IOException e) {
                    // the test fails on the fetch
                }
            });
            try (TensorClient client = TensorClient.connect(URI.create("grpc+tcp://127.0.0.1:" + proxy.getLocalPort()),
                    TensorClient.Options.defaults().withTimeout(Duration.ofSeconds(60)))) {
                TensorView got = client.fetch(TensorTicket.of("x.npy", ""), arena);
                assertEquals(x.dims(), got.dims());
                assertEquals(-1, x.buffer().segment().mismatch(got.buffer().segment()), "fetched bytes differ");
            }
        }
        return down;
    }

    @Test
    void theClientOffersLargeFramesAndTheServerSendsThemWithTheSameBytes() throws Exception {
        try (Allocator arena = Allocators.shared()) {
            Frames up = new Frames();
            Frames down = fetchThroughProxy(TensorClientTest.counting(arena, 1024, 2048), arena, 1 << 20, 0, up); // 8 MiB
            assertTrue(up.settings().stream().anyMatch(s -> s[0] == 5 && s[1] == LargeFrames.MAX_FRAME_SIZE),
                    "the client's SETTINGS offer MAX_FRAME_SIZE " + LargeFrames.MAX_FRAME_SIZE);
            // HTTP/2's default is 16 KiB; the server may send up to the offer, as its window allows.
            assertTrue(down.largestData() > 16384, "largest DATA frame " + down.largestData());
            assertTrue(down.largestData() <= LargeFrames.MAX_FRAME_SIZE, "largest DATA frame " + down.largestData());
            // 8 MiB at 16 KiB a frame would be at least 512 frames.
            assertTrue(down.dataFrames() < 512, down.dataFrames() + " DATA frames for 8 MiB");
        }
    }

    @Test
    void framesAndMessagesEndingInsideSocketReadsArriveWhole() throws Exception {
        try (Allocator arena = Allocators.shared()) {
            // 3 MiB batches in 1 MiB frames passed on 7,777 bytes at a time: a frame takes many of the
            // client's reads, and gRPC messages and batches begin and end inside frames.
            Frames down = fetchThroughProxy(TensorClientTest.counting(arena, 1000, 2048), arena, 3 << 20, 7777, new Frames());
            assertTrue(down.largestData() > 7777 * 2, "largest DATA frame " + down.largestData());
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
