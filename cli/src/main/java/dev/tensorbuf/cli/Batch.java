package dev.tensorbuf.cli;

import dev.tensorbuf.interop.json.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The {@code --batch} loop shared by the query commands: one JSON request per input line, one
 * JSON result per output line, in order, so thousands of queries run in one JVM and result
 * line N always answers request line N.
 *
 * <ul>
 * <li>A request that fails, for whatever reason, gives {@code {"error": "..."}} on its line and
 *     the loop goes on: a line that is not JSON or not an object (the position named), an
 *     unknown key or a value of the wrong type, null included (both named, see
 *     {@link BatchRequest}), bad values, input nested too deeply to process (a
 *     {@link StackOverflowError}), not enough memory, and internal errors alike.</li>
 * <li>A blank line is answered with {@code {"error": "blank line: expected a JSON request object"}},
 *     so results keep pairing with requests.</li>
 * <li>The command's other options are refused (exit 2) rather than ignored: each request carries
 *     everything. {@code --json} is allowed and changes nothing.</li>
 * <li>The exit code is 0 when every line was answered, even with errors: per-request failures are
 *     data. It is 1 when some request hit an internal error (its line says so), so defects are
 *     not lost in the output.</li>
 * </ul>
 *
 * {@snippet :
 * // printf '{"map": "(d0) -> (d0 mod 4), domain: d0 in [0, 3]"}\n\n{"mapp": ""}\n' | tensorbuf simplify --batch
 * // {"map":"(d0) -> (d0), domain: d0 in [0, 3]","empty":false}
 * // {"error":"blank line: expected a JSON request object"}
 * // {"error":"unknown request key 'mapp' (did you mean map?); keys: map"}
 * }
 */
final class Batch {
    private Batch() {}

    /**
     * Answers every request line with {@code handler}.
     *
     * @param keys the request keys the command reads, in the order its help lists them
     * @return 0, or 1 when a request hit an internal error
     * @throws UsageException when options other than {@code --batch} and {@code --json}, or positional arguments, were given
     */
    static int run(Invocation in, List<String> keys, Function<BatchRequest, Object> handler) throws IOException {
        in.expectAtMostPositionals(0);
        for (String option : in.optionNames()) {
            if (!option.equals("batch") && !option.equals("json")) {
                throw new UsageException("--" + option + " cannot be combined with --batch: each request line carries"
                        + " its own values (keys: " + String.join(", ", keys) + ")");
            }
        }
        boolean internalError = false;
        String line;
        while ((line = in.stdin().readLine()) != null) {
            String answer;
            try {
                if (line.isBlank()) {
                    throw new IllegalArgumentException("blank line: expected a JSON request object");
                }
                answer = Json.write(handler.apply(BatchRequest.parse(line, keys)));
            } catch (Throwable t) {
                // Throwable, not Exception: one request too deep (StackOverflowError) or too big
                // (OutOfMemoryError) must not cost the answers to the requests after it.
                Failure failure = Failure.of(t, typed(line));
                internalError |= failure.internal();
                Map<String, Object> error = new LinkedHashMap<>();
                error.put("error", failure.message());
                answer = Json.write(error);
            }
            in.out().println(answer);
            in.out().flush();
        }
        return internalError ? Failure.INTERNAL : 0;
    }

    /** {@return what the user typed on a request line: the line and its top-level strings (a map, a module)} */
    private static List<String> typed(String line) {
        List<String> typed = new ArrayList<>(List.of(line));
        try {
            if (Json.parse(line) instanceof Map<?, ?> request) {
                for (Object value : request.values()) {
                    if (value instanceof String s) {
                        typed.add(s);
                    }
                }
            }
        } catch (RuntimeException notJson) {
            // The line alone, then: the parser's message quotes it.
        }
        return typed;
    }
}
