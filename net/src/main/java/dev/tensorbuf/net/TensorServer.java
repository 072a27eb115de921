package dev.tensorbuf.net;

import dev.tensorbuf.net.internal.BearerTokenCheck;
import dev.tensorbuf.net.internal.DirectFrames;
import dev.tensorbuf.net.internal.TensorDirectory;
import dev.tensorbuf.net.internal.TensorProducer;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;

/**
 * An Arrow Flight server over the tensor files ({@code .npy}, {@code .safetensors}, {@code .gguf},
 * and sharded checkpoints' {@code model.safetensors.index.json}, whose files' tensors are served
 * as one set) under one directory. A {@link TensorTicket} (JSON) names a tensor and optionally a
 * box, or a sharding and a device (the box XLA's rule gives that device), and optionally a dtype;
 * the server streams it as record batches of one {@code arrow.fixed_shape_tensor} column
 * {@code tensor}, rows along dim 0, at most {@link Options#batchBytes()} a batch, straight from the
 * mapped file when the box is contiguous in it. GGUF block-quantized tensors are dequantized batch
 * by batch, to f32 unless the ticket asks another floating type. {@code ListFlights} lists every
 * tensor with the type it is sent as and its dims (the schema, and metadata
 * {@code tensorbuf.dtype}, {@code tensorbuf.dims}, and {@code tensorbuf.stored} for a GGUF block
 * type); each stream's metadata also says where its box starts ({@code tensorbuf.start}).
 *
 * <p>Safe to leave running: it binds to loopback unless given a host; it serves only files under
 * its directory (a ticket with {@code ..}, an absolute path or a symlink leading out is refused
 * with {@code UNAUTHORIZED}, named); a ticket asking for more than {@link Options#maxTicketBytes()}
 * is refused ({@code RESOURCE_EXHAUSTED}) before any read; with a token every call needs
 * {@code authorization: Bearer TOKEN} ({@code UNAUTHENTICATED} otherwise, Flight's own header
 * authentication), and with a certificate and key it speaks TLS. A bad ticket gets a Flight error
 * whose message says what is wrong; it never ends the server.
 * {@snippet :
 * try (TensorServer server = TensorServer.start(Path.of("weights"), TensorServer.Options.defaults().withPort(0))) {
 *     server.location();   // grpc+tcp://127.0.0.1:40123 (an ephemeral port)
 *     // python: pa.flight.connect("grpc://127.0.0.1:40123").do_get(pa.flight.Ticket(
 *     //     b'{"path": "model.safetensors", "tensor": "w", "start": [0, 0], "limit": [2, 3]}')).read_all()
 * }
 * }
 */
public final class TensorServer implements AutoCloseable {
    /**
     * How a server runs.
     *
     * @param host the address to bind; {@code 127.0.0.1} (loopback) by default
     * @param port the port; 0 picks a free one
     * @param maxTicketBytes the most bytes one ticket may ask for
     * @param batchBytes the most bytes of one record batch (a batch holds at least one row)
     * @param token the bearer token every call must carry, or empty for none
     * @param tlsCertificate the PEM certificate chain, with {@code tlsKey}, for TLS; or empty
     * @param tlsKey the PEM (PKCS#8) private key of the certificate; or empty
     */
    public record Options(String host, int port, long maxTicketBytes, long batchBytes, Optional<String> token,
                          Optional<Path> tlsCertificate, Optional<Path> tlsKey) {
        /** The default port, Flight's customary one. */
        public static final int DEFAULT_PORT = 8815;

        /** @throws IllegalArgumentException for a port out of range, limits below 1, or only half of TLS */
        public Options {
            Objects.requireNonNull(host, "host");
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port " + port + " is not in [0, 65535]");
            }
            if (maxTicketBytes < 1 || batchBytes < 1) {
                throw new IllegalArgumentException("maxTicketBytes " + maxTicketBytes + " and batchBytes " + batchBytes
                        + " must be at least 1");
            }
            if (tlsCertificate.isPresent() != tlsKey.isPresent()) {
                throw new IllegalArgumentException("TLS needs both a certificate chain and its private key; got only the "
                        + (tlsCertificate.isPresent() ? "certificate" : "key"));
            }
        }

        /** {@return loopback, port 8815, 16 GiB per ticket, 16 MiB batches, no token, no TLS} */
        public static Options defaults() {
            return new Options("127.0.0.1", DEFAULT_PORT, 16L << 30, 16L << 20, Optional.empty(), Optional.empty(),
                    Optional.empty());
        }

        /** {@return these options binding {@code host}} */
        public Options withHost(String host) {
            return new Options(host, port, maxTicketBytes, batchBytes, token, tlsCertificate, tlsKey);
        }

        /** {@return these options on {@code port}} */
        public Options withPort(int port) {
            return new Options(host, port, maxTicketBytes, batchBytes, token, tlsCertificate, tlsKey);
        }

        /** {@return these options with a per-ticket byte limit} */
        public Options withMaxTicketBytes(long bytes) {
            return new Options(host, port, bytes, batchBytes, token, tlsCertificate, tlsKey);
        }

        /** {@return these options with record batches of at most {@code bytes}} */
        public Options withBatchBytes(long bytes) {
            return new Options(host, port, maxTicketBytes, bytes, token, tlsCertificate, tlsKey);
        }

