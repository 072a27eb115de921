package dev.tensorbuf.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ElementAccessTest {
    private static MemorySegment bytes(int n) {
        return Arena.ofAuto().allocate(n);
    }

    @Test
    void exampleFromJavadoc() {
        MemorySegment m = bytes(4);
        ElementAccess bf16 = ElementAccess.of(DType.BF16);
        bf16.setFloat(m, 0, 1.00390625f);
        assertEquals(0x3f80, bf16.getBits(m, 0));
        ElementAccess s4 = ElementAccess.packed(DType.S4);
        s4.setLong(m, 2, 1);
        s4.setLong(m, 3, -2);
        assertEquals((byte) 0xe1, m.get(ValueLayout.JAVA_BYTE, 1));
        assertEquals(-2, s4.getLong(m, 3));
        assertEquals(1, s4.getLong(m, 2));
    }

    record Golden(String line, String op, DType type, long a, long b) {
        @Override
        public String toString() {
            return line;
        }
    }

    static Stream<Golden> golden() throws IOException {
        List<Golden> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(
                Objects.requireNonNull(ElementAccessTest.class.getResourceAsStream("/golden/narrow_floats.txt")),
                StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith("#") || line.isBlank()) {
                    continue;
                }
                String[] f = line.split(" ");
                out.add(new Golden(line, f[0], DType.fromXlaName(f[1]), Long.parseLong(f[2], 16), Long.parseLong(f[3], 16)));
            }
        }
        assertTrue(out.size() > 900, "golden file has " + out.size() + " cases");
        return out.stream();
    }

    /** Cases computed by ml_dtypes 0.6.0 / NumPy 2.4.6, so the codecs are pinned without Python. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("golden")
    void narrowFloatsMatchMlDtypesGolden(Golden g) {
        MemorySegment m = bytes(2);
        ElementAccess access = ElementAccess.of(g.type());
        if (g.op().equals("decode")) {
            access.setBits(m, 0, g.a());
            assertEquals(g.b(), Float.floatToRawIntBits(access.getFloat(m, 0)) & 0xffff_ffffL);
        } else {
            access.setFloat(m, 0, Float.intBitsToFloat((int) g.a()));
            assertEquals(g.b(), access.getBits(m, 0));
        }
    }

    @Test
    void bf16WriteRoundsHalfToEvenAndQuietsNan() {
        MemorySegment m = bytes(2);
        ElementAccess bf16 = ElementAccess.of(DType.BF16);
        bf16.setFloat(m, 0, Float.intBitsToFloat(0x3f81_8000)); // tie, odd below: rounds up
        assertEquals(0x3f82, bf16.getBits(m, 0));
        bf16.setFloat(m, 0, Float.intBitsToFloat(0xff80_0001)); // signalling NaN, negative
        assertEquals(0xffc0, bf16.getBits(m, 0));
        bf16.setFloat(m, 0, 3.4e38f);
        assertEquals(0x7f80, bf16.getBits(m, 0)); // rounds past the largest bf16 to infinity
    }

    @Test
    void f8OverflowFollowsEachFormat() {
        MemorySegment m = bytes(1);
        ElementAccess fn = ElementAccess.of(DType.F8E4M3FN);
        fn.setFloat(m, 0, 464f);    // tie between 448 (0x7e) and the NaN slot: even keeps 448
        assertEquals(0x7e, fn.getBits(m, 0));
        fn.setFloat(m, 0, 470f);
        assertEquals(0x7f, fn.getBits(m, 0));
        assertTrue(Float.isNaN(fn.getFloat(m, 0)));
        ElementAccess e5m2 = ElementAccess.of(DType.F8E5M2);
        e5m2.setFloat(m, 0, -1e10f);
        assertEquals(Float.NEGATIVE_INFINITY, e5m2.getFloat(m, 0));
        ElementAccess f4 = ElementAccess.of(DType.F4E2M1FN);
        f4.setFloat(m, 0, 100f);
        assertEquals(6.0f, f4.getFloat(m, 0));
    }

    @Test
    void packedSubByteElementsFillFromTheLowBits() {
        MemorySegment m = bytes(2);
        ElementAccess u2 = ElementAccess.packed(DType.U2);
        for (int i = 0; i < 8; i++) {
            u2.setLong(m, i, i % 4);
        }
        assertEquals((byte) 0xe4, m.get(ValueLayout.JAVA_BYTE, 0)); // 3,2,1,0 from high to low
        ElementAccess u1 = ElementAccess.packed(DType.U1);
        assertEquals(0, u1.getLong(m, 0));
        assertEquals(0, u1.getLong(m, 1));
        assertEquals(1, u1.getLong(m, 2));
        ElementAccess f4 = ElementAccess.packed(DType.F4E2M1FN);
        f4.setFloat(m, 1, -6f);
        assertEquals(0xf, m.get(ValueLayout.JAVA_BYTE, 0) >>> 4 & 0xf);
        assertEquals(4, ElementAccess.packed(DType.S4).storageBits());
        assertEquals(3, ElementAccess.packed(DType.S4).byteSize(5));
        assertEquals(5, ElementAccess.of(DType.S4).byteSize(5));
        // Past 2^60 bytes, 8 * bytes overflows; the capacity does not (a raw pointer's reach).
        assertEquals(1L << 59, ElementAccess.of(DType.F32).capacity(1L << 61));
        assertEquals(1L << 62, ElementAccess.packed(DType.S4).capacity(1L << 61));
        assertEquals(5, ElementAccess.of(DType.F32).capacity(23));
    }

    @Test
    void unpackedSubByteIgnoresHighBitsLikeMlDtypes() {
        MemorySegment m = bytes(1);
        m.set(ValueLayout.JAVA_BYTE, 0, (byte) 0xf7);
        assertEquals(7, ElementAccess.of(DType.S4).getLong(m, 0));
        ElementAccess.of(DType.S4).setLong(m, 0, -1);
        assertEquals((byte) 0x0f, m.get(ValueLayout.JAVA_BYTE, 0));
    }

    @Test
    void integersConvertExactlyAndRejectWhatTheyCannotHold() {
        MemorySegment m = bytes(8);
        ElementAccess u64 = ElementAccess.of(DType.U64);
        u64.setDouble(m, 0, 0x1p64 - 2048);
        assertEquals(-2048L, u64.getLong(m, 0));
        assertEquals(0x1p64 - 2048, u64.getDouble(m, 0));
        ElementAccess s8 = ElementAccess.of(DType.S8);
        var e = assertThrows(IllegalArgumentException.class, () -> s8.setLong(m, 0, 128));
        assertEquals("value 128 out of range [-128, 127] for s8", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> s8.setDouble(m, 0, 2.5));
        assertEquals("value 2.5 is not a whole number that s8 can hold", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ElementAccess.packed(DType.U4).setLong(m, 0, 16));
        assertEquals("value 16 out of range [0, 15] for u4", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ElementAccess.of(DType.F32).getLong(m, 0));
        assertEquals("getLong needs an integer or pred element type, not f32", e.getMessage());
    }

    @Test
    void sixtyFourBitIntegersRoundOnceToFloat() {
        MemorySegment m = bytes(8);
        // NumPy: np.array([2**55 + 2**31 + 1], np.int64).astype(np.float32) is 3.602880131393126e+16 (2^55 + 2^32);
        // through a double it would tie at 2^55 + 2^31 and round to even, 2^55.
        ElementAccess s64 = ElementAccess.of(DType.S64);
        s64.setLong(m, 0, (1L << 55) + (1L << 31) + 1);
        assertEquals(0x1p55f + 0x1p32f, s64.getFloat(m, 0));
        s64.setLong(m, 0, -((1L << 55) + (1L << 31) + 1));
        assertEquals(-(0x1p55f + 0x1p32f), s64.getFloat(m, 0));
        // np.array([2**63 + 2**39 + 1], np.uint64).astype(np.float32) is 9.223373136366404e+18 (2^63 + 2^40).
        ElementAccess u64 = ElementAccess.of(DType.U64);
        u64.setBits(m, 0, Long.MIN_VALUE + (1L << 39) + 1);
        assertEquals(0x1p63f + 0x1p40f, u64.getFloat(m, 0));
    }

    @Test
    void u64TakesTwosComplementLongsWhereNarrowerUnsignedTypesRangeCheck() {
        MemorySegment m = bytes(8);
        ElementAccess u64 = ElementAccess.of(DType.U64);
        u64.setLong(m, 0, -1);
        assertEquals(-1L, m.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0));
        assertEquals(0x1p64, u64.getDouble(m, 0));
        u64.setLong(m, 0, Long.parseUnsignedLong("18446744073709551615"));
        assertEquals("18446744073709551615", Long.toUnsignedString(u64.getLong(m, 0)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ElementAccess.of(DType.U32).setLong(m, 0, -1));
        assertTrue(e.getMessage().contains("out of range [0, 4294967295]"), e.getMessage());
    }

    @Test
    void complexViewsReadAndWriteParts() {
        TensorView z = TensorView.of(dev.tensorbuf.memory.MemoryBuffer.foreign(bytes(32), dev.tensorbuf.memory.MemorySpace.HOST,
                "z", () -> { }), "c128[2]{0}");
        TensorElements.of(z).setComplex(1.5, -2, 1);
        assertEquals(1.5, TensorElements.of(z).getReal(1));
        assertEquals(-2.0, TensorElements.of(z).getImag(1));
        assertThrows(IllegalArgumentException.class, () -> TensorElements.of(z).getDouble(1));
        TensorView fill = TensorView.scalar(DType.C64, 7);
        assertEquals(7.0, TensorElements.of(fill).getReal());
        assertEquals(0.0, TensorElements.of(fill).getImag());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TensorElements.of(TensorView.scalar(DType.F32, 1)).getReal());
        assertTrue(e.getMessage().contains("getReal needs a complex element type, not f32"), e.getMessage());
    }

    @Test
    void predAndComplexHaveTheirOwnAccessors() {
        MemorySegment m = bytes(32);
        ElementAccess pred = ElementAccess.of(DType.PRED);
        m.set(ValueLayout.JAVA_BYTE, 3, (byte) 2);
        assertTrue(pred.getBoolean(m, 3));
        pred.setBoolean(m, 3, false);
        assertFalse(pred.getBoolean(m, 3));
        ElementAccess c64 = ElementAccess.of(DType.C64);
        c64.setComplex(m, 1, 1.5, -2.25);
        assertEquals(1.5f, m.get(ValueLayout.JAVA_FLOAT_UNALIGNED, 8));
        assertEquals(-2.25, c64.getImag(m, 1));
        ElementAccess c128 = ElementAccess.of(DType.C128);
        c128.setComplex(m, 1, 0.1, 0.2);
        assertEquals(0.1, c128.getReal(m, 1));
        var e = assertThrows(IllegalArgumentException.class, () -> c128.getDouble(m, 0));
        assertEquals("getDouble needs a real element type, not c128", e.getMessage());
    }

    @Test
    void sixBitTypesDoNotPack() {
        var e = assertThrows(IllegalArgumentException.class, () -> ElementAccess.packed(DType.F6E2M3FN));
        assertTrue(e.getMessage().startsWith("f6e2m3fn elements are 6 bits, which do not pack evenly"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ElementAccess.of(DType.TOKEN));
    }
}
