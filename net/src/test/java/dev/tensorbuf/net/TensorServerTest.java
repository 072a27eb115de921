package dev.tensorbuf.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TensorServerTest {
    @TempDir
    static Path root;
    static Path served;
    static Allocator arena;
    /** x.npy: f32[8,3,4] of 0.5 * i. */
    static TensorView x;
    /** m.safetensors:w: s32[6,5] of 7 * i - 50. */
    static TensorView w;
    static TensorServer server;
    static TensorClient client;

    @BeforeAll
    static void serve() throws Exception {
        arena = Allocators.shared();
        served = Files.createDirectories(root.resolve("served"));
        x = TensorView.strided(arena.allocate(8 * 3 * 4 * 4), DType.F32, StridedLayout.packed(8, 3, 4));
        double[] xs = new double[96];
        for (int i = 0; i < xs.length; i++) {
            xs[i] = 0.5 * i;
        }
        TensorElements.of(x).copyFrom(xs);
        Npy.write(served.resolve("x.npy"), DenseTensor.of(x));
        w = TensorView.strided(arena.allocate(6 * 5 * 4), DType.S32, StridedLayout.packed(6, 5));
        long[] ws = new long[30];
        for (int i = 0; i < ws.length; i++) {
            ws[i] = 7L * i - 50;
        }
        TensorElements.of(w).copyFrom(ws);
        TensorView b = TensorView.of(arena.allocate(8), "bf16[2,2]{1,0}");
        Map<String, DenseTensor> m = new LinkedHashMap<>();
        m.put("w", DenseTensor.of(w));
        m.put("b", DenseTensor.of(b));
        SafetensorsFile.write(served.resolve("m.safetensors"), m);
        Files.createDirectories(served.resolve("sub"));
        Npy.write(served.resolve("sub/y.npy"), DenseTensor.of(w));
        Npy.write(root.resolve("secret.npy"), DenseTensor.of(w));
        Files.createSymbolicLink(served.resolve("out.npy"), root.resolve("secret.npy"));
        server = TensorServer.start(served, TensorServer.Options.defaults().withPort(0));
        client = TensorClient.connect(URI.create(server.location().getUri().toString()),
                TensorClient.Options.defaults().withTimeout(Duration.ofSeconds(60)));
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
        arena.close();
    }

    static TensorView slice(TensorView v, long[] lo, long[] hi) {
        long[] step = new long[lo.length];
        java.util.Arrays.fill(step, 1);
        return Ops.slice(v, lo, hi, step);
    }

    @Test
    void servesLoopbackOnly() {
        assertEquals("127.0.0.1", server.location().getUri().getHost());
    }

    @Test
    void fetchesAWholeTensorAndABox() {
        TensorView all = client.fetch(TensorTicket.of("x.npy", ""), arena);
        assertEquals(List.of(8L, 3L, 4L), all.dims());
        assertArrayEquals(TensorElements.of(x).toFloatArray(), TensorElements.of(all).toFloatArray());
        TensorView box = client.fetch(TensorTicket.of("m.safetensors", "w").withBox(List.of(2L, 1L), List.of(5L, 4L)), arena);
        assertEquals(List.of(3L, 3L), box.dims());
        assertArrayEquals(TensorElements.of(slice(w, new long[] {2, 1}, new long[] {5, 4})).toLongArray(), TensorElements.of(box).toLongArray());
    }

    @Test
    void writesIntoADestinationOfAnyLayout() {
        TensorView columnMajor = TensorView.of(arena.allocate(8 * 3 * 4 * 8), "f64[8,3,4]{0,1,2}");
        client.fetch(TensorTicket.of("x.npy", ""), columnMajor, n -> { });
        assertArrayEquals(TensorElements.of(x).toDoubleArray(), TensorElements.of(columnMajor).toDoubleArray());
    }

    @Test
    @SuppressWarnings("try") // Flight's close() declares InterruptedException; no test thread is interrupted
    void chunksLargeTensorsIntoBatches() throws Exception {
        try (TensorServer small = TensorServer.start(served, TensorServer.Options.defaults().withPort(0).withBatchBytes(100));
             BufferAllocator a = ArrowTensors.allocator();
             FlightClient raw = FlightClient.builder(a, small.location()).build();
             FlightStream stream = raw.getStream(new Ticket(TensorTicket.of("x.npy", "").toBytes()))) {
            List<Integer> rows = new ArrayList<>();
            while (stream.next()) {
                rows.add(stream.getRoot().getRowCount());
            }
            assertEquals(List.of(2, 2, 2, 2), rows, "100-byte batches hold 2 rows of 12 floats (48 bytes each)");
        }
    }

    @Test
    void listsTensorsWithTypeAndDims() {
        List<String> listed = client.list().stream().map(l -> l.ticket().describe() + " " + l.dtype() + l.dims()).toList();
        assertEquals(List.of("m.safetensors:w s32[6, 5]", "sub/y.npy s32[6, 5]", "x.npy f32[8, 3, 4]"), listed);
    }

    static FlightRuntimeException refused(String ticketJson) {
        TensorClient.FetchException e = assertThrows(TensorClient.FetchException.class,
                () -> client.fetch(TensorTicket.parse(ticketJson.getBytes(StandardCharsets.UTF_8)), arena));
        assertTrue(e.getCause() instanceof FlightRuntimeException, e.toString());
        assertTrue(e.getMessage().contains(server.location().getUri().toString()), e.getMessage());
        return (FlightRuntimeException) e.getCause();
    }

    @Test
    void refusesPathsLeavingTheDirectory() {
        FlightRuntimeException e = refused("{\"path\": \"../secret.npy\"}");
        assertEquals(FlightStatusCode.UNAUTHORIZED, e.status().code());
        assertEquals("path '../secret.npy' climbs out of the served directory with '..'", e.status().description());
        e = refused("{\"path\": \"" + root.resolve("secret.npy") + "\"}");
        assertEquals(FlightStatusCode.UNAUTHORIZED, e.status().code());
        assertTrue(e.status().description().endsWith("is absolute; name a file relative to the served directory"));
        e = refused("{\"path\": \"out.npy\"}");
        assertEquals(FlightStatusCode.UNAUTHORIZED, e.status().code());
        assertEquals("path 'out.npy' is a symlink leading out of the served directory", e.status().description());
        e = refused("{\"path\": \"nothere.npy\"}");
        assertEquals(FlightStatusCode.NOT_FOUND, e.status().code());
        assertEquals("no file 'nothere.npy' in the served directory", e.status().description());
    }

    @Test
    void refusesTicketsAboveTheByteLimitBeforeReading() throws Exception {
        try (TensorServer limited = TensorServer.start(served, TensorServer.Options.defaults().withPort(0).withMaxTicketBytes(200));
             TensorClient c = TensorClient.connect(URI.create(limited.location().getUri().toString()), TensorClient.Options.defaults())) {
            TensorClient.FetchException e = assertThrows(TensorClient.FetchException.class, () -> c.fetch(TensorTicket.of("x.npy", ""), arena));
            assertEquals("fetching x.npy from " + limited.location().getUri() + " failed: RESOURCE_EXHAUSTED: x.npy: asks for"
                    + " 384 bytes, more than this server's limit of 200 bytes per ticket; ask for smaller boxes", e.getMessage());
            TensorView rows = c.fetch(TensorTicket.of("x.npy", "").withBox(List.of(4L, 0L, 0L), List.of(8L, 3L, 1L)), arena);
            assertArrayEquals(TensorElements.of(slice(x, new long[] {4, 0, 0}, new long[] {8, 3, 1})).toFloatArray(), TensorElements.of(rows).toFloatArray());
        }
    }

    @Test
    @SuppressWarnings("try") // Flight's close() declares InterruptedException; no test thread is interrupted
    void badTicketsGetClearErrorsAndTheServerLives() throws Exception {
        String[][] cases = {
            {"not json", "INVALID_ARGUMENT: ticket is not JSON"},
            {"[1, 2]", "INVALID_ARGUMENT: ticket is not a JSON object"},
            {"{\"path\": 3}", "INVALID_ARGUMENT: ticket: \"path\" must be a string"},
            {"{\"path\": \"x.npy\", \"pth\": 1}", "INVALID_ARGUMENT: ticket: unknown key 'pth'"},
            {"{\"path\": \"x.npy\", \"start\": [0, 0, 0], \"limit\": [9, 1, 1]}",
                "INVALID_ARGUMENT: x.npy[0:9, 0:1, 0:1]: limit 9 of dim 0 is past its size 8 (dims [8, 3, 4])"},
            {"{\"path\": \"x.npy\", \"start\": [0], \"limit\": [1]}",
                "INVALID_ARGUMENT: x.npy[0:1]: the box has 1 dims, the tensor 3 [8, 3, 4]"},
            {"{\"path\": \"m.safetensors\"}", "INVALID_ARGUMENT: 'm.safetensors' holds 2 tensors; name one in \"tensor\": [w, b]"},
            {"{\"path\": \"m.safetensors\", \"tensor\": \"b\"}", "INVALID_ARGUMENT: m.safetensors:b: bf16 has no Arrow element type"},
            {"{\"path\": \"m.safetensors\", \"tensor\": \"q\"}", "NOT_FOUND: 'm.safetensors' has no tensor 'q'"},
            {"{\"path\": \"x.npy/\"}", "INVALID_ARGUMENT: path 'x.npy/' ends with a separator; name a file"},
            {"{\"path\": \"x.npy//.\"}", "INVALID_ARGUMENT: path 'x.npy//.' ends with '.', a directory; name a file"},
        };
        try (BufferAllocator a = ArrowTensors.allocator();
             FlightClient raw = FlightClient.builder(a, server.location()).build()) {
            for (String[] c : cases) {
                FlightRuntimeException e = assertThrows(FlightRuntimeException.class, () -> {
                    try (FlightStream s = raw.getStream(new Ticket(c[0].getBytes(StandardCharsets.UTF_8)))) {
                        while (s.next()) {
                            // drain
                        }
                    }
                }, c[0]);
                String got = e.status().code() + ": " + e.status().description();
                assertTrue(got.startsWith(c[1]), c[0] + " -> " + got);
            }
        }
        assertArrayEquals(TensorElements.of(x).toFloatArray(), TensorElements.of(client.fetch(TensorTicket.of("x.npy", ""), arena)).toFloatArray(),
                "the server still serves");
    }
}
