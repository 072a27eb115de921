package dev.tensorbuf.cli;

/**
 * A command-line option {@code --name [VALUE]}.
 *
 * {@snippet :
 * Option.value("index", "I0,I1,..", true, "a logical index to map to its linear position");
 * Option.flag("json", "print one JSON object instead of text");
 * }
 *
 * @param name the name without dashes
 * @param valueName the placeholder shown in help, or null for a flag without a value
 * @param repeatable whether the option may be given more than once
 * @param help one line of help
 */
public record Option(String name, String valueName, boolean repeatable, String help) {
    /** {@return an option that takes a value} */
    public static Option value(String name, String valueName, boolean repeatable, String help) {
        return new Option(name, valueName, repeatable, help);
    }

    /** {@return a flag without a value} */
    public static Option flag(String name, String help) {
        return new Option(name, null, false, help);
    }

    /** The {@code --json} flag every command with machine-readable output shares. */
    public static final Option JSON = flag("json", "print one JSON object instead of text");

    /** The {@code --batch} flag of the query commands. */
    public static final Option BATCH = flag("batch", "read one JSON request per stdin line, write one JSON result per line");

    /** {@return whether the option takes a value} */
    public boolean takesValue() {
        return valueName != null;
    }
}
