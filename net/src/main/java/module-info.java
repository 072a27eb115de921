/**
 * Tensors that leave the process: Arrow IPC files and streams of {@code arrow.fixed_shape_tensor}
 * columns, and tensors served and fetched over Arrow Flight. The only module that depends on
 * Arrow; Arrow's memory needs {@code --add-opens=java.base/java.nio=org.apache.arrow.memory.core,ALL-UNNAMED}.
 */
module dev.tensorbuf.net {
    requires transitive dev.tensorbuf.memory;
    requires transitive dev.tensorbuf.views;
    requires transitive dev.tensorbuf.ops;
    requires transitive dev.tensorbuf.interop;
    requires transitive org.apache.arrow.memory.core;
    requires transitive org.apache.arrow.vector;
    requires transitive org.apache.arrow.flight.core;
    requires com.fasterxml.jackson.databind;
    // DoGet's batches are read from gRPC's buffers directly (internal.DoGetReader): Flight's own
    // reader copies each twice into fresh memory. A server's DoGet frames reach the socket
    // without Netty's copy of each (internal.DirectFrames). A client reads DATA frames of up to 1 MiB,
    // gathered without copies (internal.LargeFrames).
    requires io.grpc;
    requires io.grpc.netty;
    requires io.grpc.stub;
    requires io.netty.buffer;
    requires io.netty.codec;
    requires io.netty.codec.http2;
    requires io.netty.common;
    requires io.netty.handler;
    requires io.netty.transport;
    requires org.apache.arrow.format;

    exports dev.tensorbuf.net;
}
