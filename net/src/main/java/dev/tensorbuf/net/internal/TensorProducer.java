package dev.tensorbuf.net.internal;

import dev.tensorbuf.net.ArrowTensors;
import dev.tensorbuf.net.FixedShapeTensorType;
import dev.tensorbuf.net.TensorTicket;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.quant.BlockTensor;
import dev.tensorbuf.ops.shard.HloSharding;
import dev.tensorbuf.ops.shard.IndexBox;
import dev.tensorbuf.ops.shard.ShardedTensor;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.BackpressureStrategy;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Answers {@code DoGet} with a tensor's box as record batches of one
 * {@code arrow.fixed_shape_tensor} column named {@code tensor}, and {@code ListFlights} and
 * {@code GetFlightInfo} with the tensors of the directory. Every refusal is a Flight error whose
 * description names the ticket and the reason; nothing a client sends ends the server.
 */
public final class TensorProducer extends NoOpFlightProducer {
    /** The column every stream holds. */
    public static final String COLUMN = "tensor";
    /** Schema metadata: the dims of the whole box a stream sends, e.g. {@code [8, 3, 4]}. */
    public static final String DIMS_KEY = "tensorbuf.dims";
    /** Schema metadata: the element type sent, e.g. {@code f32}. */
    public static final String DTYPE_KEY = "tensorbuf.dtype";
    /** Schema metadata: where the box a stream sends starts in the tensor, e.g. {@code [4, 0]} (a shard's place). */
    public static final String START_KEY = "tensorbuf.start";
    /** Schema metadata: the tensor's type in its file when it is sent as another, e.g. {@code Q4_0}. */
    public static final String STORED_KEY = "tensorbuf.stored";
    private static final System.Logger LOG = System.getLogger(TensorProducer.class.getName());
    /** The most tiles a ticket's sharding may have. */
    static final long MAX_SHARD_DEVICES = 1 << 16;
    /** How long a stream waits for a slow client before giving up on it. */
    private static final long CLIENT_WAIT_MILLIS = 120_000;
    /** How long a stream waits for gRPC's on-ready callback before asking gRPC itself whether it may send. */
    static final long READY_SLICE_MILLIS = 1_000;

    private final TensorDirectory directory;
    private final BufferAllocator allocator;
    private final long maxTicketBytes;
    private final long batchBytes;

    public TensorProducer(TensorDirectory directory, BufferAllocator allocator, long maxTicketBytes, long batchBytes) {
        this.directory = directory;
        this.allocator = allocator;
        this.maxTicketBytes = maxTicketBytes;
        this.batchBytes = batchBytes;
    }

    /**
     * A checked request: the tensor's box, as a view of the mapped file ({@code box}) or as
     * GGUF blocks ({@code blocks}, dequantized batch by batch), the type it is sent as, and where
     * the box starts in the tensor.
     *
     * @param ticket the ticket
     * @param box the box's elements; null when {@code blocks} holds them
     * @param blocks the box's blocks; null for a plain tensor
     * @param dtype the element type sent
     * @param start the box's first index per dim in the whole tensor
     * @param type the column's type
     */
    public record Request(TensorTicket ticket, TensorView box, BlockTensor blocks, DType dtype, List<Long> start,
                          FixedShapeTensorType type) {
        /** {@return the box's dims} */
        public List<Long> dims() {
            return box != null ? box.dims() : blocks.dims();
        }

        /**
         * {@return whether the stream's batches are converted (or dequantized, or put in C order)
         * rather than read as they lie} A box laid out densely in another order of its dims (an
         * Arrow column with a permutation) is copied in C order: the stream's type has none.
         */
        boolean converts() {
            if (box == null || box.dtype() != dtype) {
                return true;
            }
            int[] order = ArrowMemory.rowMajorOrder(box).orElse(null);
            int last = -1;
            for (int i = 0; order != null && i < order.length; i++) {
                if (box.dims().get(order[i]) != 1) { // a dim of one element lies anywhere
                    if (order[i] < last) {
                        return true;
                    }
                    last = order[i];
                }
            }
            return false;
        }

        /** {@return rows {@code [from, to)} of the box as {@code dtype}, in {@code scratch} when they must be made} */
        TensorView rows(long from, long to, MemoryBuffer scratch) {
            if (!converts()) {
                return rowsOf(box, from, to);
            }
            List<Long> d = new ArrayList<>(dims());
            d.set(0, to - from);
            long[] dims = d.stream().mapToLong(Long::longValue).toArray();
            TensorView dst = TensorView.of(scratch, ArrayShape.of(dtype, dims));
            if (box != null) {
                CopyEngine.defaults().copy(rowsOf(box, from, to), dst);
            } else {
                blocks.slice(0, from, to).dequantize(dst);
            }
            return dst;
        }
    }

