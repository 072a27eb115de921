package dev.tensorbuf.cli;

import java.util.List;

/**
 * {@code tensorbuf demo}: the main job on built-in data, one clear line a step. It grows with
 * every capability of the library.
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
                Runs every capability on built-in data, one line a step.

                example:
                  tensorbuf demo
                """;
    }

    @Override
    public List<Option> options() {
        return List.of(Option.JSON);
    }

    @Override
    public int run(Invocation in) {
        in.expectAtMostPositionals(0);
        in.out().println("tensorbuf demo");
        return 0;
    }
}
