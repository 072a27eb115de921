package dev.tensorbuf.cli;

import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.views.internal.Suggestions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Entry point of the {@code tensorbuf} command: picks the sub-command, parses its options,
 * prints help, and turns failures ({@link Failure}) into one line on stderr and an exit code
 * (0 ok, 2 bad input, 1 internal error with a hint); with {@code --json} the same message also
 * goes to stdout as {@code {"error": "...", "exit_code": N}}.
 *
 * {@snippet :
 * int code = Main.run(new String[] {"layout", "f32[3,5]{1,0:T(2,2)}", "--index", "2,4"}, stdin, out, err);
 * // code == 0; out: the layout description, ending "index [2, 4] -> offset 20"
 * }
 */
public final class Main {
    private static final String VERSION = "0.1.0";

    private Main() {}

    /**
     * The stack of the thread a command runs on (reserved, committed only as it is used): a
     * margin for what still recurses as deep as a module nests (calls, loops, the checks of
     * XLA's rewrites). An elementwise chain, which a Python loop in a jitted function writes
     * thousands of ops long, no longer does: it took about 25 KB of stack an op, and the JVM's
     * default 1 MiB stopped a chain of 2,000 adds.
     */
    static final long COMMAND_STACK_BYTES = 512L << 20;

    /** The commands, in the order help lists them. */
    static Map<String, Command> commands() {
        Map<String, Command> m = new LinkedHashMap<>();
        List<Command> all = List.of(
                new DemoCommand(),
                new LayoutCommand(),
                new RenderCommand(),
                new StridesCommand(),
                new IndexingCommand(),
                new SimplifyCommand(),
                new ComposeCommand(),
                new InspectCommand(),
                new ConvertCommand(),
                new PlanCommand(),
                new RunCommand(),
                new ServeCommand(),
                new FetchCommand(),
                new BenchCommand());
        for (Command c : all) {
            m.put(c.name(), c);
        }
        return m;
    }

    public static void main(String[] args) throws InterruptedException {
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        int[] result = {Failure.INTERNAL};
        Thread command = new Thread(null, () -> result[0] = run(args, stdin, System.out, System.err), "main", COMMAND_STACK_BYTES);
        command.start();
        command.join();
        int code = result[0];
        System.out.flush();
        // Returning ends the JVM with 0 as System.exit(0) does, shutdown hooks included, but without
        // Runtime.exit's logging: its first logger looks for a LoggerFinder on the class path, which
        // opens and reads the directory of tensorbuf-deps.jar (13,400 entries) that the command
        // itself never needed (bench/RESULTS.md, "Start-up"). Only when no other thread would keep
        // the JVM alive: System.exit stops those.
        if (code == 0 && nothingElseRunning()) {
            return;
        }
        System.exit(code);
    }

    /** Whether this thread's group, a command's threads' group, holds no other live non-daemon thread. */
    static boolean nothingElseRunning() {
        Thread self = Thread.currentThread();
        ThreadGroup group = self.getThreadGroup();
        Thread[] threads = new Thread[group.activeCount() + 16];
        int n = group.enumerate(threads, true);
        if (n == threads.length) {
            return false; // more than it could list: maybe one that is not a daemon
        }
        for (int i = 0; i < n; i++) {
            if (threads[i] != self && threads[i].isAlive() && !threads[i].isDaemon()) {
                return false;
            }
        }
        return true;
    }

    /** Words people reach for (the product's own description says "draw layouts"), and the command that does it. */
    private static final Map<String, String> WORDS_FOR = Map.of("draw", "render", "picture", "render", "maps", "indexing",
            "map", "indexing", "explain", "layout", "shape", "layout", "info", "inspect", "show", "inspect");

