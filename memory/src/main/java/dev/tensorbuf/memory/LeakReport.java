package dev.tensorbuf.memory;

import dev.tensorbuf.memory.internal.Errors;
import java.util.List;
import java.util.Objects;

/**
 * The buffers of a pool that were still open, each with the call site that allocated it when the
 * pool tracks leaks ({@link PooledAllocator.Builder#trackLeaks(boolean)}). A buffer its user
 * closed while a {@link MemoryBuffer#hold()} kept its memory is closed, not open: it is not listed.
 *
 * {@snippet :
 * PooledAllocator pool = PooledAllocator.builder().name("staging").trackLeaks(true).build();
 * MemoryBuffer forgotten = pool.allocate(4096);
 * LeakReport report = pool.closeAndReport();
 * report.leaks().getFirst().allocationSite().getFirst().getMethodName(); // the allocating method
 * report.toString();
 * // pool 'staging': 1 buffer still open (4096 bytes)
 * //   buffer #1 of 4096 bytes, allocated at
 * //     com.example.Loader.load(Loader.java:42)
 * //     ...
 * }
 *
 * @param pool the pool's name
 * @param leaks the open buffers, in allocation order
 */
public record LeakReport(String pool, List<Leak> leaks) {

    /**
     * One open buffer.
     *
     * @param id the pool's number for the allocation, from 1
     * @param byteSize the size asked for
     * @param allocationSite the allocating call and its callers, innermost first; empty when the
     *     pool does not track leaks
     */
    public record Leak(long id, long byteSize, List<StackTraceElement> allocationSite) {
        /**
         * Checks the values and copies the site.
         *
         * @throws IllegalArgumentException if {@code id < 1} or {@code byteSize < 0}
         */
        public Leak {
            if (id < 1) {
                throw new IllegalArgumentException("id " + id + " must be >= 1");
            }
            Errors.checkByteSize(byteSize);
            allocationSite = List.copyOf(Objects.requireNonNull(allocationSite, "allocationSite"));
        }
    }

    /** Copies the list. */
    public LeakReport {
        Objects.requireNonNull(pool, "pool");
        leaks = List.copyOf(Objects.requireNonNull(leaks, "leaks"));
    }

    /** {@return whether no buffer was open} */
    public boolean isEmpty() {
        return leaks.isEmpty();
    }

    /** {@return the sum of the open buffers' sizes} */
    public long totalBytes() {
        long total = 0;
        for (Leak leak : leaks) {
            total += leak.byteSize();
        }
        return total;
    }

    /** {@return the report as text for people: a header line, then each buffer and its site} */
    @Override
    public String toString() {
        if (leaks.isEmpty()) {
            return "pool '" + pool + "': no buffers open";
        }
        var text = new StringBuilder("pool '").append(pool).append("': ").append(leaks.size())
                .append(leaks.size() == 1 ? " buffer" : " buffers").append(" still open (")
                .append(Errors.bytes(totalBytes())).append(")");
        for (Leak leak : leaks) {
            text.append("\n  buffer #").append(leak.id()).append(" of ").append(Errors.bytes(leak.byteSize()));
            if (leak.allocationSite().isEmpty()) {
                text.append(", allocation site not recorded (leak tracking is off)");
            } else {
                text.append(", allocated at");
                for (StackTraceElement frame : leak.allocationSite()) {
                    text.append("\n    ").append(frame);
                }
            }
        }
        return text.toString();
    }
}