    /**
     * {@return the request a ticket makes, checked before any byte of the tensor is read}
     *
     * @throws FlightRuntimeException INVALID_ARGUMENT, NOT_FOUND, PERMISSION_DENIED or
     *     RESOURCE_EXHAUSTED, with a description naming the ticket and why
     */
    public Request check(byte[] ticketBytes) {
        TensorTicket ticket;
        try {
            ticket = TensorTicket.parse(ticketBytes);
        } catch (IllegalArgumentException e) {
            throw CallStatus.INVALID_ARGUMENT.withDescription(e.getMessage()).toRuntimeException();
        }
        String what = ticket.describe();
        TensorDirectory.Source source;
        try {
            source = directory.source(ticket.path(), ticket.tensor());
        } catch (TensorDirectory.RefusedException e) {
            CallStatus status = switch (e.kind()) {
                case INVALID -> CallStatus.INVALID_ARGUMENT;
                case NOT_FOUND -> CallStatus.NOT_FOUND;
                case FORBIDDEN -> CallStatus.UNAUTHORIZED;
            };
            throw status.withDescription(e.getMessage()).toRuntimeException();
        }
        List<Long> dims = source.dims();
        DType dtype = ticket.dtype().isEmpty() ? source.dtype() : DType.fromXlaName(ticket.dtype());
        if (!dtype.isArrayType() || dtype.bitWidth() % 8 != 0) {
            throw invalid(what, "it cannot be sent as " + dtype + ", which has no whole bytes per element");
        }
        long[] start = new long[dims.size()];
        long[] limit = dims.stream().mapToLong(Long::longValue).toArray();
        if (ticket.hasBox()) {
            if (ticket.start().size() != dims.size()) {
                throw invalid(what, "the box has " + ticket.start().size() + " dims, the tensor " + dims.size() + " " + dims);
            }
            for (int i = 0; i < dims.size(); i++) {
                if (ticket.limit().get(i) > dims.get(i)) {
                    throw invalid(what, "limit " + ticket.limit().get(i) + " of dim " + i + " is past its size " + dims.get(i)
                            + " (dims " + dims + ")");
                }
                start[i] = ticket.start().get(i);
                limit[i] = ticket.limit().get(i);
            }
        } else if (ticket.hasShard()) {
            IndexBox box = shardBox(ticket, source.dtype(), dims, what);
            for (int i = 0; i < dims.size(); i++) {
                start[i] = box.start().get(i);
                limit[i] = box.limit().get(i);
            }
        }
        if (dims.isEmpty()) {
            throw invalid(what, "it is a scalar " + source.dtype() + "[], which has no rows to stream; serve it as [1]");
        }
        long elements = 1;
        long bytes;
        try {
            for (int i = 0; i < dims.size(); i++) {
                elements = Math.multiplyExact(elements, limit[i] - start[i]);
            }
            bytes = Math.multiplyExact(elements, (long) dtype.byteWidth());
        } catch (ArithmeticException e) {
            bytes = Long.MAX_VALUE;
        }
        if (bytes > maxTicketBytes) {
            throw CallStatus.RESOURCE_EXHAUSTED.withDescription(what + ": asks for " + bytes + " bytes, more than this"
                    + " server's limit of " + maxTicketBytes + " bytes per ticket; ask for smaller boxes").toRuntimeException();
        }
        List<Long> rowDims = new ArrayList<>();
        for (int i = 1; i < dims.size(); i++) {
            rowDims.add(limit[i] - start[i]);
        }
        FixedShapeTensorType type;
        try {
            type = FixedShapeTensorType.of(dtype, rowDims);
            type.field(COLUMN);
        } catch (IllegalArgumentException e) {
            throw invalid(what, e.getMessage());
        }
        List<Long> at = Arrays.stream(start).boxed().toList();
        boolean whole = Arrays.equals(limit, dims.stream().mapToLong(Long::longValue).toArray())
                && Arrays.stream(start).allMatch(x -> x == 0);
        if (source.view() != null) {
            long[] step = new long[dims.size()];
            Arrays.fill(step, 1);
            TensorView box = whole ? source.view() : Ops.slice(source.view(), start, limit, step);
            return new Request(ticket, box, null, dtype, at, type);
        }
        if (dtype.kind() != DType.Kind.FLOAT) {
            throw invalid(what, "it is " + source.stored() + ", block-quantized, and dequantizes to a floating-point type"
                    + " (f32, the default, bf16, f16, ...), not " + dtype);
        }
        BlockTensor blocks = source.blocks();
        for (int i = 0; i < dims.size(); i++) {
            if (start[i] != 0 || limit[i] != dims.get(i)) {
                blocks = blocks.slice(i, start[i], limit[i]);
            }
        }
        return new Request(ticket, null, blocks, dtype, at, type);
    }

