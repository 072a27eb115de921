package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.internal.MiniFloat;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link MiniFloat#encode(float)} a vector of floats at a time, for {@link ChunkConvert}: the same
 * integer rounding on the float's bits, both of its cases (normal, and the fixed quantum below)
 * computed for every lane and blended, then overflow, NaN and the fnuz zero blended in from
 * patterns the scalar encoder gives. Scalar encoding branches between the cases, and on weights
 * near the bottom of an f8 format's normal range it mispredicts: 4-5 ns a value against about 0.3
 * here.
 */
final class VectorMiniFloat {
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;

    private VectorMiniFloat() {
    }

    /** Encodes {@code in[0, m)} into {@code out} as {@code f}'s patterns. */
    static void encode(MiniFloat f, float[] in, int[] out, int m) {
        if (f == MiniFloat.BF16) {
            // bf16 keeps float's exponent, so one rounding case: 8 operations a vector against about 30.
            int i = 0;
            for (; i <= m - I.length(); i += I.length()) {
                bf16(FloatVector.fromArray(F, in, i).reinterpretAsInts()).intoArray(out, i);
            }
            for (; i < m; i++) {
                out[i] = f.encode(in[i]);
            }
            return;
        }
        MiniFloat.Rounding r = f.rounding();
        int magicBits = Float.floatToRawIntBits(r.subnormalMagic());
        boolean payload = f == MiniFloat.F16; // an f16 NaN keeps its top payload bits, quieted (MiniFloat)
        IntVector overPos = IntVector.broadcast(I, f.encode(Float.POSITIVE_INFINITY));
        IntVector overNeg = IntVector.broadcast(I, f.encode(Float.NEGATIVE_INFINITY));
        IntVector nanPos = IntVector.broadcast(I, f.encode(Float.intBitsToFloat(0x7fc0_0000)));
        IntVector nanNeg = IntVector.broadcast(I, f.encode(Float.intBitsToFloat(0xffc0_0000)));
        int zeroNeg = f.encode(-0f); // the sign bit, or 0 where the format has no negative zero
        int i = 0;
        for (; i <= m - I.length(); i += I.length()) {
            FloatVector x = FloatVector.fromArray(F, in, i);
            IntVector fb = x.reinterpretAsInts();
            IntVector a = fb.and(0x7fff_ffff);
            VectorMask<Integer> negative = fb.compare(VectorOperators.LT, 0);
            IntVector normal = a.add(r.roundHalf()).add(a.lanewise(VectorOperators.LSHR, r.shift()).and(1))
                    .lanewise(VectorOperators.LSHR, r.shift()).sub(r.rebias());
            IntVector small = a.reinterpretAsFloats().add(r.subnormalMagic()).reinterpretAsInts().sub(magicBits);
            IntVector p = small.blend(normal, a.compare(VectorOperators.GE, r.minNormalBits()));
            IntVector v = p.blend(p.or(r.signBit()), negative);
            v = v.blend(zeroNeg, negative.and(p.compare(VectorOperators.EQ, 0)));
            v = v.blend(overPos.blend(overNeg, negative), p.compare(VectorOperators.GT, r.maxFinite()));
            IntVector nan;
            if (payload) {
                IntVector quiet = fb.and(0x007f_ffff).lanewise(VectorOperators.LSHR, 13).or(0x7e00);
                nan = quiet.blend(quiet.or(0x8000), negative);
            } else {
                nan = nanPos.blend(nanNeg, negative);
            }
            v = v.blend(nan, a.compare(VectorOperators.GT, 0x7f80_0000));
            v.intoArray(out, i);
        }
        for (; i < m; i++) {
            out[i] = f.encode(in[i]);
        }
    }

    /**
     * {@return the bf16 patterns of floats given by their bits} (in the low 16 bits of each lane):
     * rounded to nearest even, NaN to the quiet NaN with its sign, as {@code MiniFloat.BF16} and
     * {@link ConvertKernel#bf16}.
     */
    static IntVector bf16(IntVector bits) {
        IntVector high = bits.lanewise(VectorOperators.LSHR, 16);
        IntVector rounded = bits.add(0x7fff).add(high.and(1)).lanewise(VectorOperators.LSHR, 16);
        IntVector nan = high.and(0x8000).or(0x7fc0);
        return rounded.blend(nan, bits.and(0x7fff_ffff).compare(VectorOperators.GT, 0x7f80_0000));
    }
}
