package dev.tensorbuf.views.internal;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.DType.DlpackType;
import java.util.List;

/**
 * The names other ecosystems give our element types, one exhaustive switch per ecosystem so a new
 * {@link DType} constant does not compile until every table has decided about it.
 */
public final class InteropNames {
    private InteropNames() {
    }

    /** {@return the DLPack type, or null for token and opaque} */
    public static DlpackType dlpack(DType t) {
        int code = switch (t) {
            case PRED -> DlpackType.BOOL;
            case S1, S2, S4, S8, S16, S32, S64 -> DlpackType.INT;
            case U1, U2, U4, U8, U16, U32, U64 -> DlpackType.UINT;
            case F16, F32, F64 -> DlpackType.FLOAT;
            case BF16 -> DlpackType.BFLOAT;
            case F8E5M2 -> DlpackType.FLOAT8_E5M2;
            case F8E4M3 -> DlpackType.FLOAT8_E4M3;
            case F8E4M3FN -> DlpackType.FLOAT8_E4M3FN;
            case F8E4M3B11FNUZ -> DlpackType.FLOAT8_E4M3B11FNUZ;
            case F8E3M4 -> DlpackType.FLOAT8_E3M4;
            case F8E5M2FNUZ -> DlpackType.FLOAT8_E5M2FNUZ;
            case F8E4M3FNUZ -> DlpackType.FLOAT8_E4M3FNUZ;
            case F8E8M0FNU -> DlpackType.FLOAT8_E8M0FNU;
            case F6E3M2FN -> DlpackType.FLOAT6_E3M2FN;
            case F6E2M3FN -> DlpackType.FLOAT6_E2M3FN;
            case F4E2M1FN -> DlpackType.FLOAT4_E2M1FN;
            case C64, C128 -> DlpackType.COMPLEX;
            // XLA exports neither to DLPack; kDLOpaqueHandle has no element size to agree on.
            case TOKEN, OPAQUE -> -1;
        };
        return code < 0 ? null : new DlpackType(code, t.bitWidth());
    }

    /**
     * {@return NumPy's little-endian descr for NumPy's own types, the ml_dtypes dtype name for the
     * types only ml_dtypes has, null for token and opaque}
     */
    public static String numpy(DType t) {
        return switch (t) {
            case PRED -> "|b1";
            case S8 -> "|i1";
            case S16 -> "<i2";
            case S32 -> "<i4";
            case S64 -> "<i8";
            case U8 -> "|u1";
            case U16 -> "<u2";
            case U32 -> "<u4";
            case U64 -> "<u8";
            case F16 -> "<f2";
            case F32 -> "<f4";
            case F64 -> "<f8";
            case C64 -> "<c8";
            case C128 -> "<c16";
            case S1 -> "int1";
            case S2 -> "int2";
            case S4 -> "int4";
            case U1 -> "uint1";
            case U2 -> "uint2";
            case U4 -> "uint4";
            case BF16 -> "bfloat16";
            case F8E5M2 -> "float8_e5m2";
            case F8E4M3 -> "float8_e4m3";
            case F8E4M3FN -> "float8_e4m3fn";
            case F8E4M3B11FNUZ -> "float8_e4m3b11fnuz";
            case F8E3M4 -> "float8_e3m4";
            case F8E5M2FNUZ -> "float8_e5m2fnuz";
            case F8E4M3FNUZ -> "float8_e4m3fnuz";
            case F8E8M0FNU -> "float8_e8m0fnu";
            case F6E3M2FN -> "float6_e3m2fn";
            case F6E2M3FN -> "float6_e2m3fn";
            case F4E2M1FN -> "float4_e2m1fn";
            case TOKEN, OPAQUE -> null;
        };
    }

    /** {@return the safetensors dtype name, or null where safetensors has none} */
    public static String safetensors(DType t) {
        return switch (t) {
            case PRED -> "BOOL";
            case S8 -> "I8";
            case S16 -> "I16";
            case S32 -> "I32";
            case S64 -> "I64";
            case U8 -> "U8";
            case U16 -> "U16";
            case U32 -> "U32";
            case U64 -> "U64";
            case F16 -> "F16";
            case BF16 -> "BF16";
            case F32 -> "F32";
            case F64 -> "F64";
            case C64 -> "C64";
            case F8E5M2 -> "F8_E5M2";
            // safetensors' F8_E4M3 is the OCP variant without infinities (torch.float8_e4m3fn).
            case F8E4M3FN -> "F8_E4M3";
            case F8E4M3FNUZ -> "F8_E4M3FNUZ";
            case F8E5M2FNUZ -> "F8_E5M2FNUZ";
            case F8E8M0FNU -> "F8_E8M0";
            case F6E2M3FN -> "F6_E2M3";
            case F6E3M2FN -> "F6_E3M2";
            case F4E2M1FN -> "F4";
            case S1, S2, S4, U1, U2, U4, F8E4M3, F8E4M3B11FNUZ, F8E3M4, C128, TOKEN, OPAQUE -> null;
        };
    }

    /** {@return the DML_TENSOR_DATA_TYPE value (1 to 13), or 0 (UNKNOWN) where DirectML has none} */
    public static int directML(DType t) {
        return switch (t) {
            case F32 -> 1;
            case F16 -> 2;
            case U32 -> 3;
            case U16 -> 4;
            case U8 -> 5;
            case S32 -> 6;
            case S16 -> 7;
            case S8 -> 8;
            case F64 -> 9;
            case U64 -> 10;
            case S64 -> 11;
            case U4 -> 12;
            case S4 -> 13;
            case PRED, S1, S2, U1, U2, BF16, F8E5M2, F8E4M3, F8E4M3FN, F8E4M3B11FNUZ, F8E3M4,
                 F8E5M2FNUZ, F8E4M3FNUZ, F8E8M0FNU, F6E3M2FN, F6E2M3FN, F4E2M1FN, C64, C128, TOKEN, OPAQUE -> 0;
        };
    }

    /** DML_TENSOR_DATA_TYPE names without the prefix, indexed by value. */
    public static final List<String> DIRECTML_NAMES = List.of(
        "UNKNOWN", "FLOAT32", "FLOAT16", "UINT32", "UINT16", "UINT8", "INT32", "INT16", "INT8",
        "FLOAT64", "UINT64", "INT64", "UINT4", "INT4");
}