        /** {@return these options requiring the bearer token} */
        public Options withToken(String token) {
            return new Options(host, port, maxTicketBytes, batchBytes, Optional.of(token), tlsCertificate, tlsKey);
        }

        /** {@return these options speaking TLS with the PEM certificate chain and PKCS#8 key} */
        public Options withTls(Path certificate, Path key) {
            return new Options(host, port, maxTicketBytes, batchBytes, token, Optional.of(certificate), Optional.of(key));
        }
    }

    /** The most bytes a connection queues for the socket before it waits for them to drain. */
    private static final int WRITE_HIGH_WATER = 8 << 20;

    private final TensorDirectory directory;
    private final BufferAllocator allocator;
    private final FlightServer server;
    private final Location location;

    private TensorServer(TensorDirectory directory, BufferAllocator allocator, FlightServer server, Location location) {
        this.directory = directory;
        this.allocator = allocator;
        this.server = server;
        this.location = location;
    }

    /**
     * {@return a running server over {@code dir}}
     *
     * @throws IOException if {@code dir} is not a directory, the port cannot be bound, or the TLS
     *     files cannot be read
     */
    public static TensorServer start(Path dir, Options options) throws IOException {
        TensorDirectory directory = new TensorDirectory(dir);
        BufferAllocator allocator = ArrowTensors.allocator();
        try {
            boolean tls = options.tlsCertificate().isPresent();
            Location bind = tls ? Location.forGrpcTls(options.host(), options.port())
                    : Location.forGrpcInsecure(options.host(), options.port());
            FlightServer.Builder builder = FlightServer.builder(allocator, bind,
                    new TensorProducer(directory, allocator, options.maxTicketBytes(), options.batchBytes()));
            if (tls) {
                builder.useTls(options.tlsCertificate().get().toFile(), options.tlsKey().get().toFile());
            }
            options.token().ifPresent(t -> builder.headerAuthenticator(new BearerTokenCheck(t)));
            java.util.function.Consumer<NettyServerBuilder> transport = tls ? TensorServer::largerFlushes
                    : netty -> {
                        largerFlushes(netty);
                        netty.protocolNegotiator(DirectFrames.plaintext());
                    };
            builder.transportHint("grpc.builderConsumer", transport);
            FlightServer server = builder.build();
            try {
                server.start();
            } catch (IOException e) {
                closeQuietly(server);
                throw new IOException("cannot serve on " + options.host() + ":" + options.port() + ": " + e.getMessage(), e);
            }
            Location at = tls ? Location.forGrpcTls(options.host(), server.getPort())
                    : Location.forGrpcInsecure(options.host(), server.getPort());
            return new TensorServer(directory, allocator, server, at);
        } catch (IOException | RuntimeException e) {
            allocator.close();
            directory.close();
            throw e;
        }
    }

    /**
     * Lets Netty's HTTP/2 flow controller queue up to {@link #WRITE_HIGH_WATER} bytes of a stream
     * before it flushes. It writes only while the channel is writable, and at Netty's default
     * water marks (32/64 KiB) a 1 GiB DoGet went out as about 27,000 writev calls of two or three
     * 16 KiB frames, each round trip through the writability events; at 8 MiB it is about 2,000
     * of 0.5-1 MiB, and about 750 of 1.5 MB on average to {@link TensorClient}'s 16 MiB window
     * (strace). A connection then holds up to that many bytes of frames in Netty's outbound buffer.
     */
    private static void largerFlushes(NettyServerBuilder netty) {
        netty.withChildOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(WRITE_HIGH_WATER / 2, WRITE_HIGH_WATER));
    }

    private static void closeQuietly(FlightServer server) {
        try {
            server.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException ignored) {
            // already failing
        }
    }

    /** {@return where clients reach the server, e.g. {@code grpc+tcp://127.0.0.1:8815}} */
    public Location location() {
        return location;
    }

    /** {@return the port the server listens on} */
    public int port() {
        return server.getPort();
    }

    /**
     * {@return how many tensors {@code ListFlights} offers now: those of the readable files, of
     * rank 1 or more and of a type Arrow holds}
     *
     * @throws IOException if the directory cannot be walked
     */
    public int tensorCount() throws IOException {
        int n = 0;
        for (TensorDirectory.Entry e : directory.list()) {
            try {
                if (!e.dims().isEmpty()) {
                    FixedShapeTensorType.of(e.dtype(), java.util.List.of()).field("tensor");
                    n++;
                }
            } catch (IllegalArgumentException unsupported) {
                // not offered
            }
        }
        return n;
    }

    /** {@return the served directory's real path} */
    public Path directory() {
        return directory.root();
    }

    /** Blocks until the server is shut down. */
    public void awaitTermination() throws InterruptedException {
        server.awaitTermination();
    }

    /** Stops the server (calls in flight are cut), then unmaps the files. */
    @Override
    public void close() {
        try {
            server.shutdown();
            if (!server.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS)) {
                server.close();
            }
            server.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception ignored) {
            // stopping anyway
        } finally {
            directory.close();
            try {
                allocator.close();
            } catch (IllegalStateException leak) {
                // Buffers a cut call had not yet released; the process ends them.
            }
        }
    }
}
