package dev.tensorbuf.views;

import dev.tensorbuf.views.internal.Errors;
import dev.tensorbuf.views.internal.FloatCodec;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Reads and writes elements of one type in a {@link MemorySegment} as Java values, by element
 * index, little-endian, with the conversions of ml_dtypes and NumPy bit for bit.
 *
 * <p>Storage: {@link #of(DType)} gives every element whole bytes ({@link DType#byteWidth()}); a
 * sub-byte type then sits in the low bits of its byte, as in XLA without an {@code E(n)} layout
 * and in ml_dtypes' arrays (higher bits are ignored on read and written as zero).
 * {@link #packed(DType)} packs 1-, 2- and 4-bit types {@code 8 / bits} to a byte, the first
 * element in the lowest bits: XLA's {@code E(4)}, ml_dtypes' packed arrays and DLPack's "little
 * bit-endian" order agree on this ({@code s4} elements {@code [1, -2]} are the byte {@code 0xe1}).
 *
 * <p>Values: {@code pred} is 0 or 1 (any non-zero byte reads as 1); integers convert exactly,
 * and writing a value the type cannot hold throws {@link IllegalArgumentException} naming the
 * value and the range; {@code u64} reads through {@link #getLong} as its two's-complement bits.
 * Narrow floats encode with round-to-nearest-even and ml_dtypes' rules for NaN and overflow
 * (bf16 NaN becomes the quiet NaN {@code 0x7fc0} with the input's sign; f8e4m3fn overflows to
 * NaN, f8e5m2 to infinity, f4/f6 saturate). Complex elements are (real, imaginary) pairs of
 * {@code f32} or {@code f64}.
 * {@snippet :
 * MemorySegment m = Arena.ofAuto().allocate(4);
 * ElementAccess bf16 = ElementAccess.of(DType.BF16);
 * bf16.setFloat(m, 0, 1.00390625f);   // a tie between 1.0 and 1.0078125: rounds to even
 * bf16.getBits(m, 0);                 // 0x3f80 (1.0)
 * ElementAccess s4 = ElementAccess.packed(DType.S4);
 * s4.setLong(m, 2, 1);
 * s4.setLong(m, 3, -2);
 * m.get(ValueLayout.JAVA_BYTE, 1);    // (byte) 0xe1: element 2 in the low nibble
 * s4.getLong(m, 3);                   // -2
 * }
 */
public final class ElementAccess {
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final DType type;
    private final int storageBits;
    private final FloatCodec codec;

    private ElementAccess(DType type, int storageBits) {
        this.type = type;
        this.storageBits = storageBits;
        this.codec = FloatCodec.of(type);
    }

    /**
     * {@return access to elements stored in whole bytes each}
     *
     * @throws IllegalArgumentException for token and opaque, which have no elements
     */
    public static ElementAccess of(DType type) {
        requireArrayType(type);
        return new ElementAccess(type, 8 * type.byteWidth());
    }

    /**
     * {@return access to a 1-, 2- or 4-bit type packed into bytes, first element lowest; for
     * wider types the same as {@link #of(DType)}}
     *
     * @throws IllegalArgumentException for 6-bit types (they do not divide a byte), token and opaque
     */
    public static ElementAccess packed(DType type) {
        requireArrayType(type);
        if (type.isSubByte() && 8 % type.bitWidth() != 0) {
            throw new IllegalArgumentException(type + " elements are " + type.bitWidth()
                    + " bits, which do not pack evenly into bytes: use ElementAccess.of(" + type.name() + ")");
        }
        return new ElementAccess(type, type.isSubByte() ? type.bitWidth() : 8 * type.byteWidth());
    }

    /**
     * {@return how many whole elements fit in {@code bytes}: {@code floor(8 * bytes / bits)}}
     * Computed without forming {@code 8 * bytes}, which overflows from 2^60 bytes (a raw pointer
     * reinterpreted to the rest of the address space, a device buffer's claim).
     */
    public long capacity(long bytes) {
        return bytes / storageBits * 8 + bytes % storageBits * 8 / storageBits;
    }

    /**
     * {@return access to the elements of an XLA shape's layout: at their own width for
     * {@code E(0)} or their width in bits, packed for a sub-byte type's own {@code E(n)}}
     * {@code ElementAccess.of(ArrayShape.parse("s4[8]{0:E(4)}"))} packs two elements a byte.
     *
     * @throws IllegalArgumentException if the shape has no layout, or for an {@code E(n)} that
     *     stores its type some other way ({@code f32[4]{0:E(16)}}, {@code s8[4]{0:E(4)}})
     */
    public static ElementAccess of(ArrayShape shape) {
        long e = shape.requireLayout().elementSizeInBits();
        DType t = shape.dtype();
        if (e == 0 || e == 8L * t.byteWidth()) {
            return of(t);
        }
        if (t.isSubByte() && e == t.bitWidth()) {
            return packed(t);
        }
        String takes = t.isSubByte()
                ? "E(" + t.bitWidth() + ") packs them, E(0) or E(" + 8 * t.byteWidth() + ") stores one a byte"
                : "E(0) or E(" + 8 * t.byteWidth() + ") stores them at their own width";
        throw new IllegalArgumentException(shape + ": elements of " + t + " stored in E(" + e
                + ") bits are not supported; " + takes);
    }

    private static void requireArrayType(DType type) {
        if (!type.isArrayType()) {
            throw Errors.noElements(type, "access");
        }
    }

    /** {@return the element type} */
    public DType type() {
        return type;
    }

    /** {@return the bits one element occupies in storage: 4 for packed {@code s4}, 8 for unpacked} */
    public int storageBits() {
        return storageBits;
    }

    /**
     * {@return the bytes that hold {@code count} elements, {@code ceil(count * storageBits / 8)}}
     *
     * @throws IllegalArgumentException if count is negative or the size overflows a long
     */
    public long byteSize(long count) {
        if (count < 0) {
            throw new IllegalArgumentException("negative element count " + count);
        }
        try {
            return Math.ceilDiv(Math.multiplyExact(count, (long) storageBits), 8L);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(count + " elements of " + storageBits + " bits overflow a long", e);
        }
    }

    /**
     * {@return the raw bits of element {@code index}, zero-extended (both halves of a {@code c64},
     * real in the low 32 bits)}
     *
     * @throws IllegalArgumentException for {@code c128}, whose 128 bits do not fit a long
     * @throws IndexOutOfBoundsException if the element lies outside the segment
     */
    public long getBits(MemorySegment segment, long index) {
        checkIndex(index);
        if (storageBits < 8) {
            int perByte = 8 / storageBits;
            int shift = (int) (index % perByte) * storageBits;
            return (segment.get(ValueLayout.JAVA_BYTE, index / perByte) >>> shift) & lowMask();
        }
        return switch (storageBits) {
            case 8 -> segment.get(ValueLayout.JAVA_BYTE, index) & lowMask();
            case 16 -> segment.get(I16, index * 2) & 0xffffL;
            case 32 -> segment.get(I32, index * 4) & 0xffff_ffffL;
            case 64 -> segment.get(I64, index * 8);
            default -> throw new IllegalArgumentException(type + " elements are " + storageBits
                    + " bits: read them with getReal and getImag");
        };
    }

    /**
     * Writes the raw bits of element {@code index}.
     *
     * @throws IllegalArgumentException if {@code bits} has bits set above the type's width, or for {@code c128}
     * @throws IndexOutOfBoundsException if the element lies outside the segment
     */
    public void setBits(MemorySegment segment, long index, long bits) {
        checkIndex(index);
        int width = Math.min(type.bitWidth(), 64);
        if (width < 64 && (bits >>> width) != 0) {
            throw new IllegalArgumentException(String.format("bits 0x%x do not fit the %d bits of %s", bits, width, type));
        }
        if (storageBits < 8) {
            int perByte = 8 / storageBits;
            int shift = (int) (index % perByte) * storageBits;
            long at = index / perByte;
            int old = segment.get(ValueLayout.JAVA_BYTE, at);
            int updated = (old & ~((int) lowMask() << shift)) | ((int) bits << shift);
            segment.set(ValueLayout.JAVA_BYTE, at, (byte) updated);
            return;
        }
        switch (storageBits) {
            case 8 -> segment.set(ValueLayout.JAVA_BYTE, index, (byte) bits);
            case 16 -> segment.set(I16, index * 2, (short) bits);
            case 32 -> segment.set(I32, index * 4, (int) bits);
            case 64 -> segment.set(I64, index * 8, bits);
            default -> throw new IllegalArgumentException(type + " elements are " + storageBits
                    + " bits: write them with setComplex");
        }
    }

    /**
     * {@return element {@code index} as a long: integers exactly (sign-extended for signed types,
     * two's-complement bits for {@code u64}), {@code pred} as 0 or 1}
     *
     * @throws IllegalArgumentException for floating-point and complex types
     */
    public long getLong(MemorySegment segment, long index) {
        return switch (type.kind()) {
            case BOOLEAN -> getBits(segment, index) != 0 ? 1 : 0;
            case SIGNED -> {
                int shift = 64 - type.bitWidth();
                yield (getBits(segment, index) << shift) >> shift;
            }
            case UNSIGNED -> getBits(segment, index);
            case FLOAT, COMPLEX, NONE -> throw wrongKind("getLong", "an integer or pred");
        };
    }

    /**
     * Writes an integer or pred element. A {@code u64} takes any long as its two's-complement bits,
     * as {@link #getLong} returns them and {@link Long#parseUnsignedLong} makes them: {@code -1}
     * writes 2^64 - 1. Every other type range-checks the value ({@code u32} refuses {@code -1}).
     *
     * @throws IllegalArgumentException if the value is outside the type's range (for pred: not 0 or 1),
     *         or the type is floating-point or complex
     */
    public void setLong(MemorySegment segment, long index, long value) {
        int bits = type.bitWidth();
        switch (type.kind()) {
            case BOOLEAN -> {
                if (value != 0 && value != 1) {
                    throw Errors.valueOutOfRange(value, type);
                }
                setBits(segment, index, value);
            }
            case SIGNED -> {
                long min = -1L << (bits - 1);
                long max = ~min;
                if (value < min || value > max) {
                    throw Errors.valueOutOfRange(value, type);
                }
                setBits(segment, index, bits == 64 ? value : value & ((1L << bits) - 1));
            }
            case UNSIGNED -> {
                if (bits < 64 && (value >>> bits) != 0) {
                    throw Errors.valueOutOfRange(value, type);
                }
                setBits(segment, index, value);
            }
            case FLOAT, COMPLEX, NONE -> throw wrongKind("setLong", "an integer or pred");
        }
    }

    /**
     * {@return element {@code index} as a double: floats exactly, integers exactly where they fit
     * 53 bits (nearest otherwise), {@code u64} unsigned, {@code pred} as 0 or 1}
     *
     * @throws IllegalArgumentException for complex types (use {@link #getReal}, {@link #getImag})
     */
    public double getDouble(MemorySegment segment, long index) {
        return switch (type) {
            case F32 -> Float.intBitsToFloat((int) getBits(segment, index));
            case F64 -> Double.longBitsToDouble(getBits(segment, index));
            case U64 -> unsignedToDouble(getBits(segment, index));
            case C64, C128 -> throw wrongKind("getDouble", "a real");
            default -> codec != null ? codec.decode((int) getBits(segment, index)) : getLong(segment, index);
        };
    }

    /**
     * {@return element {@code index} as a float, rounded once to nearest even for f64 and 64-bit
     * integers, as NumPy's {@code astype(float32)} and XLA's convert round}
     *
     * @throws IllegalArgumentException for complex types
     */
    public float getFloat(MemorySegment segment, long index) {
        if (codec != null) {
            return codec.decode((int) getBits(segment, index));
        }
        return switch (type) {
            // Its bits: through a double, a signalling NaN would come back quiet.
            case F32 -> Float.intBitsToFloat((int) getBits(segment, index));
            // Through a double, a 64-bit integer would round twice: 2^55 + 2^31 + 1 to 2^55
            // instead of 2^55 + 2^32.
            case S64 -> (float) getBits(segment, index);
            case U64 -> unsignedToFloat(getBits(segment, index));
            default -> (float) getDouble(segment, index);
        };
    }

    /**
     * Writes a floating-point element, rounded to nearest even; for integer and pred types the
     * value must be a whole number in range.
     *
     * @throws IllegalArgumentException for complex types, or a non-integral or out-of-range value for an integer type
     */
    public void setDouble(MemorySegment segment, long index, double value) {
        switch (type) {
            case F32 -> setBits(segment, index, Float.floatToRawIntBits((float) value) & 0xffff_ffffL);
            case F64 -> setBits(segment, index, Double.doubleToRawLongBits(value));
            case C64, C128 -> throw wrongKind("setDouble", "a real");
            default -> {
                if (codec != null) {
                    setBits(segment, index, codec.encode(value));
                } else {
                    setLong(segment, index, exactLong(value));
                }
            }
        }
    }

    /** Writes a floating-point element from a float, rounded to nearest even as ml_dtypes does. See {@link #setDouble}. */
    public void setFloat(MemorySegment segment, long index, float value) {
        if (codec != null) {
            setBits(segment, index, codec.encode(value));
        } else if (type == DType.F32) {
            setBits(segment, index, Float.floatToRawIntBits(value) & 0xffff_ffffL);
        } else {
            setDouble(segment, index, value);
        }
    }

    /** {@return the real part of complex element {@code index}} @throws IllegalArgumentException for non-complex types */
    public double getReal(MemorySegment segment, long index) {
        return complexPart(segment, index, 0);
    }

    /** {@return the imaginary part of complex element {@code index}} @throws IllegalArgumentException for non-complex types */
    public double getImag(MemorySegment segment, long index) {
        return complexPart(segment, index, 1);
    }

    /**
     * Writes complex element {@code index} ({@code c64} rounds each part to float).
     *
     * @throws IllegalArgumentException for non-complex types
     */
    public void setComplex(MemorySegment segment, long index, double real, double imag) {
        checkIndex(index);
        switch (type) {
            case C64 -> {
                segment.set(I32, index * 8, Float.floatToRawIntBits((float) real));
                segment.set(I32, index * 8 + 4, Float.floatToRawIntBits((float) imag));
            }
            case C128 -> {
                segment.set(I64, index * 16, Double.doubleToRawLongBits(real));
                segment.set(I64, index * 16 + 8, Double.doubleToRawLongBits(imag));
            }
            default -> throw wrongKind("setComplex", "a complex");
        }
    }

    /**
     * Writes complex element {@code index} from float parts: c64 keeps their bits, a signalling
     * NaN's too ({@link #setComplex} cannot: widening a float to double quiets it); c128 widens
     * them. A name of its own, not an overload: integer arguments would pick the float one.
     *
     * @throws IllegalArgumentException for non-complex types
     */
    public void setComplexFloat(MemorySegment segment, long index, float real, float imag) {
        if (type != DType.C64) {
            setComplex(segment, index, real, imag);
            return;
        }
        checkIndex(index);
        segment.set(I32, index * 8, Float.floatToRawIntBits(real));
        segment.set(I32, index * 8 + 4, Float.floatToRawIntBits(imag));
    }

    /** {@return whether pred element {@code index} is true (any non-zero byte)} @throws IllegalArgumentException for other types */
    public boolean getBoolean(MemorySegment segment, long index) {
        if (type != DType.PRED) {
            throw wrongKind("getBoolean", "the pred");
        }
        return getBits(segment, index) != 0;
    }

    /** Writes pred element {@code index} as 1 or 0. @throws IllegalArgumentException for other types */
    public void setBoolean(MemorySegment segment, long index, boolean value) {
        if (type != DType.PRED) {
            throw wrongKind("setBoolean", "the pred");
        }
        setBits(segment, index, value ? 1 : 0);
    }

    private double complexPart(MemorySegment segment, long index, int part) {
        checkIndex(index);
        return switch (type) {
            case C64 -> Float.intBitsToFloat(segment.get(I32, index * 8 + part * 4L));
            case C128 -> Double.longBitsToDouble(segment.get(I64, index * 16 + part * 8L));
            default -> throw wrongKind(part == 0 ? "getReal" : "getImag", "a complex");
        };
    }

    private long lowMask() {
        int width = Math.min(type.bitWidth(), storageBits);
        return (1L << width) - 1;
    }

    private static void checkIndex(long index) {
        if (index < 0) {
            throw new IndexOutOfBoundsException("element index " + index + " is negative");
        }
    }

    private long exactLong(double value) {
        if (type == DType.U64 && value < 0) {
            throw Errors.valueOutOfRange(value, type);
        }
        long asLong = (long) value;
        if (asLong != value || (asLong == Long.MAX_VALUE && value >= 0x1p63)) {
            if (!(type == DType.U64 && value >= 0x1p63 && value < 0x1p64 && value == Math.rint(value))) {
                throw new IllegalArgumentException("value " + value + " is not a whole number that " + type + " can hold");
            }
            return (long) (value - 0x1p63) ^ Long.MIN_VALUE;
        }
        return asLong;
    }

    // Both halve with the lost bit kept as a sticky bit, so the one rounding is the conversion's.
    private static float unsignedToFloat(long bits) {
        return bits >= 0 ? bits : (float) ((bits >>> 1) | (bits & 1)) * 2f;
    }

    private static double unsignedToDouble(long bits) {
        return bits >= 0 ? bits : (double) ((bits >>> 1) | (bits & 1)) * 2.0;
    }

    private IllegalArgumentException wrongKind(String method, String wanted) {
        return new IllegalArgumentException(method + " needs " + wanted + " element type, not " + type);
    }

    /**
     * {@return whether {@code o} accesses the same type with the same storage bits} Two equal
     * accesses read and write every element the same way: {@code ElementAccess.of(S4)} and
     * {@code ElementAccess.packed(S4)} differ, {@code of(F32)} and {@code packed(F32)} do not.
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof ElementAccess a && type == a.type && storageBits == a.storageBits;
    }

    @Override
    public int hashCode() {
        return 31 * type.hashCode() + storageBits;
    }

    @Override
    public String toString() {
        return "ElementAccess[" + type + (storageBits < 8 * type.byteWidth() ? ", packed" : "") + "]";
    }
}
