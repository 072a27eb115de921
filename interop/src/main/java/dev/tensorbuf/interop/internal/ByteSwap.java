package dev.tensorbuf.interop.internal;

import dev.tensorbuf.views.DType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Turns big-endian element data into little-endian, in place. */
public final class ByteSwap {
    private static final ValueLayout.OfShort SHORT_LE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private ByteSwap() {
    }

    /** {@return the width of the units that swap: a complex number swaps each of its two parts} */
    public static int unitBytes(DType dtype) {
        return dtype.componentType().byteWidth();
    }

    /** Reverses the bytes of every unit of {@code dtype} in the segment. */
    public static void toLittleEndian(MemorySegment data, DType dtype) {
        int unit = unitBytes(dtype);
        if (unit == 1) {
            return;
        }
        long units = data.byteSize() / unit;
        // MemorySegment.copy between layouts of different byte order swaps; in place is safe
        // because source and destination units coincide exactly.
        switch (unit) {
            case 2 -> MemorySegment.copy(data, SHORT_BE, 0, data, SHORT_LE, 0, units);
            case 4 -> MemorySegment.copy(data, INT_BE, 0, data, INT_LE, 0, units);
            case 8 -> MemorySegment.copy(data, LONG_BE, 0, data, LONG_LE, 0, units);
            default -> throw new IllegalArgumentException("cannot byte-swap " + unit + "-byte units of " + dtype);
        }
    }
}
