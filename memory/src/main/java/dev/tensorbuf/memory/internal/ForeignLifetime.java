package dev.tensorbuf.memory.internal;

import dev.tensorbuf.memory.MemoryBuffer;
import java.util.Objects;

/** The life of memory made elsewhere: closing runs the owner's deleter, once. */
public final class ForeignLifetime extends Lifetime {
    private final Runnable deleter;

    /** @param deleter frees the memory; run exactly once, on the first close */
    public ForeignLifetime(String ownerName, long byteSize, Runnable deleter) {
        this(ownerName, byteSize, Scope.FOREVER, deleter);
    }

    /**
     * @param scope the scope of the allocator that made this memory and frees it at its close
     *     (the huge-page allocator's mappings), so that the buffer dies with it and a loan on it
     *     refuses that close
     * @param deleter frees the memory; run exactly once, on the first close
     */
    public ForeignLifetime(String ownerName, long byteSize, Scope scope, Runnable deleter) {
        super(new MemoryBuffer.Owner.Foreign(ownerName), scope, byteSize);
        this.deleter = Objects.requireNonNull(deleter, "deleter");
    }

    @Override
    protected void release() {
        deleter.run();
    }
}
