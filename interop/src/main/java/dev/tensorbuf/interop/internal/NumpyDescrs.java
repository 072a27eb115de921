package dev.tensorbuf.interop.internal;

import java.util.Map;

/**
 * NumPy's other spellings of the descrs a {@code .npy} header may hold, as {@code np.dtype} (and so
 * {@code np.load}'s {@code descr_to_dtype}) reads them in NumPy 2 on a 64-bit Linux or macOS
 * machine: one-character codes ({@code 'd'}, {@code '<i'}, {@code '?'}), names ({@code 'float32'},
 * {@code 'intc'}, {@code 'double'}), each mapped to its kind and width ({@code 'f8'}, {@code 'i4'},
 * {@code 'b1'}). Names take no byte-order character ({@code '<int32'} is refused by NumPy too).
 *
 * {@snippet :
 * NumpyDescrs.kindAndWidth("d", false);        // "f8"
 * NumpyDescrs.kindAndWidth("int32", true);     // "i4"
 * NumpyDescrs.kindAndWidth("int32", false);    // "int32": a name after '<' is no spelling NumPy reads
 * NumpyDescrs.longDouble("g");                 // "long double (np.longdouble)"
 * }
 */
final class NumpyDescrs {
    private NumpyDescrs() {
    }

    private static final Map<String, String> CODES = Map.ofEntries(
            Map.entry("?", "b1"), Map.entry("b", "i1"), Map.entry("B", "u1"), Map.entry("h", "i2"), Map.entry("H", "u2"),
            Map.entry("i", "i4"), Map.entry("I", "u4"), Map.entry("l", "i8"), Map.entry("L", "u8"), Map.entry("q", "i8"),
            Map.entry("Q", "u8"), Map.entry("p", "i8"), Map.entry("P", "u8"), Map.entry("n", "i8"), Map.entry("N", "u8"),
            Map.entry("e", "f2"), Map.entry("f", "f4"), Map.entry("d", "f8"), Map.entry("F", "c8"), Map.entry("D", "c16"));

    private static final Map<String, String> NAMES = Map.ofEntries(
            Map.entry("bool", "b1"), Map.entry("bool_", "b1"),
            Map.entry("int8", "i1"), Map.entry("int16", "i2"), Map.entry("int32", "i4"), Map.entry("int64", "i8"),
            Map.entry("uint8", "u1"), Map.entry("uint16", "u2"), Map.entry("uint32", "u4"), Map.entry("uint64", "u8"),
            Map.entry("float16", "f2"), Map.entry("float32", "f4"), Map.entry("float64", "f8"),
            Map.entry("complex64", "c8"), Map.entry("complex128", "c16"),
            Map.entry("byte", "i1"), Map.entry("ubyte", "u1"), Map.entry("short", "i2"), Map.entry("ushort", "u2"),
            Map.entry("intc", "i4"), Map.entry("uintc", "u4"), Map.entry("long", "i8"), Map.entry("ulong", "u8"),
            Map.entry("longlong", "i8"), Map.entry("ulonglong", "u8"), Map.entry("intp", "i8"), Map.entry("uintp", "u8"),
            Map.entry("int", "i8"), Map.entry("int_", "i8"), Map.entry("uint", "u8"),
            Map.entry("half", "f2"), Map.entry("single", "f4"), Map.entry("double", "f8"), Map.entry("float", "f8"),
            Map.entry("csingle", "c8"), Map.entry("cdouble", "c16"), Map.entry("complex", "c16"),
            Map.entry("object", "O"), Map.entry("object_", "O"), Map.entry("str", "U"), Map.entry("str_", "U"),
            Map.entry("bytes", "S"), Map.entry("bytes_", "S"), Map.entry("datetime64", "M8"), Map.entry("timedelta64", "m8"));

    /**
     * {@return the kind and width NumPy reads {@code body} as, e.g. {@code "i4"}; {@code body} itself
     * when it is no other spelling}
     *
     * @param body the descr without its byte-order character
     * @param bare whether the descr had no byte-order character, so that a name may be read
     */
    static String kindAndWidth(String body, boolean bare) {
        String code = CODES.get(body);
        if (code != null) {
            return code;
        }
        if (bare) {
            String named = NAMES.get(body);
            if (named != null) {
                return named;
            }
        }
        return body;
    }

    /**
     * {@return what NumPy's long double spelling {@code body} is, or null for another} np.save writes
     * np.longdouble as {@code '<f16'} (x86's 80-bit extended precision padded to 16 bytes; 12 on
     * 32-bit x86), a type with no element type here.
     *
     * @param body the descr without its byte-order character
     */
    static String longDouble(String body) {
        return switch (body) {
            case "g", "f16", "f12", "longdouble", "float128", "float96" -> "long double (np.longdouble)";
            case "G", "c32", "c24", "clongdouble", "complex256", "complex192" -> "complex long double (np.clongdouble)";
            default -> null;
        };
    }
}
