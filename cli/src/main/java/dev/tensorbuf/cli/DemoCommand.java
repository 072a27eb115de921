package dev.tensorbuf.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code tensorbuf demo}: the main job on built-in data, one clear line a step (a few indented
 * lines where a picture helps). It grows with every capability of the library; each step is a
 * {@link DemoSteps.Step} that returns its line and its JSON facts.
 */
final class DemoCommand implements Command {
    @Override
    public String name() {
        return "demo";
    }

    @Override
    public String summary() {
        return "show tensorbuf at work on built-in data";
    }

    @Override
    public String synopsis() {
        return "tensorbuf demo [--json]";
    }

    @Override
    public String description() {
        return """
                Runs the library on built-in data, one line a step: memory spaces and the pooled
                allocator with its accounting, an XLA tiled layout with the memory position of
                every element, an indexing map simplified. Every step checks its own result; a
                failed check exits 1.

                example:
                  tensorbuf demo
                  [1/4] tiled layout f32[3,5]{1,0:T(2,2)}: 15 elements in 24 slots (9 padding), 96 bytes
                  ...
                """;
    }

    @Override
    public List<Option> options() {
        return List.of(Option.JSON);
    }

    @Override
    public int run(Invocation in) {
        in.expectAtMostPositionals(0);
        List<DemoSteps.Step> steps = DemoSteps.all();
        List<Object> facts = new ArrayList<>();
        boolean json = in.flag("json");
        for (int i = 0; i < steps.size(); i++) {
            DemoSteps.Result r = steps.get(i).run();
            if (!json) {
                in.out().println("[" + (i + 1) + "/" + steps.size() + "] " + r.line());
                r.detail().forEach(d -> in.out().println("      " + d));
            }
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("step", r.name());
            f.put("summary", r.line());
            f.putAll(r.facts());
            facts.add(f);
        }
        if (json) {
            Map<String, Object> all = new LinkedHashMap<>();
            all.put("steps", facts);
            in.printJson(all);
        }
        return 0;
    }
}