    /** {@return the box the ticket's device holds under its sharding, by XLA's rule} */
    private static IndexBox shardBox(TensorTicket ticket, DType dtype, List<Long> dims, String what) {
        HloSharding sharding = ticket.parsedSharding();
        if (sharding instanceof HloSharding.Replicated) {
            return IndexBox.whole(dims);
        }
        if (sharding instanceof HloSharding.Tiled t && t.tiles().deviceCount() > MAX_SHARD_DEVICES) {
            // Placing the tiles lists every device: a ticket must not make the server list billions.
            throw invalid(what, "sharding " + clip(sharding.toString()) + " has "
                    + t.tiles().deviceCount() + " tiles; this server places at most " + MAX_SHARD_DEVICES);
        }
        ShardedTensor sharded;
        try {
            sharded = ShardedTensor.of(dtype, dims, sharding);
        } catch (IllegalArgumentException e) {
            throw invalid(what, e.getMessage());
        }
        if (ticket.device() >= sharded.deviceCount()) {
            throw invalid(what, "device " + ticket.device() + " is not one of the " + sharded.deviceCount()
                    + " devices (0 to " + (sharded.deviceCount() - 1) + ") of " + sharding);
        }
        return sharded.box(ticket.device()).orElseThrow(() -> invalid(what, "device " + ticket.device()
                + " holds no part of a tensor sharded " + sharding));
    }

    private static String clip(String s) {
        return s.length() <= 120 ? s : s.substring(0, 117) + "...";
    }

    private static FlightRuntimeException invalid(String what, String why) {
        return CallStatus.INVALID_ARGUMENT.withDescription(what + ": " + why).toRuntimeException();
    }

