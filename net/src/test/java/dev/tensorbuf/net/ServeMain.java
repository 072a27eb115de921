package dev.tensorbuf.net;

import java.nio.file.Files;
import java.nio.file.Path;

/** A server in a process of its own, for tests that kill it: args DIR PORT_FILE BATCH_BYTES. */
public final class ServeMain {
    private ServeMain() {
    }

    public static void main(String[] args) throws Exception {
        TensorServer server = TensorServer.start(Path.of(args[0]),
                TensorServer.Options.defaults().withPort(0).withBatchBytes(Long.parseLong(args[2])));
        Path tmp = Path.of(args[1] + ".tmp");
        Files.writeString(tmp, Integer.toString(server.port()));
        Files.move(tmp, Path.of(args[1]));
        server.awaitTermination();
    }
}
