package dev.tensorbuf.net.internal;

import dev.tensorbuf.views.DType;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** Element types as Arrow names them: the integer and IEEE float types both hold byte for byte. */
public final class ArrowDTypes {
    private ArrowDTypes() {}

    /**
     * {@return Arrow's type for elements of {@code dtype}}
     *
     * @throws IllegalArgumentException for a type Arrow has no primitive for, naming it and what to do
     */
    public static ArrowType arrowType(DType dtype) {
        return switch (dtype) {
            case S8 -> new ArrowType.Int(8, true);
            case S16 -> new ArrowType.Int(16, true);
            case S32 -> new ArrowType.Int(32, true);
            case S64 -> new ArrowType.Int(64, true);
            case U8 -> new ArrowType.Int(8, false);
            case U16 -> new ArrowType.Int(16, false);
            case U32 -> new ArrowType.Int(32, false);
            case U64 -> new ArrowType.Int(64, false);
            case F16 -> new ArrowType.FloatingPoint(FloatingPointPrecision.HALF);
            case F32 -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
            case F64 -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
            case PRED -> throw new IllegalArgumentException("pred has no Arrow element type for a tensor: Arrow's bool"
                    + " packs eight to a byte, tensorbuf's pred is one byte each; convert it to u8 first");
            default -> throw new IllegalArgumentException(dtype + " has no Arrow element type (Arrow has integers, f16, f32"
                    + " and f64, and no bf16, f8, sub-byte or complex type); convert it to one of those first");
        };
    }

    /**
     * {@return tensorbuf's type for Arrow elements of {@code type}}
     *
     * @param where names the field in messages
     * @throws IllegalArgumentException for an Arrow type that is not an integer or IEEE float
     */
    public static DType dtype(ArrowType type, String where) {
        if (type instanceof ArrowType.Int i) {
            return switch (i.getBitWidth()) {
                case 8 -> i.getIsSigned() ? DType.S8 : DType.U8;
                case 16 -> i.getIsSigned() ? DType.S16 : DType.U16;
                case 32 -> i.getIsSigned() ? DType.S32 : DType.U32;
                case 64 -> i.getIsSigned() ? DType.S64 : DType.U64;
                default -> throw unsupported(type, where);
            };
        }
        if (type instanceof ArrowType.FloatingPoint f) {
            return switch (f.getPrecision()) {
                case HALF -> DType.F16;
                case SINGLE -> DType.F32;
                case DOUBLE -> DType.F64;
            };
        }
        throw unsupported(type, where);
    }

    private static IllegalArgumentException unsupported(ArrowType type, String where) {
        return new IllegalArgumentException(where + " holds " + type + " elements; tensorbuf reads tensors of Arrow"
                + " integers and floats (int8-64, uint8-64, halffloat, float, double)");
    }
}
