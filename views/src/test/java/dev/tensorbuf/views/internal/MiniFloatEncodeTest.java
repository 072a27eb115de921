package dev.tensorbuf.views.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * {@link MiniFloat#encode(float)} works on the float's bits; {@code encodeExact}, the arithmetic
 * it replaced, rounds the exact value with doubles. They must agree on every float: by default
 * on every 4099th pattern and on each format's values, midpoints and their neighbours; with
 * {@code -Dtensorbuf.exhaustive=true} on all 2^32 patterns (about 20-40 s a format).
 * {@link FloatCodecOracleTest} holds both to ml_dtypes.
 */
class MiniFloatEncodeTest {

    @TestFactory
    List<DynamicTest> encodeAgreesWithTheExactRounding() {
        boolean exhaustive = Boolean.getBoolean("tensorbuf.exhaustive");
        List<DynamicTest> tests = new ArrayList<>();
        for (MiniFloat f : MiniFloat.ALL) {
            tests.add(DynamicTest.dynamicTest(f.name(), () -> {
                List<String> wrong = new ArrayList<>();
                long step = exhaustive ? 1 : 4099;
                for (long b = 0; b < 1L << 32; b += step) {
                    check(f, Float.intBitsToFloat((int) b), wrong);
                }
                // Each pattern's value and the midpoint to the next, a few float ulps either side, both signs.
                int magnitudes = 1 << (f.bits() - 1);
                for (int p = 0; p + 1 < magnitudes; p++) {
                    float v = f.decode(p);
                    float next = f.decode(p + 1);
                    if (Float.isNaN(v) || Float.isNaN(next) || Float.isInfinite(next)) {
                        continue;
                    }
                    float mid = (float) (((double) v + next) / 2);
                    for (float x : new float[] {v, mid}) {
                        int bits = Float.floatToRawIntBits(x);
                        for (int d = -3; d <= 3; d++) {
                            check(f, Float.intBitsToFloat(bits + d), wrong);
                            check(f, -Float.intBitsToFloat(bits + d), wrong);
                        }
                    }
                }
                assertEquals(List.of(), wrong.subList(0, Math.min(10, wrong.size())), f + ": " + wrong.size() + " differ");
            }));
        }
        return tests;
    }

    /**
     * A double rounds once into every format but bf16: XLA's f64 -> f8e4m3fn of
     * {@code 1 + 2^-4 + 2^-30}, above the midpoint of 1 and 1.125, is 1.125 (0x39), where a trip
     * through float lands on the midpoint and ties to 1.0 (0x38, ml_dtypes' answer); f8e5m2 of
     * {@code 1 + 2^-3 + 2^-30} is 1.25 (0x3d). bf16 goes through float, as XLA, ml_dtypes and torch do.
     */
    @TestFactory
    List<DynamicTest> encodeDoubleRoundsOnce() {
        List<DynamicTest> tests = new ArrayList<>();
        for (MiniFloat f : MiniFloat.ALL) {
            tests.add(DynamicTest.dynamicTest(f.name(), () -> {
                List<String> wrong = new ArrayList<>();
                int magnitudes = 1 << (f.bits() - 1);
                for (int p = 0; p + 1 < magnitudes; p++) {
                    double v = f.decode(p);
                    double next = f.decode(p + 1);
                    if (Double.isNaN(v) || Double.isNaN(next) || Double.isInfinite(next)) {
                        continue;
                    }
                    double mid = (v + next) / 2;
                    double tiny = Math.ulp(mid) * 0x1p20; // far below a float ulp: float rounds it onto the midpoint
                    for (double x : new double[] {mid, mid + tiny, mid - tiny, Math.nextUp(mid), Math.nextDown(mid)}) {
                        for (double signed : new double[] {x, -x}) {
                            int once = f.encodeExact(signed);
                            int want = f == MiniFloat.BF16 ? f.encode((float) signed) : once;
                            if (f.encode(signed) != want) {
                                wrong.add(String.format("%s %s: 0x%x, want 0x%x", f, signed, f.encode(signed), want));
                            }
                        }
                    }
                }
                assertEquals(List.of(), wrong.subList(0, Math.min(10, wrong.size())), f + ": " + wrong.size() + " differ");
            }));
        }
        tests.add(DynamicTest.dynamicTest("XLA's bits", () -> {
            double e4m3 = 1 + 0x1p-4 + 0x1p-30;
            double e5m2 = 1 + 0x1p-3 + 0x1p-30;
            assertEquals(0x39, MiniFloat.F8E4M3FN.encode(e4m3));
            assertEquals(0x3d, MiniFloat.F8E5M2.encode(e5m2));
            assertEquals(0x41, MiniFloat.F8E4M3FNUZ.encode(e4m3)); // bias 8: 1.0 is 0x40
            assertEquals(0x39, MiniFloat.F8E4M3.encode(e4m3));
            assertEquals(0x59, MiniFloat.F8E4M3B11FNUZ.encode(e4m3)); // bias 11: 1.0 is 0x58
            assertEquals(0x3 /* 1.5 */, MiniFloat.F4E2M1FN.encode(1.25 + 0x1p-30));
            assertEquals(0x3c01, MiniFloat.F16.encode(1 + 0x1p-11 + 0x1p-40)); // NumPy; XLA 0x3c00 without avx512_fp16, which run copies
            assertEquals(0x3f80, MiniFloat.BF16.encode(1 + 0x1p-8 + 0x1p-40)); // XLA, ml_dtypes and torch: through float
            assertEquals(127, E8M0.INSTANCE.encode(1.5 - 0x1p-30)); // XLA 1.0; ml_dtypes 2.0
            assertEquals(128, E8M0.INSTANCE.encode(1.5 + 0x1p-30));
        }));
        return tests;
    }

    /**
     * {@link FloatCodec#roundToOdd(long, boolean)}: the value itself, or where no float holds it the
     * odd one of the two around it; checked exactly on edges and random longs, signed and unsigned.
     */
    @org.junit.jupiter.api.Test
    void aLongRoundsToOddExactly() {
        java.util.Random rnd = new java.util.Random(17);
        List<Long> values = new ArrayList<>(List.of(0L, 1L, -1L, Long.MAX_VALUE, Long.MIN_VALUE, (1L << 24) + 1,
                (1L << 24) + (1L << 16) + 1, -((1L << 24) + 3), (1L << 53) + 1, (1L << 62) + (1L << 54) + 1));
        for (int i = 0; i < 20_000; i++) {
            values.add(rnd.nextLong() >> rnd.nextInt(64));
        }
        for (long v : values) {
            for (boolean unsigned : new boolean[] {false, true}) {
                java.math.BigInteger exact = unsigned ? new java.math.BigInteger(Long.toUnsignedString(v)) : java.math.BigInteger.valueOf(v);
                float f = FloatCodec.roundToOdd(v, unsigned);
                java.math.BigInteger got = new java.math.BigDecimal(f).toBigIntegerExact();
                if (got.equals(exact)) {
                    continue;
                }
                String what = (unsigned ? Long.toUnsignedString(v) : Long.toString(v)) + " -> " + f;
                assertEquals(exact.signum(), got.signum(), what);
                // Inexact: the odd one of the two floats around the value.
                assertEquals(1, Float.floatToRawIntBits(f) & 1, what + ": inexact but even");
                java.math.BigInteger below = new java.math.BigDecimal(Math.nextDown(Math.abs(f))).toBigIntegerExact();
                java.math.BigInteger above = new java.math.BigDecimal(Math.nextUp(Math.abs(f))).toBigIntegerExact();
                assertEquals(1, exact.abs().compareTo(below), what + ": not a neighbour");
                assertEquals(-1, exact.abs().compareTo(above), what + ": not a neighbour");
            }
        }
    }

    private static void check(MiniFloat f, float x, List<String> wrong) {
        if (Float.isNaN(x)) {
            return; // the same code (encodeNan) on both sides
        }
        int fast = f.encode(x);
        int exact = f.encodeExact(x);
        if (fast != exact) {
            wrong.add(String.format("%s 0x%08x: 0x%x, exact 0x%x", f, Float.floatToRawIntBits(x), fast, exact));
        }
    }
}
