package dev.tensorbuf.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
        return "tensorbuf demo [--out DIR] [--json]";
    }

    @Override
    public String description() {
        return """
                Runs the library on built-in data, one line a step: memory spaces and the pooled
                allocator with its accounting, an XLA tiled layout with the memory position of
                every element, an indexing map simplified, ops as views, then the main job: a
                synthetic u8 NHWC image batch staged to normalised f32 NCHW and to bf16 in TPU
                tiles T(8,128)(2,1) (throughput against MemorySegment.copy), exported through
                DLPack, written as .npy, and its layout drawn. Files go to --out (default
                ./tensorbuf-demo). Every step checks its own result; a failed check exits 1.

                example:
                  tensorbuf demo
                  [1/11] memory spaces: host buffers in S(5) from confined and shared arenas; ...
                  ...
                  [7/11] staged a u8 NHWC batch [8,224,224,3] to f32 NCHW, normalised per channel: ...
                """;
    }

    @Override
    public List<Option> options() {
        return List.of(Option.value("out", "DIR", false, "where the .npy file and the picture go, made if missing in a folder that exists (default ./tensorbuf-demo)"),
                Option.JSON);
    }

    @Override
    public int run(Invocation in) throws IOException {
        in.expectAtMostPositionals(0);
        Path outDir = Path.of(in.value("out", "tensorbuf-demo"));
        CliFiles.outputFolder(outDir, "--out");
        List<Object> facts = new ArrayList<>();
        boolean json = in.flag("json");
        try (DemoPipeline pipeline = new DemoPipeline(outDir)) {
            List<DemoSteps.Step> steps = new ArrayList<>(DemoSteps.all());
            steps.addAll(pipeline.steps());
            for (int i = 0; i < steps.size(); i++) {
                DemoSteps.Result r = steps.get(i).run();
                if (!json) {
                    in.out().println("[" + (i + 1) + "/" + steps.size() + "] " + r.line());
                    r.detail().forEach(d -> in.out().println("      " + d));
                    in.out().flush();
                }
                Map<String, Object> f = new LinkedHashMap<>();
                f.put("step", r.name());
                f.put("summary", r.line());
                f.putAll(r.facts());
                facts.add(f);
            }
        }
        if (json) {
            Map<String, Object> all = new LinkedHashMap<>();
            all.put("steps", facts);
            in.printJson(all);
        }
        return 0;
    }
}
