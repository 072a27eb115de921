package dev.tensorbuf.net.internal;

import io.grpc.netty.GrpcHttp2ConnectionHandler;
import io.grpc.netty.InternalProtocolNegotiator;
import io.grpc.netty.InternalProtocolNegotiators;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerAdapter;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.nio.ByteBuffer;

/**
 * Lets a server's {@code DoGet} frames reach the socket without a copy. Flight sends a record
 * batch as one Netty buffer joining a small heap buffer (the message's protobuf and IPC header,
 * the padding) with the batch's direct buffers; HTTP/2 cuts it into DATA frames, slices of that
 * mixed buffer, and Netty's epoll and NIO transports copy every buffer that is not wholly direct
 * into a fresh direct one before writing it: about 0.4 s of the network thread per GiB. This
 * handler, next to the socket, hands the transport each such frame as the direct memory it
 * already is, copying only the heap parts (a few bytes a frame, where there are any).
 *
 * <p>Installed for plaintext servers by {@link #plaintext()}, through gRPC's internal protocol
 * negotiator hook (the only place gRPC lets a server add a handler to its connections' pipeline);
 * TLS encrypts every byte into new buffers anyway.
 */
public final class DirectFrames extends ChannelDuplexHandler {
    DirectFrames() {
    }

    /**
     * {@return gRPC's plaintext server negotiator, which also puts a {@code DirectFrames} next to
     * each connection's socket}
     */
    public static InternalProtocolNegotiator.ProtocolNegotiator plaintext() {
        InternalProtocolNegotiator.ProtocolNegotiator plain = InternalProtocolNegotiators.serverPlaintext();
        return new InternalProtocolNegotiator.ProtocolNegotiator() {
            @Override
            public AsciiString scheme() {
                return plain.scheme();
            }

            @Override
            public ChannelHandler newHandler(GrpcHttp2ConnectionHandler grpcHandler) {
                ChannelHandler next = plain.newHandler(grpcHandler);
                return new ChannelHandlerAdapter() {
                    @Override
                    public void handlerAdded(ChannelHandlerContext ctx) {
                        // First in the pipeline: every write passes it on its way to the socket.
                        ctx.pipeline().addFirst(new DirectFrames());
                        ctx.pipeline().replace(this, null, next);
                    }
                };
            }

            @Override
            public void close() {
                plain.close();
            }
        };
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof ByteBuf buf && !buf.isDirect() && !buf.hasMemoryAddress() && buf.nioBufferCount() > 0) {
            ByteBuf direct;
            try {
                direct = direct(ctx, buf);
            } catch (RuntimeException e) {
                ReferenceCountUtil.release(buf);
                promise.tryFailure(e);
                return;
            }
            if (direct != null) {
                // The new buffer only lends the old one's memory: the old one is released when the write is done.
                ChannelPromise p = promise.unvoid();
                p.addListener(f -> ReferenceCountUtil.release(buf));
                ctx.write(direct, p);
                return;
            }
        }
        ctx.write(msg, promise);
    }

    /**
     * {@return the readable bytes of {@code buf} as direct buffers: its direct parts lent, its heap
     * parts copied; null when it has no direct part (a small control frame: left to the transport)}
     */
    static ByteBuf direct(ChannelHandlerContext ctx, ByteBuf buf) {
        ByteBuffer[] parts = buf.nioBuffers(buf.readerIndex(), buf.readableBytes());
        boolean anyDirect = false;
        for (ByteBuffer p : parts) {
            anyDirect |= p.isDirect() && p.hasRemaining();
        }
        if (!anyDirect) {
            return null;
        }
        if (parts.length == 1) {
            return Unpooled.wrappedBuffer(parts[0]);
        }
        CompositeByteBuf out = ctx.alloc().compositeDirectBuffer(parts.length);
        try {
            for (ByteBuffer p : parts) {
                if (!p.hasRemaining()) {
                    continue;
                }
                if (p.isDirect()) {
                    out.addComponent(true, Unpooled.wrappedBuffer(p));
                } else {
                    ByteBuf copy = ctx.alloc().directBuffer(p.remaining());
                    copy.writeBytes(p);
                    out.addComponent(true, copy);
                }
            }
            return out;
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
    }
}
