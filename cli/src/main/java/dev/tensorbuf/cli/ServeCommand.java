package dev.tensorbuf.cli;

import dev.tensorbuf.net.TensorServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/** {@code tensorbuf serve}: an Arrow Flight server over the tensor files of a directory. */
final class ServeCommand implements Command {
    @Override
    public String name() {
        return "serve";
    }

    @Override
    public String summary() {
        return "serve the npy, npz, safetensors, GGUF, Arrow and sharded-checkpoint tensors of a directory over Arrow Flight, any box or shard";
    }

    @Override
    public String synopsis() {
        return "tensorbuf serve DIR [--port N] [--host H] [--token-file F] [--tls-cert PEM --tls-key PEM]"
                + " [--max-bytes N] [--batch-bytes N] [--json]";
    }

    @Override
    public String description() {
        return """
                Serves the tensors of the .npy, .npz, .safetensors and .gguf files, the sharded
                checkpoints (model.safetensors.index.json: the tensors of all its files as one set)
                and the Arrow IPC files and streams (.arrow, .arrows, Feather V2 .feather: each
                arrow.fixed_shape_tensor column) under DIR over Arrow Flight until stopped
                (Ctrl-C). A ticket is JSON naming a file
                relative to DIR, the tensor in it, and optionally a box, start and limit per dim:
                  {"path": "model.safetensors", "tensor": "w", "start": [0, 0], "limit": [2, 3]}
                or one device's shard under an XLA sharding (XLA's rule: ceil-divided tiles):
                  {"path": "x.npy", "sharding": "{devices=[2,2]<=[4]}", "device": 3}
                and optionally "dtype" (f32, bf16, ...) to convert to. GGUF block-quantized tensors
                (Q4_0, Q8_0, Q4_K, ...) are sent dequantized: as f32 unless the ticket asks another.
                The box is streamed from the mapped file as record batches of one
                arrow.fixed_shape_tensor column "tensor", rows along dim 0, at most --batch-bytes a
                batch. ListFlights lists every tensor with its type and dims, each with its ticket.
                The server binds 127.0.0.1 unless --host says otherwise; it serves only files under
                DIR (a path with .., an absolute path or a symlink leading out is refused, named); a
                ticket asking for more than --max-bytes is refused before any read; --token-file
                makes every call need 'authorization: Bearer TOKEN' (the file's first line; others
                get UNAUTHENTICATED), and --tls-cert with --tls-key (PEM, PKCS#8 key) speak TLS.
                A bad ticket gets a Flight error saying what is wrong; the server goes on.

                example:
                  tensorbuf serve weights --port 8815
                  serving weights on grpc+tcp://127.0.0.1:8815: 3 tensors (Ctrl-C stops)
                  python: pa.flight.connect("grpc://127.0.0.1:8815").do_get(pa.flight.Ticket(
                      b'{"path": "x.npy", "start": [0, 0], "limit": [2, 3]}')).read_all()
                """;
    }

    @Override
    public List<Option> options() {
        return List.of(
                Option.value("port", "N", false, "the port; 0 picks a free one (default 8815)"),
                Option.value("host", "H", false, "the address to bind (default 127.0.0.1: this machine only)"),
                Option.value("token-file", "F", false, "a file whose first line is the bearer token every call must send"),
                Option.value("tls-cert", "PEM", false, "the certificate chain for TLS, with --tls-key"),
                Option.value("tls-key", "PEM", false, "the PKCS#8 private key of --tls-cert"),
                Option.value("max-bytes", "N", false, "the most bytes one ticket may ask for (default 16 GiB)"),
                Option.value("batch-bytes", "N", false, "the most bytes of one record batch (default 16 MiB)"),
                Option.JSON);
    }

    @Override
    public int run(Invocation in) throws Exception {
        in.expectAtMostPositionals(1);
        Path dir = Path.of(in.positional(0, "DIR"));
        if (!Files.isDirectory(dir)) {
            throw new UsageException(Files.exists(dir) ? dir + " is not a directory" : Failure.missing(dir.toString()));
        }
        TensorServer.Options options = TensorServer.Options.defaults();
        if (in.value("host") != null) {
            options = options.withHost(in.value("host"));
        }
        Long port = in.longValue("port");
        if (port != null) {
            if (port < 0 || port > 65535) {
                throw new UsageException("--port " + port + " is not in [0, 65535]");
            }
            options = options.withPort(port.intValue());
        }
        Long max = in.longValue("max-bytes");
        if (max != null) {
            options = options.withMaxTicketBytes(positive(max, "--max-bytes"));
        }
        Long batch = in.longValue("batch-bytes");
        if (batch != null) {
            options = options.withBatchBytes(positive(batch, "--batch-bytes"));
        }
        if (in.value("token-file") != null) {
            options = options.withToken(readToken(Path.of(in.value("token-file"))));
        }
        if ((in.value("tls-cert") == null) != (in.value("tls-key") == null)) {
            throw new UsageException("TLS needs both --tls-cert and --tls-key; got only "
                    + (in.value("tls-cert") == null ? "--tls-key" : "--tls-cert"));
        }
        if (in.value("tls-cert") != null) {
            Path cert = Path.of(in.value("tls-cert"));
            Path key = Path.of(in.value("tls-key"));
            CliFiles.input(cert, "--tls-cert");
            CliFiles.input(key, "--tls-key");
            options = options.withTls(cert, key);
        }
        if (!isLoopback(options.host()) && options.token().isEmpty()) {
            in.err().println("tensorbuf serve: warning: serving " + options.host() + " without --token-file: anyone who"
                    + " reaches this port can read the tensors under " + dir);
        }
        TensorServer server = TensorServer.start(dir, options);
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "tensorbuf-serve-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        int tensors = server.tensorCount();
        String location = server.location().getUri().toString();
        if (in.flag("json")) {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("directory", server.directory().toString());
            json.put("location", location);
            json.put("port", server.port());
            json.put("tensors", tensors);
            in.printJson(json);
        } else {
            in.out().println("serving " + dir + " on " + location + ": " + Counts.of(tensors, "tensor") + " (Ctrl-C stops)");
        }
        in.out().flush();
        server.awaitTermination();
        return 0;
    }

    private static long positive(long v, String option) {
        if (v < 1) {
            throw new UsageException(option + " " + v + " must be at least 1");
        }
        return v;
    }

    private static boolean isLoopback(String host) {
        return host.equals("localhost") || host.startsWith("127.") || host.equals("::1") || host.equals("[::1]");
    }

    /** {@return the token: the file's first line, without surrounding blanks} */
    static String readToken(Path file) throws IOException {
        CliFiles.input(file, "--token-file");
        String text = Files.readString(file, StandardCharsets.UTF_8);
        String token = text.lines().findFirst().orElse("").strip();
        if (token.isEmpty()) {
            throw new UsageException("--token-file " + file + " is empty; its first line is the token");
        }
        return token;
    }
}
