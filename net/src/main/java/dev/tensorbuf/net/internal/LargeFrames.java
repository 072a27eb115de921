package dev.tensorbuf.net.internal;

import io.grpc.netty.GrpcHttp2ConnectionHandler;
import io.grpc.netty.InternalProtocolNegotiator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerAdapter;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.util.AsciiString;

/**
 * Lets a client's connections receive HTTP/2 DATA frames of up to {@link #MAX_FRAME_SIZE} bytes.
 * grpc-java's client offers HTTP/2's default of 16 KiB and has no setting for more, so a server
 * cuts a 1 GiB {@code DoGet} into 65,536 frames, each a round of Netty buffers, promises and
 * flow-control bookkeeping on both sides (about a third of our server's CPU, perf). C++ gRPC's
 * clients (pyarrow's) offer 4 MiB; we offer 256 KiB, 4,096 frames a GiB: at 4 MiB a frame is
 * gathered whole before it is decoded, in receive buffers beyond Netty's pooled sizes, and the
 * client took 2-4 times the page faults. This sends one more SETTINGS frame with that size once
 * gRPC's connection preface is out (HTTP/2 lets a peer change its settings at any time); Netty's
 * decoder takes the larger size for the frames it reads when the server acknowledges it, and a
 * server sends larger frames only after it has.
 *
 * <p>Installed by {@link #negotiator}, through gRPC's internal protocol negotiator hook (the only
 * place a client may add a handler to its connections' pipeline).
 */
public final class LargeFrames extends ChannelInboundHandlerAdapter {
    /** The largest DATA frame a client offers to read: 256 KiB. */
    public static final int MAX_FRAME_SIZE = 256 << 10;

    private final GrpcHttp2ConnectionHandler http2;

    LargeFrames(GrpcHttp2ConnectionHandler http2) {
        this.http2 = http2;
    }

    /**
     * {@return {@code negotiator} (gRPC's plaintext client negotiator), also putting a
     * {@code LargeFrames} on each connection}
     */
    public static InternalProtocolNegotiator.ProtocolNegotiator negotiator(InternalProtocolNegotiator.ProtocolNegotiator negotiator) {
        return new InternalProtocolNegotiator.ProtocolNegotiator() {
            @Override
            public AsciiString scheme() {
                return negotiator.scheme();
            }

            @Override
            public ChannelHandler newHandler(GrpcHttp2ConnectionHandler grpcHandler) {
                ChannelHandler next = negotiator.newHandler(grpcHandler);
                return new ChannelHandlerAdapter() {
                    @Override
                    public void handlerAdded(ChannelHandlerContext ctx) {
                        // First in the pipeline: gRPC's handler passes on none of the bytes it reads.
                        ctx.pipeline().addFirst(new LargeFrames(grpcHandler));
                        ctx.pipeline().replace(this, null, next);
                    }
                };
            }

            @Override
            public void close() {
                negotiator.close();
            }
        };
    }

    /**
     * Sends the settings at the first bytes read once gRPC's handler is in the pipeline: it sends
     * the client preface as it is added to an active connection (after the TLS handshake, with
     * TLS, whose records read before then pass by).
     */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ChannelHandlerContext h2 = ctx.pipeline().context(http2);
        if (h2 != null) {
            ctx.pipeline().remove(this);
            http2.encoder().writeSettings(h2, new Http2Settings().maxFrameSize(MAX_FRAME_SIZE), h2.newPromise());
            h2.flush();
        }
        ctx.fireChannelRead(msg);
    }
}
