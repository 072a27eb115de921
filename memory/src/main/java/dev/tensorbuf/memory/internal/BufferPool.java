package dev.tensorbuf.memory.internal;

import dev.tensorbuf.memory.AllocationLimitException;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.LeakReport;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.memory.PooledAllocator;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.agrona.collections.ObjectHashSet;

/**
 * The {@link PooledAllocator}: free lists per size class, one lock around counters and lists,
 * blocks made and freed outside the lock. See {@link PooledAllocator} for the contract.
 */
public final class BufferPool implements PooledAllocator {
    private static final System.Logger LOG = System.getLogger(PooledAllocator.class.getName());
    private static final int SITE_DEPTH = 12;

    private final String name;
    private final MemoryBuffer.Owner.Pool owner;
    private final long byteLimit;
    private final long maxCachedBytes;
    private final long defaultAlignment;
    private final boolean trackLeaks;
    private final SizeClasses classes;
    private final Scope scope = new Scope();
    /** Makes each new block; tests replace it to stop or fail an allocation after its reservation. */
    private final BlockMaker blockMaker;

    // A ReentrantLock rather than synchronized: its unlock is a plain volatile write, not a
    // compare-and-set, which is a measurable share of a ~25 ns allocate-and-free.
    private final ReentrantLock lock = new ReentrantLock();
    // Everything below is guarded by lock.
    private final ArrayDeque<Block>[] free;
    /** Every block not yet freed, live or cached: what close must free. */
    private final ObjectHashSet<Block> blocks = new ObjectHashSet<>();
    private boolean closed;
    private long nextId;
    /**
     * Bytes of blocks being made outside the lock for allocations in progress: counted against the
     * limit, so racing allocations respect it, but in no statistic until the buffer is handed out,
     * so that every snapshot is one a caller could have seen between two whole allocations.
     */
    private long reservedBytes;
    private long liveBytes;
    private long peakLiveBytes;
    private long liveCount;
    private long allocations;
    private long frees;
    private long reuses;
    private long cachedBytes;
    private long releasedAtClose;

    /** How a block is made; {@link Block#allocate} but in tests. */
    @FunctionalInterface
    interface BlockMaker {
        Block make(long byteSize, long alignment, int sizeClass);
    }

    /** Settings are checked by {@link PooledAllocator.Builder}. */
    public BufferPool(String name, long byteLimit, long largestSizeClass, long maxCachedBytes,
            long defaultAlignment, boolean trackLeaks) {
        this(name, byteLimit, largestSizeClass, maxCachedBytes, defaultAlignment, trackLeaks, Block::allocate);
    }

    @SuppressWarnings("unchecked")
    BufferPool(String name, long byteLimit, long largestSizeClass, long maxCachedBytes,
            long defaultAlignment, boolean trackLeaks, BlockMaker blockMaker) {
        this.blockMaker = blockMaker;
        this.name = name;
        this.owner = new MemoryBuffer.Owner.Pool(name);
        this.byteLimit = byteLimit;
        this.maxCachedBytes = maxCachedBytes;
        this.defaultAlignment = defaultAlignment;
        this.trackLeaks = trackLeaks;
        this.classes = new SizeClasses(largestSizeClass);
        @SuppressWarnings("unchecked") // an array of a generic type is made of its wildcard type
        ArrayDeque<Block>[] lists = (ArrayDeque<Block>[]) new ArrayDeque<?>[classes.count()];
        this.free = lists;
        for (int i = 0; i < free.length; i++) {
            free[i] = new ArrayDeque<>();
        }
    }

    MemoryBuffer.Owner.Pool owner() {
        return owner;
    }

    Scope scope() {
        return scope;
    }

