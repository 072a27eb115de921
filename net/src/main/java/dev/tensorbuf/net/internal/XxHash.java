package dev.tensorbuf.net.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * xxHash's XXH32 and XXH64 (the xxHash specification, version 0.1.1), the checksums LZ4 frames
 * (XXH32: header, blocks, content) and Zstandard frames (the low 32 bits of XXH64 of the content)
 * carry. Both read their input as little-endian words, whatever the machine's order.
 * {@snippet :
 * int sum = (int) XxHash.xxh64(out, 0, out.byteSize(), 0);   // what a Zstandard frame stores
 * }
 */
public final class XxHash {
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private static final int P32_1 = 0x9E3779B1;
    private static final int P32_2 = 0x85EBCA77;
    private static final int P32_3 = 0xC2B2AE3D;
    private static final int P32_4 = 0x27D4EB2F;
    private static final int P32_5 = 0x165667B1;

    private static final long P64_1 = 0x9E3779B185EBCA87L;
    private static final long P64_2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P64_3 = 0x165667B19E3779F9L;
    private static final long P64_4 = 0x85EBCA77C2B2AE63L;
    private static final long P64_5 = 0x27D4EB2F165667C5L;

    private XxHash() {
    }

    /** {@return XXH32 of {@code length} bytes of {@code in} from {@code offset}} */
    public static int xxh32(MemorySegment in, long offset, long length, int seed) {
        long at = offset;
        long end = offset + length;
        int h;
        if (length >= 16) {
            int v1 = seed + P32_1 + P32_2;
            int v2 = seed + P32_2;
            int v3 = seed;
            int v4 = seed - P32_1;
            for (long stop = end - 16; at <= stop; at += 16) {
                v1 = round32(v1, in.get(I32, at));
                v2 = round32(v2, in.get(I32, at + 4));
                v3 = round32(v3, in.get(I32, at + 8));
                v4 = round32(v4, in.get(I32, at + 12));
            }
            h = Integer.rotateLeft(v1, 1) + Integer.rotateLeft(v2, 7) + Integer.rotateLeft(v3, 12) + Integer.rotateLeft(v4, 18);
        } else {
            h = seed + P32_5;
        }
        h += (int) length;   // the length modulo 2^32, as the specification adds it
        for (; end - at >= 4; at += 4) {
            h = Integer.rotateLeft(h + in.get(I32, at) * P32_3, 17) * P32_4;
        }
        for (; at < end; at++) {
            h = Integer.rotateLeft(h + (in.get(ValueLayout.JAVA_BYTE, at) & 0xFF) * P32_5, 11) * P32_1;
        }
        h ^= h >>> 15;
        h *= P32_2;
        h ^= h >>> 13;
        h *= P32_3;
        return h ^ h >>> 16;
    }

    /** {@return XXH64 of {@code length} bytes of {@code in} from {@code offset}} */
    public static long xxh64(MemorySegment in, long offset, long length, long seed) {
        long at = offset;
        long end = offset + length;
        long h;
        if (length >= 32) {
            long v1 = seed + P64_1 + P64_2;
            long v2 = seed + P64_2;
            long v3 = seed;
            long v4 = seed - P64_1;
            for (long stop = end - 32; at <= stop; at += 32) {
                v1 = round64(v1, in.get(I64, at));
                v2 = round64(v2, in.get(I64, at + 8));
                v3 = round64(v3, in.get(I64, at + 16));
                v4 = round64(v4, in.get(I64, at + 24));
            }
            h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
            h = merge64(h, v1);
            h = merge64(h, v2);
            h = merge64(h, v3);
            h = merge64(h, v4);
        } else {
            h = seed + P64_5;
        }
        h += length;
        for (; end - at >= 8; at += 8) {
            h = Long.rotateLeft(h ^ round64(0, in.get(I64, at)), 27) * P64_1 + P64_4;
        }
        if (end - at >= 4) {
            h = Long.rotateLeft(h ^ (in.get(I32, at) & 0xFFFFFFFFL) * P64_1, 23) * P64_2 + P64_3;
            at += 4;
        }
        for (; at < end; at++) {
            h = Long.rotateLeft(h ^ (in.get(ValueLayout.JAVA_BYTE, at) & 0xFF) * P64_5, 11) * P64_1;
        }
        h ^= h >>> 33;
        h *= P64_2;
        h ^= h >>> 29;
        h *= P64_3;
        return h ^ h >>> 32;
    }

    private static int round32(int acc, int lane) {
        return Integer.rotateLeft(acc + lane * P32_2, 13) * P32_1;
    }

    private static long round64(long acc, long lane) {
        return Long.rotateLeft(acc + lane * P64_2, 31) * P64_1;
    }

    private static long merge64(long h, long v) {
        return (h ^ round64(0, v)) * P64_1 + P64_4;
    }
}
