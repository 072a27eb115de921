package dev.tensorbuf.net.internal;

import io.grpc.netty.GrpcHttp2ConnectionHandler;
import io.grpc.netty.InternalProtocolNegotiator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerAdapter;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.util.AsciiString;
import java.util.function.BiConsumer;

/**
 * gRPC's internal protocol negotiator hook: the only place where gRPC lets a client or a server
 * reach its connections' pipeline and HTTP/2 handler.
 */
final class Negotiators {
    private Negotiators() {
    }

    /**
     * {@return {@code negotiator}, also calling {@code add} with each connection's pipeline and
     * gRPC handler as the negotiator's handler joins the pipeline, before the connection reads or
     * writes}
     */
    static InternalProtocolNegotiator.ProtocolNegotiator adding(InternalProtocolNegotiator.ProtocolNegotiator negotiator,
                                                               BiConsumer<ChannelPipeline, GrpcHttp2ConnectionHandler> add) {
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
                        add.accept(ctx.pipeline(), grpcHandler);
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
}
