package dev.tensorbuf.net.internal;

import io.grpc.netty.GrpcHttp2ConnectionHandler;
import io.grpc.netty.InternalProtocolNegotiator;
import io.grpc.netty.InternalProtocolNegotiators;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufHolder;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerAdapter;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
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
 * handler, on the application's side of gRPC's HTTP/2 handler, hands gRPC each such message as the
 * direct memory it already is, copying only the heap parts (a few hundred bytes a batch): every
 * frame cut from it is then direct, and goes to the socket as it is.
 *
 * <p>It rewrites a message once, not each of its frames. Done frame by frame next to the socket
 * (as it first was), the rewrite sat inside Netty's per-frame write path, which C2 compiled five
 * times over a fresh server's first 20 fetches of 1 GiB, each undone by an uncommon trap as another
 * buffer type reached it, about half the compiler's time (JFR). Once a message: C2 time over
 * fetches 3-12 0.17 -> 0.11 s per GiB, the server's user CPU 0.38 -> 0.27 s per GiB (medians of
 * three runs of 20 fetches, load 12-18); unchanged once warm.
 *
 * <p>Installed for plaintext servers by {@link #plaintext()}, through gRPC's internal protocol
 * negotiator hook (the only place gRPC lets a server add a handler to its connections' pipeline);
 * TLS encrypts every byte into new buffers anyway.
 */
public final class DirectFrames extends ChannelOutboundHandlerAdapter {
    DirectFrames() {
    }

    /**
     * {@return gRPC's plaintext server negotiator, which also puts a {@code DirectFrames} on the
     * application's side of each connection's gRPC handler}
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
                        // Last in the pipeline: gRPC's writes (its frame commands) start at the
                        // tail, so they pass it before gRPC's handler, which this one becomes.
                        ctx.pipeline().addLast(new DirectFrames());
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
        ByteBuf content = msg instanceof ByteBufHolder h ? h.content() : msg instanceof ByteBuf b ? b : null;
        if (content != null && !content.isDirect() && !content.hasMemoryAddress() && content.nioBufferCount() > 0) {
            ByteBuf direct;
            try {
                direct = direct(ctx.alloc(), content);
            } catch (RuntimeException e) {
                ReferenceCountUtil.release(msg);
                promise.tryFailure(e);
                return;
            }
            if (direct != null) {
                // The new buffer owns the old one: released with it, once gRPC has written every frame.
                ctx.write(msg instanceof ByteBufHolder h ? h.replace(direct) : direct, promise);
                return;
            }
        }
        ctx.write(msg, promise);
    }

    /**
     * {@return the readable bytes of {@code buf} as direct buffers, its direct parts lent, its heap
     * parts copied, owning {@code buf} (releasing it when released itself); null when {@code buf}
     * has no direct part (a small control frame: left to the transport)} If it throws, the caller
     * still holds its reference to {@code buf}.
     */
    static ByteBuf direct(ByteBufAllocator alloc, ByteBuf buf) {
        ByteBuffer[] parts = buf.nioBuffers(buf.readerIndex(), buf.readableBytes());
        boolean anyDirect = false;
        for (ByteBuffer p : parts) {
            anyDirect |= p.isDirect() && p.hasRemaining();
        }
        if (!anyDirect) {
            return null;
        }
        Owning out = new Owning(alloc, buf);
        try {
            for (ByteBuffer p : parts) {
                if (!p.hasRemaining()) {
                    continue;
                }
                if (p.isDirect()) {
                    out.addComponent(true, Unpooled.wrappedBuffer(p));
                } else {
                    ByteBuf copy = alloc.directBuffer(p.remaining());
                    copy.writeBytes(p);
                    out.addComponent(true, copy);
                }
            }
            return out;
        } catch (RuntimeException e) {
            out.disown(); // the caller keeps its reference to buf, and releases it
            out.release();
            throw e;
        }
    }

    /** A composite that holds the buffer whose memory it lends until it is freed itself. */
    private static final class Owning extends CompositeByteBuf {
        private ByteBuf original;

        Owning(ByteBufAllocator alloc, ByteBuf original) {
            // No limit on components: HTTP/2's queue appends the next message's bytes to a
            // composite, and past the limit Netty would copy them all into one buffer.
            super(alloc, true, Integer.MAX_VALUE);
            this.original = original;
        }

        /** Leaves {@code original} to its holder: this buffer will not release it. */
        void disown() {
            original = null;
        }

        @Override
        protected void deallocate() {
            try {
                super.deallocate();
            } finally {
                if (original != null) {
                    original.release();
                }
            }
        }
    }
}
