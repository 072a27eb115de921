package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.exec.Execution;
import dev.tensorbuf.ops.exec.HloExecutor;
import dev.tensorbuf.ops.hlo.HloComputation;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.TensorView;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Damaged modules: the random modules of the agreement tests and the committed jax programs,
 * each with one to three edits (a number, a type, a dims list, a layout, a shape, an operand, an
 * opcode, a called computation or the ROOT changed; a line or an attribute dropped), run with
 * random arguments. Each runs or is refused with a documented exception that says why; anything
 * else (a ClassCastException, a NullPointerException, an AssertionError, a hang) fails the test,
 * printing the module. It found a transpose declared f16 over a pred expression (a
 * ClassCastException) and tuples declared as arrays (a NullPointerException).
 * Count: {@code -Dtensorbuf.mutatedModules=N}; seed: {@code -Dtensorbuf.seed=N}.
 */
class MutatedModulesTest {
    private static final int MODULES = Integer.getInteger("tensorbuf.mutatedModules", 400);
    /** Elements above which a damaged module is left out: its shapes ask for memory, not for checks. */
    private static final long LARGEST = 1 << 20;

    private static final Pattern NUMBER = Pattern.compile("-?\\d+");
    private static final Pattern OPERANDS = Pattern.compile("\\(([^()]*)\\)");
    private static final Pattern OPCODE = Pattern.compile("[\\]})] ([a-z-]+)\\(");
    private static final Pattern TYPE = Pattern.compile("\\b(f32|s32|u8|pred|bf16|f16|s8|f64)\\[");
    private static final Pattern ATTRIBUTE = Pattern.compile(", [a-z_]+=(\\{[^}]*\\}|[^,]*)");
    private static final Pattern DIMS = Pattern.compile("\\[([0-9,]*)\\]");
    private static final Pattern LAYOUT = Pattern.compile("\\{([0-9,]+)\\}");
    private static final Pattern CALLED = Pattern.compile(
            "(to_apply|condition|body|calls|true_computation|false_computation)=%?([\\w.]+)");
    private static final Pattern COMPUTATION = Pattern.compile("(?m)^(?:ENTRY )?%?([\\w.]+) [({]");
    private static final Pattern SHAPE = Pattern.compile("\\b[a-z]+\\d*\\[[0-9,]*\\](\\{[^}]*\\})?");
    private static final String[] NUMBERS = {"0", "1", "-1", "2", "3", "7", "64", "100000", "-5", "9223372036854775807",
        "4294967296"};
    private static final String[] OPCODES = {"add", "multiply", "broadcast", "transpose", "reshape", "slice", "pad",
        "reverse", "concatenate", "copy", "convert", "dynamic-slice", "dynamic-update-slice", "tuple", "get-tuple-element",
        "while", "conditional", "call", "select", "compare", "iota", "constant", "parameter", "gather", "scatter", "sort",
        "reduce", "bitcast", "reduce-window", "maximum", "negate", "clamp", "and", "not", "bitcast-convert"};
    private static final String[] TYPES = {"f32", "s32", "u8", "pred", "bf16", "f16", "s8", "f64", "s64", "u32", "s4", "c64"};

    @Test
    void damagedModulesRunOrAreRefusedNamingWhy() throws IOException {
        long seed = Long.getLong("tensorbuf.seed", System.nanoTime());
        System.out.println("MutatedModulesTest seed " + seed + " (rerun with -Dtensorbuf.seed=" + seed + ")");
        Random rnd = new Random(seed);
        List<String> programs = programs();
        Map<String, Integer> outcomes = new TreeMap<>();
        withTripLimit(() -> {
            for (int n = 0; n < MODULES; n++) {
                int k = n;
                String text = mutated(original(k, rnd, programs), rnd);
                String outcome;
                long start = System.nanoTime();
                try (Allocator arena = Allocators.shared()) {
                    outcome = run(text, arena, rnd);
                } catch (IllegalArgumentException | IndexOutOfBoundsException | UncheckedIOException expected) {
                    assertTrue(expected.getMessage() != null && !expected.getMessage().isBlank(),
                            () -> "module " + module(k, seed) + " was refused without a message:\n" + text);
                    outcome = "refused";
                } catch (RuntimeException | Error e) {
                    throw new AssertionError("module " + module(k, seed) + " failed with " + e + ":\n" + text, e);
                }
                long millis = (System.nanoTime() - start) / 1_000_000;
                assertTrue(millis < 20_000, () -> "module " + module(k, seed) + " took " + millis + " ms:\n" + text);
                outcomes.merge(outcome, 1, Integer::sum);
            }
        });
        // Both ends are reached, or the edits miss what they are for: some damaged modules still
        // run (an edit that keeps the module valid), most of the rest are refused.
        assertTrue(outcomes.getOrDefault("ran", 0) >= MODULES / 10, () -> "too few ran: " + outcomes);
        assertTrue(outcomes.getOrDefault("refused", 0) >= MODULES / 10, () -> "too few refused: " + outcomes);
    }

