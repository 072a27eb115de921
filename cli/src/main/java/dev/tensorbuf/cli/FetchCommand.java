package dev.tensorbuf.cli;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.net.TensorClient;
import dev.tensorbuf.net.TensorTicket;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.TensorView;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code tensorbuf fetch}: a tensor or a box of it from a {@code tensorbuf serve} (or any such Flight server) into a file. */
final class FetchCommand implements Command {
    @Override
    public String name() {
        return "fetch";
    }

    @Override
    public String summary() {
        return "fetch a tensor or a box of it from a tensorbuf serve over Arrow Flight into .npy, safetensors or .arrow";
    }

    @Override
    public String synopsis() {
        return "tensorbuf fetch SERVER PATH OUT [--tensor NAME] [--start I,J,.. --limit I,J,.. | --sharding S --device K]"
                + " [--dtype T] [--token-file F]"
                + " [--tls-ca PEM] [--timeout S] [--quiet] [--json]   |   tensorbuf fetch SERVER --list [--json]";
    }

    @Override
    public String description() {
        return """
                Fetches the tensor PATH (a file relative to the server's directory; --tensor NAME for
                a safetensors file of several) from SERVER (grpc+tcp://HOST:PORT, grpc+tls://HOST:PORT)
                and writes it to OUT (.npy, .safetensors or .arrow, row-major). --start and --limit
                fetch only the box [start, limit) of each dim; --sharding (XLA's text, e.g.
                {devices=[2,2]<=[4]}) with --device K fetches device K's shard, the box XLA's rule
                gives it. --dtype converts (a GGUF block-quantized tensor is dequantized to it; f32
                by default). --list prints the tensors the server
                offers instead. A fetch that fails (the server refuses the ticket, dies or is
                unreachable) names the server and the tensor, and leaves OUT as it was.

                example:
                  tensorbuf fetch grpc+tcp://127.0.0.1:8815 model.safetensors w.npy --tensor w --start 0,0 --limit 2,3
                  grpc+tcp://127.0.0.1:8815 model.safetensors:w[0:2, 0:3] -> w.npy: s32[2,3]{1,0}, 152 bytes in 0.05 s
                  tensorbuf fetch grpc+tcp://127.0.0.1:8815 x.npy s3.npy --sharding '{devices=[2,2]<=[4]}' --device 3
                """;
    }

    @Override
    public List<Option> options() {
        return List.of(
                Option.value("tensor", "NAME", false, "the tensor of a safetensors file"),
                Option.value("start", "I,J,..", false, "the box's first index per dim (with --limit)"),
                Option.value("limit", "I,J,..", false, "the box's end per dim, exclusive (with --start)"),
                Option.value("sharding", "S", false, "an XLA sharding, e.g. {devices=[2,2]<=[4]} (with --device)"),
                Option.value("device", "K", false, "the device whose shard to fetch (with --sharding)"),
                Option.value("dtype", "T", false, "the element type to fetch as (f32, bf16, ...); GGUF blocks dequantize to f32 by default"),
                Option.value("token-file", "F", false, "a file whose first line is the server's bearer token"),
                Option.value("tls-ca", "PEM", false, "certificates to trust for a grpc+tls:// server (default: the system's)"),
                Option.value("timeout", "S", false, "the most seconds the fetch may take (default 600)"),
                Option.flag("list", "print the server's tensors instead of fetching one"),
                Option.flag("quiet", "print nothing on success"),
                Option.JSON);
    }

