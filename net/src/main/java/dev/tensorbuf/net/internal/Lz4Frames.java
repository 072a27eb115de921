package dev.tensorbuf.net.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Decodes an LZ4 frame (the LZ4 frame format, version 01) into memory of the size its caller
 * expects: how Arrow IPC stores a buffer compressed with {@code LZ4_FRAME}, the codec pyarrow's
 * {@code feather.write_feather} uses by default. Blocks may be independent or linked (a match may
 * reach back into earlier blocks: they are decoded into one output); the header checksum, and the
 * block and content checksums where the frame has them, are verified. Every length, offset and
 * match is checked against the input and the output, so damaged input gives an
 * {@link IllegalArgumentException} saying where, never a read or write outside either segment.
 * {@snippet :
 * MemorySegment out = arena.allocate(n);
 * Lz4Frames.decode(frame, out);   // out holds the n bytes the frame encodes, or it throws
 * }
 */
public final class Lz4Frames {
    private static final int MAGIC = 0x184D2204;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;
    /** A match copies at least this many bytes: its length field counts from here. */
    private static final int MIN_MATCH = 4;

    private Lz4Frames() {
    }

    /**
     * Decodes the frame in {@code in} into all of {@code out}.
     *
     * @throws IllegalArgumentException if {@code in} is not one LZ4 frame encoding exactly
     *     {@code out.byteSize()} bytes, saying what is wrong and at which input byte
     */
    public static void decode(MemorySegment in, MemorySegment out) {
        long size = in.byteSize();
        if (size < 7 || in.get(I32, 0) != MAGIC) {
            throw new IllegalArgumentException("an LZ4 frame starts with the magic 0x184D2204");
        }
        int flags = in.get(ValueLayout.JAVA_BYTE, 4) & 0xFF;
        if ((flags >>> 6) != 1 || (flags & 0x2) != 0) {
            throw new IllegalArgumentException("LZ4 frame flags 0x" + Integer.toHexString(flags) + ": not version 01");
        }
        boolean blockChecksums = (flags & 0x10) != 0;
        boolean contentSize = (flags & 0x08) != 0;
        boolean contentChecksum = (flags & 0x04) != 0;
        boolean dictionary = (flags & 0x01) != 0;
        if (dictionary) {
            throw new IllegalArgumentException("the LZ4 frame needs a dictionary, which Arrow never uses");
        }
        int maxBlock = switch ((in.get(ValueLayout.JAVA_BYTE, 5) >>> 4) & 0x7) {
            case 4 -> 64 << 10;
            case 5 -> 256 << 10;
            case 6 -> 1 << 20;
            case 7 -> 4 << 20;
            default -> throw new IllegalArgumentException("LZ4 frame block size code "
                    + ((in.get(ValueLayout.JAVA_BYTE, 5) >>> 4) & 0x7) + " is not 4 to 7");
        };
        long at = 6;
        if (contentSize) {
            require(size, at, 8, "the frame's content size");
            long declared = in.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), at);
            if (declared != out.byteSize()) {
                throw new IllegalArgumentException("the LZ4 frame holds " + Long.toUnsignedString(declared) + " bytes, "
                        + out.byteSize() + " expected");
            }
            at += 8;
        }
        require(size, at, 1, "the header checksum");
        int headerSum = (XxHash.xxh32(in, 4, at - 4, 0) >>> 8) & 0xFF;
        int storedSum = in.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
        if (headerSum != storedSum) {
            throw new IllegalArgumentException("the LZ4 frame's header checksum 0x" + Integer.toHexString(storedSum)
                    + " is not that of its descriptor (0x" + Integer.toHexString(headerSum) + "): the frame is damaged");
        }
        at += 1;
        long written = 0;
        while (true) {
            require(size, at, 4, "a block size");
            int word = in.get(I32, at);
            at += 4;
            if (word == 0) {
                break;   // the end mark
            }
            int length = word & 0x7FFFFFFF;
            if (length > maxBlock) {
                throw new IllegalArgumentException("an LZ4 block at byte " + (at - 4) + " of " + length
                        + " bytes, past the frame's " + maxBlock + "-byte blocks");
            }
            require(size, at, length + (blockChecksums ? 4 : 0), "a block");
            if (blockChecksums) {
                checksum(in, at + length, XxHash.xxh32(in, at, length, 0), "block at byte " + (at - 4));
            }
            if (word < 0) {   // stored as is
                if (length > out.byteSize() - written) {
                    throw tooLong(out, at);
                }
                MemorySegment.copy(in, at, out, written, length);
                written += length;
            } else {
                written = block(in, at, at + length, out, written);
            }
            at += length + (blockChecksums ? 4 : 0);
        }
        require(size, at, contentChecksum ? 4 : 0, "the content checksum");
        if (written != out.byteSize()) {
            throw new IllegalArgumentException("the LZ4 frame holds " + written + " bytes, " + out.byteSize() + " expected");
        }
        if (contentChecksum) {
            checksum(in, at, XxHash.xxh32(out, 0, written, 0), "frame's " + written + " bytes of content");
        }
    }

    private static void checksum(MemorySegment in, long at, int computed, String what) {
        int stored = in.get(I32, at);
        if (stored != computed) {
            throw new IllegalArgumentException("the LZ4 checksum 0x" + Integer.toHexString(stored) + " at byte " + at
                    + " is not that of the " + what + " (0x" + Integer.toHexString(computed) + "): the frame is damaged");
        }
    }

    /**
     * Decodes one compressed block, {@code in[from, to)}, into {@code out} from {@code written};
     * {@return the bytes written by then}
     */
    private static long block(MemorySegment in, long from, long to, MemorySegment out, long written) {
        long at = from;
        long limit = out.byteSize();
        while (true) {
            int token = in.get(ValueLayout.JAVA_BYTE, at++) & 0xFF;
            long literals = token >>> 4;
            if (literals == 15) {
                long more = moreLength(in, at, to);
                literals += more;
                at += more / 255 + 1;
            }
            if (literals > to - at) {
                throw new IllegalArgumentException("LZ4 literals at byte " + at + " run past their block");
            }
            if (literals > limit - written) {
                throw tooLong(out, at);
            }
            // Short runs are moved 16 bytes at a time where both sides have room past them: the
            // bytes beyond a run are written again by what follows it.
            if (literals <= 16 && at <= in.byteSize() - 16 && written <= limit - 16) {
                out.set(I64, written, in.get(I64, at));
                out.set(I64, written + 8, in.get(I64, at + 8));
            } else {
                MemorySegment.copy(in, at, out, written, literals);
            }
            at += literals;
            written += literals;
            if (at == to) {
                return written;   // the last sequence has no match
            }
            if (to - at < 2) {
                throw new IllegalArgumentException("an LZ4 match offset at byte " + at + " is cut off by its block's end");
            }
            int offset = (in.get(ValueLayout.JAVA_BYTE, at) & 0xFF) | (in.get(ValueLayout.JAVA_BYTE, at + 1) & 0xFF) << 8;
            at += 2;
            if (offset == 0 || offset > written) {
                throw new IllegalArgumentException("an LZ4 match at byte " + (at - 2) + " reaches " + offset
                        + " bytes back, before the start of the output (" + written + " bytes written)");
            }
            long match = token & 0xF;
            if (match == 15) {
                long more = moreLength(in, at, to);
                match += more;
                at += more / 255 + 1;
            }
            match += MIN_MATCH;
            if (match > limit - written) {
                throw tooLong(out, at);
            }
            Matches.copy(out, written, offset, match);
            written += match;
            if (at >= to) {
                throw new IllegalArgumentException("an LZ4 block ends with a match at byte " + at
                        + "; it must end with literals");
            }
        }
    }

    /**
     * {@return the sum of the extra length bytes from {@code at}: each adds its value, and one below
     * 255 ends them} So the sum also says how many there were: {@code sum / 255 + 1}.
     */
    private static long moreLength(MemorySegment in, long at, long to) {
        long n = 0;
        for (long i = at; ; i++) {
            if (i >= to) {
                throw new IllegalArgumentException("an LZ4 length at byte " + i + " runs past its block");
            }
            int b = in.get(ValueLayout.JAVA_BYTE, i) & 0xFF;
            n += b;
            if (b != 255) {
                return n;
            }
        }
    }

    private static void require(long size, long at, long bytes, String what) {
        if (bytes > size - at) {
            throw new IllegalArgumentException("the LZ4 frame ends at byte " + size + ", inside " + what + " at byte " + at);
        }
    }

    private static IllegalArgumentException tooLong(MemorySegment out, long at) {
        return new IllegalArgumentException("the LZ4 frame holds more than the " + out.byteSize()
                + " bytes expected (at input byte " + at + ")");
    }
}