    boolean tracksLeaks() {
        return trackLeaks;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public MemorySpace memorySpace() {
        return MemorySpace.HOST;
    }

    @Override
    public long defaultAlignment() {
        return defaultAlignment;
    }

    @Override
    public boolean isOpen() {
        return scope.isOpen();
    }

    @Override
    public MemoryBuffer allocate(long byteSize, long alignment) {
        Errors.checkByteSize(byteSize);
        Errors.checkAlignment(alignment);
        int sizeClass = classes.classFor(byteSize, alignment);
        long blockSize = sizeClass == SizeClasses.EXACT ? byteSize : SizeClasses.blockSize(sizeClass);
        long blockAlignment = sizeClass == SizeClasses.EXACT
                ? Math.max(alignment, defaultAlignment)
                : SizeClasses.blockAlignment(sizeClass);
        long blockBytes = Block.countedBytes(blockSize, blockAlignment);
        List<StackTraceElement> site = trackLeaks ? CallSites.capture(SITE_DEPTH) : List.of();
        List<Block> evicted = List.of();
        lock.lock();
        try {
            if (closed) {
                throw Errors.allocatorClosed(owner.toString());
            }
            long committed = liveBytes + reservedBytes;
            if (byteLimit != Long.MAX_VALUE && blockBytes > byteLimit - committed) {
                throw new AllocationLimitException(name, byteSize, blockBytes, committed, byteLimit);
            }
            if (blockBytes > Long.MAX_VALUE - committed) {
                // More than any machine has, and no limit was set: the system's refusal, as an arena gives it.
                throw Errors.cannotReserveBlock(byteSize, alignment, blockSize, blockAlignment, owner,
                        new OutOfMemoryError());
            }
            Block cached = sizeClass == SizeClasses.EXACT ? null : free[sizeClass].pollLast();
            if (cached != null) {
                cachedBytes -= blockBytes;
                reuses++;
                return handOut(cached, byteSize, site);
            }
            reservedBytes += blockBytes;
            if (cachedBytes > byteLimit - liveBytes - reservedBytes) {
                evicted = evictDownTo(byteLimit - liveBytes - reservedBytes);
            }
        } finally {
            lock.unlock();
        }
        freeAll(evicted);
        Block block;
        try {
            block = blockMaker.make(blockSize, blockAlignment, sizeClass);
        } catch (RuntimeException | Error e) {
            lock.lock();
            try {
                reservedBytes -= blockBytes;
            } finally {
                lock.unlock();
            }
            if (e instanceof OutOfMemoryError oom) {
                throw Errors.cannotReserveBlock(byteSize, alignment, blockSize, blockAlignment, owner, oom);
            }
            throw e;
        }
        lock.lock();
        try {
            reservedBytes -= blockBytes;
            if (!closed) {
                blocks.add(block);
                return handOut(block, byteSize, site);
            }
        } finally {
            lock.unlock();
        }
        block.free(); // the pool closed while the block was being made
        throw Errors.allocatorClosed(owner.toString());
    }

    /**
     * Under the lock: the block becomes a buffer, with the next id, and enters every statistic at
     * once, so that no snapshot sees it in some and not in others.
     */
    private MemoryBuffer handOut(Block block, long byteSize, List<StackTraceElement> site) {
        allocations++;
        liveCount++;
        liveBytes += block.countedBytes;
        peakLiveBytes = Math.max(peakLiveBytes, liveBytes);
        long id = ++nextId;
        var lifetime = new PooledLifetime(this, block, id, byteSize, site);
        block.holder = lifetime;
        var segment = block.byteSize() == byteSize ? block.segment : block.segment.asSlice(0, byteSize);
        return BufferFactory.host(lifetime, MemorySpace.HOST, segment);
    }

    /** Removes cached blocks, largest classes first, until at most {@code target} bytes stay cached. */
    private List<Block> evictDownTo(long target) {
        List<Block> evicted = new ArrayList<>();
        for (int c = free.length - 1; c >= 0 && cachedBytes > target; c--) {
            while (cachedBytes > target && !free[c].isEmpty()) {
                Block block = free[c].pollFirst();
                cachedBytes -= block.countedBytes;
                blocks.remove(block);
                evicted.add(block);
            }
        }
        return evicted;
    }

    /**
     * Closes a buffer and takes back its block; a second close of the same buffer does nothing,
     * nor does a close after the pool's, which keeps the pool's close as the one reported. A
     * buffer held by a copy ({@link Lifetime#hold()}) is closed, and counted as freed, at once;
     * its block stays live, and goes back when the hold ends.
     */
    void release(PooledLifetime lifetime) {
        lock.lock();
        try {
            if (closed || !lifetime.closeUnderLock()) {
                return;
            }
            liveCount--;
            frees++;
            if (lifetime.deferIfHeld()) {
                return;
            }
        } finally {
            lock.unlock();
        }
        giveBack(lifetime);
    }

    /** Takes back the block of a closed buffer, once no hold keeps it: cached for reuse, or freed. */
    void giveBack(PooledLifetime lifetime) {
        Block block = lifetime.block;
        long blockBytes = block.countedBytes;
        lock.lock();
        try {
            if (closed) {
                return; // the pool freed every block when it closed
            }
            block.holder = null;
            liveBytes -= blockBytes;
            if (block.sizeClass != SizeClasses.EXACT && blockBytes <= maxCachedBytes - cachedBytes) {
                free[block.sizeClass].addLast(block);
                cachedBytes += blockBytes;
                return;
            }
            blocks.remove(block);
        } finally {
            lock.unlock();
        }
        block.free();
    }

    @Override
    public PooledAllocator.Stats stats() {
        lock.lock();
        try {
            return new PooledAllocator.Stats(name, liveBytes, peakLiveBytes, liveCount, allocations, frees, reuses,
                    cachedBytes, releasedAtClose, byteLimit);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public LeakReport leakReport() {
        lock.lock();
        try {
            return openBuffers();
        } finally {
            lock.unlock();
        }
    }

    private LeakReport openBuffers() {
        List<PooledLifetime> open = new ArrayList<>();
        for (Block block : blocks) {
            // A buffer closed while held keeps its block until the hold ends, but its user closed it: no leak.
            if (block.holder != null && !block.holder.isClosedItself()) {
                open.add(block.holder);
            }
        }
        open.sort(Comparator.comparingLong(l -> l.id));
        List<LeakReport.Leak> leaks = new ArrayList<>(open.size());
        for (PooledLifetime lifetime : open) {
            leaks.add(new LeakReport.Leak(lifetime.id, lifetime.byteSize(), lifetime.allocationSite));
        }
        return new LeakReport(name, leaks);
    }

    @Override
    public LeakReport closeAndReport() {
        LeakReport report;
        List<Block> all;
        lock.lock();
        try {
            if (closed) {
                return new LeakReport(name, List.of());
            }
            // Loans are taken under the scope's monitor: checked and closed in one step there, a
            // loan either came first (and the close is refused, the pool untouched) or is refused.
            synchronized (scope) {
                scope.refuseIfLent(owner.toString());
                scope.close(); // before freeing: open buffers now say the pool closed them
            }
            report = openBuffers();
            closed = true;
            all = new ArrayList<>(blocks);
            blocks.clear();
            for (ArrayDeque<Block> list : free) {
                list.clear();
            }
            releasedAtClose = liveCount;
            liveCount = 0;
            liveBytes = 0;
            cachedBytes = 0;
        } finally {
            lock.unlock();
        }
        freeAll(all);
        return report;
    }

    @Override
    public void close() {
        LeakReport report = closeAndReport();
        if (!report.isEmpty()) {
            LOG.log(System.Logger.Level.WARNING, report.toString());
        }
    }

    /** Frees every block, even when one fails, then throws the first failure. */
    private static void freeAll(List<Block> blocks) {
        RuntimeException failure = null;
        for (Block block : blocks) {
            try {
                block.free();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return stats().toString();
    }
}
