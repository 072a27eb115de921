package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.internal.RestrictedNative;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** An allocator's close against a native call that holds its memory (here, where downcalls are made). */
class AllocatorCloseInUseTest {
    /**
     * A native call holding a shared arena's segment keeps FFM from closing it. The close frees
     * nothing, so the allocator says so and stays open; once the call returns a close frees it.
     */
    @Test
    void aCloseWhileANativeCallHoldsTheMemoryLeavesTheAllocatorOpen() throws Exception {
        Allocator alloc = Allocators.shared();
        MemoryBuffer timespec = alloc.allocate(16);
        timespec.segment().set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 1); // 1.4 s: long enough to be inside
        timespec.segment().set(java.lang.foreign.ValueLayout.JAVA_LONG, 8, 400_000_000L); // the call on a loaded machine
        var nanosleep = RestrictedNative.downcall(java.lang.foreign.Linker.nativeLinker().defaultLookup().find("nanosleep")
                .orElseThrow(), java.lang.foreign.FunctionDescriptor.of(java.lang.foreign.ValueLayout.JAVA_INT,
                        java.lang.foreign.ValueLayout.ADDRESS, java.lang.foreign.ValueLayout.ADDRESS));
        CountDownLatch calling = new CountDownLatch(1);
        Thread sleeper = Thread.ofPlatform().start(() -> {
            try {
                calling.countDown();
                int rc = (int) nanosleep.invokeExact(timespec.segment(), java.lang.foreign.MemorySegment.NULL);
                assertEquals(0, rc);
            } catch (Throwable t) {
                throw new AssertionError(t);
            }
        });
        calling.await();
        Thread.sleep(300); // inside nanosleep by now: the call holds the segment's arena
        IllegalStateException busy = assertThrows(IllegalStateException.class, alloc::close);
        assertTrue(busy.getMessage().startsWith("cannot close "), busy.getMessage());
        assertTrue(busy.getMessage().endsWith("nothing was freed and it stays open, so close it again once the call"
                + " returns"), busy.getMessage());
        assertTrue(alloc.isOpen());
        alloc.allocate(8).close(); // still usable
        sleeper.join();
        alloc.close();
        assertTrue(!alloc.isOpen());
    }
}
