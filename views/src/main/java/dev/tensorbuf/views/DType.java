package dev.tensorbuf.views;

import dev.tensorbuf.views.internal.Errors;
import dev.tensorbuf.views.internal.InteropNames;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.List;

/**
 * An XLA primitive element type, with its storage width.
 *
 * <p>Names are XLA's lowercase spellings as they appear in shape text:
 * {@snippet :
 * DType t = DType.fromXlaName("bf16");
 * t.bitWidth();   // 16
 * t.byteWidth();  // 2
 * DType.S4.isSubByte(); // true: packs two to a byte only under an E(4) layout
 * }
 *
 * <p>Each type also knows its names elsewhere. A name that does not exist is an empty
 * {@code Optional}, never null; the reverse lookups throw {@link IllegalArgumentException}
 * naming the input and what was expected.
 * {@snippet :
 * DType.BF16.dlpack();           // Optional[{kDLBfloat, 16}]
 * DType.F32.numpyDescr();        // Optional["<f4"]
 * DType.BF16.numpyDescr();       // Optional["bfloat16"]: the ml_dtypes name, NumPy has no bf16
 * DType.F8E4M3FN.safetensorsName(); // Optional["F8_E4M3"]
 * DType.S4.directMLName();       // Optional["INT4"]
 * DType.fromDirectML("UINT8");   // DType.U8 (prints as u8)
 * }
 */
public enum DType {
    PRED("pred", Kind.BOOLEAN, 8),
    S1("s1", Kind.SIGNED, 1),
    S2("s2", Kind.SIGNED, 2),
    S4("s4", Kind.SIGNED, 4),
    S8("s8", Kind.SIGNED, 8),
    S16("s16", Kind.SIGNED, 16),
    S32("s32", Kind.SIGNED, 32),
    S64("s64", Kind.SIGNED, 64),
    U1("u1", Kind.UNSIGNED, 1),
    U2("u2", Kind.UNSIGNED, 2),
    U4("u4", Kind.UNSIGNED, 4),
    U8("u8", Kind.UNSIGNED, 8),
    U16("u16", Kind.UNSIGNED, 16),
    U32("u32", Kind.UNSIGNED, 32),
    U64("u64", Kind.UNSIGNED, 64),
    F16("f16", Kind.FLOAT, 16),
    BF16("bf16", Kind.FLOAT, 16),
    F32("f32", Kind.FLOAT, 32),
    F64("f64", Kind.FLOAT, 64),
    F8E5M2("f8e5m2", Kind.FLOAT, 8),
    F8E4M3("f8e4m3", Kind.FLOAT, 8),
    F8E4M3FN("f8e4m3fn", Kind.FLOAT, 8),
    F8E4M3B11FNUZ("f8e4m3b11fnuz", Kind.FLOAT, 8),
    F8E3M4("f8e3m4", Kind.FLOAT, 8),
    F8E5M2FNUZ("f8e5m2fnuz", Kind.FLOAT, 8),
    F8E4M3FNUZ("f8e4m3fnuz", Kind.FLOAT, 8),
    F8E8M0FNU("f8e8m0fnu", Kind.FLOAT, 8),
    F6E3M2FN("f6e3m2fn", Kind.FLOAT, 6),
    F6E2M3FN("f6e2m3fn", Kind.FLOAT, 6),
    F4E2M1FN("f4e2m1fn", Kind.FLOAT, 4),
    C64("c64", Kind.COMPLEX, 64),
    C128("c128", Kind.COMPLEX, 128),
    /** An ordering token: no data. */
    TOKEN("token", Kind.NONE, 0),
    /** Opaque runtime data: no element size. */
    OPAQUE("opaque", Kind.NONE, 0);

    /** What the bits of an element mean. */
    public enum Kind { BOOLEAN, SIGNED, UNSIGNED, FLOAT, COMPLEX, NONE }

    private static final Map<String, DType> BY_NAME =
            Stream.of(values()).collect(Collectors.toUnmodifiableMap(DType::xlaName, Function.identity()));

    private final String xlaName;
    private final Kind kind;
    private final int bitWidth;

    DType(String xlaName, Kind kind, int bitWidth) {
        this.xlaName = xlaName;
        this.kind = kind;
        this.bitWidth = bitWidth;
    }

    /** {@return the lowercase name used in XLA shape text, e.g. {@code "bf16"}} */
    public String xlaName() {
        return xlaName;
    }

    /** {@return what the bits mean} */
    public Kind kind() {
        return kind;
    }

