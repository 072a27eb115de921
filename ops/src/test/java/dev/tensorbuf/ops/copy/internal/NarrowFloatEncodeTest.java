package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.views.internal.FloatCodec;
import dev.tensorbuf.views.internal.MiniFloat;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The two shortcuts {@link ChunkConvert} takes to a narrow float, against the scalar codec they
 * stand in for: {@link VectorMiniFloat} against {@link MiniFloat#encode(float)} for every format,
 * and f64 -> every format but bf16 through {@link FloatCodec#roundToOdd} against the exact
 * rounding of the double: an f16 reference computed here in double arithmetic
 * ({@code MiniFloatEncodeTest} holds every format's {@code encode(double)} to its exact rounding). With {@code -Dtensorbuf.exhaustive=true} the vector encoder meets the
 * scalar one on all 2^32 floats. End to end, {@code ConversionNumpyAgreementTest} holds both to NumPy.
 */
class NarrowFloatEncodeTest {

    @TestFactory
    List<DynamicTest> vectorEncoderAgreesWithTheScalarOne() {
        assumeTrue(VectorSupport.AVAILABLE, "jdk.incubator.vector is not in the boot layer");
        List<DynamicTest> tests = new ArrayList<>();
        for (MiniFloat f : MiniFloat.ALL) {
            tests.add(DynamicTest.dynamicTest(f.name(), () -> {
                float[] in = inputs(f, new Random(f.name().hashCode()));
                int[] out = new int[in.length];
                // A length that is no multiple of any vector, so the scalar tail runs too.
                for (int from = 0; from < in.length; from += 509) {
                    int m = Math.min(509, in.length - from);
                    float[] chunk = java.util.Arrays.copyOfRange(in, from, from + m);
                    int[] got = new int[m];
                    VectorMiniFloat.encode(f, chunk, got, m);
                    System.arraycopy(got, 0, out, from, m);
                }
                List<String> wrong = new ArrayList<>();
                for (int i = 0; i < in.length; i++) {
                    int want = f.encode(in[i]);
                    if (out[i] != want) {
                        wrong.add(String.format("0x%08x: 0x%x, scalar 0x%x", Float.floatToRawIntBits(in[i]), out[i], want));
                    }
                }
                if (Boolean.getBoolean("tensorbuf.exhaustive")) {
                    exhaustive(f, wrong);
                }
                assertEquals(List.of(), wrong.subList(0, Math.min(10, wrong.size())), f + ": " + wrong.size() + " differ");
            }));
        }
        return tests;
    }

    /** All 2^32 float patterns, 4096 at a time (about 7 s a format). */
    private static void exhaustive(MiniFloat f, List<String> wrong) {
        float[] in = new float[4096];
        int[] out = new int[4096];
        for (long base = 0; base < 1L << 32; base += in.length) {
            for (int i = 0; i < in.length; i++) {
                in[i] = Float.intBitsToFloat((int) (base + i));
            }
            VectorMiniFloat.encode(f, in, out, in.length);
            for (int i = 0; i < in.length; i++) {
                int want = f.encode(in[i]);
                if (out[i] != want && wrong.size() < 1000) {
                    wrong.add(String.format("0x%08x: 0x%x, scalar 0x%x", base + i, out[i], want));
                }
            }
        }
    }

    /** Random patterns, specials and NaN payloads, and each format's values and midpoints with their neighbours. */
    private static float[] inputs(MiniFloat f, Random rnd) {
        List<Float> xs = new ArrayList<>();
        for (int i = 0; i < 200_000; i++) {
            xs.add(Float.intBitsToFloat(rnd.nextInt()));
        }
        for (int bits : new int[] {0, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0xffc0_0000, 0x7f80_0001,
                0xff80_2000, 0x7fbf_ffff, 0x7f80_1fff, 0x0000_0001, 0x8000_0001, 0x007f_ffff, 0x7f7f_ffff}) {
            xs.add(Float.intBitsToFloat(bits));
        }
        for (int p = 0; p + 1 < 1 << (f.bits() - 1); p++) {
            float v = f.decode(p);
            float next = f.decode(p + 1);
            if (Float.isNaN(v) || Float.isNaN(next) || Float.isInfinite(next)) {
                continue;
            }
            for (float x : new float[] {v, (float) (((double) v + next) / 2)}) {
                for (int d = -2; d <= 2; d++) {
                    float y = Float.intBitsToFloat(Float.floatToRawIntBits(x) + d);
                    xs.add(y);
                    xs.add(-y);
                }
            }
        }
        float[] out = new float[xs.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = xs.get(i);
        }
        return out;
    }

    @Test
    void f64ToF16ThroughRoundToOddRoundsOnce() {
        Random rnd = new Random(20261122);
        List<String> wrong = new ArrayList<>();
        List<Double> xs = new ArrayList<>();
        for (int i = 0; i < 200_000; i++) {
            xs.add(Double.longBitsToDouble(rnd.nextLong()));
            // Near an f16 midpoint (exact in float): a few double ulps off, and off by less than half a float ulp.
            int p = rnd.nextInt(0x7bff);
            double mid = ((double) MiniFloat.F16.decode(p) + MiniFloat.F16.decode(p + 1)) / 2;
            xs.add(Math.nextUp(mid));
            xs.add(Math.nextDown(mid));
            xs.add(mid + Math.ulp((float) mid) * (rnd.nextDouble() - 0.5) * 0.999);
            xs.add(-mid);
        }
        for (double x : new double[] {0.0, -0.0, 65504.0, 65519.99999999999, 65520.0, 1e300, -1e300, Double.MIN_VALUE,
                -Double.MIN_VALUE, 0x1p-25, Math.nextUp(0x1p-25), Math.nextDown(0x1p-25), 0x1p-24 * 1.5,
                Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Float.MAX_VALUE * 2.0}) {
            xs.add(x);
        }
        for (double x : xs) {
            if (Double.isNaN(x)) {
                continue; // ChunkConvert encodes NaNs from the double itself
            }
            int got = MiniFloat.F16.encode(FloatCodec.roundToOdd(x));
            int want = f16Once(x);
            if (got != want) {
                wrong.add(String.format("%s (0x%016x): 0x%x, once 0x%x", x, Double.doubleToRawLongBits(x), got, want));
            }
        }
        assertEquals(List.of(), wrong.subList(0, Math.min(10, wrong.size())), wrong.size() + " differ");
    }

    /** {@return the f16 pattern of {@code x} rounded once, ties to even, by double arithmetic} */
    private static int f16Once(double x) {
        int sign = x < 0 || x == 0 && 1 / x < 0 ? 0x8000 : 0;
        double a = Math.abs(x);
        if (a >= 65520) {
            return sign | 0x7c00;
        }
        int exp = Math.max(Math.getExponent(a), -14);
        double scaled = Math.scalb(a, 10 - exp); // quanta of the binade, exact
        double floor = Math.floor(scaled);
        double rest = scaled - floor;
        int pattern = ((exp + 14) << 10) + (int) floor;
        if (rest > 0.5 || rest == 0.5 && (pattern & 1) == 1) {
            pattern++;
        }
        return sign | pattern;
    }
}
