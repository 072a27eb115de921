package dev.tensorbuf.net.internal;

import io.grpc.netty.GrpcHttp2ConnectionHandler;
import io.grpc.netty.InternalProtocolNegotiator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http2.Http2Settings;

/**
 * Lets a client's connections receive HTTP/2 DATA frames of up to {@link #MAX_FRAME_SIZE} bytes,
 * gathered without copies. grpc-java's client offers HTTP/2's default of 16 KiB and has no setting
 * for more, so a server cuts a 1 GiB {@code DoGet} into 65,536 frames, each a round of Netty
 * buffers, promises and flow-control bookkeeping on both sides; C++ gRPC's clients (pyarrow's)
 * offer 4 MiB. This sends one more SETTINGS frame with the larger size once gRPC's connection
 * preface is out (HTTP/2 lets a peer change its settings at any time); Netty's decoder takes the
 * larger size for the frames it reads when the server acknowledges it, and a server sends larger
 * frames only after it has.
 *
 * <p>It also has the connection's HTTP/2 decoder gather a frame that spans several socket reads as
 * a composite of the read buffers, not by copying. Netty's default copies each read that follows
 * a partial frame into the partial one's buffer, a new one whenever a frame before it is still
 * held, as gRPC holds every frame of a message until the message is whole: at 16 KiB frames
 * nearly every read was copied once more, and at 4 MiB the buffer grew past the allocator's pooled
 * sizes, fresh pages for every frame (2-4 times the client's page faults, and slower, when this
 * was first tried without it). {@link DoGetReader} copies out of a composite piece by piece.
 *
 * <p>Installed by {@link #negotiator}, through gRPC's negotiator hook ({@link Negotiators}).
 */
public final class LargeFrames extends ChannelInboundHandlerAdapter {
    /**
     * The largest DATA frame a client offers to read: 1 MiB, 1,024 frames a GiB. Fetching 1 GiB
     * from {@code tensorbuf serve} (fetches 5-19 of a fresh server, two runs), against 16 KiB frames
     * merged: client 0.66 -> 0.50 s CPU per GiB, server 0.50 -> 0.42. 4 MiB, as C++ gRPC offers,
     * did no better in one run.
     */
    public static final int MAX_FRAME_SIZE = 1 << 20;

    private final GrpcHttp2ConnectionHandler http2;

    LargeFrames(GrpcHttp2ConnectionHandler http2) {
        this.http2 = http2;
    }

    /**
     * {@return {@code negotiator} (gRPC's plaintext client negotiator), also putting a
     * {@code LargeFrames} on each connection}
     */
    public static InternalProtocolNegotiator.ProtocolNegotiator negotiator(InternalProtocolNegotiator.ProtocolNegotiator negotiator) {
        return Negotiators.adding(negotiator, (pipeline, grpc) -> {
            grpc.setCumulator(ByteToMessageDecoder.COMPOSITE_CUMULATOR);
            // First in the pipeline: gRPC's handler passes on none of the bytes it reads.
            pipeline.addFirst(new LargeFrames(grpc));
        });
    }

    /**
     * Sends the settings at the first bytes read once gRPC's handler is in the pipeline: it sends
     * the client preface as it is added to an active connection.
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
