package dev.tensorbuf.ops.copy.internal;

import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * {@link dev.tensorbuf.ops.copy.internal.Kernel#PAIR_INTERLEAVE} with the Vector API: XLA's {@code (2,1)}
 * sub-tile packs rows {@code 2k} and {@code 2k+1} of a 2-byte tile element by element. Two
 * source rows are loaded as shorts, zero-extended to ints and merged as {@code lo | hi << 16}
 * (reference/java-kernels.md: "zero-extend + shift + or").
 */
final class VectorPairInterleave {
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final VectorSpecies<Integer> INTS = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Short> SHORTS = VectorSpecies.of(short.class,
            VectorShape.forBitSize(INTS.vectorBitSize() / 2));

    private VectorPairInterleave() {
    }

    static void run(Task t) {
        int r = t.rank();
        long nb = t.count()[r - 2];
        long sa = t.srcStride()[r - 1];
        int lanes = INTS.length();
        long fb = nb - nb % lanes;
        MemorySegment src = t.src();
        MemorySegment dst = t.dst();
        Odometer o = new Odometer(t, 2);
        do {
            long s0 = o.src;
            long d0 = o.dst;
            for (long j = 0; j < fb; j += lanes) {
                ShortVector lo = ShortVector.fromMemorySegment(SHORTS, src, s0 + j * 2, ORDER);
                ShortVector hi = ShortVector.fromMemorySegment(SHORTS, src, s0 + sa + j * 2, ORDER);
                IntVector a = (IntVector) lo.convertShape(VectorOperators.ZERO_EXTEND_S2I, INTS, 0);
                IntVector b = (IntVector) hi.convertShape(VectorOperators.ZERO_EXTEND_S2I, INTS, 0);
                a.or(b.lanewise(VectorOperators.LSHL, 16)).intoMemorySegment(dst, d0 + j * 4, ORDER);
            }
            for (long j = fb; j < nb; j++) {
                dst.set(Layouts.I16, d0 + j * 4, src.get(Layouts.I16, s0 + j * 2));
                dst.set(Layouts.I16, d0 + j * 4 + 2, src.get(Layouts.I16, s0 + sa + j * 2));
            }
        } while (o.next());
    }
}