    /** Runs {@code work} with loops bounded (a damaged module's loop may never end), then restores the bound. */
    static void withTripLimit(Runnable work) {
        String trips = System.getProperty("tensorbuf.run.maxTrips");
        System.setProperty("tensorbuf.run.maxTrips", "10000");
        try {
            work.run();
        } finally {
            if (trips == null) {
                System.clearProperty("tensorbuf.run.maxTrips");
            } else {
                System.setProperty("tensorbuf.run.maxTrips", trips);
            }
        }
    }

    private static String module(int k, long seed) {
        return k + " (seed " + seed + ")";
    }

    /** {@return module {@code k} before its edits: each generator's in turn, then a committed jax program} */
    static String original(int k, Random rnd, List<String> programs) {
        return switch (k % 4) {
            case 0 -> RandomHloModules.generate(rnd).text();
            case 1 -> RandomControlFlowModules.generate(rnd).text();
            case 2 -> RandomIndexedModules.generate(rnd).module().text();
            default -> programs.get(rnd.nextInt(programs.size()));
        };
    }

    static List<String> programs() throws IOException {
        List<String> texts = new ArrayList<>();
        for (String dir : List.of("jax_programs", "pointwise")) {
            Path folder = Path.of("src/test/resources", dir);
            try (var files = Files.list(folder)) {
                for (Path f : files.filter(f -> f.toString().endsWith(".hlo")).sorted().toList()) {
                    texts.add(Files.readString(f));
                }
            }
        }
        assertTrue(texts.size() >= 40, () -> "the committed jax programs were not found: " + texts.size());
        return texts;
    }

    /** Runs the module with random arguments: "ran", "left out" (too large), or what it threw. */
    static String run(String text, Allocator arena, Random rnd) {
        HloModule module = HloModule.parse(text);
        for (HloComputation c : module.computations()) {
            for (HloInstruction i : c.instructions()) {
                if (i.shape() instanceof ArrayShape s && s.elementCount() > LARGEST) {
                    return "left out";
                }
            }
        }
        Map<String, TensorView> arguments = new HashMap<>();
        for (HloInstruction p : module.entry().instructions()) {
            if (p.opcode().equals("parameter")) {
                ArrayShape shape = HloExecutor.parameterShape(module, p.name()).laidOut();
                MemoryBuffer buffer = arena.allocate(Math.max(1, shape.physicalByteSize()));
                byte[] bytes = new byte[(int) buffer.byteSize()];
                rnd.nextBytes(bytes);
                buffer.segment().copyFrom(MemorySegment.ofArray(bytes));
                arguments.put(p.name(), TensorView.of(buffer, shape));
            }
        }
        try (Execution e = HloExecutor.execute(module, text, arguments)) {
            for (int k = 0; k < e.outputCount(); k++) {
                e.result(k);
                e.rowMajor(k);
            }
        }
        return "ran";
    }

