package dev.tensorbuf.cli;

import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code tensorbuf simplify}: XLA's range-aware simplification of an indexing map. */
final class SimplifyCommand implements Command {
    @Override
    public String name() {
        return "simplify";
    }

    @Override
    public String summary() {
        return "simplify an indexing map using the ranges of its variables";
    }

    @Override
    public String synopsis() {
        return "tensorbuf simplify 'MAP' [--json] [--batch]";
    }

    @Override
    public String description() {
        return """
                Reads an indexing map in XLA's text (current '/' or legacy 'floordiv' spelling)
                and prints it simplified with its variables' ranges, or KNOWN EMPTY. --json prints
                {"map", "empty"}. --batch reads {"map"} per stdin line.

                example:
                  tensorbuf simplify '(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 6], d1 in [0, 14]'
                  (d0, d1) -> (d0, d1), domain: d0 in [0, 6], d1 in [0, 14]
                """;
    }

    @Override
    public List<Option> options() {
        return List.of(Option.JSON, Option.BATCH);
    }

    @Override
    public int run(Invocation in) throws Exception {
        if (in.flag("batch")) {
            return Batch.run(in, List.of("map"), r -> simplify(r.requiredString("map", "the map text")));
        }
        in.expectAtMostPositionals(1);
        Map<String, Object> result = simplify(in.positional(0, "MAP"));
        if (in.flag("json")) {
            in.printJson(result);
        } else {
            in.out().println(result.get("map"));
        }
        return 0;
    }

    static Map<String, Object> simplify(String text) {
        IndexingMap m = IndexingMap.parse(text).simplify();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("map", m.toString());
        r.put("empty", m.isKnownEmpty());
        return r;
    }
}
