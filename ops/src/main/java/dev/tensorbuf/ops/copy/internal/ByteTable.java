package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Conversions from the types stored in one byte (the f8, f6 and f4 formats, and the sub-byte
 * types, which {@link ConvertKernel} sees unpacked) as a table lookup: the destination's bits for
 * each of the 256 byte values. {@link ValueMover#move} computes each table once per pair of types,
 * so the rules stay its own. A byte whose conversion is refused (NaN to an integer, s4 -1 to u8) is
 * marked, and the run goes through {@link ValueMover} from there, which throws its message.
 * {@snippet :
 * ByteTable t = ByteTable.of(DType.F8E4M3FN, DType.BF16);
 * // byte 0x38 (f8e4m3fn 1.0) -> bf16 bits 0x3f80; byte 0x7f (NaN) -> 0x7fc0
 * }
 */
final class ByteTable {
    private static final int TYPES = DType.values().length;
    /** Built on first use; two threads may build the same table, and final fields publish it safely. */
    private static final ByteTable[] TABLES = new ByteTable[TYPES * TYPES];

    /** The destination's bits by source byte, and their low 32 bits for destinations of up to four bytes. */
    private final long[] bits;
    private final int[] words;
    /** The source bytes whose conversion is refused; null if there are none. */
    private final boolean[] refused;

    private ByteTable(long[] bits, boolean[] refused) {
        this.bits = bits;
        this.words = new int[bits.length];
        for (int b = 0; b < bits.length; b++) {
            words[b] = (int) bits[b];
        }
        boolean any = false;
        for (boolean r : refused) {
            any |= r;
        }
        this.refused = any ? refused : null;
    }

    /** {@return whether this class converts {@code from} to {@code to}: a one-byte source, a destination of up to 8 bytes} */
    static boolean handles(DType from, DType to) {
        return from != to && from.isArrayType() && to.isArrayType() && from.byteWidth() == 1 && to.byteWidth() <= 8;
    }

    static ByteTable of(DType from, DType to) {
        int key = from.ordinal() * TYPES + to.ordinal();
        ByteTable t = TABLES[key];
        if (t == null) {
            t = build(ElementAccess.of(from), ElementAccess.of(to));
            TABLES[key] = t;
        }
        return t;
    }

    private static ByteTable build(ElementAccess sa, ElementAccess da) {
        long[] bits = new long[256];
        boolean[] refused = new boolean[256];
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocate(1);
            MemorySegment out = arena.allocate(8);
            for (int b = 0; b < 256; b++) {
                in.set(ValueLayout.JAVA_BYTE, 0, (byte) b);
                try {
                    ValueMover.move(in, 0, sa, out, 0, da);
                    bits[b] = da.getBits(out, 0);
                } catch (IllegalArgumentException e) {
                    refused[b] = true;
                }
            }
        }
        return new ByteTable(bits, refused);
    }

    /**
     * Converts {@code n} elements, strides and offsets in bytes, as {@link ValueMover#run} does: a
     * chunk at a time through {@code c}'s arrays, so dense runs move in bulk, the lookups run on
     * arrays, and the bits go out through {@link ChunkConvert}'s writer.
     */
    void run(MemorySegment s, long so, long ss, ElementAccess sa, MemorySegment d, long dO, long ds, ElementAccess da,
             long n, ChunkConvert.Chunks c) {
        int width = da.type().byteWidth();
        byte[] in = c.bytes;
        for (long done = 0; done < n; done += ChunkConvert.CHUNK) {
            int m = (int) Math.min(ChunkConvert.CHUNK, n - done);
            long sOff = so + done * ss;
            long dOff = dO + done * ds;
            if (ss == 1) {
                MemorySegment.copy(s, Layouts.I8, sOff, in, 0, m);
            } else {
                for (int i = 0; i < m; i++) {
                    in[i] = s.get(Layouts.I8, sOff + i * ss);
                }
            }
            if (refused != null && anyRefused(in, m)) {
                ValueMover.run(s, sOff, ss, sa, d, dOff, ds, da, n - done);
                throw new AssertionError("ValueMover accepted a value its table refused");
            }
            if (width == 8) {
                for (int i = 0; i < m; i++) {
                    c.ints[i] = bits[in[i] & 0xff];
                }
                ChunkConvert.writeLongs(d, dOff, ds, ds == width, c, m);
            } else {
                for (int i = 0; i < m; i++) {
                    c.words[i] = words[in[i] & 0xff];
                }
                ChunkConvert.writeWords(d, dOff, ds, ds == width, width, c, m);
            }
        }
    }

    private boolean anyRefused(byte[] in, int m) {
        boolean any = false;
        for (int i = 0; i < m; i++) {
            any |= refused[in[i] & 0xff];
        }
        return any;
    }
}
