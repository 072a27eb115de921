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
