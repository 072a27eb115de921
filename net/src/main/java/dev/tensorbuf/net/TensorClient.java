package dev.tensorbuf.net;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.net.internal.DoGetReader;
import dev.tensorbuf.net.internal.LargeFrames;
import dev.tensorbuf.net.internal.TensorProducer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.shard.IndexBox;
import dev.tensorbuf.ops.shard.ShardedTensor;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.InternalNettyChannelBuilder;
import io.grpc.netty.InternalProtocolNegotiators;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongConsumer;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallOptions;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightCallHeaders;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightGrpcUtils;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.HeaderCallOption;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A client of {@link TensorServer} (or of any Flight server streaming
 * {@code arrow.fixed_shape_tensor} columns): fetches a tensor or a box of it into a destination
 * view of any layout, and parts from several servers at once into one destination. Each record
 * batch's values are copied once, from the network buffers straight into the destination's rows
 * where they lie there in C order as sent; otherwise through a staging buffer and the copy engine.
 * {@snippet :
 * try (TensorClient a = TensorClient.connect(URI.create("grpc+tcp://127.0.0.1:8815"), TensorClient.Options.defaults());
 *      TensorClient b = TensorClient.connect(URI.create("grpc+tcp://127.0.0.1:8816"), TensorClient.Options.defaults());
 *      Allocator arena = Allocators.shared()) {
 *     TensorView whole = TensorView.of(arena.allocate(8 * 3 * 4), "f32[8,3]{0,1}");   // column-major
 *     TensorClient.fetchAll(List.of(
 *             new TensorClient.Part(a, TensorTicket.of("top.npy", ""), List.of(0L, 0L)),      // rows 0-3
 *             new TensorClient.Part(b, TensorTicket.of("bottom.npy", ""), List.of(4L, 0L))),  // rows 4-7
 *         whole);
 * }
 * }
 */
public final class TensorClient implements AutoCloseable {
    /**
     * How a client connects.
     *
     * @param token the bearer token to send, or empty
     * @param trustedCertificates PEM certificates to trust for TLS ({@code grpc+tls://}), or empty
     *     for the system's
     * @param timeout the longest one call may take
     */
    public record Options(Optional<String> token, Optional<Path> trustedCertificates, Duration timeout) {
        /** @throws IllegalArgumentException for a timeout that is not positive */
        public Options {
            Objects.requireNonNull(token, "token");
            Objects.requireNonNull(trustedCertificates, "trustedCertificates");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout " + timeout + " must be positive");
            }
        }

        /** {@return no token, the system's trust, calls of at most 10 minutes} */
        public static Options defaults() {
            return new Options(Optional.empty(), Optional.empty(), Duration.ofMinutes(10));
        }

        /** {@return these options sending the bearer token} */
        public Options withToken(String token) {
            return new Options(Optional.of(token), trustedCertificates, timeout);
        }

        /** {@return these options trusting the PEM certificates} */
        public Options withTrustedCertificates(Path pem) {
            return new Options(token, Optional.of(pem), timeout);
        }

