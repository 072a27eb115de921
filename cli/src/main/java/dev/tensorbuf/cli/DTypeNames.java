package dev.tensorbuf.cli;

import dev.tensorbuf.views.DType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The one reading of element type names for every command that takes one ({@code convert
 * --dtype}, {@code strides} and {@code render --dtype}, {@code strides --batch}): XLA names
 * ({@code f32}, {@code bf16}, {@code s4}) and DirectML names ({@code FLOAT32}, {@code INT4}, with
 * or without {@code DML_TENSOR_DATA_TYPE_}), both in any case.
 *
 * {@snippet :
 * DTypeNames.parse("F32", "--dtype");     // DType.F32
 * DTypeNames.parse("float32", "--dtype"); // DType.F32
 * DTypeNames.parse("f33", "--dtype");     // throws: "--dtype: unknown element type 'f33'; expected an XLA name (pred, ...) ..."
 * }
 */
final class DTypeNames {
    private DTypeNames() {}

    /**
     * {@return the element type named {@code text}}
     *
     * @param what names the source in the message, e.g. {@code "--dtype"}
     * @throws IllegalArgumentException for an unknown name (listing the known ones), or a type without data
     */
    static DType parse(String text, String what) {
        Errors.requireAsciiDigits(what, text);
        String name = text.strip();
        DType t = DType.forXlaNameOrNull(name.toLowerCase(Locale.ROOT));
        if (t == null) {
            try {
                t = DType.fromDirectML(name.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException notDirectML) {
                // The whole list, no "did you mean": short names are two edits from several others (f99: f16, f32).
                throw new IllegalArgumentException(what + ": unknown element type '" + text + "'; expected an XLA name ("
                        + String.join(", ", xlaNames()) + ") or a DirectML name (FLOAT32, INT4, ...), in any case", notDirectML);
            }
        }
        if (!t.isArrayType()) {
            throw new IllegalArgumentException(what + ": element type '" + text + "' holds no data; expected a type"
                    + " such as f32, bf16 or s4");
        }
        return t;
    }

    private static List<String> xlaNames() {
        List<String> names = new ArrayList<>();
        for (DType t : DType.values()) {
            if (t.isArrayType()) {
                names.add(t.xlaName());
            }
        }
        return names;
    }
}
