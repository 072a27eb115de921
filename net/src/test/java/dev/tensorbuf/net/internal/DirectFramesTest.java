package dev.tensorbuf.net.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.DefaultByteBufHolder;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** {@link DirectFrames} on messages like Flight's: a heap header joined to direct batch memory. */
class DirectFramesTest {
    private static EmbeddedChannel channel() {
        return new EmbeddedChannel(new DirectFrames());
    }

    @Test
    void aMixedFrameGoesOutDirectWithTheSameBytesAndTheOriginalIsReleasedWithIt() {
        EmbeddedChannel ch = channel();
        ByteBuffer batch = ByteBuffer.allocateDirect(1000);
        for (int i = 0; i < 1000; i++) {
            batch.put(i, (byte) (i * 7));
        }
        CompositeByteBuf frame = Unpooled.compositeBuffer();
        frame.addComponent(true, Unpooled.wrappedBuffer(new byte[] {1, 2, 3}));
        frame.addComponent(true, Unpooled.wrappedBuffer(batch));
        frame.addComponent(true, Unpooled.wrappedBuffer(new byte[] {9, 9}));
        ByteBuf slice = frame.retainedSlice(1, 1003);
        frame.release();
        byte[] want = ByteBufUtil.getBytes(slice);
        assertFalse(slice.isDirect());

        ch.writeAndFlush(slice);
        ByteBuf out = ch.readOutbound();
        assertTrue(out.isDirect());
        assertArrayEquals(want, ByteBufUtil.getBytes(out));
        // The direct buffer lends the original's memory: the original lives until it is released.
        assertEquals(1, slice.refCnt());
        out.release();
        assertEquals(0, slice.refCnt());
    }

    @Test
    void aFrameInOneDirectBufferLendsItsMemory() {
        EmbeddedChannel ch = channel();
        ByteBuffer batch = ByteBuffer.allocateDirect(64);
        CompositeByteBuf frame = Unpooled.compositeBuffer();
        frame.addComponent(true, Unpooled.wrappedBuffer(new byte[] {1}));
        frame.addComponent(true, Unpooled.wrappedBuffer(batch));
        ByteBuf slice = frame.retainedSlice(1, 64);
        frame.release();
        ch.writeAndFlush(slice);
        ByteBuf out = ch.readOutbound();
        assertTrue(out.isDirect());
        batch.put(5, (byte) 42);
        assertEquals(42, out.getByte(5));
        out.release();
    }

    @Test
    void aMessageHoldingAMixedBufferGoesOutHoldingADirectOneWithTheSameBytes() {
        EmbeddedChannel ch = channel();
        ByteBuffer batch = ByteBuffer.allocateDirect(256);
        for (int i = 0; i < 256; i++) {
            batch.put(i, (byte) (255 - i));
        }
        CompositeByteBuf body = Unpooled.compositeBuffer();
        body.addComponent(true, Unpooled.wrappedBuffer(new byte[] {4, 5, 6, 7}));
        body.addComponent(true, Unpooled.wrappedBuffer(batch));
        byte[] want = ByteBufUtil.getBytes(body);
        ch.writeAndFlush(new DefaultByteBufHolder(body));
        ByteBufHolder out = ch.readOutbound();
        assertTrue(out.content().isDirect());
        assertArrayEquals(want, ByteBufUtil.getBytes(out.content()));
        assertEquals(1, body.refCnt());
        out.release();
        assertEquals(0, body.refCnt());
    }

    @Test
    void aRewriteThatFailsFailsTheWriteAndReleasesTheMessageOnce() {
        EmbeddedChannel ch = channel();
        ch.config().setAllocator(new AbstractByteBufAllocator(true) {
            @Override
            protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
                return Unpooled.buffer(initialCapacity, maxCapacity);
            }

            @Override
            protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
                throw new IllegalStateException("no direct memory left");
            }

            @Override
            public boolean isDirectBufferPooled() {
                return false;
            }
        });
        CompositeByteBuf body = Unpooled.compositeBuffer();
        body.addComponent(true, Unpooled.wrappedBuffer(new byte[] {1, 2}));
        body.addComponent(true, Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(16)));
        ChannelFuture written = ch.writeAndFlush(new DefaultByteBufHolder(body));
        assertFalse(written.isSuccess());
        assertEquals(0, body.refCnt());
        assertNull(ch.readOutbound());
    }

    @Test
    void heapAndDirectFramesPassUnchanged() {
        EmbeddedChannel ch = channel();
        ByteBuf heap = Unpooled.wrappedBuffer(new byte[] {1, 2, 3});
        ByteBuf direct = Unpooled.directBuffer(8).writeLong(5);
        ch.writeAndFlush(heap);
        ch.writeAndFlush(direct);
        assertSame(heap, ch.readOutbound());
        assertSame(direct, ch.readOutbound());
        heap.release();
        direct.release();
    }
}
