package dev.tensorbuf.net;

import static dev.tensorbuf.net.TensorClientTest.counting;
import static dev.tensorbuf.net.TensorClientTest.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.shard.HloSharding;
import dev.tensorbuf.ops.shard.IndexBox;
import dev.tensorbuf.ops.shard.ShardedTensor;
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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two server processes (JVMs of their own) each serve half the files of a checkpoint holding the
 * four shards of {@code {devices=[2,2]<=[4]}}; a client reshards into {@code {devices=[4,1]<=[4]}}
 * fetching from both, and each destination shard is checked element by element against the
 * global tensor, and against NumPy's slice when NumPy is there.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ReshardAcrossProcessesTest {
    private static final long ROWS = 9;
    private static final long COLS = 7;

    @TempDir
    Path dir;

    @Test
    void twoServerProcessesReshardTwoByTwoIntoFourRowTiles() throws Exception {
        ShardedTensor from = ShardedTensor.of(DType.F32, List.of(ROWS, COLS), HloSharding.parse("{devices=[2,2]<=[4]}"));
        ShardedTensor to = ShardedTensor.of(DType.F32, List.of(ROWS, COLS), HloSharding.parse("{devices=[4,1]<=[4]}"));
        Path ckpt = Files.createDirectories(dir.resolve("ckpt"));
        Path global = dir.resolve("global.npy");
        try (Allocator arena = Allocators.shared()) {
            TensorView whole = counting(arena, ROWS, COLS);
            Npy.write(global, DenseTensor.of(whole));
            Map<String, DenseTensor> shards = new LinkedHashMap<>();
            for (ShardedTensor.Shard s : from.shards()) {
                shards.put("w.device" + s.device(), DenseTensor.copyOf(from.shardOf(whole, s.device()), arena));
            }
            // At most 100 bytes a file: each shard (64 to 80 bytes) lands in a file of its own.
            SafetensorsFile.Checkpoint.write(ckpt, shards, Map.of("sharding", from.sharding().toString()), 100);
        }
        JsonNode weightMap = new ObjectMapper().readTree(ckpt.resolve("model.safetensors.index.json").toFile()).get("weight_map");
        assertEquals(4, weightMap.size());
        // Server 0 holds the files of devices 0 and 1, server 1 those of devices 2 and 3.
        List<Path> served = List.of(Files.createDirectories(dir.resolve("host0")), Files.createDirectories(dir.resolve("host1")));
        for (long d = 0; d < 4; d++) {
            String file = weightMap.get("w.device" + d).textValue();
            Files.copy(ckpt.resolve(file), served.get((int) d / 2).resolve(file));
        }
        List<Process> servers = new ArrayList<>();
        try {
            List<Path> portFiles = new ArrayList<>();
            for (int k = 0; k < 2; k++) {
                Path portFile = dir.resolve("port" + k);
                portFiles.add(portFile);
                servers.add(startServer(served.get(k), portFile, dir.resolve("server" + k + ".log")));
            }
            List<URI> uris = new ArrayList<>();
            for (int k = 0; k < 2; k++) {
                uris.add(awaitPort(servers.get(k), portFiles.get(k), dir.resolve("server" + k + ".log")));
            }
            try (TensorClient c0 = TensorClient.connect(uris.get(0), TensorClient.Options.defaults().withTimeout(Duration.ofSeconds(60)));
                 TensorClient c1 = TensorClient.connect(uris.get(1), TensorClient.Options.defaults().withTimeout(Duration.ofSeconds(60)));
                 Allocator arena = Allocators.shared()) {
                // Which server holds which shard: from what each lists, routed by the index's weight map.
                Map<String, TensorClient> byFile = new HashMap<>();
                for (TensorClient c : List.of(c0, c1)) {
                    c.list().forEach(l -> byFile.put(l.ticket().path(), c));
                }
                assertEquals(4, byFile.size(), "the two servers list the four shard files between them");
                Map<Long, TensorClient.Held> sources = new HashMap<>();
                for (long d = 0; d < 4; d++) {
                    String file = weightMap.get("w.device" + d).textValue();
                    sources.put(d, new TensorClient.Held(byFile.get(file), TensorTicket.of(file, "w.device" + d)));
                }
                Map<Long, TensorView> dst = new HashMap<>();
                for (ShardedTensor.Shard s : to.shards()) {
                    // Column-major destinations: each fetched piece is placed through the engine, any layout.
                    long[] dims = s.box().sizes().stream().mapToLong(Long::longValue).toArray();
                    StridedLayout layout = StridedLayout.of(dims, new long[] {1, Math.max(1, dims[0])});
                    dst.put(s.device(), TensorView.strided(arena.allocate(Math.max(4, dims[0] * dims[1] * 4)), DType.F32, layout));
                }
                TensorClient.reshard(from, sources, to, dst);

                // XLA's rule by hand: rows ceil(9/4) = 3 a device, the last device none.
                List<String> slices = List.of("0:3,0:7", "3:6,0:7", "6:9,0:7", "9:9,0:7");
                List<String> peerArgs = new ArrayList<>(List.of("npy-slices", global.toString()));
                for (long d = 0; d < 4; d++) {
                    IndexBox box = to.box(d).orElseThrow();
                    assertEquals(slices.get((int) d), box.start().get(0) + ":" + box.limit().get(0) + ",0:7");
                    TensorElements e = TensorElements.of(dst.get(d));
                    for (long i = box.start().get(0); i < box.limit().get(0); i++) {
                        for (long j = 0; j < COLS; j++) {
                            assertEquals((i * COLS + j) * 0.25 - 3, e.getDouble(i - box.start().get(0), j),
                                    "device " + d + " at global " + i + "," + j);
                        }
                    }
                    Path out = dir.resolve("dst" + d + ".npy");
                    Npy.write(out, DenseTensor.copyOf(dst.get(d), arena));
                    peerArgs.add(out.toString());
                    peerArgs.add(slices.get((int) d));
                }
                // arrow_peer.py imports pyarrow as well as NumPy, whichever mode it runs in.
                String peerMissing = PythonPeer.importProblem("numpy", "pyarrow");
                if (peerMissing == null) {
                    String said = PythonPeer.runScript("/peers/arrow_peer.py", Files.createDirectories(dir.resolve("py")),
                            peerArgs.toArray(String[]::new));
                    assertEquals("ok 4", said.strip(), "each destination shard is NumPy's slice of the global array");
                } else {
                    System.err.println("ReshardAcrossProcessesTest: NumPy check skipped, brute force only: " + peerMissing);
                }
            }
            for (Process p : servers) {
                assertTrue(p.isAlive(), "the servers are still up after the reshard");
            }
        } finally {
            for (Process p : servers) {
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    static Process startServer(Path served, Path portFile, Path log) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED",
                "--add-opens=java.base/java.nio=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx256m",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), ServeMain.class.getName(),
                served.toString(), portFile.toString(), Integer.toString(1 << 20)));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    static URI awaitPort(Process p, Path portFile, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!Files.exists(portFile)) {
            assertTrue(p.isAlive(), () -> "the server process ended: " + read(log));
            assertTrue(System.nanoTime() < deadline, "the server process did not start in 90 s");
            Thread.sleep(50);
        }
        return URI.create("grpc+tcp://127.0.0.1:" + Files.readString(portFile).strip());
    }
}
