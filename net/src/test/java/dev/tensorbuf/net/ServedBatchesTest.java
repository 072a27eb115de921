package dev.tensorbuf.net;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.testing.PythonPeer;
import dev.tensorbuf.views.TensorView;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A whole tensor served in several batches, each lent to the stream's column from the mapped file. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServedBatchesTest {
    @TempDir
    Path dir;

    @Test
    void tensorClientReadsAWholeTensorSentAsBatchesLentFromTheFile() throws Exception {
        try (Allocator arena = Allocators.shared()) {
            TensorView x = TensorClientTest.counting(arena, 1024, 2048); // 8 MiB
            Npy.write(dir.resolve("x.npy"), DenseTensor.of(x));
            try (TensorServer server = TensorServer.start(dir, TensorServer.Options.defaults().withPort(0).withBatchBytes(3 << 20));
                 TensorClient client = TensorClientTest.connect(server, TensorClient.Options.defaults())) {
                TensorView got = client.fetch(TensorTicket.of("x.npy", ""), arena);
                assertEquals(x.dims(), got.dims());
                assertEquals(-1, x.buffer().segment().mismatch(got.buffer().segment()));
            }
        }
    }

    @Test
    void pyarrowsClientReadsAWholeTensorSentAsBatchesLentFromTheFile() throws Exception {
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

}
