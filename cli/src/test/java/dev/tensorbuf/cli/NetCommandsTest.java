package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.net.ArrowTensors;
import dev.tensorbuf.net.TensorServer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.testing.PythonPeer;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** convert to and from .arrow, fetch from a server on loopback, and serve's refusals. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NetCommandsTest {
    @TempDir
    Path dir;

    private static TensorView counting(Allocator arena, long... dims) {
        TensorView v = TensorView.strided(arena.allocate(StridedLayout.packed(dims).elementCount() * 4), DType.F32,
                StridedLayout.packed(dims));
        double[] d = new double[(int) v.elementCount()];
        for (int i = 0; i < d.length; i++) {
            d[i] = i * 1.5 - 7;
        }
        TensorElements.of(v).copyFrom(d);
        return v;
    }

    /**
     * An .arrow file, an .arrows stream and a .feather file, each written from a .npy and read back
     * transposed.
     * Was: a .arrows input was taken for raw bytes ("needs --from-layout"), and an output so named
     * got the file format.
     */
    @Test
    void convertWritesAndReadsArrowFilesAndStreams() throws Exception {
        try (Allocator arena = Allocators.shared()) {
            TensorView x = counting(arena, 4, 2, 3);
            Npy.write(dir.resolve("x.npy"), DenseTensor.of(x));
            for (String name : List.of("x.arrow", "x.arrows", "x.feather")) {
                Path arrow = dir.resolve(name);
                CliHarness r = CliHarness.run("convert", dir.resolve("x.npy").toString(), arrow.toString(), "--quiet");
                assertEquals(0, r.code(), r.err());
                assertTrue(r.out().contains("f32[4,2,3]{2,1,0}") && r.out().contains("(arrow)"), r.out());
                boolean stream = name.endsWith(".arrows");
                assertEquals(stream ? "stream" : "file", ArrowTensors.describe(arrow).format());
                if (stream) {
                    assertArrayEquals(new byte[] {-1, -1, -1, -1}, Arrays.copyOf(Files.readAllBytes(arrow), 4),
                            "a stream opens with a message's continuation marker");
                }
                try (ArrowTensors.Tensors t = ArrowTensors.read(arrow)) {
                    assertEquals("x", t.names().getFirst());
                    assertArrayEquals(TensorElements.of(x).toFloatArray(), TensorElements.of(t.view("x")).toFloatArray());
                }
                Path back = dir.resolve(name + ".t.npy");
                r = CliHarness.run("convert", arrow.toString(), back.toString(), "--transpose", "0,2,1", "--quiet");
                assertEquals(0, r.code(), r.err());
                try (Npy.Tensor t = Npy.map(back)) {
                    assertArrayEquals(TensorElements.of(Ops.transpose(x, 0, 2, 1)).toFloatArray(),
                            TensorElements.of(t.view()).toFloatArray(), name);
                }
            }
        }
    }

    /**
     * Feather V2 files as pyarrow writes them: uncompressed, LZ4 (its default) and Zstandard. Was:
     * a .feather input was taken for raw bytes ("needs --from-layout"), though inspect read it by
     * its magic; then ZSTD was refused.
     */
    @Test
    void convertReadsFeatherFilesAsPyarrowWritesThem() throws Exception {
        PythonPeer.assumeModules("numpy", "pyarrow");
        assertEquals("ok", PythonPeer.runScript("/peers/feather_peer.py", Files.createDirectory(dir.resolve("peer")), "write",
                dir.toString()).strip());
        for (String codec : List.of("plain", "lz4", "zstd")) {
            Path in = dir.resolve(codec + ".feather");
            if (!codec.equals("plain")) {
                assertTrue(Files.size(in) < Files.size(dir.resolve("plain.feather")) / 2, codec + " is compressed");
            }
            CliHarness inspect = CliHarness.run("inspect", in.toString());
            assertEquals(in + ": Arrow IPC file, 1 record batch" + switch (codec) {
                case "lz4" -> " (compressed with LZ4_FRAME)";
                case "zstd" -> " (compressed with ZSTD)";
                default -> "";
            } + ", 1 tensor column", inspect.out().lines().findFirst().orElseThrow(), inspect.err());
            Path out = dir.resolve(codec + ".t.npy");
            CliHarness r = CliHarness.run("convert", in.toString(), out.toString(), "--transpose", "0,2,1", "--quiet");
            assertEquals(0, r.code(), r.err());
            try (Npy.Tensor want = Npy.map(dir.resolve("x.npy")); Npy.Tensor got = Npy.map(out)) {
                assertArrayEquals(TensorElements.of(Ops.transpose(want.view(), 0, 2, 1)).toLongArray(),
                        TensorElements.of(got.view()).toLongArray(), codec);
            }
        }
    }

    @Test
    void fetchFromAPortNobodyListensOnSaysTheConnectionWasRefused() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        CliHarness r = CliHarness.run("fetch", "grpc+tcp://127.0.0.1:" + port, "x.npy", dir.resolve("out.npy").toString());
        assertEquals(2, r.code(), r.out());
        // Was: "... failed: UNAVAILABLE: io exception", the cause left out.
        assertTrue(r.err().startsWith("tensorbuf fetch: fetching x.npy from grpc+tcp://127.0.0.1:" + port + " failed: UNAVAILABLE: "),
                r.err());
        assertTrue(r.err().contains("Connection refused"), r.err());
        assertTrue(Files.notExists(dir.resolve("out.npy")));
    }

    @Test
    void convertRefusesTypesArrowCannotHold() throws Exception {
        try (Allocator arena = Allocators.shared()) {
            Npy.write(dir.resolve("x.npy"), DenseTensor.of(counting(arena, 2, 2)));
            CliHarness r = CliHarness.run("convert", dir.resolve("x.npy").toString(), dir.resolve("x.arrow").toString(),
                    "--dtype", "bf16");
            assertEquals(2, r.code());
            assertTrue(r.err().startsWith("tensorbuf convert: the output is bf16, which an .arrow file cannot hold (bf16 has"
                    + " no Arrow element type"), r.err());
            assertTrue(Files.notExists(dir.resolve("x.arrow")));
        }
    }

    @Test
    void fetchWritesABoxAndListsTensors() throws Exception {
        Path served = Files.createDirectories(dir.resolve("served"));
        try (Allocator arena = Allocators.shared()) {
            TensorView x = counting(arena, 5, 4);
            Npy.write(served.resolve("x.npy"), DenseTensor.of(x));
            try (TensorServer server = TensorServer.start(served, TensorServer.Options.defaults().withPort(0))) {
                String uri = server.location().getUri().toString();
                CliHarness r = CliHarness.run("fetch", uri, "--list");
                assertEquals(0, r.code(), r.err());
                assertEquals("x.npy  f32[5, 4]", r.out().strip());
                Path out = dir.resolve("box.npy");
                r = CliHarness.run("fetch", uri, "x.npy", out.toString(), "--start", "1,1", "--limit", "4,3");
                assertEquals(0, r.code(), r.err());
                assertTrue(r.out().startsWith(uri + " x.npy[1:4, 1:3] -> " + out + ": f32[3,2]{1,0}"), r.out());
                try (Npy.Tensor got = Npy.map(out)) {
                    assertArrayEquals(TensorElements.of(Ops.slice(x, new long[] {1, 1}, new long[] {4, 3}, new long[] {1, 1})).toFloatArray(),
                            TensorElements.of(got.view()).toFloatArray());
                }
                r = CliHarness.run("fetch", uri, "../x.npy", dir.resolve("no.npy").toString());
                assertEquals(2, r.code());
                assertEquals("tensorbuf fetch: fetching ../x.npy from " + uri + " failed: UNAUTHORIZED: path '../x.npy'"
                        + " climbs out of the served directory with '..'", r.err().strip());
                assertTrue(Files.notExists(dir.resolve("no.npy")));
            }
        }
    }

    @Test
    void fetchTakesOneDevicesShardAndConverts() throws Exception {
        Path served = Files.createDirectories(dir.resolve("served"));
        try (Allocator arena = Allocators.shared()) {
            TensorView x = counting(arena, 7, 5);
            Npy.write(served.resolve("x.npy"), DenseTensor.of(x));
            try (TensorServer server = TensorServer.start(served, TensorServer.Options.defaults().withPort(0))) {
                String uri = server.location().getUri().toString();
                Path out = dir.resolve("s3.npy");
                // Device 3 of 2x2 tiles of f32[7,5]: rows ceil(7/2) = 4 and cols ceil(5/2) = 3 a tile, so x[4:7, 3:5].
                CliHarness r = CliHarness.run("fetch", uri, "x.npy", out.toString(), "--sharding", "{devices=[2,2]<=[4]}",
                        "--device", "3", "--dtype", "f64");
                assertEquals(0, r.code(), r.err());
                assertTrue(r.out().startsWith(uri + " x.npy device 3 of {devices=[2,2]<=[4]} as f64 -> " + out + ": f64[3,2]{1,0}"),
                        r.out());
                try (Npy.Tensor got = Npy.map(out)) {
                    assertArrayEquals(new double[] {-7 + 1.5 * 23, -7 + 1.5 * 24, -7 + 1.5 * 28, -7 + 1.5 * 29, -7 + 1.5 * 33,
                        -7 + 1.5 * 34}, TensorElements.of(got.view()).toDoubleArray());
                }
                r = CliHarness.run("fetch", uri, "x.npy", out.toString(), "--sharding", "{devices=[2,2]<=[4]}");
                assertEquals(2, r.code());
                assertEquals("tensorbuf fetch: a shard needs both --sharding and --device; got only --sharding", r.err().strip());
                r = CliHarness.run("fetch", uri, "x.npy", out.toString(), "--sharding", "{devices=[2,2]<=[4]}", "--device", "4");
                assertEquals(2, r.code());
                assertEquals("tensorbuf fetch: fetching x.npy device 4 of {devices=[2,2]<=[4]} from " + uri + " failed:"
                        + " INVALID_ARGUMENT: x.npy device 4 of {devices=[2,2]<=[4]}: device 4 is not one of the 4 devices"
                        + " (0 to 3) of {devices=[2,2]<=[4]}", r.err().strip());
                r = CliHarness.run("fetch", uri, "x.npy", out.toString(), "--sharding", "{devices=[2,2<=[4]}", "--device", "0");
                assertEquals(2, r.code());
                assertTrue(r.err().startsWith("tensorbuf fetch: --sharding: sharding {devices=[2,2<=[4]} is not XLA's sharding"
                        + " text: "), r.err());
            }
        }
    }

    @Test
    void serveRefusesBadOptionsBeforeServing() throws Exception {
        CliHarness r = CliHarness.run("serve", dir.resolve("none").toString());
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("tensorbuf serve: no such file: "), r.err());
        r = CliHarness.run("serve", dir.toString(), "--tls-cert", "c.pem");
        assertEquals(2, r.code());
        assertEquals("tensorbuf serve: TLS needs both --tls-cert and --tls-key; got only --tls-cert", r.err().strip());
        Files.writeString(dir.resolve("token"), "\n");
        r = CliHarness.run("serve", dir.toString(), "--token-file", dir.resolve("token").toString());
        assertEquals(2, r.code());
        assertTrue(r.err().strip().endsWith("is empty; its first line is the token"), r.err());
    }
}
