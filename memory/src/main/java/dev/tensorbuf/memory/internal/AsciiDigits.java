package dev.tensorbuf.memory.internal;

/**
 * The one rule for digits in every text we read (shape, map and HLO text, .npy headers, JSON, the
 * command line): ASCII {@code 0-9} only, as XLA, NumPy and JSON take them. Java's
 * {@link Character#isDigit}, {@link Long#parseLong} and {@link java.math.BigInteger} accept every
 * Unicode decimal digit, so {@code "３"} (fullwidth) or {@code "٣"} (Arabic-Indic) would silently
 * read as 3; each parser asks here instead and names the character it refuses.
 *
 * {@snippet :
 * AsciiDigits.isDigit('3');              // true
 * AsciiDigits.isDigit('３');             // false
 * AsciiDigits.find("[0, ３]", 0, 6);      // 4
 * AsciiDigits.notAsciiDigit('３');       // "'３' (U+FF13 FULLWIDTH DIGIT THREE) is not an ASCII digit"
 * }
 *
 * <p>Not API: exported to the modules whose parsers use it.
 */
public final class AsciiDigits {
    private AsciiDigits() {}

    /** {@return whether {@code c} is one of {@code 0-9}} @param c a character or code point */
    public static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    /**
     * {@return whether {@code codePoint} is a number character outside ASCII}: a decimal digit of
     * another script, a superscript or subscript, a circled or fractional number, a Roman numeral.
     * A user who typed one meant a number, so it gets its own message rather than "unexpected".
     *
     * @param codePoint a code point
     */
    public static boolean isOtherDigit(int codePoint) {
        if (codePoint < 0x80) {
            return false;
        }
        int type = Character.getType(codePoint);
        return type == Character.DECIMAL_DIGIT_NUMBER || type == Character.OTHER_NUMBER
                || type == Character.LETTER_NUMBER;
    }

    /**
     * {@return the index of the first {@linkplain #isOtherDigit non-ASCII number character} in
     * {@code text[from, to)}, or -1}
     *
     * @param text the text
     * @param from first index searched
     * @param to end of the search, exclusive
     */
    public static int find(CharSequence text, int from, int to) {
        for (int i = from; i < to; ) {
            int cp = Character.codePointAt(text, i);
            if (isOtherDigit(cp)) {
                return i;
            }
            i += Character.charCount(cp);
        }
        return -1;
    }

    /**
     * {@return the message for a number character that is not an ASCII digit}, naming it by its
     * Unicode name, e.g. {@code "'٣' (U+0663 ARABIC-INDIC DIGIT THREE) is not an ASCII digit"}
     *
     * @param codePoint the character refused
     */
    public static String notAsciiDigit(int codePoint) {
        return describe(codePoint) + " is not an ASCII digit";
    }

    /** {@link #notAsciiDigit} for the code point at {@code text[at]} @param text the text @param at its index */
    public static String notAsciiDigit(CharSequence text, int at) {
        return notAsciiDigit(Character.codePointAt(text, at));
    }

    /**
     * {@return the character quoted, with its code point and Unicode name}, e.g.
     * {@code "'³' (U+00B3 SUPERSCRIPT THREE)"}
     *
     * @param codePoint the character
     */
    public static String describe(int codePoint) {
        String name = Character.getName(codePoint);
        return "'" + new String(Character.toChars(codePoint)) + "' (" + String.format("U+%04X", codePoint)
                + (name == null ? "" : " " + name) + ")";
    }

    /**
     * Refuses a number character outside ASCII in {@code text[from, to)}, through the caller's own
     * exception type so that each format keeps its way of giving the position.
     *
     * @param text the text
     * @param from first index checked
     * @param to end of the check, exclusive
     * @param failure makes the exception from the problem and the index of the character
     * @param <X> the exception type
     * @throws X when there is such a character
     */
    public static <X extends RuntimeException> void require(CharSequence text, int from, int to, Failure<X> failure) {
        int at = find(text, from, to);
        if (at >= 0) {
            throw failure.at(notAsciiDigit(text, at), at);
        }
    }

    /** Makes a parser's exception for a problem at an index of its text. @param <X> the exception type */
    @FunctionalInterface
    public interface Failure<X extends RuntimeException> {
        /** {@return the exception} @param problem what was wrong @param position the index of the character */
        X at(String problem, int position);
    }
}
