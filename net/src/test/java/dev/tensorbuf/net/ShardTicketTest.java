package dev.tensorbuf.net;

import static dev.tensorbuf.net.TensorClientTest.connect;
import static dev.tensorbuf.net.TensorClientTest.counting;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.testing.PythonPeer;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Tickets naming a sharding and a device: the server sends the box XLA's rule gives that device. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ShardTicketTest {
    @TempDir
    Path dir;
    Path served;

    @BeforeEach
    void files() throws Exception {
        served = Files.createDirectories(dir.resolve("served"));
        try (Allocator arena = Allocators.shared()) {
            Npy.write(served.resolve("x.npy"), DenseTensor.of(counting(arena, 7, 5)));
            Npy.write(served.resolve("y.npy"), DenseTensor.of(counting(arena, 9, 2)));
        }
    }

    /** Element {@code (i, j)} of {@code counting(rows, cols)}, brute force. */
    private static double at(long cols, long i, long j) {
        return (i * cols + j) * 0.25 - 3;
    }

    /** Fetches device {@code device}'s shard and checks it is {@code global[r0:r1, c0:c1]}, element by element. */
    private static void shardIs(TensorClient c, Allocator arena, String file, long cols, String sharding, long device,
                                long r0, long r1, long c0, long c1) {
        TensorView got = c.fetch(TensorTicket.of(file, "").withShard(sharding, device), arena);
        String what = file + " device " + device + " of " + sharding;
        assertEquals(List.of(r1 - r0, c1 - c0), got.dims(), what);
        TensorElements e = TensorElements.of(got);
        for (long i = r0; i < r1; i++) {
            for (long j = c0; j < c1; j++) {
                assertEquals(at(cols, i, j), e.getDouble(i - r0, j - c0), what + " at " + i + "," + j);
            }
        }
    }

    @Test
    void eachDeviceGetsItsBoxByXlasRuleIncludingUnevenAndEmptyTiles() throws Exception {
        try (TensorServer s = TensorServer.start(served, TensorServer.Options.defaults().withPort(0).withBatchBytes(24));
             TensorClient c = connect(s, TensorClient.Options.defaults());
             Allocator arena = Allocators.shared()) {
            // f32[7,5] in 2x2 tiles: rows ceil(7/2) = 4, cols ceil(5/2) = 3, the last tiles smaller.
            String s22 = "{devices=[2,2]<=[4]}";
            shardIs(c, arena, "x.npy", 5, s22, 0, 0, 4, 0, 3);
            shardIs(c, arena, "x.npy", 5, s22, 1, 0, 4, 3, 5);
            shardIs(c, arena, "x.npy", 5, s22, 2, 4, 7, 0, 3);
            shardIs(c, arena, "x.npy", 5, s22, 3, 4, 7, 3, 5);
            // The transposed iota lists the devices 0, 2, 1, 3: device 1 holds tile (1, 0).
            shardIs(c, arena, "x.npy", 5, "{devices=[2,2]<=[2,2]T(1,0)}", 1, 4, 7, 0, 3);
            shardIs(c, arena, "x.npy", 5, "{devices=[2,2]1,0,3,2}", 0, 0, 4, 3, 5);
            // Replicas: devices 0 and 1 hold rows 0:4, devices 2 and 3 rows 4:7.
            String rep = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}";
            shardIs(c, arena, "x.npy", 5, rep, 1, 0, 4, 0, 5);
            shardIs(c, arena, "x.npy", 5, rep, 2, 4, 7, 0, 5);
            // cols ceil(5/4) = 2: [0:2], [2:4], [4:5], and device 3 an empty [5:5].
            shardIs(c, arena, "x.npy", 5, "{devices=[1,4]<=[4]}", 2, 0, 7, 4, 5);
            shardIs(c, arena, "x.npy", 5, "{devices=[1,4]<=[4]}", 3, 0, 7, 5, 5);
            // f32[9,2] in 4 row tiles of ceil(9/4) = 3: device 3's [9:9] holds no rows.
            shardIs(c, arena, "y.npy", 2, "{devices=[4,1]<=[4]}", 2, 6, 9, 0, 2);
            shardIs(c, arena, "y.npy", 2, "{devices=[4,1]<=[4]}", 3, 9, 9, 0, 2);
            shardIs(c, arena, "x.npy", 5, "{replicated}", 6, 0, 7, 0, 5);
            shardIs(c, arena, "x.npy", 5, "{maximal device=1}", 1, 0, 7, 0, 5);
        }
    }

    @Test
    void aShardCanComeAsAnotherType() throws Exception {
        try (TensorServer s = TensorServer.start(served, TensorServer.Options.defaults().withPort(0).withBatchBytes(16));
             TensorClient c = connect(s, TensorClient.Options.defaults());
             Allocator arena = Allocators.shared()) {
            TensorView got = c.fetch(TensorTicket.of("x.npy", "").withShard("{devices=[2,2]<=[4]}", 3).withDType(DType.F64), arena);
            assertEquals(DType.F64, got.dtype());
            assertArrayEquals(new double[] {at(5, 4, 3), at(5, 4, 4), at(5, 5, 3), at(5, 5, 4), at(5, 6, 3), at(5, 6, 4)},
                    TensorElements.of(got).toDoubleArray());
            got = c.fetch(TensorTicket.of("x.npy", "").withBox(List.of(0L, 0L), List.of(1L, 3L)).withDType(DType.F16), arena);
            assertEquals(DType.F16, got.dtype());
            assertArrayEquals(new double[] {-3, -2.75, -2.5}, TensorElements.of(got).toDoubleArray());
            TensorClient.FetchException e = assertThrows(TensorClient.FetchException.class, () -> c.fetch(
                    TensorTicket.of("x.npy", "").withBox(List.of(0L, 0L), List.of(1L, 3L)).withDType(DType.BF16), arena));
            assertTrue(e.getMessage().contains("INVALID_ARGUMENT: x.npy[0:1, 0:3] as bf16: bf16 has no Arrow element type"),
                    e.getMessage());
        }
    }

    @Test
    void badShardTicketsAreRefusedNamingWhy() throws Exception {
        try (TensorServer s = TensorServer.start(served, TensorServer.Options.defaults().withPort(0));
             TensorClient c = connect(s, TensorClient.Options.defaults());
             Allocator arena = Allocators.shared()) {
            TensorClient.FetchException e = assertThrows(TensorClient.FetchException.class,
                    () -> c.fetch(TensorTicket.of("x.npy", "").withShard("{devices=[2,2]<=[4]}", 4), arena));
            assertTrue(e.getMessage().endsWith("INVALID_ARGUMENT: x.npy device 4 of {devices=[2,2]<=[4]}: device 4 is not one"
                    + " of the 4 devices (0 to 3) of {devices=[2,2]<=[4]}"), e.getMessage());
            e = assertThrows(TensorClient.FetchException.class,
                    () -> c.fetch(TensorTicket.of("x.npy", "").withShard("{devices=[4]<=[4]}", 0), arena));
            assertTrue(e.getMessage().contains("INVALID_ARGUMENT: x.npy device 0 of {devices=[4]<=[4]}: sharding"
                    + " {devices=[4]<=[4]} tiles 1 dimension but the shape [7, 5] has 2"), e.getMessage());
            e = assertThrows(TensorClient.FetchException.class,
                    () -> c.fetch(TensorTicket.of("x.npy", "").withShard("{maximal device=1}", 0), arena));
            assertTrue(e.getMessage().endsWith("device 0 holds no part of a tensor sharded {maximal device=1}"), e.getMessage());
            // A sharding of 2^20 tiles (the most the parser takes) is refused before the server lists its devices.
            e = assertThrows(TensorClient.FetchException.class, () -> c.fetch(TensorTicket.of("x.npy", "")
                    .withShard("{devices=[1024,1024]<=[1048576]}", 0), arena));
            assertTrue(e.getMessage().endsWith("has 1048576 tiles; this server places at most 65536"), e.getMessage());
            e = assertThrows(TensorClient.FetchException.class,
                    () -> c.fetch(TensorTicket.of("x.npy", "").withShard("{manual}", 0), arena));
            assertTrue(e.getMessage().contains("does not place a global tensor's elements on devices"), e.getMessage());
        }
    }

    @Test
    void shardTicketsReadAndWriteAsJson() {
        TensorTicket t = TensorTicket.of("x.npy", "").withShard("{devices=[2,2]<=[4]}", 3);
        assertEquals("{\"path\":\"x.npy\",\"sharding\":\"{devices=[2,2]<=[4]}\",\"device\":3}", t.toJson());
        assertEquals(t, TensorTicket.parse(t.toBytes()));
        assertEquals("x.npy device 3 of {devices=[2,2]<=[4]}", t.describe());
        TensorTicket d = t.withDType(DType.BF16);
        assertEquals(d, TensorTicket.parse(d.toBytes()));
        assertEquals("x.npy device 3 of {devices=[2,2]<=[4]} as bf16", d.describe());
        assertEquals("ticket: sharding {devices=[2,2]<=[4]} without a device; give \"device\", a device id >= 0",
                refusal("{\"path\":\"x.npy\",\"sharding\":\"{devices=[2,2]<=[4]}\"}"));
        assertEquals("ticket: device 1 without a sharding; give \"sharding\" too, e.g. \"{devices=[2,2]<=[4]}\"",
                refusal("{\"path\":\"x.npy\",\"device\":1}"));
        assertEquals("ticket: both a box and a sharding; give start/limit or sharding/device",
                refusal("{\"path\":\"x.npy\",\"sharding\":\"{replicated}\",\"device\":0,\"start\":[0],\"limit\":[1]}"));
        assertTrue(refusal("{\"path\":\"x.npy\",\"sharding\":\"{devices=[2,2<=[4]}\",\"device\":0}")
                .startsWith("ticket: sharding {devices=[2,2<=[4]} is not XLA's sharding text: "));
        assertEquals("ticket: \"device\" -1 is not a device id, an integer >= 0",
                refusal("{\"path\":\"x.npy\",\"sharding\":\"{replicated}\",\"device\":-1}"));
        assertEquals("ticket: dtype 'f33' is not an XLA element type name (f32, bf16, f16, s8, ...)",
                refusal("{\"path\":\"x.npy\",\"dtype\":\"f33\"}"));
    }

    private static String refusal(String json) {
        return assertThrows(IllegalArgumentException.class, () -> TensorTicket.parse(json.getBytes(StandardCharsets.UTF_8)))
                .getMessage();
    }

    @Test
    void pyarrowFlightClientGetsDeviceKsShardAsNumpysSlice() throws Exception {
        PythonPeer.assumeModules("numpy", "pyarrow", "pyarrow.flight");
        try (TensorServer s = TensorServer.start(served, TensorServer.Options.defaults().withPort(0).withBatchBytes(16))) {
            // x is f32[7,5]; device k of {devices=[2,2]<=[4]} holds NumPy's x[4:7, 3:5] for k = 3 (XLA's rule), and
            // device 1 of the transposed iota x[4:7, 0:3].
            String out = PythonPeer.runScript("/peers/arrow_peer.py", Files.createDirectories(dir.resolve("p1")),
                    "flight-get-slice", Integer.toString(s.port()),
                    "{\"path\": \"x.npy\", \"sharding\": \"{devices=[2,2]<=[4]}\", \"device\": 3}",
                    served.resolve("x.npy").toString(), "4:7,3:5");
            assertEquals("ok 3 2", out.strip(), "3 rows of 2 in batches of two 8-byte rows");
            out = PythonPeer.runScript("/peers/arrow_peer.py", Files.createDirectories(dir.resolve("p2")),
                    "flight-get-slice", Integer.toString(s.port()),
                    "{\"path\": \"x.npy\", \"sharding\": \"{devices=[2,2]<=[2,2]T(1,0)}\", \"device\": 1}",
                    served.resolve("x.npy").toString(), "4:7,0:3");
            assertEquals("ok 3 3", out.strip(), "3 rows of 12 bytes, one a batch");
        }
    }
}