    @Override
    public int run(Invocation in) throws Exception {
        URI server = server(in.positional(0, "SERVER"));
        TensorClient.Options options = TensorClient.Options.defaults();
        if (in.value("token-file") != null) {
            options = options.withToken(ServeCommand.readToken(Path.of(in.value("token-file"))));
        }
        if (in.value("tls-ca") != null) {
            Path ca = Path.of(in.value("tls-ca"));
            CliFiles.input(ca, "--tls-ca");
            options = options.withTrustedCertificates(ca);
        }
        Long timeout = in.longValue("timeout");
        if (timeout != null) {
            if (timeout < 1) {
                throw new UsageException("--timeout " + timeout + " must be at least 1 second");
            }
            options = options.withTimeout(Duration.ofSeconds(timeout));
        }
        try (TensorClient client = TensorClient.connect(server, options)) {
            if (in.flag("list")) {
                in.expectAtMostPositionals(1);
                return list(in, client);
            }
            in.expectAtMostPositionals(3);
            String path = in.positional(1, "PATH");
            Path out = Path.of(in.positional(2, "OUT"));
            CliFiles.outputFile(out, null);
            TensorTicket ticket = TensorTicket.of(path, in.value("tensor", ""));
            if ((in.value("start") == null) != (in.value("limit") == null)) {
                throw new UsageException("a box needs both --start and --limit; got only "
                        + (in.value("start") == null ? "--limit" : "--start"));
            }
            if (in.value("start") != null) {
                ticket = ticket.withBox(longs(in.longs("start")), longs(in.longs("limit")));
            }
            if ((in.value("sharding") == null) != (in.value("device") == null)) {
                throw new UsageException("a shard needs both --sharding and --device; got only "
                        + (in.value("sharding") == null ? "--device" : "--sharding"));
            }
            if (in.value("sharding") != null) {
                if (in.value("start") != null) {
                    throw new UsageException("give a box (--start/--limit) or a shard (--sharding/--device), not both");
                }
                Long device = in.longValue("device");
                if (device < 0) {
                    throw new UsageException("--device " + device + " must be >= 0");
                }
                try {
                    ticket = ticket.withShard(in.value("sharding"), device);
                } catch (IllegalArgumentException e) {
                    throw new UsageException("--sharding: " + e.getMessage().replaceFirst("^ticket: ", ""));
                }
            }
            if (in.value("dtype") != null) {
                ticket = ticket.withDType(DTypeNames.parse(in.value("dtype"), "--dtype"));
            }
            long t0 = System.nanoTime();
            try (Allocator arena = Allocators.shared()) {
                TensorView got = client.fetch(ticket, arena);
                ArrayShape shape = ArrayShape.of(got.dtype(), got.dims().stream().mapToLong(Long::longValue).toArray());
                TensorFiles.requireWritable(out, shape, "the fetched tensor", "write it to another format");
                String name = ticket.tensor().isEmpty() ? TensorFiles.stem(Path.of(path)) : ticket.tensor();
                TensorFiles.write(out, name, DenseTensor.of(got));
                double seconds = (System.nanoTime() - t0) / 1e9;
                long written = Files.size(out);
                if (in.flag("json")) {
                    Map<String, Object> json = new LinkedHashMap<>();
                    json.put("server", server.toString());
                    json.put("tensor", ticket.describe());
                    json.put("out", out.toString());
                    json.put("shape", TensorFiles.asWritten(out, shape).toString());
                    json.put("bytes_written", written);
                    json.put("seconds", Math.round(seconds * 1000) / 1000.0);
                    in.printJson(json);
                } else if (!in.flag("quiet")) {
                    in.out().println(Failure.oneLine(server + " " + ticket.describe() + " -> " + out) + ": "
                            + TensorFiles.asWritten(out, shape) + ", " + Counts.of(written, "byte") + " in "
                            + String.format("%.2f s", seconds));
                }
            }
        } catch (TensorClient.FetchException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        return 0;
    }

    private static int list(Invocation in, TensorClient client) {
        List<TensorClient.Listed> listed = client.list();
        if (in.flag("json")) {
            List<Object> tensors = new ArrayList<>();
            for (TensorClient.Listed l : listed) {
                Map<String, Object> t = new LinkedHashMap<>();
                t.put("path", l.ticket().path());
                t.put("tensor", l.ticket().tensor());
                t.put("dtype", l.dtype().xlaName());
                t.put("dims", l.dims());
                t.put("ticket", l.ticket().toJson());
                tensors.add(t);
            }
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("server", client.server());
            json.put("tensors", tensors);
            in.printJson(json);
        } else {
            for (TensorClient.Listed l : listed) {
                in.out().println(Failure.oneLine(l.ticket().describe()) + "  " + l.dtype() + l.dims());
            }
        }
        return 0;
    }

    private static List<Long> longs(long[] values) {
        List<Long> out = new ArrayList<>();
        for (long v : values) {
            out.add(v);
        }
        return out;
    }

    private static URI server(String text) {
        URI uri;
        try {
            uri = URI.create(text);
        } catch (IllegalArgumentException e) {
            throw new UsageException("SERVER '" + Failure.clip(text) + "' is not a URI; write grpc+tcp://HOST:PORT");
        }
        if (uri.getScheme() == null || uri.getHost() == null || uri.getPort() < 0) {
            throw new UsageException("SERVER '" + Failure.clip(text) + "' needs a scheme, host and port, e.g."
                    + " grpc+tcp://127.0.0.1:8815");
        }
        return uri;
    }
}
