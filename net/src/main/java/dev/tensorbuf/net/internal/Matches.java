package dev.tensorbuf.net.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** The back-reference copy LZ4 and Zstandard share: a match repeats bytes already written. */
final class Matches {
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;

    private Matches() {
    }

    /**
     * Writes {@code length} bytes at {@code at} of {@code out}, each the byte {@code offset} before
     * it. The caller has checked that they fit and that {@code 0 < offset <= at}.
     */
    static void copy(MemorySegment out, long at, long offset, long length) {
        if (length <= 16 && offset >= 8 && at <= out.byteSize() - 16) {
            // 16 bytes in two steps where the output has room past them (the second may read the
            // first); the bytes beyond the match are written again by what follows it.
            out.set(I64, at, out.get(I64, at - offset));
            out.set(I64, at + 8, out.get(I64, at - offset + 8));
            return;
        }
        // A match longer than its offset repeats the last offset bytes: each copy takes all the
        // whole periods written so far, so none reads what it writes (a run of zeros doubles).
        for (long done = 0; done < length; ) {
            long n = Math.min(done + offset, length - done);
            MemorySegment.copy(out, at - offset, out, at + done, n);
            done += n;
        }
    }
}
