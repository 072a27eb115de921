package dev.tensorbuf.net.internal;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.Context;
import io.grpc.HasByteBuffer;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.flatbuf.BodyCompression;
import org.apache.arrow.flatbuf.BodyCompressionMethod;
import org.apache.arrow.flatbuf.Buffer;
import org.apache.arrow.flatbuf.FieldNode;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.flight.grpc.StatusUtils;
import org.apache.arrow.flight.impl.FlightServiceGrpc;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A Flight {@code DoGet} whose record batches of one {@code arrow.fixed_shape_tensor} column are
 * read straight out of gRPC's receive buffers into the caller's memory. Flight's own client
 * (Arrow Java 19) reads each message body into a new heap array and copies that into new native
 * memory, both the size of the batch: two copies into fresh pages per batch, most of its CPU time.
 * Here a batch's tensor bytes are copied once, from the network buffers into where they belong.
 *
 * <p>The messages are parsed as gRPC delivers them, in order: {@link Sink#schema} for the schema
 * message, then {@link Sink#batch} per record batch. They are parsed on the call's executor, one
 * at a time, not on the thread that waits in {@link #run}: gRPC's blocking server-streaming call
 * (1.79) runs the parser there and hands each parsed message to the waiting thread through a
 * queue. {@code TensorClient}'s channel and call options name no executor, so that is gRPC's shared
 * {@code grpc-default-executor} pool; a sink that blocks holds one of its threads.
 */
public final class DoGetReader {
    private DoGetReader() {}

    /** Takes the stream's messages as they arrive. */
    public interface Sink {
        /** The stream's schema. */
        void schema(Schema schema);

        /** A record batch of {@code rows} rows; {@code data} reads its tensor values, and only during this call. */
        void batch(long rows, Body data);
    }

    /** The values buffer of one batch's tensor column, read once, in order. */
    public static final class Body {
        private final InputStream in;
        /** The values already in memory (decompressed), else null: they are read from {@code in}. */
        private final MemorySegment decoded;
        private final long bytes;
        private long read;

        Body(InputStream in, long bytes) {
            this.in = in;
            this.decoded = null;
            this.bytes = bytes;
        }

        Body(MemorySegment decoded) {
            this.in = null;
            this.decoded = decoded;
            this.bytes = decoded.byteSize();
        }

        /** {@return the bytes the values buffer holds} */
        public long bytes() {
            return bytes;
        }

        /**
         * Copies the next {@code into.byteSize()} bytes of the values into {@code into}.
         *
         * @throws IllegalArgumentException if fewer remain
         */
        public void copyTo(MemorySegment into) {
            long n = into.byteSize();
            if (n > bytes - read) {
                throw new IllegalArgumentException("a batch's values hold " + bytes + " bytes, " + (read + n) + " asked for");
            }
            if (decoded != null) {
                MemorySegment.copy(decoded, read, into, 0, n);
                read += n;
                return;
            }
            try {
                long done = 0;
                if (in instanceof HasByteBuffer h && h.byteBufferSupported()) {
                    while (done < n) {
                        ByteBuffer b = h.getByteBuffer();
                        if (b == null || !b.hasRemaining()) {
                            throw new EOFException();
                        }
                        int k = (int) Math.min(b.remaining(), n - done);
                        MemorySegment.copy(MemorySegment.ofBuffer(b), 0, into, done, k);
                        in.skipNBytes(k);
                        done += k;
                    }
                } else {
                    byte[] chunk = new byte[(int) Math.min(n, 1 << 20)];
                    while (done < n) {
                        int k = (int) Math.min(chunk.length, n - done);
                        if (in.readNBytes(chunk, 0, k) != k) {
                            throw new EOFException();
                        }
                        MemorySegment.copy(MemorySegment.ofArray(chunk), 0, into, done, k);
                        done += k;
                    }
                }
                read += n;
            } catch (EOFException e) {
                throw new IllegalArgumentException("a FlightData message is truncated: it ends inside the " + bytes
                        + " bytes of values its header gives", e);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static final int DATA_HEADER = 2;
    private static final int DATA_BODY = 1000;

    private static final MethodDescriptor.Marshaller<byte[]> TICKET = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] ticket) {
            // arrow.flight.protocol.Ticket { bytes ticket = 1; }
            ByteArrayOutputStream out = new ByteArrayOutputStream(ticket.length + 6);
            out.write(0x0A); // field 1, length-delimited
            writeVarint(out, ticket.length);
            out.writeBytes(ticket);
            return new ByteArrayInputStream(out.toByteArray());
        }

        @Override
        public byte[] parse(InputStream stream) {
            throw new UnsupportedOperationException("a client does not parse tickets");
        }
    };

    /**
     * Runs the call, handing each message to {@code sink} as it arrives, until the stream ends.
     *
     * @throws org.apache.arrow.flight.FlightRuntimeException for the call's gRPC status
     * @throws RuntimeException what {@code sink} threw, or a message that is not a tensor batch;
     *     the call is cancelled then
     */
    public static void run(Channel channel, CallOptions options, byte[] ticket, Sink sink) {
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        MethodDescriptor.Marshaller<Boolean> messages = new MethodDescriptor.Marshaller<>() {
            @Override
            public InputStream stream(Boolean value) {
                throw new UnsupportedOperationException("a client sends no FlightData here");
            }

            @Override
            public Boolean parse(InputStream in) {
                try {
                    message(in, sink);
                    return Boolean.TRUE;
                } catch (RuntimeException e) {
                    failure.compareAndSet(null, e);
                    throw e;
                }
            }
        };
        MethodDescriptor<byte[], Boolean> method = MethodDescriptor.<byte[], Boolean>newBuilder()
                .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
                .setFullMethodName(FlightServiceGrpc.getDoGetMethod().getFullMethodName())
                .setRequestMarshaller(TICKET)
                .setResponseMarshaller(messages)
                .build();
        // Leaving early (a failure of ours) must end the call, or the server streams on unread.
        Context.CancellableContext call = Context.current().withCancellation();
        Context previous = call.attach();
        try {
            Iterator<Boolean> it = ClientCalls.blockingServerStreamingCall(channel, method, options, ticket);
            while (it.hasNext()) {
                it.next();
            }
        } catch (StatusRuntimeException e) {
            RuntimeException ours = failure.get();
            throw ours != null ? ours : StatusUtils.fromGrpcRuntimeException(e);
        } catch (RuntimeException e) {
            RuntimeException ours = failure.get();
            throw ours != null ? ours : e;
        } finally {
            call.detach(previous);
            call.cancel(null);
        }
    }

    /** The most bytes of one message's IPC header (a schema's, with its metadata, is a few KiB). */
    static final int MAX_HEADER_BYTES = 16 << 20;

    /**
     * Reads one FlightData message: its IPC header, then (for a record batch) its body.
     *
     * @throws IllegalArgumentException for a message that is malformed, truncated or not of a
     *     tensor stream, saying which and where
     */
    static void message(InputStream in, Sink sink) {
        int field = 0;
        long length = 0;
        try {
            byte[] header = null;
            boolean body = false;
            for (long tag = readVarint(in, true); tag != -1; tag = readVarint(in, true)) {
                field = (int) (tag >>> 3);
                int wire = (int) (tag & 7);
                length = switch (wire) {
                    case 0 -> {
                        readVarint(in, false);
                        yield 0;
                    }
                    case 1 -> 8;
                    case 2 -> readVarint(in, false);
                    case 5 -> 4;
                    default -> throw new IllegalArgumentException("a FlightData message has field " + field
                            + " of wire type " + wire + ", which protobuf does not have");
                };
                if (length < 0) {
                    throw new IllegalArgumentException("a FlightData message's field " + field + " has length "
                            + Long.toUnsignedString(length) + ", more than a message holds");
                }
                if (in instanceof KnownLength && length > in.available()) {
                    throw truncated(field, length, in.available());
                }
                if (field == DATA_HEADER && wire == 2) {
                    if (length > MAX_HEADER_BYTES) {
                        throw new IllegalArgumentException("a FlightData message's IPC header has " + length
                                + " bytes, more than the " + MAX_HEADER_BYTES + " a reader takes");
                    }
                    header = in.readNBytes((int) length);
                    if (header.length != length) {
                        throw truncated(field, length, header.length);
                    }
                } else if (field == DATA_BODY && wire == 2) {
                    if (header == null) {
                        throw new IllegalArgumentException("a FlightData message has a body before its header");
                    }
                    if (body) {
                        throw new IllegalArgumentException("a FlightData message has two bodies");
                    }
                    ipc(header, in, length, sink);
                    body = true;
                } else {
                    in.skipNBytes(length);
                }
            }
            if (header != null && !body) {
                ipc(header, in, 0, sink);
            }
        } catch (EOFException e) {
            throw truncated(field, length, -1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static IllegalArgumentException truncated(int field, long length, long left) {
        return new IllegalArgumentException("a FlightData message is truncated: its field " + field + " says " + length
                + " bytes" + (left >= 0 ? ", " + left + " are left" : ", the message ends first"));
    }

    /** The fields of a record batch's header a tensor stream reads, taken out of the flatbuffer before any is trusted. */
    private record BatchHeader(long rows, long bodyLength, BufferCodec codec, long[] nodeLengths, long[] nullCounts,
                               int buffers, long valuesStart, long valuesLength) {}

    private static void ipc(byte[] header, InputStream body, long bodyLength, Sink sink) throws IOException {
        Message m;
        byte type;
        Schema schema = null;
        BatchHeader batch = null;
        try {
            m = Message.getRootAsMessage(ByteBuffer.wrap(header));
            type = m.headerType();
            if (type == MessageHeader.Schema) {
                schema = MessageSerializer.deserializeSchema(m);
            } else if (type == MessageHeader.RecordBatch) {
                RecordBatch rb = (RecordBatch) m.header(new RecordBatch());
                if (rb == null) {
                    throw new IllegalArgumentException("it has no record batch");
                }
                int nodes = rb.nodesLength();
                int buffers = rb.buffersLength();
                // Each takes 16 bytes of the header: a longer count is a corrupt one, not an array to make.
                if (nodes < 0 || buffers < 0 || nodes > header.length / 16 || buffers > header.length / 16) {
                    throw new IllegalArgumentException("it counts " + nodes + " field nodes and " + buffers + " buffers");
                }
                long[] lengths = new long[nodes];
                long[] nulls = new long[nodes];
                for (int i = 0; i < nodes; i++) {
                    FieldNode node = rb.nodes(i);
                    lengths[i] = node.length();
                    nulls[i] = node.nullCount();
                }
                long start = -1;
                long length = -1;
                if (buffers == 3) {
                    Buffer values = rb.buffers(2);
                    start = values.offset();
                    length = values.length();
                }
                BodyCompression compression = rb.compression();
                if (compression != null && compression.method() != BodyCompressionMethod.BUFFER) {
                    throw new IllegalArgumentException("it is compressed by method " + compression.method()
                            + ", not buffer by buffer");
                }
                BufferCodec codec = compression == null ? null : BufferCodec.of(compression.codec());
                batch = new BatchHeader(rb.length(), m.bodyLength(), codec, lengths, nulls, buffers, start, length);
            }
        } catch (RuntimeException e) {
            // A flatbuffer is read where its offsets point, so a corrupt one fails wherever they lead
            // (IndexOutOfBoundsException, BufferUnderflowException, Arrow's own checks of a schema).
            throw new IllegalArgumentException("a FlightData message's IPC header (" + header.length
                    + " bytes) is not a valid Arrow message: " + e.getMessage(), e);
        }
        switch (type) {
            case MessageHeader.Schema -> {
                body.skipNBytes(bodyLength);
                sink.schema(schema);
            }
            case MessageHeader.RecordBatch -> batch(batch, body, bodyLength, sink);
            case MessageHeader.DictionaryBatch -> throw new IllegalArgumentException(
                    "the stream has a dictionary batch; a tensor column has no dictionary");
            default -> body.skipNBytes(bodyLength);
        }
    }

    private static void batch(BatchHeader rb, InputStream body, long bodyLength, Sink sink) throws IOException {
        if (rb.nodeLengths().length != 2 || rb.buffers() != 3) {
            throw new IllegalArgumentException("a record batch has " + rb.nodeLengths().length + " field nodes and "
                    + rb.buffers() + " buffers, not the 2 and 3 of one fixed_shape_tensor column");
        }
        for (int i = 0; i < 2; i++) {
            if (rb.nullCounts()[i] != 0) {
                throw new IllegalArgumentException("column 'tensor' has " + rb.nullCounts()[i] + " null "
                        + (i == 0 ? "rows" : "elements") + "; a tensor has a value in every "
                        + (i == 0 ? "row" : "element"));
            }
        }
        if (rb.rows() < 0 || rb.nodeLengths()[0] != rb.rows()) {
            throw new IllegalArgumentException("a record batch of " + rb.rows() + " rows has a column of "
                    + rb.nodeLengths()[0] + " rows");
        }
        if (rb.bodyLength() > bodyLength) {
            throw new IllegalArgumentException("a record batch's header says its body has " + rb.bodyLength()
                    + " bytes, the message holds " + bodyLength);
        }
        long start = rb.valuesStart();
        long length = rb.valuesLength();
        if (start < 0 || length < 0 || start > bodyLength || length > bodyLength - start) {
            throw new IllegalArgumentException("a record batch's values buffer [" + start + ", +" + length
                    + ") lies outside its body of " + bodyLength + " bytes");
        }
        body.skipNBytes(start);
        Body data = rb.codec() == null ? new Body(body, length) : decompressed(rb.codec(), body, length);
        sink.batch(rb.rows(), data);
        // What the sink left of the values, and the rest of the body (padding).
        body.skipNBytes((data.in == body ? data.bytes - data.read : 0) + bodyLength - start - length);
    }

    /**
     * {@return the values of a compressed buffer of {@code length} bytes read from {@code body}:
     * its uncompressed length (-1 for values stored as they are), then an LZ4 or Zstandard frame}
     * A pyarrow server sends them so when its {@code IpcWriteOptions} ask for compression.
     */
    private static Body decompressed(BufferCodec codec, InputStream body, long length) throws IOException {
        if (length < 8) {
            throw new IllegalArgumentException("a record batch's compressed values buffer of " + length
                    + " bytes is too short for its 8-byte length");
        }
        byte[] prefix = body.readNBytes(8);
        if (prefix.length < 8) {
            throw new IllegalArgumentException("a FlightData message is truncated: it ends inside the length of its"
                    + " compressed values");
        }
        long values = ByteBuffer.wrap(prefix).order(ByteOrder.LITTLE_ENDIAN).getLong();
        if (values == -1) {
            return new Body(body, length - 8);
        }
        if (values < 0 || values > Integer.MAX_VALUE - 8 || !codec.canHold(length - 8, values)) {
            throw new IllegalArgumentException("a record batch's " + (length - 8) + " bytes of " + codec.label()
                    + " values say they hold " + values + " bytes");
        }
        byte[] frame = body.readNBytes((int) (length - 8));
        if (frame.length != length - 8) {
            throw new IllegalArgumentException("a FlightData message is truncated: it ends inside the " + length
                    + " bytes of compressed values its header gives");
        }
        byte[] decoded = new byte[(int) values];
        try {
            codec.decode(MemorySegment.ofArray(frame), MemorySegment.ofArray(decoded));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("a record batch's compressed values are damaged: " + e.getMessage(), e);
        }
        return new Body(MemorySegment.ofArray(decoded));
    }

    /**
     * {@return the next varint} With {@code tag}, a field's tag (at most 32 bits), or -1 at the
     * end of the message.
     */
    private static long readVarint(InputStream in, boolean tag) throws IOException {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = in.read();
            if (b < 0) {
                if (shift == 0 && tag) {
                    return -1;
                }
                throw new IllegalArgumentException("a FlightData message is truncated inside a varint");
            }
            v |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                if (tag && v >>> 32 != 0) {
                    throw new IllegalArgumentException("a FlightData message has a field tag of more than 32 bits");
                }
                return v;
            }
        }
        throw new IllegalArgumentException("a FlightData message has a varint of more than 10 bytes");
    }

    private static void writeVarint(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7fL) != 0) {
            out.write((int) (v & 0x7f) | 0x80);
            v >>>= 7;
        }
        out.write((int) v);
    }
}
