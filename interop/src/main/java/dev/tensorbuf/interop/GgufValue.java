package dev.tensorbuf.interop;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One GGUF metadata value: its GGUF value type and the value as Java holds it.
 * {@code UINT8}, {@code INT8}, {@code UINT16}, {@code INT16} and {@code INT32} are
 * {@link Integer}s in their type's range; {@code UINT32} and {@code INT64} are {@link Long}s;
 * {@code UINT64} is a {@link Long} holding the 64 bits (read it with
 * {@link Long#toUnsignedString}); {@code FLOAT32} a {@link Float}, {@code FLOAT64} a
 * {@link Double}, {@code BOOL} a {@link Boolean}, {@code STRING} a {@link String}, and
 * {@code ARRAY} a {@link GgufValue.Array} of values of one type (arrays of arrays included).
 * {@snippet :
 * GgufValue.u32(32);                                   // UINT32 32
 * GgufValue.string("llama");                           // STRING llama
 * GgufValue.array(GgufValue.Type.INT32, List.of(1, 2)); // ARRAY INT32[1, 2]
 * new GgufValue(GgufValue.Type.UINT8, 300);
 * // IllegalArgumentException: "UINT8 value 300 is out of range [0, 255]"
 * }
 *
 * @param type the GGUF value type
 * @param value the value, of the Java class its type says
 */
public record GgufValue(Type type, Object value) {
    /** GGUF's value types, with their ids in the file. */
    public enum Type {
        UINT8(0), INT8(1), UINT16(2), INT16(3), UINT32(4), INT32(5), FLOAT32(6), BOOL(7), STRING(8), ARRAY(9),
        UINT64(10), INT64(11), FLOAT64(12);

        private final int id;

        Type(int id) {
            this.id = id;
        }

        /** {@return the id GGUF files store} */
        public int id() {
            return id;
        }

        /** {@return the bytes of one value in the file: 1 to 8 for numbers and bools; for strings and arrays, the least (their length fields)} */
        public int minBytes() {
            return switch (this) {
                case UINT8, INT8, BOOL -> 1;
                case UINT16, INT16 -> 2;
                case UINT32, INT32, FLOAT32 -> 4;
                case UINT64, INT64, FLOAT64, STRING -> 8;
                case ARRAY -> 12;
            };
        }

        /**
         * {@return the type of this id}
         *
         * @throws IllegalArgumentException naming the id
         */
        public static Type fromId(long id) {
            for (Type t : values()) {
                if (t.id == id) {
                    return t;
                }
            }
            throw new IllegalArgumentException("unknown GGUF value type id " + id + "; expected 0 to 12");
        }
    }

    /**
     * An array of GGUF values, all of one type.
     *
     * @param elementType the type of every element
     * @param items the elements, each of the Java class {@code elementType} says
     */
    public record Array(Type elementType, List<Object> items) {
        /** @throws IllegalArgumentException if an item does not fit the element type */
        public Array {
            Objects.requireNonNull(elementType, "elementType");
            items = List.copyOf(items);
            for (int i = 0; i < items.size(); i++) {
                check(elementType, items.get(i), "item " + i + " of an array of " + elementType);
            }
        }

        @Override
        public String toString() {
            return elementType + items.toString();
        }
    }

    /** @throws IllegalArgumentException if the value is not of the class, or in the range, its type says */
    public GgufValue {
        Objects.requireNonNull(type, "type");
        check(type, value, type.toString());
    }

    private static void check(Type type, Object value, String what) {
        Objects.requireNonNull(value, what);
        Class<?> expected = switch (type) {
            case UINT8, INT8, UINT16, INT16, INT32 -> Integer.class;
            case UINT32, INT64, UINT64 -> Long.class;
            case FLOAT32 -> Float.class;
            case FLOAT64 -> Double.class;
            case BOOL -> Boolean.class;
            case STRING -> String.class;
            case ARRAY -> Array.class;
        };
        if (!expected.isInstance(value)) {
            throw new IllegalArgumentException(what + " value " + value + " is a " + value.getClass().getSimpleName()
                    + ", expected a " + expected.getSimpleName());
        }
        long[] range = switch (type) {
            case UINT8 -> new long[] {0, 255};
            case INT8 -> new long[] {-128, 127};
            case UINT16 -> new long[] {0, 65535};
            case INT16 -> new long[] {-32768, 32767};
            case UINT32 -> new long[] {0, 0xFFFF_FFFFL};
            default -> null;
        };
        if (range != null) {
            long v = ((Number) value).longValue();
            if (v < range[0] || v > range[1]) {
                throw new IllegalArgumentException(what + " value " + v + " is out of range " + Arrays.toString(range));
            }
        }
    }

    /** {@return a UINT32 value} @throws IllegalArgumentException if out of [0, 2^32 - 1] */
    public static GgufValue u32(long value) {
        return new GgufValue(Type.UINT32, value);
    }

    /** {@return an INT32 value} */
    public static GgufValue i32(int value) {
        return new GgufValue(Type.INT32, value);
    }

    /** {@return a UINT64 value of these 64 bits} */
    public static GgufValue u64(long bits) {
        return new GgufValue(Type.UINT64, bits);
    }

    /** {@return a FLOAT32 value} */
    public static GgufValue f32(float value) {
        return new GgufValue(Type.FLOAT32, value);
    }

    /** {@return a BOOL value} */
    public static GgufValue bool(boolean value) {
        return new GgufValue(Type.BOOL, value);
    }

    /** {@return a STRING value} */
    public static GgufValue string(String value) {
        return new GgufValue(Type.STRING, value);
    }

    /** {@return an ARRAY value} @throws IllegalArgumentException if an item does not fit the element type */
    public static GgufValue array(Type elementType, List<?> items) {
        return new GgufValue(Type.ARRAY, new Array(elementType, new ArrayList<Object>(items)));
    }

    /**
     * {@return the value as text: numbers in decimal ({@code UINT64} unsigned), strings as they
     * are, arrays of more than {@code maxItems} items as their first items and a count}
     */
    public String summary(int maxItems) {
        return switch (type) {
            case UINT64 -> Long.toUnsignedString((Long) value);
            case ARRAY -> {
                Array a = (Array) value;
                List<Object> shown = a.items().size() <= maxItems ? a.items() : a.items().subList(0, maxItems);
                StringBuilder b = new StringBuilder(a.elementType().toString()).append('[');
                for (int i = 0; i < shown.size(); i++) {
                    b.append(i == 0 ? "" : ", ").append(new GgufValue(a.elementType(), shown.get(i)).summary(maxItems));
                }
                if (shown.size() < a.items().size()) {
                    b.append(", ... ").append(a.items().size() - shown.size()).append(" more] (")
                            .append(a.items().size()).append(" items)");
                    yield b.toString();
                }
                yield b.append(']').toString();
            }
            default -> String.valueOf(value);
        };
    }

    @Override
    public String toString() {
        return type + " " + summary(Integer.MAX_VALUE);
    }
}
