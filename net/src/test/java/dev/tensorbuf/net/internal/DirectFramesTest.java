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
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link DirectFrames} on messages like Flight's: a heap header joined to direct batch memory. */
class DirectFramesTest {
    private static EmbeddedChannel channel() {
        return new EmbeddedChannel(new DirectFrames());
    }

    /** {@return the channel's outbound messages, in order} */
    private static List<Object> written(EmbeddedChannel ch) {
        List<Object> out = new ArrayList<>();
        for (Object m = ch.readOutbound(); m != null; m = ch.readOutbound()) {
            out.add(m);
        }
        return out;
    }

    /** {@return the bytes of {@code bufs} joined, each checked to lie in one region of direct memory} */
    private static byte[] directBytes(List<ByteBuf> bufs) {
        ByteBuf joined = Unpooled.buffer();
        for (ByteBuf b : bufs) {
            assertTrue(b.isDirect() && b.nioBufferCount() == 1, b + " is not one region of direct memory");
            joined.writeBytes(b, b.readerIndex(), b.readableBytes());
        }
        return ByteBufUtil.getBytes(joined);
    }

    @Test
    void aMixedFrameGoesOutAsDirectPartsWithTheSameBytesAndTheOriginalIsReleasedWithTheLastLent() {
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

        ChannelFuture done = ch.writeAndFlush(slice);
        List<ByteBuf> out = written(ch).stream().map(ByteBuf.class::cast).toList();
        assertTrue(done.isSuccess());
        // Heap, direct, heap: three writes, the direct one in place, each heap part copied.
        assertEquals(List.of(2, 1000, 1), out.stream().map(ByteBuf::readableBytes).toList());
        assertArrayEquals(want, directBytes(out));
        // The direct part lends the original's memory: the original lives until it is released.
        out.get(0).release();
        out.get(2).release();
        assertEquals(1, slice.refCnt());
        out.get(1).release();
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
        List<Object> all = written(ch);
        assertEquals(1, all.size());
        ByteBuf out = (ByteBuf) all.getFirst();
        assertTrue(out.isDirect() && out.hasMemoryAddress());
        batch.put(5, (byte) 42);
        assertEquals(42, out.getByte(5));
        out.release();
    }

    @Test
    void aMessageHoldingAMixedBufferGoesOutAsMessagesHoldingDirectOnesWithTheSameBytes() {
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
        List<ByteBufHolder> out = written(ch).stream().map(ByteBufHolder.class::cast).toList();
        assertEquals(2, out.size());
        assertArrayEquals(want, directBytes(out.stream().map(ByteBufHolder::content).toList()));
        out.getFirst().release();
        assertEquals(1, body.refCnt());
        out.getLast().release();
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
