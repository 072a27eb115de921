package dev.tensorbuf.views;

import java.util.List;

/**
 * A DLPack {@code DLDataType} with one lane: the type code and the bits of one element.
 *
 * <p>Codes are those of {@code DLDataTypeCode} in {@code dlpack.h} 1.3; {@link #codeName()} gives
 * the C name. Packed sub-byte data is little bit-endian in DLPack: element {@code i} of a byte
 * holds bits {@code [i * bits, (i + 1) * bits)}.
 * {@snippet :
 * DlpackType t = DType.BF16.dlpack().orElseThrow();
 * t.code();       // 4
 * t.bits();       // 16
 * t.codeName();   // "kDLBfloat"
 * DType.fromDlpack(10, 8); // DType.F8E4M3FN
 * }
 *
 * @param code the {@code DLDataTypeCode}, 0 to 17
 * @param bits the bits of one lane, 1 or more
 */
public record DlpackType(int code, int bits) {
    /** {@code kDLInt}. */
    public static final int INT = 0;
    /** {@code kDLUInt}. */
    public static final int UINT = 1;
    /** {@code kDLFloat}. */
    public static final int FLOAT = 2;
    /** {@code kDLOpaqueHandle}. */
    public static final int OPAQUE_HANDLE = 3;
    /** {@code kDLBfloat}. */
    public static final int BFLOAT = 4;
    /** {@code kDLComplex}. */
    public static final int COMPLEX = 5;
    /** {@code kDLBool}. */
    public static final int BOOL = 6;
    /** {@code kDLFloat8_e3m4}. */
    public static final int FLOAT8_E3M4 = 7;
    /** {@code kDLFloat8_e4m3}. */
    public static final int FLOAT8_E4M3 = 8;
    /** {@code kDLFloat8_e4m3b11fnuz}. */
    public static final int FLOAT8_E4M3B11FNUZ = 9;
    /** {@code kDLFloat8_e4m3fn}. */
    public static final int FLOAT8_E4M3FN = 10;
    /** {@code kDLFloat8_e4m3fnuz}. */
    public static final int FLOAT8_E4M3FNUZ = 11;
    /** {@code kDLFloat8_e5m2}. */
    public static final int FLOAT8_E5M2 = 12;
    /** {@code kDLFloat8_e5m2fnuz}. */
    public static final int FLOAT8_E5M2FNUZ = 13;
    /** {@code kDLFloat8_e8m0fnu}. */
    public static final int FLOAT8_E8M0FNU = 14;
    /** {@code kDLFloat6_e2m3fn}. */
    public static final int FLOAT6_E2M3FN = 15;
    /** {@code kDLFloat6_e3m2fn}. */
    public static final int FLOAT6_E3M2FN = 16;
    /** {@code kDLFloat4_e2m1fn}. */
    public static final int FLOAT4_E2M1FN = 17;

    private static final List<String> CODE_NAMES = List.of(
            "kDLInt", "kDLUInt", "kDLFloat", "kDLOpaqueHandle", "kDLBfloat", "kDLComplex", "kDLBool",
            "kDLFloat8_e3m4", "kDLFloat8_e4m3", "kDLFloat8_e4m3b11fnuz", "kDLFloat8_e4m3fn",
            "kDLFloat8_e4m3fnuz", "kDLFloat8_e5m2", "kDLFloat8_e5m2fnuz", "kDLFloat8_e8m0fnu",
            "kDLFloat6_e2m3fn", "kDLFloat6_e3m2fn", "kDLFloat4_e2m1fn");

    /**
     * @throws IllegalArgumentException if the code is not one of {@code dlpack.h} 1.3 or bits is not positive
     */
    public DlpackType {
        if (code < 0 || code >= CODE_NAMES.size()) {
            throw new IllegalArgumentException(
                    "unknown DLPack type code " + code + ": expected 0 to " + (CODE_NAMES.size() - 1));
        }
        if (bits <= 0) {
            throw new IllegalArgumentException("DLPack bits must be positive, got " + bits + " for " + CODE_NAMES.get(code));
        }
    }

    /** {@return the C name of the code, e.g. {@code "kDLBfloat"}} */
    public String codeName() {
        return CODE_NAMES.get(code);
    }

    @Override
    public String toString() {
        return "{" + codeName() + ", " + bits + "}";
    }
}
