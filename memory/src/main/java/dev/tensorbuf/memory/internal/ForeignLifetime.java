package dev.tensorbuf.memory.internal;

import dev.tensorbuf.memory.BufferOwner;
import java.util.Objects;

/** The life of memory made elsewhere: closing runs the owner's deleter, once. */
public final class ForeignLifetime extends Lifetime {
    private final Runnable deleter;

    /** @param deleter frees the memory; run exactly once, on the first close */
    public ForeignLifetime(String ownerName, long byteSize, Runnable deleter) {
        super(new BufferOwner.Foreign(ownerName), Scope.FOREVER, byteSize);
        this.deleter = Objects.requireNonNull(deleter, "deleter");
    }

    @Override
    protected void release() {
        deleter.run();
    }
}
