package dev.tensorbuf.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.testing.PythonPeer;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link TensorClient} fetching from a {@code pyarrow.flight} server whose IpcWriteOptions compress
 * the batches (ZSTD, LZ4), as a server set to save bandwidth sends them: the values decoded equal
 * the array served. Was: refused ("tensors are fetched uncompressed").
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PyarrowServerFetchTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"zstd", "lz4"})
    void fetchesCompressedBatchesFromAPyarrowServer(String codec) throws Exception {
        PythonPeer.assumeModules("numpy", "pyarrow");
        // f32[300,64,32] of small repeating values (it compresses), in batches of 64 rows: the last one shorter.
        try (Allocator arena = Allocators.shared()) {
            TensorView x = TensorView.strided(arena.allocate(300 * 64 * 32 * 4), DType.F32, StridedLayout.packed(300, 64, 32));
            double[] xs = new double[300 * 64 * 32];
            for (int i = 0; i < xs.length; i++) {
                xs[i] = (i % 1013) * 0.25 - 100;
            }
            TensorElements.of(x).copyFrom(xs);
            Path npy = dir.resolve("x.npy");
            Npy.write(npy, DenseTensor.of(x));
            Path script = dir.resolve("flight_compressed_server.py");
            try (InputStream in = getClass().getResourceAsStream("/peers/flight_compressed_server.py")) {
                Files.copy(in, script);
            }
            Process server = new ProcessBuilder(PythonPeer.python(), script.toString(), npy.toString(), codec, "64")
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            try {
                String port = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8)).readLine();
                try (TensorClient client = TensorClient.connect(URI.create("grpc+tcp://127.0.0.1:" + port),
                        TensorClient.Options.defaults().withTimeout(Duration.ofSeconds(60)))) {
                    TensorView got = client.fetch(TensorTicket.of("x.npy", ""), arena);
                    assertEquals(List.of(300L, 64L, 32L), got.dims(), codec);
                    assertArrayEquals(TensorElements.of(x).toFloatArray(), TensorElements.of(got).toFloatArray(), codec);
                }
            } finally {
                server.getOutputStream().close();   // the server shuts down when its stdin closes
                if (!server.waitFor(10, TimeUnit.SECONDS)) {
                    server.destroyForcibly();
                }
            }
        }
    }
}
