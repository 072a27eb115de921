package dev.tensorbuf.ops.copy.internal;

import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * The vector half of {@link dev.tensorbuf.ops.copy.internal.Kernel#FILL}: an element of 1, 2, 4 or 8 bytes
 * repeated over a contiguous run with full-width vector stores of the repeated pattern. A run of
 * at least one vector ends with one store overlapping the previous one (the pattern's period
 * divides the vector size, so the overlap writes the same bytes again). Measured against the
 * scalar seed-and-double fill and against replicating blocks by copies below the copy stub's
 * streaming size, this is the fastest way to write a run: the writes are the whole cost. Plain
 * stores still read each line before writing it, so blocks of 2.5 MiB or more are written once
 * here and then streamed ({@code FillKernel.STREAMING_COPY_BYTES}) where that is faster (Intel's
 * CPUs, {@code FillKernel.STREAMED_FILLS}). The stores are 256-bit even
 * where the CPU has wider vectors (see {@link #S}).
 */
final class VectorFill {
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    /**
     * At most 256 bits: on the reference machine (Zen 5, AVX-512) 256-bit stores fill the
     * broadcast's 103 MB at 1.2x the speed of 512-bit ones per CPU-second (48-52 against 39-43 GB/s
     * counted, one thread, alternating: {@code bench/experiments/FillWidth.java}), as fast as
     * PyTorch's fill loop, and on the engine's two threads 512-bit stores ran 0.78x (0.60-0.84) of
     * these (this field set to {@code SPECIES_512} against it as it is, {@code ab_paced.py} on the
     * broadcast case, 8 rounds, 2026-12-06); the JDK's copy stub also keeps to 256-bit stores
     * below 4 KiB.
     */
    private static final VectorSpecies<Long> S = LongVector.SPECIES_PREFERRED.vectorBitSize() > 256
            ? LongVector.SPECIES_256 : LongVector.SPECIES_PREFERRED;
    /** Bytes per store. */
    static final int BYTES = S.vectorByteSize();

    private VectorFill() {
    }

    /** Fills {@code n} elements of {@code w} bytes at {@code d} with the element at {@code src[so]}; {@code n * w >= BYTES}. */
    static void fillRun(MemorySegment src, long so, MemorySegment dst, long d, long n, int w) {
        LongVector v = LongVector.broadcast(S, pattern(src, so, w));
        long end = d + n * w - BYTES;
        long o = d;
        for (; o < end; o += BYTES) {
            v.intoMemorySegment(dst, o, ORDER);
        }
        v.intoMemorySegment(dst, end, ORDER);
    }

    /** {@return the element at {@code src[so]} repeated over 8 bytes} */
    private static long pattern(MemorySegment src, long so, int w) {
        return switch (w) {
            case 1 -> (src.get(Layouts.I8, so) & 0xFFL) * 0x0101_0101_0101_0101L;
            case 2 -> (src.get(Layouts.I16, so) & 0xFFFFL) * 0x0001_0001_0001_0001L;
            case 4 -> (src.get(Layouts.I32, so) & 0xFFFF_FFFFL) * 0x0000_0001_0000_0001L;
            case 8 -> src.get(Layouts.I64, so);
            default -> throw new IllegalArgumentException("no vector fill for " + w + "-byte elements");
        };
    }
}