    /** {@return {@code text} with one to three random edits} */
    static String mutated(String text, Random rnd) {
        String[] lines = text.split("\n", -1);
        int edits = 1 + rnd.nextInt(3);
        for (int m = 0; m < edits; m++) {
            int at = rnd.nextInt(lines.length);
            String line = lines[at];
            lines[at] = switch (rnd.nextInt(11)) {
                case 0 -> replaceOne(line, NUMBER, 0, rnd, NUMBERS[rnd.nextInt(NUMBERS.length)]);
                case 1 -> line.contains(" = ") && !line.contains("ENTRY") ? "" : line;
                case 2 -> otherOperand(line, text, rnd);
                case 3 -> replaceOne(line, OPCODE, 1, rnd, OPCODES[rnd.nextInt(OPCODES.length)]);
                case 4 -> replaceOne(line, TYPE, 1, rnd, TYPES[rnd.nextInt(TYPES.length)]);
                case 5 -> replaceOne(line, ATTRIBUTE, 0, rnd, "");
                case 6 -> replaceOne(line, DIMS, 1, rnd, otherDims(rnd, line));
                case 7 -> replaceOne(line, LAYOUT, 1, rnd, shuffledLayout(line, rnd));
                case 8 -> replaceOne(line, CALLED, 2, rnd, pick(COMPUTATION, 1, text, rnd));
                case 9 -> moveRoot(lines, at, rnd);
                default -> replaceOne(line, SHAPE, 0, rnd, pick(SHAPE, 0, text, rnd));
            };
        }
        return String.join("\n", lines);
    }

    /** {@return {@code line} with group {@code g} of one match of {@code p}, chosen at random, replaced} */
    private static String replaceOne(String line, Pattern p, int g, Random rnd, String by) {
        Matcher x = p.matcher(line);
        List<int[]> found = new ArrayList<>();
        while (x.find()) {
            found.add(new int[] {x.start(g), x.end(g)});
        }
        if (found.isEmpty() || by == null) {
            return line;
        }
        int[] span = found.get(rnd.nextInt(found.size()));
        return line.substring(0, span[0]) + by + line.substring(span[1]);
    }

    private static String pick(Pattern p, int g, String text, Random rnd) {
        Matcher x = p.matcher(text);
        List<String> found = new ArrayList<>();
        while (x.find()) {
            found.add(x.group(g));
        }
        return found.isEmpty() ? null : found.get(rnd.nextInt(found.size()));
    }

    private static String otherOperand(String line, String text, Random rnd) {
        Matcher x = OPERANDS.matcher(line);
        if (!x.find() || x.group(1).isBlank()) {
            return line;
        }
        List<String> names = new ArrayList<>();
        for (String word : text.split("\\s+")) {
            if (word.matches("%?[a-z]\\w*(\\.\\w+)?") && !word.equals("ROOT")) {
                names.add(word);
            }
        }
        String[] operands = x.group(1).split(",");
        operands[rnd.nextInt(operands.length)] = " " + names.get(rnd.nextInt(names.size()));
        return line.substring(0, x.start(1)) + String.join(",", operands).trim() + line.substring(x.end(1));
    }

    /** {@return the first dims list of {@code line} with a dim added or its first dropped} */
    private static String otherDims(Random rnd, String line) {
        Matcher x = DIMS.matcher(line);
        if (!x.find()) {
            return null;
        }
        String dims = x.group(1);
        return rnd.nextBoolean() ? (dims.isEmpty() ? "2" : dims + "," + (1 + rnd.nextInt(3)))
                : dims.contains(",") ? dims.substring(dims.indexOf(',') + 1) : "";
    }

    private static String shuffledLayout(String line, Random rnd) {
        Matcher x = LAYOUT.matcher(line);
        if (!x.find()) {
            return null;
        }
        List<String> order = new ArrayList<>(List.of(x.group(1).split(",")));
        java.util.Collections.shuffle(order, rnd);
        if (rnd.nextInt(4) == 0) {
            order.removeFirst();
        }
        return String.join(",", order);
    }

    /** {@return line {@code at} made the ROOT of its computation, the ROOT nearest above or below it no longer one} */
    private static String moveRoot(String[] lines, int at, Random rnd) {
        String line = lines[at];
        if (!line.contains(" = ") || line.contains("ROOT")) {
            return line;
        }
        for (int j = at; j < lines.length && !lines[j].startsWith("}"); j++) {
            if (lines[j].contains("ROOT ")) {
                lines[j] = lines[j].replace("ROOT ", "");
                return line.replaceFirst("^(\\s*)", "$1ROOT ");
            }
        }
        return line;
    }
}
