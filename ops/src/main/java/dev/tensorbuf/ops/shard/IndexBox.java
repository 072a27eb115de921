package dev.tensorbuf.ops.shard;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A box of a tensor's index space: indices {@code start[i] <= x[i] < limit[i]} in every
 * dimension, as NumPy's {@code a[start0:limit0, start1:limit1]} selects them. A device's shard is
 * one box of the global tensor.
 *
 * {@snippet :
 * IndexBox a = IndexBox.of(List.of(0L, 3L), List.of(2L, 5L));
 * a.sizes();                                      // [2, 2]
 * a.intersect(IndexBox.of(List.of(1L, 0L), List.of(4L, 4L))); // Optional[[1:2, 3:4]]
 * a.toString();                                   // "[0:2, 3:5]"
 * }
 *
 * @param start first index of each dimension
 * @param limit one past the last index of each dimension, {@code >= start}
 */
public record IndexBox(List<Long> start, List<Long> limit) {
    /** @throws IllegalArgumentException if the ranks differ, a start is negative or a limit below its start */
    public IndexBox {
        start = List.copyOf(start);
        limit = List.copyOf(limit);
        if (start.size() != limit.size()) {
            throw new IllegalArgumentException("box start " + start + " and limit " + limit + " have different ranks");
        }
        for (int i = 0; i < start.size(); i++) {
            if (start.get(i) < 0 || limit.get(i) < start.get(i)) {
                throw new IllegalArgumentException("box dimension " + i + " is [" + start.get(i) + ":" + limit.get(i)
                        + "): need 0 <= start <= limit");
            }
        }
    }

    /** {@return the box} @param start first indices @param limit limits */
    public static IndexBox of(List<Long> start, List<Long> limit) {
        return new IndexBox(start, limit);
    }

    /** {@return the whole of a tensor of these dims} @param dims the dims */
    public static IndexBox whole(List<Long> dims) {
        return new IndexBox(java.util.Collections.nCopies(dims.size(), 0L), dims);
    }

    /** {@return the number of dimensions} */
    public int rank() {
        return start.size();
    }

    /** {@return {@code limit - start} of each dimension} */
    public List<Long> sizes() {
        List<Long> out = new ArrayList<>(rank());
        for (int i = 0; i < rank(); i++) {
            out.add(limit.get(i) - start.get(i));
        }
        return out;
    }

    /** {@return the number of indices in the box} @throws ArithmeticException past {@code Long.MAX_VALUE} */
    public long elementCount() {
        long n = 1;
        for (long s : sizes()) {
            n = Math.multiplyExact(n, s);
        }
        return n;
    }

    /** {@return whether the box holds no index} */
    public boolean isEmpty() {
        for (int i = 0; i < rank(); i++) {
            if (limit.get(i).equals(start.get(i))) {
                return true;
            }
        }
        return false;
    }

    /** {@return the indices in both boxes, empty if none} @param other a box of the same rank */
    public Optional<IndexBox> intersect(IndexBox other) {
        if (other.rank() != rank()) {
            throw new IllegalArgumentException("boxes " + this + " and " + other + " have different ranks");
        }
        List<Long> s = new ArrayList<>(rank());
        List<Long> l = new ArrayList<>(rank());
        for (int i = 0; i < rank(); i++) {
            long lo = Math.max(start.get(i), other.start.get(i));
            long hi = Math.min(limit.get(i), other.limit.get(i));
            if (hi <= lo) {
                return Optional.empty();
            }
            s.add(lo);
            l.add(hi);
        }
        return Optional.of(new IndexBox(s, l));
    }

    /** {@return this box moved so that {@code origin} is index 0, for addressing inside a shard} @param origin a box containing this one */
    public IndexBox relativeTo(IndexBox origin) {
        List<Long> s = new ArrayList<>(rank());
        List<Long> l = new ArrayList<>(rank());
        for (int i = 0; i < rank(); i++) {
            long o = origin.start.get(i);
            if (start.get(i) < o || limit.get(i) > origin.limit.get(i)) {
                throw new IllegalArgumentException("box " + this + " is not inside " + origin);
            }
            s.add(start.get(i) - o);
            l.add(limit.get(i) - o);
        }
        return new IndexBox(s, l);
    }

    /** {@return NumPy's slice text, {@code [0:2, 3:5]}} */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < rank(); i++) {
            b.append(i == 0 ? "" : ", ").append(start.get(i)).append(':').append(limit.get(i));
        }
        return b.append(']').toString();
    }
}
