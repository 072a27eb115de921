package dev.tensorbuf.views;

import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

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
            throw new IllegalArgumentException("unknown element type '" + name + "'");
        }
        return t;
    }

    /** {@return the type with this XLA name, or null when there is none} */
    public static DType forXlaNameOrNull(String name) {
        return BY_NAME.get(name);
    }

    @Override
    public String toString() {
        return xlaName;
    }
}
