package dev.tensorbuf.memory.internal;

import java.util.List;

/** The life of one pooled buffer: closing returns its block to the pool. */
final class PooledLifetime extends Lifetime {
    final BufferPool pool;
    final Block block;
    final long id;
    /** Where it was allocated, innermost first; empty unless the pool tracks leaks. */
    final List<StackTraceElement> allocationSite;

    PooledLifetime(BufferPool pool, Block block, long id, long byteSize, List<StackTraceElement> allocationSite) {
        super(pool.owner(), pool.scope(), byteSize);
        this.pool = pool;
        this.block = block;
        this.id = id;
        this.allocationSite = allocationSite;
    }

    @Override
    protected String closeSite() {
        return pool.tracksLeaks() ? CallSites.caller() : null;
    }

    /** Closes under the pool's lock, which {@link BufferPool#release} takes anyway. */
    @Override
    public void close() {
        pool.release(this);
    }

    /** The block goes back once the last hold on a buffer closed while held ends. */
    @Override
    protected void release() {
        pool.giveBack(this);
    }
}
