package dev.tensorbuf.cli;

import dev.tensorbuf.memory.internal.AsciiDigits;

/**
 * The messages the commands build in more than one place, so that an argument is refused in the
 * same words whichever command reads it.
 *
 * <p>Package-private: no other package of the command line words arguments ({@code render} only
 * draws, and this package depends on it, so it could not depend back), and this package is
 * exported only so that {@link Main} can be run.
 */
final class Errors {
    private Errors() {
    }

    /**
     * {@return the refusal of an argument with the command's usage line}: what to type instead is
     * the next thing the user needs
     *
     * @param problem what is wrong, e.g. {@code "missing MODULE.hlo"}
     */
    static UsageException withUsage(String problem, String synopsis) {
        return new UsageException(problem + " (usage: " + synopsis + ")");
    }

    /**
     * {@return the refusal of a number that does not parse}, e.g. {@code --offset: 'two' is not an integer}
     *
     * @param what the option or request key
     */
    static UsageException notAnInteger(String what, String text) {
        return new UsageException(what + ": '" + text + "' is not an integer");
    }

    /**
     * Refuses a number character outside ASCII in an argument, naming it and where: Java's
     * {@code Long.parseLong} would read {@code --sizes '３,16'} (fullwidth) as 3, which no peer does.
     * {@snippet :
     * Errors.requireAsciiDigits("--sizes", "３,16,16,3");
     * // throws: --sizes '３,16,16,3': '３' (U+FF13 FULLWIDTH DIGIT THREE) is not an ASCII digit at position 0
     * }
     *
     * @param what the option or request key
     */
    static void requireAsciiDigits(String what, String text) {
        AsciiDigits.require(text, 0, text.length(),
                (problem, at) -> new UsageException(what + " '" + text + "': " + problem + " at position " + at));
    }

    /** {@return as {@link #notAnInteger(String, String)}, for one entry of a list: the list is named too} */
    static UsageException notAnInteger(String what, String entry, String list) {
        return new UsageException(what + ": '" + entry + "' is not an integer (in '" + list + "')");
    }

    /** {@return the refusal of an option or argument that may be given once} */
    static UsageException givenTwice(String what) {
        return new UsageException(what + " given twice");
    }

    /** {@return the refusal of a tuple, token or opaque shape where a command reads one array} */
    static IllegalArgumentException notAnArray(String command, Object shape) {
        return new IllegalArgumentException(command + " needs an array shape, got " + shape);
    }

    /**
     * {@return the refusal of a {@code --batch} request without a key it cannot do without}
     *
     * @param what what the key holds, e.g. {@code "a list of integers"}
     */
    static IllegalArgumentException requestNeeds(String key, String what) {
        return new IllegalArgumentException("request needs \"" + key + "\": " + what);
    }
}