    @Override
    public void getStream(CallContext context, Ticket ticket, ServerStreamListener listener) {
        Request request;
        try {
            request = check(ticket.getBytes());
        } catch (FlightRuntimeException e) {
            listener.error(e);
            return;
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "ticket check failed", e);
            listener.error(CallStatus.INTERNAL.withDescription("ticket refused: " + e).toRuntimeException());
            return;
        }
        BackpressureStrategy backpressure = new BackpressureStrategy.CallbackBackpressureStrategy();
        backpressure.register(listener);
        // Streamed on a thread of its own: getStream runs on the call's serializing executor, which
        // is also where gRPC delivers the on-ready callback, so waiting there for the client to read
        // could only poll (Flight lets getStream return before the stream ends).
        Thread.ofVirtual().name("tensorbuf DoGet")
                .start(() -> stream(request, listener, backpressure));
    }

    /** Sends the request's rows in batches, each once gRPC takes more of the stream, then completes it. */
    private void stream(Request request, ServerStreamListener listener, BackpressureStrategy backpressure) {
        String what = request.ticket().describe();
        List<Long> dims = request.dims();
        long rows = dims.getFirst();
        long rowElements = 1;
        for (int i = 1; i < dims.size(); i++) {
            rowElements *= dims.get(i);
        }
        long rowBytes = Math.max(1, rowElements * request.dtype().byteWidth());
        long perBatch = Math.max(1, Math.min(batchBytes / rowBytes, Integer.MAX_VALUE / Math.max(1, request.type().listSize())));
        Map<String, String> metadata = new java.util.LinkedHashMap<>();
        metadata.put(DIMS_KEY, dims.toString());
        metadata.put(DTYPE_KEY, request.dtype().toString());
        metadata.put(START_KEY, request.start().toString());
        if (request.blocks() != null) {
            metadata.put(STORED_KEY, request.blocks().type().toString());
        }
        Schema schema = new Schema(List.of(request.type().field(COLUMN)), metadata);
        try (Allocator scratchArena = Allocators.confined();
             VectorSchemaRoot root = new VectorSchemaRoot(schema,
                     List.of(new LentColumn((FixedSizeListVector) schema.getFields().getFirst().createVector(allocator))), 0)) {
            MemoryBuffer scratch = request.converts()
                    ? scratchArena.allocate(Math.max(1, Math.multiplyExact(Math.min(rows, perBatch), rowBytes)), 64) : null;
            // Zero-copy: gRPC sends the batch's own buffers (the mapped file's bytes, or a copy made
            // for this batch alone) rather than copying each into its frames, which cost more CPU than
            // the socket itself. The buffers stay alive until gRPC has written them: Arrow counts
            // references, and a file's memory is lent. Not for the scratch reused by every converted
            // batch, which the next batch would overwrite while gRPC may still be sending it.
            listener.setUseZeroCopy(scratch == null);
            listener.start(root);
            LentColumn column = (LentColumn) root.getVector(0);
            ReadyWait ready = new ReadyWait(listener, backpressure, CLIENT_WAIT_MILLIS, READY_SLICE_MILLIS, what);
            for (long r = 0; r < rows; r += perBatch) {
                long end = Math.min(rows, r + perBatch);
                if (!ready.await()) {
                    if (!listener.isCancelled()) {
                        listener.error(CallStatus.TIMED_OUT.withDescription(what + ": the client read nothing for "
                                + CLIENT_WAIT_MILLIS / 1000 + " s").toRuntimeException());
                    }
                    return;
                }
                TensorView part = request.rows(r, end, scratch);
                if (!lendRows(part, column)) {
                    column.useVector();
                    try (FieldVector copy = ArrowTensors.toVector(COLUMN, part, allocator)) {
                        copy.makeTransferPair(column.getUnderlyingVector()).transfer();
                    }
                }
                root.setRowCount((int) (end - r));
                listener.putNext();
            }
            listener.completed();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "stream of " + what + " failed", e);
            listener.error(CallStatus.INTERNAL.withDescription(what + ": the server failed while streaming: " + e)
                    .toRuntimeException());
        }
    }

    /**
     * Lends {@code rows}' memory to {@code column} when it lies in C order in one host buffer (a
     * box of whole rows of a file, or the scratch): the batch is the stream's own column over it,
     * not a vector made (with its field's JSON metadata) and transferred for every batch, and it
     * goes out without validity bitmaps. {@return whether it did; if not, the rows need
     * {@link ArrowTensors#toVector}}
     */
    private boolean lendRows(TensorView rows, LentColumn column) {
        Optional<StridedLayout> layout = rows.stridedLayout();
        if (!column.lends() || !rows.isHostAccessible() || rows.buffers().size() != 1 || layout.isEmpty()
                || rows.elementCount() == 0) {
            return false;
        }
        long[] dims = rows.dims().stream().mapToLong(Long::longValue).toArray();
        StridedLayout l = layout.get();
        if (!l.equals(StridedLayout.packed(dims).withOffset(l.offset()))) {
            return false;
        }
        long width = rows.dtype().byteWidth();
        MemorySegment bytes = rows.buffer().segment().asSlice(l.offset() * width, rows.elementCount() * width);
        ArrowBuf data = ArrowMemory.lend(allocator, rows.buffer(), bytes);
        try {
            column.lend(data, dims[0]);
        } finally {
            data.getReferenceManager().release();
        }
        return true;
    }

    /**
     * Waits, before each batch of one stream, until gRPC takes more of it. Flight's strategy wakes
     * the wait from gRPC's on-ready callback alone: were that callback lost or missed, the stream
     * would sit out the whole wait (and then fail) although the client reads. So the wait is cut
     * into slices, and after each gRPC is asked directly whether the stream may send.
     */
    static final class ReadyWait {
        private final ServerStreamListener listener;
        private final BackpressureStrategy backpressure;
        private final long totalMillis;
        private final long sliceMillis;
        private final String what;
        private boolean warned;

        /**
         * @param listener the stream
         * @param backpressure the strategy registered with {@code listener}
         * @param totalMillis how long the stream may stay not ready before the wait gives up
         * @param sliceMillis how long one wait for the callback lasts before gRPC is asked
         * @param what the stream, as a warning names it
         */
        ReadyWait(ServerStreamListener listener, BackpressureStrategy backpressure, long totalMillis, long sliceMillis,
                  String what) {
            if (totalMillis <= 0 || sliceMillis <= 0) {
                throw new IllegalArgumentException("waits of " + totalMillis + " and " + sliceMillis
                        + " ms: both must be positive");
            }
            this.listener = listener;
            this.backpressure = backpressure;
            this.totalMillis = totalMillis;
            this.sliceMillis = sliceMillis;
            this.what = what;
        }

        /**
         * {@return whether to go on: true once gRPC takes more of the stream; false if the client
         * has gone, or the stream stayed not ready for the whole wait}
         */
        boolean await() {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(totalMillis);
            while (true) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                // At least 1 ms: the strategy takes 0 as "wait for ever".
                switch (backpressure.waitForListener(Math.max(1, Math.min(sliceMillis, left)))) {
                    case READY -> {
                        return !listener.isCancelled();
                    }
                    case TIMEOUT -> {
                        // No callback in this slice: ask gRPC below.
                    }
                    // CANCELLED, or OTHER (the thread was interrupted: waiting again would spin).
                    default -> {
                        return false;
                    }
                }
                if (listener.isCancelled()) {
                    return false;
                }
                if (listener.isReady()) {
                    if (!warned) {
                        warned = true;
                        LOG.log(System.Logger.Level.WARNING, what + ": the stream was ready without an on-ready callback"
                                + " from gRPC; it goes on (logged once per stream)");
                    }
                    return true;
                }
                if (deadline - System.nanoTime() <= 0) {
                    return false;
                }
            }
        }
    }

    /** {@return rows {@code [from, to)} of {@code v}'s first dim, {@code v} itself when that is all of it} */
    public static TensorView rowsOf(TensorView v, long from, long to) {
        if (from == 0 && to == v.dims().getFirst()) {
            return v;
        }
        long[] lo = new long[v.rank()];
        long[] hi = v.dims().stream().mapToLong(Long::longValue).toArray();
        long[] step = new long[v.rank()];
        Arrays.fill(step, 1);
        lo[0] = from;
        hi[0] = to;
        return Ops.slice(v, lo, hi, step);
    }

    @Override
    public void listFlights(CallContext context, Criteria criteria, StreamListener<FlightInfo> listener) {
        try {
            for (TensorDirectory.Entry e : directory.list()) {
                FlightInfo info = info(e);
                if (info != null) {
                    listener.onNext(info);
                }
            }
            listener.onCompleted();
        } catch (IOException | RuntimeException e) {
            listener.onError(CallStatus.INTERNAL.withDescription("listing the served directory failed: " + e).toRuntimeException());
        }
    }

    @Override
    public FlightInfo getFlightInfo(CallContext context, FlightDescriptor descriptor) {
        List<String> path = descriptor.isCommand() ? List.of() : descriptor.getPath();
        if (path.isEmpty() || path.size() > 2) {
            throw CallStatus.INVALID_ARGUMENT.withDescription("a descriptor names a tensor by the path [FILE] or [FILE, TENSOR]")
                    .toRuntimeException();
        }
        Request r = check(TensorTicket.of(path.get(0), path.size() > 1 ? path.get(1) : "").toBytes());
        FlightInfo info = info(new TensorDirectory.Entry(r.ticket().path(), r.ticket().tensor(), r.dtype(), r.dims(),
                r.blocks() == null ? "" : r.blocks().type().toString()));
        if (info == null) {
            throw CallStatus.INVALID_ARGUMENT.withDescription(r.ticket().describe() + " cannot be served").toRuntimeException();
        }
        return info;
    }

    /** {@return the tensor's flight: its schema, one endpoint with the whole tensor's ticket; null if Arrow cannot type it} */
    private static FlightInfo info(TensorDirectory.Entry e) {
        if (e.dims().isEmpty()) {
            return null;
        }
        Field field;
        try {
            field = FixedShapeTensorType.of(e.dtype(), e.dims().subList(1, e.dims().size())).field(COLUMN);
        } catch (IllegalArgumentException unsupported) {
            return null;
        }
        long bytes;
        try {
            long n = 1;
            for (long d : e.dims()) {
                n = Math.multiplyExact(n, d);
            }
            bytes = Math.multiplyExact(n, (long) e.dtype().byteWidth());
        } catch (ArithmeticException overflow) {
            bytes = -1;
        }
        TensorTicket ticket = TensorTicket.of(e.path(), e.tensor());
        FlightDescriptor descriptor = e.tensor().isEmpty() ? FlightDescriptor.path(e.path()) : FlightDescriptor.path(e.path(), e.tensor());
        Map<String, String> metadata = new java.util.LinkedHashMap<>();
        metadata.put(DTYPE_KEY, e.dtype().toString());
        metadata.put(DIMS_KEY, e.dims().toString());
        if (!e.stored().isEmpty()) {
            metadata.put(STORED_KEY, e.stored());
        }
        Schema schema = new Schema(List.of(field), metadata);
        return new FlightInfo(schema, descriptor, List.of(new FlightEndpoint(new Ticket(ticket.toBytes()))), bytes,
                e.dims().getFirst());
    }
}
