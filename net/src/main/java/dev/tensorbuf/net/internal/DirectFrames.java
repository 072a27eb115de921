package dev.tensorbuf.net.internal;

import io.grpc.netty.InternalProtocolNegotiator;
import io.grpc.netty.InternalProtocolNegotiators;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufHolder;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.PromiseCombiner;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Lets a server's {@code DoGet} frames reach the socket without a copy. Flight sends a record
 * batch as one Netty buffer joining a small heap buffer (the message's protobuf and IPC header,
 * the padding) with the batch's direct buffers; HTTP/2 cuts it into DATA frames, slices of that
 * mixed buffer, and Netty's epoll and NIO transports copy every buffer that is not wholly direct
 * into a fresh direct one before writing it: about 0.4 s of the network thread per GiB. This
 * handler, on the application's side of gRPC's HTTP/2 handler, hands gRPC each such message as its
 * parts, one write each: the direct ones lent as they are, the heap ones copied (a few hundred bytes
 * a batch). Every frame cut from them is then direct, and all but those that join two parts are one
 * region, which the transport writes by its address.
 *
 * <p>It rewrites a message once, not each of its frames. Done frame by frame next to the socket
 * (as it first was), the rewrite sat inside Netty's per-frame write path, which C2 compiled five
 * times over a fresh server's first 20 fetches of 1 GiB, each undone by an uncommon trap as another
 * buffer type reached it, about half the compiler's time (JFR). Once a message: C2 time over
 * fetches 3-12 0.17 -> 0.11 s per GiB, the server's user CPU 0.38 -> 0.27 s per GiB (medians of
 * three runs of 20 fetches, load 12-18); unchanged once warm. Parts, not one composite of them:
 * C2 time over fetches 3-14 0.084 -> 0.067 s per GiB, the server's CPU 0.46 -> 0.43 s per GiB
 * (means of three fresh servers each, in turns, load 7-9).
 *
 * <p>Installed for plaintext servers by {@link #plaintext()}, through gRPC's negotiator hook
 * ({@link Negotiators}); TLS encrypts every byte into new buffers anyway.
 */
public final class DirectFrames extends ChannelOutboundHandlerAdapter {
    DirectFrames() {
    }

    /**
     * {@return gRPC's plaintext server negotiator, which also puts a {@code DirectFrames} on the
     * application's side of each connection's gRPC handler}
     */
    public static InternalProtocolNegotiator.ProtocolNegotiator plaintext() {
        // Last in the pipeline: gRPC's writes (its frame commands) start at the tail, so they pass
        // it before gRPC's handler, which this one becomes.
        return Negotiators.adding(InternalProtocolNegotiators.serverPlaintext(),
                (pipeline, grpc) -> pipeline.addLast(new DirectFrames()));
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        ByteBuf content = msg instanceof ByteBufHolder h ? h.content() : msg instanceof ByteBuf b ? b : null;
        if (content == null || content.isDirect() || content.hasMemoryAddress() || content.nioBufferCount() == 0) {
            ctx.write(msg, promise);
            return;
        }
        List<ByteBuf> parts;
        try {
            parts = parts(ctx.alloc(), content);
        } catch (RuntimeException e) {
            ReferenceCountUtil.release(msg);
            promise.tryFailure(e);
            return;
        }
        if (parts == null) {
            ctx.write(msg, promise);
            return;
        }
        ReferenceCountUtil.release(msg); // the lent parts hold it now
        if (parts.size() == 1) {
            ctx.write(as(msg, parts.getFirst()), promise);
            return;
        }
        PromiseCombiner all = new PromiseCombiner(ctx.executor());
        for (ByteBuf part : parts) {
            // A gRPC server's data command never ends its stream (the trailers do), so each part
            // may go as a command of its own.
            all.add(ctx.write(as(msg, part)));
        }
        all.finish(promise);
    }

    private static Object as(Object msg, ByteBuf part) {
        return msg instanceof ByteBufHolder h ? h.replace(part) : part;
    }

    /**
     * {@return the readable bytes of {@code buf} as buffers of one region of direct memory each,
     * its direct parts lent (each keeps {@code buf} alive until it is freed itself), its heap parts
     * copied; null when {@code buf} has no direct part (a small control frame: left to the
     * transport)} If it throws, the caller still holds its reference to {@code buf}.
     */
    static List<ByteBuf> parts(ByteBufAllocator alloc, ByteBuf buf) {
        ByteBuffer[] nio = buf.nioBuffers(buf.readerIndex(), buf.readableBytes());
        if (Arrays.stream(nio).noneMatch(p -> p.isDirect() && p.hasRemaining())) {
            return null;
        }
        List<ByteBuf> out = new ArrayList<>(nio.length);
        try {
            for (ByteBuffer p : nio) {
                if (p.isDirect() && p.hasRemaining()) {
                    out.add(new Lent(alloc, p, buf));
                } else if (p.hasRemaining()) {
                    ByteBuf copy = alloc.directBuffer(p.remaining());
                    out.add(copy);
                    copy.writeBytes(p);
                }
            }
            return out;
        } catch (RuntimeException e) {
            out.forEach(ByteBuf::release);
            throw e;
        }
    }

    /**
     * Direct memory of a message, lent: it keeps the message alive until it is freed itself. A
     * composite of that one region, so that every frame cut from it is one region too, written by
     * its address ({@code IovArray}); a composite of a message's parts made every frame a slice of
     * several, gathered through {@code nioBuffers}, whose inlining made C2 compile the transport's
     * write loop ({@code IovArray.processMessage}) at some 4 KB of inlined bytecode, three times over
     * a fresh server's first fetches, 0.4-0.7 s each (JFR).
     */
    private static final class Lent extends CompositeByteBuf {
        private final ByteBuf owner;

        Lent(ByteBufAllocator alloc, ByteBuffer memory, ByteBuf owner) {
            super(alloc, true, 1, Unpooled.wrappedBuffer(memory));
            this.owner = owner.retain();
        }

        @Override
        protected void deallocate() {
            try {
                super.deallocate();
            } finally {
                owner.release();
            }
        }
    }
}
