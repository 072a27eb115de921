package dev.tensorbuf.memory.internal;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import java.lang.foreign.MemorySegment;

/**
 * Makes the root buffers allocators, pools and foreign memory hand out. {@link MemoryBuffer} is
 * sealed and its implementations are package-private in {@code dev.tensorbuf.memory} (on the
 * class path a sealed type's subclasses must share its package); their constructors are lent
 * here by that package ({@link Lender}), as the JDK's shared secrets do.
 * {@snippet :
 * MemorySegment segment = arena.allocate(1024);
 * MemoryBuffer b = BufferFactory.host(new ForeignLifetime(owner, 1024, null), MemorySpace.HOST, segment);
 * b.byteSize();   // 1024
 * }
 */
public final class BufferFactory {
    private BufferFactory() {
    }

    /** What {@code dev.tensorbuf.memory} lends: set once, by its buffers' class initializer. */
    public interface Lender {
        /** {@return a root host buffer over {@code segment}, read-only when the segment is} */
        MemoryBuffer host(Lifetime lifetime, MemorySpace space, MemorySegment segment);

        /** {@return a root buffer of {@code byteSize} bytes at {@code address} in a space Java cannot touch} */
        MemoryBuffer device(Lifetime lifetime, MemorySpace space, long address, long byteSize, boolean readOnly);
    }

    private static final String IMPLEMENTATION = "dev.tensorbuf.memory.AbstractBuffer";
    private static volatile Lender lender;

    /**
     * Takes {@code dev.tensorbuf.memory}'s lender.
     *
     * @throws IllegalStateException if one was lent already, or it is not that package's
     */
    public static void lend(Lender l) {
        if (lender != null || !l.getClass().getPackageName().equals(MemoryBuffer.class.getPackageName())) {
            throw new IllegalStateException("only dev.tensorbuf.memory lends, once");
        }
        lender = l;
    }

    private static Lender lender() {
        Lender l = lender;
        if (l == null) {
            try {
                Class.forName(IMPLEMENTATION, true, MemoryBuffer.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new AssertionError(e);
            }
            l = lender;
        }
        return l;
    }

    /**
     * {@return a root host buffer over {@code segment}, read-only when the segment is}
     *
     * @param segment the bytes, exactly the buffer's size; never exposed after the lifetime ends
     */
    public static MemoryBuffer host(Lifetime lifetime, MemorySpace space, MemorySegment segment) {
        return lender().host(lifetime, space, segment);
    }

    /** {@return a root buffer of {@code byteSize} bytes at {@code address} in a non-host-accessible space} */
    public static MemoryBuffer device(Lifetime lifetime, MemorySpace space, long address, long byteSize, boolean readOnly) {
        return lender().device(lifetime, space, address, byteSize, readOnly);
    }
}