    /** Runs one command line with the given streams; {@return the exit code} */
    public static int run(String[] args, BufferedReader stdin, PrintStream out, PrintStream err) {
        Map<String, Command> commands = commands();
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h") || args[0].equals("help")) {
            if (args.length >= 2 && commands.containsKey(args[1])) {
                out.print(help(commands.get(args[1])));
            } else {
                out.print(overview(commands));
            }
            return 0;
        }
        if (args[0].equals("--version")) {
            out.println("tensorbuf " + VERSION);
            return 0;
        }
        Command command = commands.get(args[0]);
        List<String> rest = new ArrayList<>(Arrays.asList(args).subList(1, args.length));
        if (command == null) {
            String hint = args[0].startsWith("-") ? " (options follow a command: tensorbuf COMMAND [OPTIONS])"
                    : WORDS_FOR.containsKey(args[0]) ? " (did you mean " + WORDS_FOR.get(args[0]) + "?)"
                    : Suggestions.didYouMean(args[0], commands.keySet(), "");
            return fail("tensorbuf", new Failure(Failure.BAD_INPUT, "unknown command '" + Failure.clip(args[0]) + "'"
                    + hint + "; run 'tensorbuf --help' for the list"), mentionsJson(rest), out, err, null);
        }
        if (rest.contains("--help") || rest.contains("-h")) {
            out.print(help(command));
            return 0;
        }
        Invocation in = null;
        try {
            in = Invocation.parse(command, rest, stdin, out, err);
            return command.run(in);
        } catch (Throwable t) {
            boolean json = command.options().contains(Option.JSON) && (in == null ? mentionsJson(rest) : in.flag("json"));
            return fail("tensorbuf " + command.name(), Failure.of(t, rest), json, out, err, t);
        }
    }

    /**
     * Reports a failure: one line on stderr and, with {@code --json}, the same message as the
     * run's one JSON object on stdout, so a caller reading stdout always gets an object.
     */
    private static int fail(String who, Failure failure, boolean json, PrintStream out, PrintStream err, Throwable cause) {
        err.println(who + ": " + failure.message());
        if (failure.internal() && cause != null && System.getenv("TENSORBUF_DEBUG") != null) {
            cause.printStackTrace(err);
        }
        if (json) {
            Map<String, Object> object = new LinkedHashMap<>();
            object.put("error", failure.message());
            object.put("exit_code", failure.exitCode());
            out.println(Json.write(object));
        }
        return failure.exitCode();
    }

    /** Whether {@code --json} is among arguments that could not be parsed (before a {@code --}). */
    private static boolean mentionsJson(List<String> args) {
        for (String a : args) {
            if (a.equals("--")) {
                return false;
            }
            if (a.equals("--json")) {
                return true;
            }
        }
        return false;
    }

    static String overview(Map<String, Command> commands) {
        StringBuilder sb = new StringBuilder();
        sb.append("tensorbuf ").append(VERSION).append(": tensor buffers in off-heap memory, XLA layouts and indexing maps\n\n");
        sb.append("usage: tensorbuf <command> [options]\n");
        sb.append("       tensorbuf <command> --help | -h            a command's options and a real example\n");
        sb.append("       tensorbuf --help | -h | help [<command>]   this list, or that command's help\n");
        sb.append("       tensorbuf --version                        the version\n\ncommands:\n");
        int width = commands.keySet().stream().mapToInt(String::length).max().orElse(8);
        for (Command c : commands.values()) {
            sb.append("  ").append(String.format("%-" + width + "s", c.name())).append("  ").append(c.summary()).append('\n');
        }
        sb.append("\nexit codes: 0 ok, 2 bad input, 1 internal error\n");
        return sb.toString();
    }

    static String help(Command c) {
        StringBuilder sb = new StringBuilder();
        sb.append("usage: ").append(c.synopsis()).append("\n\n").append(c.description().strip()).append("\n");
        List<Option> options = new ArrayList<>(c.options());
        options.add(Option.flag("help", "show this help (also -h)"));
        sb.append("\noptions:\n");
        int width = options.stream().mapToInt(o -> label(o).length()).max().orElse(10);
        for (Option o : options) {
            sb.append("  ").append(String.format("%-" + width + "s", label(o))).append("  ").append(o.help())
                    .append(o.repeatable() ? " (repeatable)" : "").append('\n');
        }
        return sb.toString();
    }

    private static String label(Option o) {
        return "--" + o.name() + (o.takesValue() ? " " + o.valueName() : "");
    }
}
