package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.exec.internal.Literals;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.text.TextFormatException;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScalarLiteralTest {

    /**
     * Decimals just above a midpoint of the type whose nearest double is the midpoint itself:
     * rounded through the double, ties to even take them down; rounded once, up. The answers are
     * the exact decimal against the midpoint (Python's {@code Fraction(text) > midpoint}); NumPy's
     * {@code float32(float(text))} and ml_dtypes' {@code bfloat16(float(text))} give the lower ones.
     */
    @Test
    void aDecimalIsRoundedOnceToTheType() {
        // 1 + 2^-24 (f32's midpoint after 1) + 1e-28
        assertEquals(1 + 0x1p-23, ScalarLiteral.parse("1.0000000596046447753906250001", DType.F32));
        assertEquals(1.0, (float) Double.parseDouble("1.0000000596046447753906250001"), "the double rounding this avoids");
        // 1 + 2^-11 (f16's midpoint after 1) + 1e-17
        assertEquals(1 + 0x1p-10, ScalarLiteral.parse("1.00048828125000001", DType.F16));
        // 1 + 2^-8 (bf16's midpoint after 1) + 1e-17
        assertEquals(1 + 0x1p-7, ScalarLiteral.parse("1.00390625000000001", DType.BF16));
        // 1 + 2^-8 + 2^-30 is a double, and through a float (24 bits) it is the midpoint again
        assertEquals(1 + 0x1p-7, ScalarLiteral.parse("1.003906250931322574615478515625", DType.BF16));
        // The midpoints themselves, and just below them: ties to even, and down.
        assertEquals(1.0, ScalarLiteral.parse("1.00048828125", DType.F16));
        assertEquals(1.0, ScalarLiteral.parse("1.00048828124999999", DType.F16));
        assertEquals(1 + 0x1p-9, ScalarLiteral.parse("1.00146484375", DType.F16), "1 + 3 * 2^-11: ties to even, up");
        assertEquals(1.0, ScalarLiteral.parse("1.0000000596046447753906249999", DType.F32));
        // XLA's shortest digits read back to the value printed.
        assertEquals((double) 0.1f, ScalarLiteral.parse("0.1", DType.F32));
        assertEquals(0.0999755859375, ScalarLiteral.parse("0.1", DType.F16));
        assertEquals(0x1p-24, ScalarLiteral.parse("5.96046e-08", DType.F16), "f16's smallest denormal");
        assertEquals(Double.MIN_VALUE, ScalarLiteral.parse("4.94065645841247e-324", DType.F64));
        assertEquals((double) Float.MIN_VALUE, ScalarLiteral.parse("1e-45", DType.F32));
        assertEquals(0.0, ScalarLiteral.parse("1e-99999999999", DType.BF16), "an exponent past an int: zero");
    }

    @Test
    void specialValuesKeepTheirSign() {
        for (DType t : List.of(DType.F64, DType.F32, DType.F16, DType.BF16, DType.F8E4M3FN)) {
            assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(ScalarLiteral.parse("-0", t)), t.toString());
            assertEquals(Double.doubleToRawLongBits(0.0), Double.doubleToRawLongBits(ScalarLiteral.parse("0", t)), t.toString());
            assertTrue(Double.isNaN(ScalarLiteral.parse("nan", t)) && Double.doubleToRawLongBits(ScalarLiteral.parse("nan", t)) > 0);
            assertEquals(0xfff8000000000000L, Double.doubleToRawLongBits(ScalarLiteral.parse("-nan", t)), t.toString());
        }
        assertEquals(Double.POSITIVE_INFINITY, ScalarLiteral.parse("inf", DType.F16));
        assertEquals(Double.NEGATIVE_INFINITY, ScalarLiteral.parse("-inf", DType.BF16));
        assertEquals(Double.POSITIVE_INFINITY, ScalarLiteral.parse("+inf", DType.F32));
    }

    @Test
    void finiteValuesOutOfTheTypesRangeAreRefusedByName() {
        String[][] cases = {
            {"f16", "70000", "[-65504, 65504]"},
            {"f16", "65520", "[-65504, 65504]"},
            {"f16", "-65520", "[-65504, 65504]"},
            {"bf16", "3.4e38", "[-3.38953e+38, 3.38953e+38]"},
            {"f32", "1e39", "[-3.40282e+38, 3.40282e+38]"},
            // Rounded once it is f32's largest, but XLA casts its double, the midpoint above, to infinity.
            {"f32", "3.4028235677973366e38", "[-3.40282e+38, 3.40282e+38]"},
            {"f64", "1e309", "[-1.79769e+308, 1.79769e+308]"},
            {"f8e4m3fn", "465", "[-448, 448]"},
        };
        for (String[] c : cases) {
            DType t = DType.fromXlaName(c[0]);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ScalarLiteral.parse(c[1], t));
            assertEquals("value " + c[1] + " is out of range for " + c[0] + ", namely " + c[2], e.getMessage());
        }
        assertEquals(65504.0, ScalarLiteral.parse("65519", DType.F16), "below the midpoint above the largest: the largest");
        assertEquals(448.0, ScalarLiteral.parse("464", DType.F8E4M3FN));
    }

    @Test
    void javaSpellingsAndPayloadsAreRefused() {
        for (String s : List.of("1f", "1d", "0x1p3", "Infinity", "NaN", "INF", "1.5e", "", "--1", "1e+", "1_0", "١")) {
            NumberFormatException e = assertThrows(NumberFormatException.class, () -> ScalarLiteral.parse(s, DType.F32), s);
            assertTrue(e.getMessage().startsWith("'" + s + "' is not a f32 literal"), e.getMessage());
        }
        assertEquals("NaN payloads such as 'nan(0x1)' are not supported",
                assertThrows(IllegalArgumentException.class, () -> ScalarLiteral.parse("nan(0x1)", DType.F16)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> ScalarLiteral.parse("1", DType.S32));
    }

    /** An HLO constant and an epilogue's constant of the same spelling are the same bits, or both refused alike. */
    @Test
    void hloConstantsAndEpilogueConstantsAgree() {
        List<String> spellings = List.of("1.00048828125000001", "1.00390625000000001", "1.0000000596046447753906250001",
                "0.1", "-0", "-nan", "nan", "inf", "-inf", "5.96046e-08", "1e-45", "65519", "3.3895313892515355e38", "70000",
                "1e39", "2.5e-3");
        try (Allocator a = Allocators.shared()) {
            for (DType t : List.of(DType.F64, DType.F32, DType.F16, DType.BF16)) {
                ElementAccess e = ElementAccess.of(t);
                for (String s : spellings) {
                    String where = s + " as " + t;
                    long hloBits;
                    try {
                        TensorView hlo = Literals.parse(s, ArrayShape.of(t), a);
                        hloBits = e.getBits(hlo.buffer().segment(), 0);
                    } catch (IllegalArgumentException refused) {
                        TextFormatException also = assertThrows(TextFormatException.class,
                                () -> PointwiseSyntax.parse("add(%0, " + s + ")", List.of(t)), where);
                        assertTrue(refused.getMessage().startsWith(also.problem()), where + ": " + refused.getMessage()
                                + " vs " + also.problem());
                        continue;
                    }
                    PointwiseSyntax.Constant c = PointwiseSyntax.parse("add(%0, " + s + ")", List.of(t)).constants().getFirst();
                    TensorView pw = c.view(List.of(1L), a);
                    assertEquals(hloBits, e.getBits(pw.buffer().segment(), 0), where);
                }
            }
        }
    }
}