        /** {@return these options with calls of at most {@code timeout}} */
        public Options withTimeout(Duration timeout) {
            return new Options(token, trustedCertificates, timeout);
        }
    }

    /**
     * One piece of a tensor assembled from several servers: {@code ticket}'s tensor or box, from
     * {@code client}'s server, written into the destination at index {@code at}.
     *
     * @param client the server's client
     * @param ticket what to ask it for
     * @param at where the piece's first element goes in the destination, one entry per dim
     */
    public record Part(TensorClient client, TensorTicket ticket, List<Long> at) {
        public Part {
            Objects.requireNonNull(client, "client");
            Objects.requireNonNull(ticket, "ticket");
            at = List.copyOf(at);
        }
    }

    /**
     * Where one device's shard of a sharded tensor is served: the server's client and the ticket
     * of the shard's own tensor (a whole tensor of the shard's dims, such as {@code w.device3} of a
     * checkpoint), no box or sharding of its own.
     *
     * @param client the server's client
     * @param ticket the shard's tensor
     */
    public record Held(TensorClient client, TensorTicket ticket) {
        public Held {
            Objects.requireNonNull(client, "client");
            Objects.requireNonNull(ticket, "ticket");
            if (ticket.hasBox() || ticket.hasShard()) {
                throw new IllegalArgumentException("held shard " + ticket.describe() + " must name a whole tensor, the"
                        + " shard itself; its boxes are asked for by reshard");
            }
        }
    }

    /** A tensor a server lists: its ticket, element type and dims. */
    public record Listed(TensorTicket ticket, DType dtype, List<Long> dims) {
    }

    /**
     * The network buffers of every client's connections. A batch is parsed only once all of it
     * (16 MiB by default) has arrived, so its receive buffers pile up to that size and are freed
     * together; gRPC's own pool (2 MiB chunks) gives emptied chunks back to the system, and the
     * next batch may take fresh pages. Netty's adaptive allocator keeps emptied chunks for reuse:
     * in {@code bench/peers/flight_speed.sh} (medians of three runs) client CPU 0.79 -> 0.62 s/GiB
     * from our server, 0.70 -> 0.59 from pyarrow's, and fewer page faults, though those swing
     * 100-fold run to run.
     */
    private static final ByteBufAllocator RECEIVE_BUFFERS = new AdaptiveByteBufAllocator(true);

    private final Location location;
    private final BufferAllocator allocator;
    private final FlightClient client;
    private final Options options;
    /** The Flight client's channel, with the token's header where there is one: the one {@code DoGet} reads batches from. */
    private final Channel channel;

    private TensorClient(Location location, BufferAllocator allocator, FlightClient client, Options options, Channel channel) {
        this.location = location;
        this.allocator = allocator;
        this.client = client;
        this.options = options;
        if (options.token().isPresent()) {
            Metadata headers = new Metadata();
            headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + options.token().get());
            channel = ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers));
        }
        this.channel = channel;
    }

    /**
     * {@return a client of the server at {@code uri}: {@code grpc+tcp://HOST:PORT} (also
     * {@code grpc://}) or {@code grpc+tls://HOST:PORT}} Connecting is lazy: an unreachable server
     * is reported by the first call.
     *
     * @throws IllegalArgumentException for another scheme or no port
     * @throws IOException if the trusted certificates cannot be read
     */
    public static TensorClient connect(URI uri, Options options) throws IOException {
        String scheme = String.valueOf(uri.getScheme());
        if (uri.getHost() == null || uri.getPort() < 0) {
            throw new IllegalArgumentException("server " + uri + " needs a host and a port, e.g. grpc+tcp://127.0.0.1:8815");
        }
        Location location = switch (scheme) {
            case "grpc", "grpc+tcp" -> Location.forGrpcInsecure(uri.getHost(), uri.getPort());
            case "grpc+tls" -> Location.forGrpcTls(uri.getHost(), uri.getPort());
            default -> throw new IllegalArgumentException("server " + uri + ": scheme '" + scheme
                    + "' is not grpc+tcp, grpc or grpc+tls");
        };
        BufferAllocator allocator = ArrowTensors.allocator();
        try {
            // The channel is made here, as Flight's builder makes it, because DoGet reads it directly.
            NettyChannelBuilder b = NettyChannelBuilder.forAddress(uri.getHost(), uri.getPort())
                    .maxInboundMessageSize(Integer.MAX_VALUE)
                    .withOption(ChannelOption.ALLOCATOR, RECEIVE_BUFFERS);
            if (scheme.equals("grpc+tls")) {
                SslContextBuilder ssl = GrpcSslContexts.forClient();
                if (options.trustedCertificates().isPresent()) {
                    try (InputStream pem = Files.newInputStream(options.trustedCertificates().get())) {
                        ssl.trustManager(new java.io.ByteArrayInputStream(pem.readAllBytes()));
                    }
                }
                b.useTransportSecurity().sslContext(ssl.build());
            } else {
                b.usePlaintext();
                InternalNettyChannelBuilder.setProtocolNegotiatorFactory(b,
                        () -> LargeFrames.negotiator(InternalProtocolNegotiators.plaintext()));
            }
            ManagedChannel channel = b.build();
            return new TensorClient(location, allocator, FlightGrpcUtils.createFlightClient(allocator, channel), options, channel);
        } catch (IOException | RuntimeException e) {
            allocator.close();
            throw e;
        }
    }

    /** {@return the server's location, as messages name it} */
    public String server() {
        return location.getUri().toString();
    }

    private Channel callChannel() {
        return channel;
    }

    private io.grpc.CallOptions grpcOptions() {
        return io.grpc.CallOptions.DEFAULT.withDeadlineAfter(options.timeout().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    private CallOption[] callOptions() {
        List<CallOption> o = new ArrayList<>();
        o.add(CallOptions.timeout(options.timeout().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS));
        if (options.token().isPresent()) {
            CallHeaders headers = new FlightCallHeaders();
            headers.insert("authorization", "Bearer " + options.token().get());
            o.add(new HeaderCallOption(headers));
        }
        return o.toArray(CallOption[]::new);
    }

    /**
     * {@return the tensors the server lists}
     *
     * @throws TensorClient.FetchException naming the server and the Flight error
     */
    public List<Listed> list() {
        List<Listed> out = new ArrayList<>();
        try {
            for (FlightInfo info : client.listFlights(Criteria.ALL, callOptions())) {
                Field f = info.getSchema().getFields().getFirst();
                FixedShapeTensorType t = FixedShapeTensorType.ofField(f).orElseThrow();
                List<Long> dims = new ArrayList<>();
                dims.add(info.getRecords());
                dims.addAll(t.logicalDims());
                out.add(new Listed(TensorTicket.parse(info.getEndpoints().getFirst().getTicket().getBytes()), t.dtype(), dims));
            }
        } catch (FlightRuntimeException e) {
            throw new FetchException("listing the tensors of " + server() + " failed: " + status(e), e);
        }
        return out;
    }

    /**
     * {@return the ticket's tensor or box in new memory of {@code allocator}, C order} On failure
     * the memory is freed and nothing is returned.
     *
     * @throws TensorClient.FetchException naming the server, the tensor and why
     */
    public TensorView fetch(TensorTicket ticket, Allocator allocator) {
        return fetch(ticket, allocator, n -> { });
    }

    /** {@link #fetch(TensorTicket, Allocator)}, telling {@code received} the bytes of each batch as it lands. */
    public TensorView fetch(TensorTicket ticket, Allocator allocator, LongConsumer received) {
        Objects.requireNonNull(allocator, "allocator");
        MemoryBuffer[] made = new MemoryBuffer[1];
        try {
            return stream(ticket, (type, dims) -> {
                long[] d = dims.stream().mapToLong(Long::longValue).toArray();
                StridedLayout layout = StridedLayout.packed(d);
                made[0] = allocator.allocate(Math.max(1, Math.multiplyExact(layout.elementCount(), (long) type.byteWidth())));
                return TensorView.strided(made[0], type, layout);
            }, received);
        } catch (RuntimeException e) {
            if (made[0] != null) {
                made[0].close();
            }
            throw e;
        }
    }

    /**
     * Fetches the ticket's tensor or box into {@code destination}, whose dims must be the box's;
     * the element type converts as the copy engine converts.
     *
     * @throws TensorClient.FetchException naming the server, the tensor and why: a Flight error, a
     *     stream that ends early, or a column that is not the box's
     */
    public void fetch(TensorTicket ticket, TensorView destination, LongConsumer received) {
        Objects.requireNonNull(destination, "destination");
        stream(ticket, (type, dims) -> {
            if (!dims.equals(destination.dims())) {
                throw new IllegalArgumentException("the server sends dims " + dims + ", the destination has " + destination.dims());
            }
            return destination;
        }, received);
    }

    /** Where a stream's rows go, once its schema has said the type and dims. */
    private interface Destination {
        TensorView of(DType type, List<Long> dims);
    }

    private TensorView stream(TensorTicket ticket, Destination destination, LongConsumer received) {
        String what = ticket.describe();
        Receiver r = new Receiver(ticket, destination, received);
        try (Allocator staging = Allocators.shared()) {
            r.staging = staging;
            DoGetReader.run(callChannel(), grpcOptions(), ticket.toBytes(), r);
            return r.finish();
        } catch (FlightRuntimeException e) {
            throw new FetchException("fetching " + what + " from " + server() + " failed" + progress(r.rows, r.expected)
                    + ": " + status(e), e);
        } catch (RuntimeException e) {
            throw new FetchException("fetching " + what + " from " + server() + " failed" + progress(r.rows, r.expected)
                    + ": " + e.getMessage(), e);
        }
    }

    /**
     * One fetch's rows, written as they arrive: straight from the network buffers into the
     * destination when its rows lie there in C order as sent, else through a staging buffer and
     * the copy engine (another layout, another element type, a transposed column). A whole tensor
     * whose dims the server does not say waits in staging until the stream ends.
     */
    private static final class Receiver implements DoGetReader.Sink {
        private final TensorTicket ticket;
        private final Destination destination;
        private final LongConsumer received;
        private final CopyEngine engine = CopyEngine.defaults();
        private final List<Map.Entry<MemoryBuffer, Long>> pending = new ArrayList<>();
        private Allocator staging;
        private MemoryBuffer stage;
        private FixedShapeTensorType type;
        private TensorView into;
        private long rows;
        private long expected = -1;

        Receiver(TensorTicket ticket, Destination destination, LongConsumer received) {
            this.ticket = ticket;
            this.destination = destination;
            this.received = received;
        }

        @Override
        public void schema(Schema schema) {
            List<Field> fields = schema.getFields();
            type = fields.size() == 1 ? FixedShapeTensorType.ofField(fields.getFirst()).orElse(null) : null;
            if (type == null) {
                throw new IllegalArgumentException("the stream's schema is " + schema + ", not one arrow.fixed_shape_tensor column");
            }
            expected = expectedRows(ticket, schema.getCustomMetadata());
        }

        @Override
        public void batch(long n, DoGetReader.Body data) {
            if (type == null) {
                throw new IllegalStateException("a record batch came before the schema");
            }
            long bytes = Math.multiplyExact(Math.multiplyExact(n, (long) type.listSize()), (long) type.dtype().byteWidth());
            if (data.bytes() < bytes) {
                throw new IllegalArgumentException("a batch of " + n + " rows of " + type.logicalDims() + " " + type.dtype()
                        + " holds " + data.bytes() + " bytes of values, not " + bytes);
            }
            if (expected < 0) {
                // A whole tensor: the dims are known once the stream ends; the rows wait.
                MemoryBuffer b = staging.allocate(Math.max(1, bytes));
                data.copyTo(b.segment().asSlice(0, bytes));
                pending.add(Map.entry(b, n));
                return;
            }
            if (into == null) {
                into = destination.of(type.dtype(), prepend(expected, type.logicalDims()));
            }
            if (rows + n > expected) {
                throw new IllegalStateException("the server sent more than the " + expected + " rows asked for");
            }
            TensorView dst = TensorProducer.rowsOf(into, rows, rows + n);
            long at = rowMajorByteOffset(dst);
            if (at >= 0) {
                try (MemoryBuffer.Hold _ = dst.buffer().hold()) {
                    data.copyTo(dst.buffer().segment().asSlice(at, bytes));
                }
            } else {
                if (stage == null || stage.byteSize() < bytes) {
                    stage = staging.allocate(Math.max(1, bytes));
                }
                data.copyTo(stage.segment().asSlice(0, bytes));
                engine.copy(ArrowTensors.view(stage, type, n), dst);
            }
            received.accept(bytes);
            rows += n;
        }

        /** {@return where {@code v}'s elements start in its buffer when they lie there as sent (C order, the column's type), else -1} */
        private long rowMajorByteOffset(TensorView v) {
            if (!type.permutation().isEmpty() || v.dtype() != type.dtype() || v.dtype().bitWidth() % 8 != 0
                    || !v.isHostAccessible() || v.buffers().size() != 1 || v.stridedLayout().isEmpty()) {
                return -1;
            }
            StridedLayout l = v.stridedLayout().get();
            long stride = 1;
            for (int d = l.rank() - 1; d >= 0; d--) {
                if (l.sizes().get(d) != 1 && l.strides().get(d) != stride) {
                    return -1;
                }
                stride *= l.sizes().get(d);
            }
            return l.offset() * v.dtype().byteWidth();
        }

        TensorView finish() {
            if (type == null) {
                throw new IllegalStateException("the stream ended before its schema");
            }
            if (into == null) {
                expected = expected < 0 ? pending.stream().mapToLong(Map.Entry::getValue).sum() : expected;
                into = destination.of(type.dtype(), prepend(expected, type.logicalDims()));
                for (Map.Entry<MemoryBuffer, Long> p : pending) {
                    long n = p.getValue();
                    engine.copy(ArrowTensors.view(p.getKey(), type, n), TensorProducer.rowsOf(into, rows, rows + n));
                    received.accept(n * type.listSize() * type.dtype().byteWidth());
                    rows += n;
                }
            }
            if (rows != expected) {
                throw new IllegalStateException("the stream ended after " + rows + " of " + expected + " rows");
            }
            return into;
        }
    }

    private static String progress(long rows, long expected) {
        return expected < 0 ? (rows > 0 ? " after " + rows + " rows" : "") : " after " + rows + " of " + expected + " rows";
    }

    /** {@return the rows the stream should hold: the box's, else the server's word for it, else -1 (unknown until the end)} */
    private static long expectedRows(TensorTicket ticket, java.util.Map<String, String> metadata) {
        if (ticket.hasBox()) {
            return ticket.limit().getFirst() - ticket.start().getFirst();
        }
        String dims = metadata == null ? null : metadata.get(dev.tensorbuf.net.internal.TensorProducer.DIMS_KEY);
        if (dims != null && dims.matches("\\[\\d+(, \\d+)*]")) {
            try {
                return Long.parseLong(dims.substring(1, dims.length() - 1).split(", ")[0]);
            } catch (NumberFormatException tooLarge) {
                return -1;
            }
        }
        return -1;
    }

    private static List<Long> prepend(long first, List<Long> rest) {
        List<Long> d = new ArrayList<>();
        d.add(first);
        d.addAll(rest);
        return d;
    }

    static String status(FlightRuntimeException e) {
        String d = e.status().description();
        String said = e.status().code() + (d == null || d.isEmpty() ? "" : ": " + d);
        // gRPC says "UNAVAILABLE: io exception" for a refused connection; the cause says which.
        Throwable root = e.status().cause() != null ? e.status().cause() : e.getCause();
        while (root != null && root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String why = root == null ? null : root.getMessage();
        return why == null || why.isBlank() || said.contains(why) ? said : said + " (" + why.strip() + ")";
    }


    /**
     * Fetches every part at once, one thread per part, each into its place in {@code destination}:
     * part {@code p}'s box goes to {@code destination[p.at : p.at + box dims]}. The first failure
     * cancels the others and is thrown; the destination is then not the tensor.
     *
     * @throws IllegalArgumentException if a part's {@code at} has another rank than the destination
     * @throws TensorClient.FetchException naming the failed part's server and tensor
     */
    public static void fetchAll(List<Part> parts, TensorView destination) {
        for (Part p : parts) {
            if (p.at().size() != destination.rank()) {
                throw new IllegalArgumentException("part " + p.ticket().describe() + " at " + p.at() + " has "
                        + p.at().size() + " dims; the destination " + destination.dims() + " has " + destination.rank());
            }
        }
        runAll(parts.stream().<Runnable>map(p -> () -> p.client().fetchInto(p, destination)).toList());
    }

    /**
     * Reshards a tensor whose source shards lie on servers: for each destination shard, the
     * overlapping box of each source shard ({@link ShardedTensor#transfers}) is fetched from the
     * server holding that source shard and written into its place in the destination shard, all
     * at once. Only the bytes each destination needs cross the wire.
     * {@snippet :
     * ShardedTensor from = ShardedTensor.of(DType.F32, List.of(9L, 7L), HloSharding.parse("{devices=[2,2]<=[4]}"));
     * ShardedTensor to = ShardedTensor.of(DType.F32, List.of(9L, 7L), HloSharding.parse("{devices=[4,1]<=[4]}"));
     * TensorClient.reshard(from, Map.of(0L, new Held(a, TensorTicket.of("model-00001-of-00004.safetensors", "w.device0")), ...),
     *         to, Map.of(0L, dst0, 1L, dst1, 2L, dst2, 3L, dst3));
     * // dst1 = global[3:6, 0:7], fetched as [3:5, 0:4] of w.device0 and [3:5, 0:3] of w.device1
     * //        from their servers, and [0:1, 0:4] of w.device2 and [0:1, 0:3] of w.device3 from theirs
     * }
     *
     * @param from the source sharding
     * @param sources for each source device holding a shard, where it is served (one per replica group suffices)
     * @param to the destination sharding, of the same dtype and dims
     * @param destinations one view per destination device holding a shard, of that shard's dims, written
     * @throws IllegalArgumentException if a destination is missing or of other dims, or no source holds a needed box
     * @throws TensorClient.FetchException naming the failed part's server and tensor; the destinations are then not the shards
     */
    public static void reshard(ShardedTensor from, java.util.Map<Long, Held> sources, ShardedTensor to,
                               java.util.Map<Long, TensorView> destinations) {
        java.util.Map<Long, IndexBox> fromBoxes = new java.util.HashMap<>();
        from.shards().forEach(s -> fromBoxes.put(s.device(), s.box()));
        java.util.Map<Long, IndexBox> toBoxes = new java.util.HashMap<>();
        for (ShardedTensor.Shard s : to.shards()) {
            toBoxes.put(s.device(), s.box());
            TensorView d = destinations.get(s.device());
            if (d == null || !d.dims().equals(s.box().sizes())) {
                throw new IllegalArgumentException("destination of device " + s.device() + " must have dims " + s.box().sizes()
                        + " (global " + s.box() + "); got " + (d == null ? "none" : d.dims().toString()));
            }
        }
        java.util.Map<IndexBox, List<Long>> holders = new java.util.LinkedHashMap<>();
        from.shards().forEach(s -> holders.computeIfAbsent(s.box(), b -> new ArrayList<>()).add(s.device()));
        List<Runnable> fetches = new ArrayList<>();
        for (ShardedTensor.Transfer t : ShardedTensor.transfers(from, to)) {
            if (t.box().isEmpty()) {
                continue;
            }
            IndexBox srcBox = fromBoxes.get(t.fromDevice());
            Held held = sources.get(t.fromDevice());
            if (held == null) {
                // Any replica of the box will do.
                for (long d : holders.getOrDefault(srcBox, List.of())) {
                    if (sources.containsKey(d)) {
                        held = sources.get(d);
                        break;
                    }
                }
            }
            if (held == null) {
                throw new IllegalArgumentException("no server holds source box " + srcBox + " (device " + t.fromDevice()
                        + " of " + from.sharding() + "), which device " + t.toDevice() + " of " + to.sharding() + " needs");
            }
            IndexBox in = t.box().relativeTo(srcBox);
            IndexBox at = t.box().relativeTo(toBoxes.get(t.toDevice()));
            Part part = new Part(held.client(), held.ticket().withBox(in.start(), in.limit()), at.start());
            TensorView into = destinations.get(t.toDevice());
            fetches.add(() -> part.client().fetchInto(part, into));
        }
        runAll(fetches);
    }

    private static void runAll(List<Runnable> fetches) {
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> running = new ArrayList<>();
            for (Runnable r : fetches) {
                running.add(pool.submit(r));
            }
            for (Future<?> f : running) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    running.forEach(r -> r.cancel(true));
                    if (e.getCause() instanceof RuntimeException r) {
                        throw r;
                    }
                    throw new FetchException(String.valueOf(e.getCause()), e.getCause());
                } catch (InterruptedException e) {
                    running.forEach(r -> r.cancel(true));
                    Thread.currentThread().interrupt();
                    throw new FetchException("interrupted while fetching " + fetches.size() + " parts", e);
                }
            }
        }
    }

    private void fetchInto(Part p, TensorView destination) {
        stream(p.ticket(), (type, dims) -> {
            long[] lo = new long[dims.size()];
            long[] hi = new long[dims.size()];
            long[] step = new long[dims.size()];
            for (int i = 0; i < dims.size(); i++) {
                lo[i] = p.at().get(i);
                hi[i] = Math.addExact(lo[i], dims.get(i));
                step[i] = 1;
                if (hi[i] > destination.dims().get(i)) {
                    throw new IllegalArgumentException("the piece's dims " + dims + " at " + p.at()
                            + " reach past the destination's " + destination.dims());
                }
            }
            return Ops.slice(destination, lo, hi, step);
        }, n -> { });
    }

    /** Closes the connection. */
    @Override
    public void close() {
        try {
            client.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                allocator.close();
            } catch (IllegalStateException leak) {
                // a cut stream's buffers; nothing of the caller's
            }
        }
    }

    /**
     * A fetch that did not complete: the message names the server, the tensor and box, how far it
     * got and why (the Flight status and the server's description). The destination's contents are
     * then unspecified: part of it may have been written, and none of it is to be taken as the tensor.
     * {@snippet :
     * // tensorbuf fetch grpc+tcp://127.0.0.1:8815 x.npy -o x.npy, with the server killed mid-stream:
     * // FetchException: "fetching x.npy from grpc+tcp://127.0.0.1:8815 failed after 1024 of 4096 rows: UNAVAILABLE: ..."
     * }
     */
    public static final class FetchException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** @param message names the server, the tensor and the reason */
        public FetchException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
