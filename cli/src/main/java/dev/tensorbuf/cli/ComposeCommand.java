package dev.tensorbuf.cli;

import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code tensorbuf compose}: the composition of a consumer's map with a producer's map. */
final class ComposeCommand implements Command {
    @Override
    public String name() {
        return "compose";
    }

    @Override
    public String summary() {
        return "compose two indexing maps: the consumer's, then the producer's";
    }

    @Override
    public String synopsis() {
        return "tensorbuf compose 'CONSUMER' 'PRODUCER' [--json] [--batch]";
    }

    @Override
    public String description() {
        return """
                Composes two indexing maps as XLA's ComposeIndexingMaps(consumer, producer): the
                consumer's map (e.g. a fusion root's output to its operand) is applied first, then
                the producer's map (that operand's output to its own operand). The consumer's
                result count must equal the producer's dimension count. The result is simplified.
                --json prints {"map", "empty"} as simplify does. --batch reads {"consumer",
                "producer"} per stdin line.

                example:
                  tensorbuf compose '(d0, d1) -> (d1, d0), domain: d0 in [0, 2], d1 in [0, 1]' \\
                      '(d0, d1) -> (d0 * 3 + d1), domain: d0 in [0, 1], d1 in [0, 2]'
                  (d0, d1) -> (d1 * 3 + d0), domain: d0 in [0, 2], d1 in [0, 1]
                """;
    }

    @Override
    public List<Option> options() {
        return List.of(Option.JSON, Option.BATCH);
    }

    @Override
    public int run(Invocation in) throws Exception {
        if (in.flag("batch")) {
            return Batch.run(in, List.of("consumer", "producer"), r -> compose(
                    r.requiredString("consumer", "the consumer's map text"),
                    r.requiredString("producer", "the producer's map text")));
        }
        in.expectAtMostPositionals(2);
        Map<String, Object> result = compose(in.positional(0, "CONSUMER"), in.positional(1, "PRODUCER"));
        if (in.flag("json")) {
            in.printJson(result);
        } else {
            in.out().println(result.get("map"));
        }
        return 0;
    }

    static Map<String, Object> compose(String consumer, String producer) {
        IndexingMap m = IndexingMap.compose(IndexingMap.parse(producer), IndexingMap.parse(consumer)).simplify();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("map", m.toString());
        r.put("empty", m.isKnownEmpty());
        return r;
    }
}
