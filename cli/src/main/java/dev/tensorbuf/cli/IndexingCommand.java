package dev.tensorbuf.cli;

import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.ops.indexing.HloIndexing;
import dev.tensorbuf.ops.indexing.HloIndexing.InstructionIndexing;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code tensorbuf indexing}: the indexing maps of one HLO instruction (seed 004), printed as
 * XLA's {@code HloInstructionIndexing::ToString()} or as JSON.
 */
final class IndexingCommand implements Command {
    private static final Option INSTRUCTION = Option.value("instruction", "NAME", false,
            "the instruction (default: the ENTRY computation's ROOT)");
    private static final Option DIRECTION = Option.value("direction", "output-to-input|input-to-output", false,
            "which way to map (default output-to-input)");
    private static final Option OPERAND = Option.value("operand", "K", false,
            "output-to-input: print only operand K; input-to-output: map from operand K (default 0)");
    private static final Option OUTPUT = Option.value("output", "K", false,
            "output-to-input: map from output K of a multi-output op (default 0); input-to-output: print only output K");
    private static final Option PHYSICAL = Option.flag("physical",
            "index physical (layout-ordered) dimensions, as XLA's use_physical_layout");

    @Override
    public String name() {
        return "indexing";
    }

    @Override
    public String summary() {
        return "indexing maps of an HLO instruction (output-to-input or input-to-output)";
    }

    @Override
    public String synopsis() {
        return "tensorbuf indexing FILE|- [--instruction NAME] [--direction output-to-input|input-to-output] "
                + "[--operand K] [--output K] [--physical] [--json] [--batch]";
    }

    @Override
    public String description() {
        return """
                Reads an HLO module (a file, or stdin for -) and prints the indexing maps of one
                instruction: for output-to-input, per operand, the operand elements one output
                element reads; for input-to-output, per output, the output elements one operand
                element reaches. Fusions are composed through their computation. Ops without
                indexing print 'unknown indexing'. --json prints {"instruction", "direction",
                "operands": [{"operand": K, "maps": [...]}]} (for input-to-output, K numbers the
                outputs). --batch reads {"hlo", "instruction", "direction", "operand", "output",
                "physical"} per stdin line and writes one JSON result per line.

                example (file t.hlo):
                  HloModule m
                  ENTRY e {
                    p0 = f32[3,12288,6,128] parameter(0)
                    ROOT t = f32[3,6,128,12288] transpose(p0), dimensions={0,2,3,1}
                  }
                  tensorbuf indexing t.hlo
                  operand id = 0 (d0, d1, d2, d3) -> (d0, d3, d1, d2), domain: d0 in [0, 2], d1 in [0, 5], d2 in [0, 127], d3 in [0, 12287]
                """;
    }

    @Override
    public List<Option> options() {
        return List.of(INSTRUCTION, DIRECTION, OPERAND, OUTPUT, PHYSICAL, Option.JSON, Option.BATCH);
    }

    @Override
    public int run(Invocation in) throws Exception {
        if (in.flag("batch")) {
            return Batch.run(in, List.of("hlo", "instruction", "direction", "operand", "output", "physical"),
                    IndexingCommand::answer);
        }
        in.expectAtMostPositionals(1);
        String text = read(in, in.positional(0, "FILE"));
        Request request = new Request(text, optional(in, "instruction"), direction(optional(in, "direction"), "--direction"),
                integer(optional(in, "operand"), "--operand"), integer(optional(in, "output"), "--output"),
                in.flag("physical"));
        Map<String, Object> result = compute(request);
        if (in.flag("json")) {
            in.printJson(result);
        } else {
            printText(in, result);
        }
        return 0;
    }

    private record Request(String hlo, String instruction, boolean outputToInput, Integer operand, Integer output,
                           boolean physical) {
    }

