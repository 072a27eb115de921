package dev.tensorbuf.views.indexing;

import dev.tensorbuf.memory.internal.AsciiDigits;
import java.util.Objects;

/**
 * A variable of an indexing map's domain: its name and inclusive bounds. An empty name means
 * the default, printed by position: {@code d<i>}, {@code s<i>} or {@code rt<i>}.
 *
 * {@snippet :
 * Variable v = Variable.of(0, 9);          // prints as d0 when it is the first dimension
 * Variable t = new Variable("th_x", new Interval(0, 127));
 * }
 *
 * @param name the custom name, or {@code ""} for the default
 * @param bounds the inclusive bounds
 */
public record Variable(String name, Interval bounds) {
    /** Checks the name: empty, or a letter or {@code _} followed by letters, digits or {@code _}. */
    public Variable {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(bounds, "bounds");
        if (!name.isEmpty() && !isIdentifier(name)) {
            throw new IllegalArgumentException("variable name '" + name
                    + "' is not an identifier (a letter or '_', then letters, ASCII digits or '_')");
        }
        if (name.equals("floordiv") || name.equals("ceildiv") || name.equals("mod")
                || name.equals("min") || name.equals("max") || name.equals("in")
                || name.equals("floorDiv") || name.equals("ceilDiv")) {
            throw new IllegalArgumentException("variable name '" + name + "' is a keyword");
        }
    }

    /** {@return an unnamed variable with bounds {@code [lo, hi]}} @param lo lower bound @param hi upper bound */
    public static Variable of(long lo, long hi) {
        return new Variable("", new Interval(lo, hi));
    }

    /** {@return this variable with other bounds} @param newBounds the bounds */
    public Variable withBounds(Interval newBounds) {
        return new Variable(name, newBounds);
    }

    static boolean isIdentifier(String s) {
        if (s.isEmpty() || !(Character.isLetter(s.charAt(0)) || s.charAt(0) == '_')) {
            return false;
        }
        for (int i = 1; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(Character.isLetter(c) || AsciiDigits.isDigit(c) || c == '_')) {
                return false;
            }
        }
        return true;
    }
}