    /**
     * {@return the values an integer type or pred holds, as messages print them}
     * {@snippet :
     * DType.S8.integerRange();  // "[-128, 127]"
     * DType.U64.integerRange(); // "[0, 18446744073709551615]"
     * }
     *
     * @throws IllegalArgumentException for floating-point, complex and element-less types
     */
    public String integerRange() {
        return switch (kind) {
            case BOOLEAN -> "[0, 1]";
            case SIGNED -> "[" + (-1L << (bitWidth - 1)) + ", " + ~(-1L << (bitWidth - 1)) + "]";
            case UNSIGNED -> "[0, " + Long.toUnsignedString(bitWidth == 64 ? -1L : (1L << bitWidth) - 1) + "]";
            default -> throw new IllegalArgumentException(this + " is not an integer type");
        };
    }

    /** {@return the bits one element occupies when packed, e.g. 4 for {@code s4}; 0 for token and opaque} */
    public int bitWidth() {
        return bitWidth;
    }

    /**
     * {@return the bytes one element occupies unpacked: ceil(bits / 8), as XLA's
     * {@code ByteSizeOfPrimitiveType}; 1 for sub-byte types, 0 for token and opaque}
     */
    public int byteWidth() {
        return (bitWidth + 7) / 8;
    }

    /**
     * {@return the type of a complex type's real and imaginary parts (f32 for c64, f64 for c128),
     * as XLA's {@code ComplexComponentType}; any other type itself}
     */
    public DType componentType() {
        return this == C64 ? F32 : this == C128 ? F64 : this;
    }

    /** {@return whether the type is narrower than a byte (s1, s2, s4, u1, u2, u4, f4, f6)} */
    public boolean isSubByte() {
        return bitWidth > 0 && bitWidth < 8;
    }

    /** {@return whether elements hold data (false for token and opaque)} */
    public boolean isArrayType() {
        return kind != Kind.NONE;
    }

    /**
     * Looks a type up by its XLA name.
     *
     * @throws IllegalArgumentException naming the unknown type
     */
    public static DType fromXlaName(String name) {
        DType t = BY_NAME.get(name.toLowerCase(Locale.ROOT));
        if (t == null) {
            throw Errors.unknown("element type", name, "");
        }
        return t;
    }

    /**
     * {@return the DLPack {@code (code, bits)} of the type; empty for token and opaque} Sub-byte
     * integers keep their width ({@code s4} is {@code {kDLInt, 4}}) and {@code pred} is
     * {@code {kDLBool, 8}} (one byte per bool).
     */
    public Optional<DlpackType> dlpack() {
        return Optional.ofNullable(InteropNames.dlpack(this));
    }

    /**
     * {@return the NumPy name of the type; empty for token and opaque} For NumPy's own types this is
     * the little-endian {@code descr} NumPy writes ({@code "<f4"}, {@code "|u1"}, {@code "|b1"},
     * {@code "<c8"}). NumPy has no bf16, f8, f6, f4 or sub-byte integers: for those it is the
     * ml_dtypes dtype name ({@code "bfloat16"}, {@code "float8_e4m3fn"}, {@code "int4"}), because
     * the descr ml_dtypes writes ({@code "<V2"}) does not say which type it is. Tell the two apart
     * with {@link #isNumpyNative()}.
     */
    public Optional<String> numpyDescr() {
        return Optional.ofNullable(InteropNames.numpy(this));
    }

    /** {@return whether NumPy itself has the type, so {@link #numpyDescr()} is a real descr} */
    public boolean isNumpyNative() {
        String name = InteropNames.numpy(this);
        return name != null && (name.charAt(0) == '<' || name.charAt(0) == '|');
    }

    /**
     * {@return the safetensors dtype name, e.g. {@code "BF16"}; empty where safetensors has none}
     * safetensors' {@code F8_E4M3} is the OCP type without infinities, so it is {@link #F8E4M3FN};
     * {@link #F8E4M3} (IEEE-like, with infinities) has no safetensors name.
     */
    public Optional<String> safetensorsName() {
        return Optional.ofNullable(InteropNames.safetensors(this));
    }

    /**
     * {@return the {@code DML_TENSOR_DATA_TYPE} name without its prefix, e.g. {@code "FLOAT32"};
     * empty where DirectML has none (pred, bf16, f8, f6, f4, complex, 1- and 2-bit integers)}
     * {@code INT4}/{@code UINT4} need DirectML feature level 6.3.
     */
    public Optional<String> directMLName() {
        int value = InteropNames.directML(this);
        return value == 0 ? Optional.empty() : Optional.of(InteropNames.DIRECTML_NAMES.get(value));
    }