    private static Object answer(BatchRequest r) {
        return compute(new Request(r.requiredString("hlo", "the module text"), r.string("instruction"),
                direction(r.string("direction"), "\"direction\""), r.integer("operand"), r.integer("output"),
                r.flag("physical")));
    }

    private static Map<String, Object> compute(Request q) {
        HloModule module = HloModule.parse(q.hlo());
        HloInstruction instr = q.instruction() == null ? module.entry().root() : module.instruction(q.instruction());
        InstructionIndexing indexing;
        Integer only;
        if (q.outputToInput()) {
            indexing = HloIndexing.outputToInput(module, instr, q.output() == null ? 0 : q.output(), q.physical());
            only = q.operand();
        } else {
            indexing = HloIndexing.inputToOutput(module, instr, q.operand() == null ? 0 : q.operand(), q.physical());
            only = q.output();
        }
        List<Object> operands = new ArrayList<>();
        for (int k = 0; k < indexing.indexing().size(); k++) {
            if (only != null && only != k) {
                continue;
            }
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("operand", (long) k);
            entry.put("maps", indexing.indexing().get(k).stream().map(OperandIndexing::toString)
                    .collect(Collectors.toList()));
            operands.add(entry);
        }
        if (only != null && operands.isEmpty()) {
            // Worded as ops words the same mistake made the other way round (an --operand to map
            // from, an --output to map to), so one message does not read two ways.
            throw new IndexOutOfBoundsException(q.outputToInput()
                    ? "operand " + only + " out of bounds [0, " + indexing.indexing().size() + ") for " + instr.opcode()
                            + " " + instr.name()
                    : "output " + only + " out of bounds [0, " + indexing.indexing().size() + ") for " + instr.name()
                            + " of shape " + instr.shape());
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("instruction", instr.name());
        result.put("direction", q.outputToInput() ? "output-to-input" : "input-to-output");
        result.put("operands", operands);
        return result;
    }

    @SuppressWarnings("unchecked")
    private static void printText(Invocation in, Map<String, Object> result) {
        List<Object> entries = (List<Object>) result.get("operands");
        if (entries.isEmpty()) {
            // A parameter, constant or iota reads no operand: say so rather than print nothing.
            in.out().println(result.get("instruction") + " has no operands, so no indexing maps");
            return;
        }
        // "operand id" in both directions, as XLA's HloInstructionIndexing::ToString prints it.
        for (Object o : entries) {
            Map<String, Object> entry = (Map<String, Object>) o;
            for (Object map : (List<Object>) entry.get("maps")) {
                in.out().println("operand id = " + entry.get("operand") + " " + map);
            }
        }
    }

    private static String optional(Invocation in, String option) {
        List<String> values = in.values(option);
        return values.isEmpty() ? null : values.getLast();
    }

    /** {@code what} names the source in the message: the option, or the batch key. */
    private static boolean direction(String text, String what) {
        if (text == null || text.equals("output-to-input") || text.equals("output_to_input")) {
            return true;
        }
        if (text.equals("input-to-output") || text.equals("input_to_output")) {
            return false;
        }
        throw new UsageException(what + " must be output-to-input or input-to-output, got '" + text + "'");
    }

    private static Integer integer(String text, String what) {
        if (text == null) {
            return null;
        }
        Errors.requireAsciiDigits(what, text);
        try {
            return Integer.parseInt(text.strip());
        } catch (NumberFormatException e) {
            throw Errors.notAnInteger(what, text);
        }
    }

    private static String read(Invocation in, String file) throws IOException {
        if (file.equals("-")) {
            return in.stdin().lines().collect(Collectors.joining("\n"));
        }
        CliFiles.requireNonEmpty(Path.of(file), null, "an HLO text file or '-'");
        if (Files.isDirectory(Path.of(file))) {
            throw new IllegalArgumentException(file + " is a directory, expected an HLO text file or '-'");
        }
        CliFiles.input(Path.of(file), null);
        return CliFiles.readUtf8(Path.of(file));
    }
}
