package dev.tensorbuf.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import dev.tensorbuf.views.DType.DlpackType;

class DTypeInteropTest {
    @Test
    void exampleFromJavadoc() {
        assertEquals(Optional.of(new DlpackType(4, 16)), DType.BF16.dlpack());
        assertEquals("{kDLBfloat, 16}", DType.BF16.dlpack().orElseThrow().toString());
        assertEquals(Optional.of("<f4"), DType.F32.numpyDescr());
        assertEquals(Optional.of("bfloat16"), DType.BF16.numpyDescr());
        assertEquals(Optional.of("F8_E4M3"), DType.F8E4M3FN.safetensorsName());
        assertEquals(Optional.of("INT4"), DType.S4.directMLName());
        assertEquals(DType.U8, DType.fromDirectML("UINT8"));
        assertEquals(DType.F8E4M3FN, DType.fromDlpack(10, 8));
    }

    @Test
    void complexTypesHaveRealComponents() {
        assertEquals(DType.F32, DType.C64.componentType());
        assertEquals(DType.F64, DType.C128.componentType());
        assertEquals(DType.BF16, DType.BF16.componentType());
        assertEquals(DType.S4, DType.S4.componentType());
    }

    @Test
    void dlpackCodesFollowDlpackHeader() {
        assertEquals(new DlpackType(DlpackType.BOOL, 8), DType.PRED.dlpack().orElseThrow());
        assertEquals(new DlpackType(0, 4), DType.S4.dlpack().orElseThrow());
        assertEquals(new DlpackType(1, 64), DType.U64.dlpack().orElseThrow());
        assertEquals(new DlpackType(5, 64), DType.C64.dlpack().orElseThrow());
        assertEquals(new DlpackType(5, 128), DType.C128.dlpack().orElseThrow());
        assertEquals(new DlpackType(7, 8), DType.F8E3M4.dlpack().orElseThrow());
        assertEquals(new DlpackType(8, 8), DType.F8E4M3.dlpack().orElseThrow());
        assertEquals(new DlpackType(9, 8), DType.F8E4M3B11FNUZ.dlpack().orElseThrow());
        assertEquals(new DlpackType(11, 8), DType.F8E4M3FNUZ.dlpack().orElseThrow());
        assertEquals(new DlpackType(12, 8), DType.F8E5M2.dlpack().orElseThrow());
        assertEquals(new DlpackType(13, 8), DType.F8E5M2FNUZ.dlpack().orElseThrow());
        assertEquals(new DlpackType(14, 8), DType.F8E8M0FNU.dlpack().orElseThrow());
        assertEquals(new DlpackType(15, 6), DType.F6E2M3FN.dlpack().orElseThrow());
        assertEquals(new DlpackType(16, 6), DType.F6E3M2FN.dlpack().orElseThrow());
        assertEquals(new DlpackType(17, 4), DType.F4E2M1FN.dlpack().orElseThrow());
        assertEquals(Optional.empty(), DType.TOKEN.dlpack());
        assertEquals(Optional.empty(), DType.OPAQUE.dlpack());
    }

    @Test
    void everyNameLooksBackUpToItsType() {
        for (DType t : DType.values()) {
            t.dlpack().ifPresent(d -> assertEquals(t, DType.fromDlpack(d.code(), d.bits())));
            t.numpyDescr().ifPresent(n -> assertEquals(t, DType.fromNumpyDescr(n)));
            t.safetensorsName().ifPresent(n -> assertEquals(t, DType.fromSafetensorsName(n)));
            t.directMLName().ifPresent(n -> assertEquals(t, DType.fromDirectML(n)));
            t.directMLName().ifPresent(n -> assertEquals(t, DType.fromDirectML("DML_TENSOR_DATA_TYPE_" + n)));
        }
    }

    @Test
    void directMLCoversItsThirteenTypes() {
        assertEquals(OptionalInt.of(1), DType.F32.directMLValue());
        assertEquals(OptionalInt.of(13), DType.S4.directMLValue());
        assertEquals(OptionalInt.of(12), DType.U4.directMLValue());
        assertEquals(13, java.util.Arrays.stream(DType.values()).filter(t -> t.directMLName().isPresent()).count());
        assertEquals(Optional.empty(), DType.BF16.directMLName());
        assertEquals(Optional.empty(), DType.PRED.directMLName());
    }

    @Test
    void numpyDescrsAcceptByteOrderMarksButNotBigEndian() {
        assertEquals(DType.F32, DType.fromNumpyDescr("=f4"));
        assertEquals(DType.F32, DType.fromNumpyDescr("f4"));
        assertEquals(DType.S8, DType.fromNumpyDescr("<i1"));
        assertEquals(DType.U8, DType.fromNumpyDescr(">u1"));
        assertEquals(DType.PRED, DType.fromNumpyDescr("|b1"));
        assertEquals(DType.C64, DType.fromNumpyDescr("<c8"));
        assertTrue(DType.F16.isNumpyNative());
        assertFalse(DType.BF16.isNumpyNative());
        var e = assertThrows(IllegalArgumentException.class, () -> DType.fromNumpyDescr(">f4"));
        assertEquals("big-endian NumPy descr '>f4' is not supported: byte-swap the data to '<f4'", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> DType.fromNumpyDescr("<V2"));
        assertTrue(e.getMessage().startsWith("NumPy descr '<V2' is a void type"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> DType.fromNumpyDescr("<f3"));
        assertTrue(e.getMessage().startsWith("unknown NumPy descr '<f3'"), e.getMessage());
    }

    @Test
    void unknownNamesAreNamedInTheError() {
        var e = assertThrows(IllegalArgumentException.class, () -> DType.fromDlpack(2, 7));
        assertEquals("no element type for DLPack {kDLFloat, 7} (code 2, bits 7): kDLFloat is defined for bits 16, 32, 64",
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> DType.fromDlpack(42, 8));
        assertEquals("unknown DLPack type code 42: expected 0 to 17", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> DType.fromSafetensorsName("F8_E4M3FN"));
        assertTrue(e.getMessage().startsWith("unknown safetensors dtype 'F8_E4M3FN'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> DType.fromDirectML("UNKNOWN"));
        assertTrue(e.getMessage().startsWith("unknown DirectML tensor data type 'UNKNOWN': expected one of [FLOAT32,"),
                e.getMessage());
        assertEquals(Optional.empty(), DType.F8E4M3.safetensorsName());
    }

    @Test
    void integerRangeExampleFromJavadoc() {
        assertEquals("[-128, 127]", DType.S8.integerRange());
        assertEquals("[0, 18446744073709551615]", DType.U64.integerRange());
        assertEquals("[-9223372036854775808, 9223372036854775807]", DType.S64.integerRange());
        assertEquals("[0, 15]", DType.U4.integerRange());
        assertEquals("[0, 1]", DType.PRED.integerRange());
        assertThrows(IllegalArgumentException.class, DType.F32::integerRange);
    }
}
