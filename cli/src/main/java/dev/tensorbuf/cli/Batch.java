package dev.tensorbuf.cli;

import dev.tensorbuf.interop.json.Json;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The {@code --batch} loop shared by the query commands: one JSON request per input line, one
 * JSON result per output line, in order, so thousands of queries run in one JVM. A request that
 * fails gives {@code {"error": "..."}} on its line and the loop goes on; blank lines are skipped.
 * The exit code is 0 whenever the input could be read: per-request failures are data.
 */
final class Batch {
    private Batch() {}

    /** Runs {@code handler} on every request line; returns 0. */
    static int run(Invocation in, Function<Map<String, Object>, Object> handler) throws IOException {
        String line;
        while ((line = in.stdin().readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            Object result;
            try {
                result = handler.apply(Json.parseObject(line));
            } catch (IllegalArgumentException | IndexOutOfBoundsException | UsageException | ClassCastException e) {
                Map<String, Object> error = new LinkedHashMap<>();
                error.put("error", e instanceof ClassCastException ? "a request field has the wrong type" : e.getMessage());
                result = error;
            }
            in.printJson(result);
            in.out().flush();
        }
        return 0;
    }
}
