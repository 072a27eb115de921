package dev.tensorbuf.ops.copy.internal;

import java.nio.ByteOrder;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * The vector shapes the conversion loops share ({@link VectorChunks}, {@link VectorDenseConvert}):
 * ints, floats, bytes and shorts with as many lanes as each other, and longs and doubles with
 * ints, floats and shorts of as many lanes, so that a conversion between two widths is one
 * {@code convertShape} of one vector into another.
 * {@snippet :
 * FloatVector x = FloatVector.fromArray(ConvertSpecies.F, floats, 0);
 * IntVector bits = (IntVector) x.convert(VectorOperators.F2I, 0); // ConvertSpecies.I: as many lanes
 * }
 */
final class ConvertSpecies {
    /** At least 8 lanes, so that bytes of as many lanes still make a vector (64 bits, the narrowest shape). */
    static final VectorSpecies<Integer> I =
            IntVector.SPECIES_PREFERRED.length() >= 8 ? IntVector.SPECIES_PREFERRED : IntVector.SPECIES_256;
    static final VectorSpecies<Float> F = VectorSpecies.of(float.class, I.vectorShape());
    /** Bytes and shorts with as many lanes as {@link #I}. */
    static final VectorSpecies<Byte> B = VectorSpecies.of(byte.class, VectorShape.forBitSize(I.length() * 8));
    static final VectorSpecies<Short> S = VectorSpecies.of(short.class, VectorShape.forBitSize(I.length() * 16));
    static final VectorSpecies<Long> L = LongVector.SPECIES_PREFERRED;
    static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    /** Ints with as many lanes as {@link #D} and {@link #L}. */
    static final VectorSpecies<Integer> IHALF = VectorSpecies.of(int.class, VectorShape.forBitSize(D.length() * 32));
    static final VectorSpecies<Float> FHALF = VectorSpecies.of(float.class, IHALF.vectorShape());
    /**
     * Shorts with as many lanes as {@link #D}, where that makes a shape (64 bits at least: four
     * lanes). With 128-bit vectors it does not, and {@link VectorDenseConvert#f64ToBf16} leaves its pair to the chunks.
     */
    static final VectorSpecies<Short> SHALF = VectorSpecies.of(short.class, VectorShape.forBitSize(Math.max(64, D.length() * 16)));
    /** Buffers are little-endian, as {@link Layouts}. */
    static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private ConvertSpecies() {
    }
}
