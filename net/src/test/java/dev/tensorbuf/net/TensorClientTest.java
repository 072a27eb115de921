package dev.tensorbuf.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.testing.PythonPeer;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Clients against servers on loopback: tokens, TLS, several servers, pyarrow, a server killed mid-stream. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TensorClientTest {
    @TempDir
    Path dir;

    static TensorView counting(Allocator arena, long... dims) {
        TensorView v = TensorView.strided(arena.allocate(StridedLayout.packed(dims).elementCount() * 4), DType.F32,
                StridedLayout.packed(dims));
        double[] d = new double[(int) v.elementCount()];
        for (int i = 0; i < d.length; i++) {
            d[i] = i * 0.25 - 3;
        }
        TensorElements.of(v).copyFrom(d);
        return v;
    }

    static TensorView slice(TensorView v, long[] lo, long[] hi) {
        long[] step = new long[lo.length];
        java.util.Arrays.fill(step, 1);
        return Ops.slice(v, lo, hi, step);
    }

    static TensorClient connect(TensorServer s, TensorClient.Options o) throws Exception {
        return TensorClient.connect(URI.create(s.location().getUri().toString()), o.withTimeout(Duration.ofSeconds(60)));
    }

    @Test
    void twoServersEachServingPartAreAssembledInAnyLayout() throws Exception {
        try (Allocator arena = Allocators.shared()) {
            TensorView whole = counting(arena, 8, 3, 5);
            Path a = Files.createDirectories(dir.resolve("a"));
            Path b = Files.createDirectories(dir.resolve("b"));
            Npy.write(a.resolve("part.npy"), DenseTensor.copyOf(slice(whole, new long[] {0, 0, 0}, new long[] {5, 3, 5}), arena));
            Npy.write(b.resolve("part.npy"), DenseTensor.copyOf(slice(whole, new long[] {5, 0, 0}, new long[] {8, 3, 5}), arena));
            try (TensorServer sa = TensorServer.start(a, TensorServer.Options.defaults().withPort(0));
                 TensorServer sb = TensorServer.start(b, TensorServer.Options.defaults().withPort(0).withBatchBytes(64));
                 TensorClient ca = connect(sa, TensorClient.Options.defaults());
                 TensorClient cb = connect(sb, TensorClient.Options.defaults())) {
                TensorView into = TensorView.of(arena.allocate(8 * 3 * 5 * 4), "f32[8,3,5]{0,2,1}");
                TensorClient.fetchAll(List.of(
                        new TensorClient.Part(ca, TensorTicket.of("part.npy", ""), List.of(0L, 0L, 0L)),
                        new TensorClient.Part(cb, TensorTicket.of("part.npy", ""), List.of(5L, 0L, 0L))), into);
                assertArrayEquals(TensorElements.of(whole).toFloatArray(), TensorElements.of(into).toFloatArray());

                // A box across both: rows 3-7 of column 2, from the part each server holds.
                TensorView box = TensorView.strided(arena.allocate(5 * 3 * 4), DType.F32, StridedLayout.packed(5, 3, 1));
                TensorClient.fetchAll(List.of(
                        new TensorClient.Part(ca, TensorTicket.of("part.npy", "").withBox(List.of(3L, 0L, 2L), List.of(5L, 3L, 3L)),
                                List.of(0L, 0L, 0L)),
                        new TensorClient.Part(cb, TensorTicket.of("part.npy", "").withBox(List.of(0L, 0L, 2L), List.of(3L, 3L, 3L)),
                                List.of(2L, 0L, 0L))), box);
                assertArrayEquals(TensorElements.of(slice(whole, new long[] {3, 0, 2}, new long[] {8, 3, 3})).toFloatArray(), TensorElements.of(box).toFloatArray());
            }
        }
    }

    /**
     * Batches are copied from the network buffers straight into a destination whose rows lie there
     * in C order, at the destination's own offset, and otherwise through staging and the copy
     * engine (another element type here); both give the served values, batch after batch.
     */
    @Test
    void batchesLandStraightInCOrderRowsAndThroughStagingOtherwise() throws Exception {
        try (Allocator arena = Allocators.shared()) {
            TensorView x = counting(arena, 7, 3, 5);
            Npy.write(dir.resolve("x.npy"), DenseTensor.of(x));
            try (TensorServer s = TensorServer.start(dir, TensorServer.Options.defaults().withPort(0).withBatchBytes(2 * 15 * 4));
                 TensorClient c = connect(s, TensorClient.Options.defaults())) {
                // Rows 2-8 of a packed f32[10,3,5] filled with 9: the fetch writes from byte 120 on and nothing else.
                TensorView wide = TensorView.strided(arena.allocate(10 * 15 * 4), DType.F32, StridedLayout.packed(10, 3, 5));
                TensorElements.of(wide).copyFrom(java.util.stream.DoubleStream.generate(() -> 9).limit(150).toArray());
                List<Long> sizes = new ArrayList<>();
                c.fetch(TensorTicket.of("x.npy", ""), slice(wide, new long[] {2, 0, 0}, new long[] {9, 3, 5}), sizes::add);
                assertEquals(List.of(120L, 120L, 120L, 60L), sizes, "4 batches of at most 2 rows");
                float[] got = TensorElements.of(wide).toFloatArray();
                float[] want = TensorElements.of(x).toFloatArray();
                for (int i = 0; i < 150; i++) {
                    assertEquals(i >= 30 && i < 135 ? want[i - 30] : 9f, got[i], "element " + i);
                }
                TensorView f64 = TensorView.strided(arena.allocate(7 * 15 * 8), DType.F64, StridedLayout.packed(7, 3, 5));
                c.fetch(TensorTicket.of("x.npy", ""), f64, n -> { });
                assertArrayEquals(TensorElements.of(x).toDoubleArray(), TensorElements.of(f64).toDoubleArray());
            }
        }
    }

    /**
     * A plain Flight server (not ours) streaming a fixed_shape_tensor column in three batches,
     * with no tensorbuf.dims (nor any other) schema metadata: the client cannot know the row
     * count up front, so the rows wait in staging and the tensor is assembled from the column's
     * row shape and the rows received once the stream ends. Where the ticket asks a box the
     * client knows the row count, and a server that ignores the box is refused, named.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    @SuppressWarnings("try") // Flight's close() declares InterruptedException; no test thread is interrupted
    void aServerWithoutDimsMetadataStillGivesTheWholeTensor() throws Exception {
        try (Allocator arena = Allocators.shared(); BufferAllocator arrow = ArrowTensors.allocator()) {
            TensorView whole = counting(arena, 7, 3, 2);
            long[][] batches = {{0, 3}, {3, 5}, {5, 7}};
            NoOpFlightProducer plain = new NoOpFlightProducer() {
                @Override
                public void getStream(CallContext context, Ticket ticket, ServerStreamListener listener) {
                    Schema schema;
                    try (FieldVector any = ArrowTensors.toVector("tensor", whole, arrow)) {
                        schema = new Schema(List.of(any.getField()));
                    }
                    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, arrow)) {
                        listener.start(root);
                        for (long[] b : batches) {
                            try (FieldVector part = ArrowTensors.toVector("tensor",
                                    slice(whole, new long[] {b[0], 0, 0}, new long[] {b[1], 3, 2}), arrow)) {
                                part.makeTransferPair(root.getVector(0)).transfer();
                            }
                            root.setRowCount((int) (b[1] - b[0]));
                            listener.putNext();
                        }
                        listener.completed();
                    }
                }
            };
            try (FlightServer server = FlightServer.builder(arrow, Location.forGrpcInsecure("127.0.0.1", 0), plain).build()) {
                server.start();
                try (TensorClient client = TensorClient.connect(URI.create("grpc+tcp://127.0.0.1:" + server.getPort()),
                        TensorClient.Options.defaults().withTimeout(Duration.ofSeconds(30)))) {
                    TensorView got = client.fetch(TensorTicket.of("x.npy", ""), arena);
                    assertEquals(List.of(7L, 3L, 2L), got.dims());
                    assertArrayEquals(TensorElements.of(whole).toFloatArray(), TensorElements.of(got).toFloatArray());

                    // Into another layout: the staged rows go through the copy engine at the end.
                    TensorView columnMajor = TensorView.of(arena.allocate(7 * 3 * 2 * 4), "f32[7,3,2]{0,1,2}");
                    List<Long> seen = new ArrayList<>();
                    client.fetch(TensorTicket.of("x.npy", ""), columnMajor, seen::add);
                    assertArrayEquals(TensorElements.of(whole).toFloatArray(), TensorElements.of(columnMajor).toFloatArray());
                    assertEquals(List.of(3L * 24, 2L * 24, 2L * 24), seen);

                    // The dims are known only at the end; a destination of others is refused then, named.
                    TensorView wrong = TensorView.of(arena.allocate(6 * 3 * 2 * 4), "f32[6,3,2]{2,1,0}");
                    TensorClient.FetchException e = assertThrows(TensorClient.FetchException.class,
                            () -> client.fetch(TensorTicket.of("x.npy", ""), wrong, n -> { }));
                    assertTrue(e.getMessage().contains("the server sends dims [7, 3, 2], the destination has [6, 3, 2]"),
                            e.getMessage());

                    // A box of rows 2-5: this server ignores it and sends all 7 rows.
                    e = assertThrows(TensorClient.FetchException.class, () -> client.fetch(
                            TensorTicket.of("x.npy", "").withBox(List.of(2L, 0L, 0L), List.of(5L, 3L, 2L)), arena));
                    assertTrue(e.getMessage().contains("more than the 3 rows asked for"), e.getMessage());
                    assertTrue(e.getMessage().contains("127.0.0.1:" + server.getPort()), e.getMessage());
                }
            }
        }
    }

    /** Found by bench/peers/flight_speed.sh: 16 MiB batches past the flow-control window stalled for the server's 120 s wait. */
    @Test
    void aStreamOfBatchesLargerThanTheFlowControlWindowDoesNotStall() throws Exception {
        try (Allocator arena = Allocators.shared()) {
            TensorView big = counting(arena, 64, 65536); // 16 MiB in 4 MiB batches
            Npy.write(dir.resolve("big.npy"), DenseTensor.of(big));
            try (TensorServer s = TensorServer.start(dir, TensorServer.Options.defaults().withPort(0).withBatchBytes(4 << 20));
                 TensorClient c = TensorClient.connect(URI.create(s.location().getUri().toString()),
                         TensorClient.Options.defaults().withTimeout(Duration.ofSeconds(50)))) {
                TensorView got = c.fetch(TensorTicket.of("big.npy", ""), arena);
                assertEquals(-1, big.buffer().segment().mismatch(got.buffer().segment()));
            }
        }
    }

    @Test
    void aBearerTokenIsRequiredWhenSet() throws Exception {
        try (Allocator arena = Allocators.shared()) {
            TensorView x = counting(arena, 2, 3);
            Npy.write(dir.resolve("x.npy"), DenseTensor.of(x));
            try (TensorServer s = TensorServer.start(dir, TensorServer.Options.defaults().withPort(0).withToken("s3cret"));
                 TensorClient none = connect(s, TensorClient.Options.defaults());
                 TensorClient wrong = connect(s, TensorClient.Options.defaults().withToken("guess"));
                 TensorClient right = connect(s, TensorClient.Options.defaults().withToken("s3cret"))) {
                for (TensorClient c : List.of(none, wrong)) {
                    TensorClient.FetchException e = assertThrows(TensorClient.FetchException.class, () -> c.fetch(TensorTicket.of("x.npy", ""), arena));
                    assertEquals(FlightStatusCode.UNAUTHENTICATED, ((FlightRuntimeException) e.getCause()).status().code(),
                            e.getMessage());
                    e = assertThrows(TensorClient.FetchException.class, c::list);
                    assertTrue(e.getMessage().contains("UNAUTHENTICATED"), e.getMessage());
                }
                assertArrayEquals(TensorElements.of(x).toFloatArray(), TensorElements.of(right.fetch(TensorTicket.of("x.npy", ""), arena)).toFloatArray());
                assertEquals(1, right.list().size());
            }
        }
    }

    @Test
    void speaksTls() throws Exception {
        Path cert = dir.resolve("cert.pem");
        Path key = dir.resolve("key.pem");
        try (var in = getClass().getResourceAsStream("/tls/cert.pem")) {
            Files.copy(in, cert);
        }
        try (var in = getClass().getResourceAsStream("/tls/key.pem")) {
            Files.copy(in, key);
        }
        Path served = Files.createDirectories(dir.resolve("served"));
        try (Allocator arena = Allocators.shared()) {
            TensorView x = counting(arena, 4, 2);
            Npy.write(served.resolve("x.npy"), DenseTensor.of(x));
            try (TensorServer s = TensorServer.start(served, TensorServer.Options.defaults().withPort(0).withTls(cert, key))) {
                assertEquals("grpc+tls", s.location().getUri().getScheme());
                try (TensorClient c = connect(s, TensorClient.Options.defaults().withTrustedCertificates(cert))) {
                    assertArrayEquals(TensorElements.of(x).toFloatArray(), TensorElements.of(c.fetch(TensorTicket.of("x.npy", ""), arena)).toFloatArray());
                }
                URI plain = URI.create("grpc+tcp://127.0.0.1:" + s.port());
                try (TensorClient c = TensorClient.connect(plain, TensorClient.Options.defaults().withTimeout(Duration.ofSeconds(5)))) {
                    TensorClient.FetchException e = assertThrows(TensorClient.FetchException.class, () -> c.fetch(TensorTicket.of("x.npy", ""), arena));
                    assertTrue(e.getMessage().startsWith("fetching x.npy from " + plain + " failed"), e.getMessage());
                }
            }
        }
    }

    @Test
    void pyarrowFlightClientGetsNumpysSlice() throws Exception {
        PythonPeer.assumeModules("numpy", "pyarrow", "pyarrow.flight");
        try (Allocator arena = Allocators.shared()) {
            TensorView x = counting(arena, 6, 4, 3);
            Path served = Files.createDirectories(dir.resolve("served"));
            Npy.write(served.resolve("x.npy"), DenseTensor.of(x));
            Path expected = dir.resolve("expected.npy");
            Npy.write(expected, DenseTensor.copyOf(slice(x, new long[] {1, 1, 0}, new long[] {5, 3, 2}), arena));
            try (TensorServer s = TensorServer.start(served, TensorServer.Options.defaults().withPort(0).withBatchBytes(20)
                    .withToken("tok"))) {
                String out = PythonPeer.runScript("/peers/arrow_peer.py", Files.createDirectories(dir.resolve("p1")), "flight-get",
                        Integer.toString(s.port()), "{\"path\": \"x.npy\", \"start\": [1, 1, 0], \"limit\": [5, 3, 2]}",
                        expected.toString(), "tok");
                assertEquals("ok 4 4", out.strip(), "4 rows in 4 batches of one 16-byte row each");
                out = PythonPeer.runScript("/peers/arrow_peer.py", Files.createDirectories(dir.resolve("p2")), "flight-list",
                        Integer.toString(s.port()), "tok");
                assertEquals("{\"path\": [\"x.npy\"], \"shape\": [4, 3], \"value_type\": \"float\", \"records\": 6}", out.strip());
            }
        }
    }

    @Test
    void aServerKilledMidStreamFailsTheFetchNamingServerAndTensor() throws Exception {
        Path served = Files.createDirectories(dir.resolve("served"));
        try (Allocator arena = Allocators.shared()) {
            long rows = 4096;
            TensorView big = counting(arena, rows, 1024); // 16 MiB: more than flow control lets a server send ahead
            Npy.write(served.resolve("big.npy"), DenseTensor.of(big));
        }
        Path portFile = dir.resolve("port");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED",
                "--add-opens=java.base/java.nio=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-cp", System.getProperty("java.class.path"), ServeMain.class.getName(), served.toString(), portFile.toString(),
                Integer.toString(64 << 10)));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(portFile)) {
                assertTrue(p.isAlive(), () -> "the server process ended: " + read(dir.resolve("server.log")));
                assertTrue(System.nanoTime() < deadline, "the server process did not start in 60 s");
                Thread.sleep(50);
            }
            URI uri = URI.create("grpc+tcp://127.0.0.1:" + Files.readString(portFile).strip());
            AtomicBoolean killed = new AtomicBoolean();
            try (Allocator arena = Allocators.shared();
                 TensorClient c = TensorClient.connect(uri, TensorClient.Options.defaults().withTimeout(Duration.ofSeconds(60)))) {
                TensorClient.FetchException e = assertThrows(TensorClient.FetchException.class, () -> c.fetch(TensorTicket.of("big.npy", ""), arena,
                        n -> {
                            if (killed.compareAndSet(false, true)) {
                                p.destroyForcibly();
                                try {
                                    p.waitFor(30, TimeUnit.SECONDS);
                                } catch (InterruptedException ie) {
                                    Thread.currentThread().interrupt();
                                }
                            }
                        }));
                assertTrue(killed.get());
                assertTrue(e.getMessage().startsWith("fetching big.npy from " + uri + " failed after "), e.getMessage());
                assertTrue(e.getMessage().contains(" of 4096 rows: "), e.getMessage());
                assertNotNull(e.getCause());
            }
        } finally {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