    /** {@return the {@code DML_TENSOR_DATA_TYPE} value, 1 ({@code FLOAT32}) to 13 ({@code INT4}); empty where DirectML has none} */
    public OptionalInt directMLValue() {
        int value = InteropNames.directML(this);
        return value == 0 ? OptionalInt.empty() : OptionalInt.of(value);
    }

    /**
     * Looks a type up by its DLPack code and bits (one lane).
     *
     * @throws IllegalArgumentException naming the code and bits when no type has them
     */
    public static DType fromDlpack(int code, int bits) {
        DlpackType wanted = new DlpackType(code, bits);
        for (DType t : values()) {
            if (wanted.equals(InteropNames.dlpack(t))) {
                return t;
            }
        }
        throw new IllegalArgumentException("no element type for DLPack " + wanted + " (code " + code
                + ", bits " + bits + ")" + dlpackHint(code));
    }

    private static String dlpackHint(int code) {
        StringBuilder widths = new StringBuilder();
        for (DType t : values()) {
            DlpackType d = InteropNames.dlpack(t);
            if (d != null && d.code() == code) {
                widths.append(widths.isEmpty() ? "" : ", ").append(d.bits());
            }
        }
        return widths.isEmpty() ? "" : ": " + new DlpackType(code, 1).codeName() + " is defined for bits " + widths;
    }

    /**
     * Looks a type up by a NumPy descr or an ml_dtypes name. Accepts the byte-order marks
     * {@code <}, {@code =} (native, taken as little-endian) and {@code |}, or none; {@code >} only
     * for one-byte types.
     *
     * @throws IllegalArgumentException naming the descr: unknown, big-endian, or a void descr
     *         ({@code "<V2"}) that cannot say which ml_dtypes type it is
     */
    public static DType fromNumpyDescr(String descr) {
        for (DType t : values()) {
            if (descr.equals(InteropNames.numpy(t))) {
                return t;
            }
        }
        if (descr.isEmpty()) {
            throw new IllegalArgumentException("empty NumPy descr");
        }
        char order = descr.charAt(0);
        String body = "<=|>".indexOf(order) >= 0 ? descr.substring(1) : descr;
        if (body.startsWith("V")) {
            throw new IllegalArgumentException("NumPy descr '" + descr + "' is a void type: ml_dtypes writes bf16 and"
                    + " f8 that way, so the type is unknown; name it (e.g. 'bfloat16', 'float8_e4m3fn')");
        }
        for (DType t : values()) {
            String name = InteropNames.numpy(t);
            if (t.isNumpyNative() && name.substring(1).equals(body)) {
                if (order == '>' && t.byteWidth() > 1) {
                    throw new IllegalArgumentException("big-endian NumPy descr '" + descr
                            + "' is not supported: byte-swap the data to '" + name + "'");
                }
                return t;
            }
        }
        throw Errors.unknown("NumPy descr", descr, "e.g. '<f4', '|u1', '|b1', '<c8' or an ml_dtypes name such as 'bfloat16'");
    }

    /**
     * Looks a type up by its safetensors dtype name ({@code "F32"}, {@code "BF16"}, {@code "F8_E4M3"}).
     *
     * @throws IllegalArgumentException naming the unknown name
     */
    public static DType fromSafetensorsName(String name) {
        for (DType t : values()) {
            if (name.equals(InteropNames.safetensors(t))) {
                return t;
            }
        }
        throw Errors.unknown("safetensors dtype", name,
                "one of BOOL, U8, I8, ..., F16, BF16, F32, F64, C64, F8_E5M2, F8_E4M3, F8_E8M0, F4");
    }

    /**
     * Looks a type up by its {@code DML_TENSOR_DATA_TYPE} name, with or without the
     * {@code DML_TENSOR_DATA_TYPE_} prefix.
     *
     * @throws IllegalArgumentException naming the unknown name ({@code UNKNOWN} included)
     */
    public static DType fromDirectML(String name) {
        String bare = name.startsWith("DML_TENSOR_DATA_TYPE_") ? name.substring("DML_TENSOR_DATA_TYPE_".length()) : name;
        for (DType t : values()) {
            int value = InteropNames.directML(t);
            if (value != 0 && InteropNames.DIRECTML_NAMES.get(value).equals(bare)) {
                return t;
            }
        }
        throw Errors.unknown("DirectML tensor data type", name,
                "one of " + InteropNames.DIRECTML_NAMES.subList(1, InteropNames.DIRECTML_NAMES.size()));
    }

    /** {@return the type with this XLA name, or null when there is none} */
    public static DType forXlaNameOrNull(String name) {
        return BY_NAME.get(name);
    }

    @Override
    public String toString() {
        return xlaName;
    }

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
}
