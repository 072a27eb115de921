package dev.tensorbuf.cli;

import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.views.internal.Suggestions;
import java.io.BufferedReader;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A command's parsed arguments and its streams.
 *
 * {@snippet :
 * // tensorbuf strides --dtype f32 --sizes 2,3 --index 1,2 --index 0,0
 * in.value("dtype");        // "f32"
 * in.longs("sizes");        // [2, 3]
 * in.values("index");       // ["1,2", "0,0"]
 * in.flag("json");          // false
 * }
 */
public final class Invocation {
    private final Command command;
    private final List<String> positionals;
    private final Map<String, List<String>> options;
    private final BufferedReader stdin;
    private final PrintStream out;
    private final PrintStream err;

    Invocation(Command command, List<String> positionals, Map<String, List<String>> options,
               BufferedReader stdin, PrintStream out, PrintStream err) {
        this.command = command;
        this.positionals = List.copyOf(positionals);
        this.options = options;
        this.stdin = stdin;
        this.out = out;
        this.err = err;
    }

    /**
     * Parses {@code args} (after the command word) against the command's options:
     * {@code --name value}, {@code --name=value}, flags, and {@code --} to end options.
     */
    static Invocation parse(Command command, List<String> args, BufferedReader stdin, PrintStream out, PrintStream err) {
        Map<String, Option> known = new LinkedHashMap<>();
        for (Option o : command.options()) {
            known.put(o.name(), o);
        }
        Map<String, List<String>> values = new LinkedHashMap<>();
        List<String> positionals = new ArrayList<>();
        boolean optionsEnded = false;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (!optionsEnded && isShortOption(a)) {
                throw unknownShortOption(a, known.keySet());
            }
            if (optionsEnded || !a.startsWith("--") || a.equals("--")) {
                if (a.equals("--") && !optionsEnded) {
                    optionsEnded = true;
                } else {
                    positionals.add(a);
                }
                continue;
            }
            String name = a.substring(2);
            String inline = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                inline = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            Option o = known.get(name);
            if (o == null) {
                String unknown = name;
                throw new UsageException("unknown option --" + unknown + valueHint(unknown, known.values())
                        .orElseGet(() -> Suggestions.didYouMean(unknown, known.keySet(), "--")));
            }
            String v;
            if (o.takesValue()) {
                if (inline != null) {
                    v = inline;
                } else if (i + 1 < args.size()) {
                    v = args.get(++i);
                } else {
                    throw new UsageException("option --" + name + " needs a value " + o.valueName());
                }
            } else {
                if (inline != null) {
                    throw new UsageException("option --" + name + " takes no value");
                }
                v = "true";
            }
            List<String> list = values.computeIfAbsent(name, k -> new ArrayList<>());
            if (!o.repeatable() && !list.isEmpty()) {
                throw Errors.givenTwice("option --" + name);
            }
            list.add(v);
        }
        return new Invocation(command, positionals, values, stdin, out, err);
    }

    /**
     * Whether {@code a} looks like a single-dash option ({@code -q}, {@code -o.npy}). Only
     * {@code --name} options exist (and {@code -h}, which {@code Main} answers before parsing); taken as
     * a file name, a mistyped {@code -q} made {@code convert -q in.npy out.npy} complain about
     * {@code out.npy}, and {@code convert in.npy -o.npy} wrote a file named {@code -o.npy}. A lone
     * {@code -} is a positional: commands that read standard input take it, the others refuse it.
     */
    private static boolean isShortOption(String a) {
        return a.length() > 1 && a.charAt(0) == '-' && a.charAt(1) != '-';
    }

    /**
     * {@return a hint when {@code name} is one of an option's listed values, as in {@code
     * --input-to-output} for {@code --direction input-to-output}}
     */
    private static Optional<String> valueHint(String name, Collection<Option> options) {
        for (Option o : options) {
            if (o.takesValue() && Arrays.asList(o.valueName().split("\\|")).contains(name)) {
                return Optional.of(" (did you mean --" + o.name() + " " + name + "?)");
            }
        }
        return Optional.empty();
    }

    private static UsageException unknownShortOption(String a, Set<String> known) {
        String name = a.substring(1);
        String hint;
        if (name.equals("o") && known.contains("out")) {
            // -o is output almost everywhere, though --offset starts with o too (render).
            hint = " (did you mean --out?)";
        } else if (name.length() == 1) {
            // One letter is too short for the edit distance; the unique option it starts is what was meant.
            List<String> starting = known.stream().filter(k -> k.startsWith(name)).toList();
            hint = starting.size() == 1 ? " (did you mean --" + starting.getFirst() + "?)" : "";
        } else {
            hint = Suggestions.didYouMean(name, known, "--");
        }
        return new UsageException("unknown option " + a + hint + "; options start with --, and a file whose name starts"
                + " with '-' is given as ./" + a);
    }

    /** {@return the command being run} */
    public Command command() {
        return command;
    }

    /** {@return the arguments that are not options, in order} */
    public List<String> positionals() {
        return positionals;
    }

    /**
     * {@return positional argument {@code i}}
     *
     * @throws UsageException naming {@code what} when it is missing
     */
    public String positional(int i, String what) {
        if (i >= positionals.size()) {
            throw Errors.withUsage("missing " + what, command.synopsis());
        }
        return positionals.get(i);
    }

    /** Fails when more than {@code n} positional arguments were given. */
    public void expectAtMostPositionals(int n) {
        if (positionals.size() > n) {
            throw Errors.withUsage("unexpected argument '" + positionals.get(n) + "'", command.synopsis());
        }
    }

    /** {@return whether a flag was given} */
    public boolean flag(String name) {
        return options.containsKey(name);
    }

    /** {@return the names of the options given, in the order first given} */
    public Set<String> optionNames() {
        return Collections.unmodifiableSet(options.keySet());
    }

    /** {@return the value of an option, or null when absent} */
    public String value(String name) {
        List<String> v = options.get(name);
        return v == null ? null : v.getFirst();
    }

    /** {@return the value of an option, or {@code fallback} when absent} */
    public String value(String name, String fallback) {
        return Objects.requireNonNullElse(value(name), fallback);
    }

    /** {@return every value of a repeatable option, in order; empty when absent} */
    public List<String> values(String name) {
        return options.getOrDefault(name, List.of());
    }

    /**
     * {@return a comma-separated list of integers, or null when the option is absent}
     *
     * @throws UsageException naming the option and the bad entry
     */
    public long[] longs(String name) {
        String v = value(name);
        return v == null ? null : parseLongs(v, "--" + name);
    }

    /**
     * {@return one integer, or null when the option is absent}
     * {@snippet :
     * // tensorbuf strides ... --offset 2
     * in.longValue("offset");   // 2
     * }
     *
     * @throws UsageException naming the option and the value when it is not an integer
     */
    public Long longValue(String name) {
        String v = value(name);
        if (v == null) {
            return null;
        }
        Errors.requireAsciiDigits("--" + name, v);
        try {
            return Long.parseLong(v.strip());
        } catch (NumberFormatException e) {
            throw Errors.notAnInteger("--" + name, v);
        }
    }

    /** Parses {@code "1,2,3"} (spaces and brackets allowed); {@code what} names it in errors. */
    public static long[] parseLongs(String text, String what) {
        Errors.requireAsciiDigits(what, text);
        String t = text.strip();
        if (t.startsWith("[") && t.endsWith("]")) {
            t = t.substring(1, t.length() - 1);
        }
        if (t.isBlank()) {
            return new long[0];
        }
        String[] parts = t.split(",", -1);
        long[] r = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                r[i] = Long.parseLong(parts[i].strip());
            } catch (NumberFormatException e) {
                throw Errors.notAnInteger(what, parts[i].strip(), text);
            }
        }
        return r;
    }

    /** {@return standard output} */
    public PrintStream out() {
        return out;
    }

    /** {@return standard error} */
    public PrintStream err() {
        return err;
    }

    /** {@return standard input} */
    public BufferedReader stdin() {
        return stdin;
    }

    /** Prints one JSON value on its own line. */
    public void printJson(Object value) {
        out.println(Json.write(value));
    }
}
