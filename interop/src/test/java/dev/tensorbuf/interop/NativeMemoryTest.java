package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Raw native pointers as buffers: freed once, by the native free function, from any thread. */
class NativeMemoryTest {

    @Test
    void wrapsMemoryFromCAndFreesItOnceThroughItsFreeFunction() throws InterruptedException {
        NativePeer peer = NativePeer.get();
        peer.reset();
        long address = peer.allocInts(4);
        MemoryBuffer b = NativeMemory.wrap(address, 16, MemorySpace.HOST, "dlpack_peer", peer.symbol("tb_counting_free"));
        MemorySegment kept = b.segment();
        assertArrayEquals(new int[] {0, 1, 4, 9}, kept.toArray(ValueLayout.JAVA_INT));
        Thread closer = Thread.ofPlatform().start(b::close);
        closer.join();
        b.close();
        assertEquals(1, peer.freeCalls());
        assertFalse(b.isAlive());
        assertThrows(IllegalStateException.class, () -> kept.get(ValueLayout.JAVA_INT, 0),
                "a segment kept past close is revoked before the memory is freed");
    }

    @Test
    void deviceMemoryKeepsOnlyTheAddress() {
        AtomicInteger freed = new AtomicInteger();
        MemoryBuffer b = NativeMemory.wrap(0x7f00_0000_0000L, 1 << 20, MemorySpace.DEVICE, "cuda", freed::incrementAndGet);
        assertEquals(0x7f00_0000_1000L, b.slice(4096, 16).address());
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, b::segment);
        assertTrue(e.getMessage().contains("not host-accessible"), e.getMessage());
        b.close();
        b.close();
        assertEquals(1, freed.get());
    }

    @Test
    void nullAddressWithBytesIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> NativeMemory.wrap(0, 8, MemorySpace.HOST, "libfoo", () -> { }));
        assertEquals("NULL address with 8 bytes for memory of libfoo", e.getMessage());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> NativeMemory.wrap(0x1000, -1, MemorySpace.HOST, "libfoo", () -> { }));
        assertEquals("negative byte size -1 for memory of libfoo at address 0x1000", negative.getMessage());
        IllegalArgumentException nullFree = assertThrows(IllegalArgumentException.class,
                () -> NativeMemory.wrap(0x1000, 8, MemorySpace.HOST, "libfoo", MemorySegment.NULL));
        assertEquals("NULL free function for memory of libfoo", nullFree.getMessage());
        for (MemorySpace space : new MemorySpace[] {MemorySpace.HOST, MemorySpace.DEVICE}) {
            IllegalArgumentException wraps = assertThrows(IllegalArgumentException.class,
                    () -> NativeMemory.wrap(0xffff_ffff_ffff_fff0L, 64, space, "libfoo", () -> { }));
            assertEquals("64 bytes at 0xfffffffffffffff0 for memory of libfoo run past the end of the 64-bit address space",
                    wraps.getMessage());
        }
        // The last 16 bytes of the address space are a range; nothing is dereferenced.
        NativeMemory.wrap(0xffff_ffff_ffff_fff0L, 16, MemorySpace.DEVICE, "libfoo", () -> { }).close();
    }

    @Test
    void readOnlyMemoryRefusesWritesThroughTheRootAndEveryView() {
        NativePeer peer = NativePeer.get();
        peer.reset();
        long address = peer.allocInts(4);
        try (MemoryBuffer b = NativeMemory.wrap(address, 16, MemorySpace.HOST, "dlpack_peer", true,
                () -> NativeMemory.callVoid(peer.symbol("tb_counting_free"), MemorySegment.ofAddress(address)))) {
            assertTrue(b.isReadOnly());
            assertTrue(b.isRoot());
            assertTrue(b.segment().isReadOnly());
            assertTrue(b.slice(4, 4).segment().isReadOnly());
            assertEquals(9, b.segment().get(ValueLayout.JAVA_INT, 12), "reads still work");
            assertThrows(IllegalArgumentException.class, () -> b.segment().set(ValueLayout.JAVA_INT, 0, 1));
        }
        assertEquals(1, peer.freeCalls());
        MemoryBuffer device = NativeMemory.wrap(0x7f00_0000_0000L, 64, MemorySpace.DEVICE, "cuda", true, () -> { });
        assertTrue(device.isReadOnly());
        assertTrue(device.slice(0, 8).isReadOnly());
        device.close();
    }
}
