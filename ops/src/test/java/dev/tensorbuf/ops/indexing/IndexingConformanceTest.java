package dev.tensorbuf.ops.indexing;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tensorbuf.ops.hlo.HloComputation;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.ops.indexing.HloIndexing.InstructionIndexing;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import dev.tensorbuf.views.indexing.IndexingMap;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every indexing vector of XLA's tests (current and 2025-04 corpora, and the cases transcribed
 * from XLA's sources that the corpora lack) and of seed 004, compared semantically (must all
 * pass) and as text ignoring whitespace (counted and printed).
 */
class IndexingConformanceTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long SEED = Long.getLong("tensorbuf.seed", 4004L);
    private static final Map<String, AtomicInteger[]> COUNTS = new ConcurrentHashMap<>();

    /**
     * Vectors whose expectation we hold to be wrong, with why. The 2025-04 XLA replaced a runtime
     * variable by the value of the instruction it is bound to without the clamp dynamic-slice and
     * gather apply to start indices, so the expected maps read outside the operand; XLA later
     * fixed this (current test {@code FusionWithRTVarsSimplification_ScalarConstantOutsideOfRangeIsKept})
     * and dropped these four tests, and ChainedOps with them. We keep the runtime variable, or
     * fold it with the range that keeps the clamp ({@code RuntimeVars.foldAffine}); the test asserts
     * that we differ.
     */
    static final Map<String, String> WRONG_EXPECTATIONS = Map.of(
            "IndexingAnalysisTest.FusionWithRTVarsSimplification_Broadcast",
            "substitutes the constant 42 for a gather start index clamped to [0, 32]: reads row 42 of 33",
            "IndexingAnalysisTest.FusionWithRTVarsSimplification_Reverse",
            "substitutes 41 - d0 for a gather start index clamped to [0, 32]: reads row 41 of 33 at d0 = 0",
            "IndexingAnalysisTest.FusionWithRTVarsSimplification_Add",
            "rebinds rt0 to p1 as d0 + rt0 + 42 but keeps rt0 in [0, 4086]: reads up to 4137 of s32[4096]",
            "IndexingAnalysisTest.FusionWithRTVarsSimplification_Multiply",
            "rebinds rt0 to p1 as d0 + rt0 * 42 but keeps rt0 in [0, 4086]: reads up to 171621 of s32[4096]",
            "IndexingAnalysisTest.FusionWithRTVarsSimplification_ChainedOps",
            "rebinds rt0 to p1 as d0 + rt0 * 2 + 84 but keeps rt0 in [0, 4086]: reads up to 8265 of s32[4096]"
                    + " (we fold it too, with rt0 in [-42, 2001])");

    static Stream<Arguments> current() {
        return cases("/conformance/xla/indexing.jsonl");
    }

    static Stream<Arguments> legacy() {
        return cases("/conformance/xla/indexing.legacy-2025-04.jsonl");
    }

    static Stream<Arguments> seeds() {
        return cases("/conformance/seeds/indexing.jsonl");
    }

    /** XLA tests the shared corpus lacks, transcribed from XLA's sources (each record names its test). */
    static Stream<Arguments> transcribed() {
        return cases("/conformance/xla/indexing.transcribed.jsonl");
    }

    static Stream<Arguments> legacyTranscribed() {
        return cases("/conformance/xla/indexing.legacy-2025-04.transcribed.jsonl");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("current")
    void currentXlaVector(String name, JsonNode r) {
        check("xla/indexing.jsonl", r, IndexingMap.Notation.XLA);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("legacy")
    void legacyXlaVector(String name, JsonNode r) {
        check("xla/indexing.legacy-2025-04.jsonl", r, IndexingMap.Notation.MLIR);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transcribed")
    void transcribedXlaVector(String name, JsonNode r) {
        check("xla/indexing.transcribed.jsonl", r, IndexingMap.Notation.XLA);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("legacyTranscribed")
    void legacyTranscribedXlaVector(String name, JsonNode r) {
        check("xla/indexing.legacy-2025-04.transcribed.jsonl", r, IndexingMap.Notation.MLIR);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("seeds")
    void seedVector(String name, JsonNode r) {
        check("seeds/indexing.jsonl", r, IndexingMap.Notation.MLIR);
    }

    @AfterAll
    static void printCounts() {
        COUNTS.forEach((file, c) -> System.out.println("[indexing conformance] " + file + ": semantic " + c[1]
                + "/" + (c[0].get() - c[3].get()) + " (" + c[3] + " expectations held wrong), exact text (whitespace ignored) "
                + c[2] + "/" + c[0]));
    }

    private static void check(String file, JsonNode r, IndexingMap.Notation style) {
        AtomicInteger[] c = COUNTS.computeIfAbsent(file,
                f -> new AtomicInteger[] {new AtomicInteger(), new AtomicInteger(), new AtomicInteger(), new AtomicInteger()});
        c[0].incrementAndGet();
        HloModule module = HloModule.parse(r.get("hlo").asText());
        Outcome o = r.has("instruction") ? seed(module, r, style) : xla(module, r, style);
        String test = r.get("source").asText().replaceFirst("^.*:", "");
        if (file.contains("legacy") && WRONG_EXPECTATIONS.containsKey(test)) {
            assertNotNull(o.semantic, "expected to disagree with a wrong expectation: " + WRONG_EXPECTATIONS.get(test));
            System.out.println("[indexing conformance] " + file + " " + test + ": expectation held wrong ("
                    + WRONG_EXPECTATIONS.get(test) + ")");
            c[3].incrementAndGet();
            return;
        }
        assertNull(o.semantic, o.semantic);
        if (!o.exact) {
            System.out.println("[indexing conformance] text differs: " + file + " " + test);
        }
        c[1].incrementAndGet();
        if (o.exact) {
            c[2].incrementAndGet();
        }
    }

    private record Outcome(String semantic, boolean exact) {
    }

    private static Outcome xla(HloModule module, JsonNode r, IndexingMap.Notation style) {
        String kind = r.get("expected_kind").asText();
        return switch (kind) {
            case "grouped_by_instruction" -> grouped(module, r, style);
            case "single_map" -> epilogue(module, r, style);
            default -> instruction(module, r, kind, style);
        };
    }

    private static Outcome instruction(HloModule module, JsonNode r, String kind, IndexingMap.Notation style) {
        HloInstruction root = module.entry().root();
        boolean physical = r.get("use_physical_layout").asBoolean();
        boolean outToIn = r.get("direction").asText().equals("output_to_input");
        InstructionIndexing actual = outToIn
                ? HloIndexing.outputToInput(module, root, r.get("output_id").asInt(), physical)
                : HloIndexing.inputToOutput(module, root, r.get("operand").asInt(), physical);
        if (r.get("simplify_before_print").asBoolean()) {
            actual = simplified(actual);
        }
        List<List<String>> expected = new ArrayList<>();
        List<Boolean> ordered = new ArrayList<>();
        if (kind.equals("instruction_indexing")) {
            JsonNode by = r.get("expected_by_operand");
            Iterator<String> ids = by.fieldNames();
            while (ids.hasNext()) {
                String id = ids.next();
                int k = Integer.parseInt(id);
                while (expected.size() <= k) {
                    expected.add(new ArrayList<>());
                    ordered.add(false);
                }
                by.get(id).forEach(t -> expected.get(k).add(t.asText()));
            }
        } else {
            for (JsonNode set : r.get("expected")) {
                List<String> maps = new ArrayList<>();
                set.get("maps").forEach(t -> maps.add(t.asText()));
                expected.add(maps);
                ordered.add(set.get("order").asText().equals("ordered"));
            }
        }
        String semantic = compareSets(actual, expected, ordered);
        boolean exact;
        if (kind.equals("instruction_indexing")) {
            exact = squash(actual.toText(style)).equals(squash(r.get("expected").asText()));
        } else {
            exact = textsMatch(actual, expected, style);
        }
        return new Outcome(semantic, exact);
    }

    private static InstructionIndexing simplified(InstructionIndexing in) {
        List<Set<OperandIndexing>> out = new ArrayList<>();
        for (Set<OperandIndexing> s : in.indexing()) {
            Set<OperandIndexing> t = new java.util.LinkedHashSet<>();
            for (OperandIndexing o : s) {
                t.add(new OperandIndexing(o.map().simplify(), o.runtimeVariables(), o.replicaId()));
            }
            out.add(t);
        }
        return new InstructionIndexing(out);
    }

    private static String compareSets(InstructionIndexing actual, List<List<String>> expected, List<Boolean> ordered) {
        int n = Math.max(expected.size(), actual.indexing().size());
        for (int k = 0; k < n; k++) {
            List<String> want = k < expected.size() ? expected.get(k) : List.of();
            List<IndexingMap> got = k < actual.indexing().size()
                    ? actual.indexing().get(k).stream().map(OperandIndexing::map).toList() : List.of();
            List<String> wantMaps = want.stream().map(IndexingConformanceTest::mainMap).toList();
            String d = MapSemantics.sameSet(got, wantMaps, k < ordered.size() && ordered.get(k), SEED);
            if (d != null) {
                return "operand " + k + ": " + d;
            }
        }
        return null;
    }

    private static boolean textsMatch(InstructionIndexing actual, List<List<String>> expected, IndexingMap.Notation style) {
        for (int k = 0; k < expected.size(); k++) {
            if (k >= actual.indexing().size()) {
                return false;
            }
            Set<String> got = new java.util.HashSet<>();
            actual.indexing().get(k).forEach(o -> got.add(squash(o.toText(style))));
            Set<String> want = new java.util.HashSet<>();
            expected.get(k).forEach(t -> want.add(squash(t)));
            if (!got.equals(want)) {
                return false;
            }
        }
        return true;
    }

    /** The map part of an operand's text, without its runtime-variable and replica sections. */
    static String mainMap(String text) {
        String t = text;
        for (String marker : new String[] {"runtime variables:", "replica id:"}) {
            int at = t.indexOf(marker);
            if (at >= 0) {
                t = t.substring(0, at);
            }
        }
        return t.strip();
    }

    private static String squash(String s) {
        return s.replaceAll("\\s+", "");
    }

    private static final Pattern PRODUCER_CONSUMER = Pattern.compile("ForProducerConsumer\\(producer=([^,]+), consumer=([^)]+)\\)");
    private static final Pattern FOR_INSTRUCTION = Pattern.compile("ForInstruction\\(([^)]+)\\)");
    private static final Pattern OPERAND_OF = Pattern.compile("operand (\\d+) of (\\S+).*");

    /** ComputeGroupedOutputToInputIndexing: the adaptor and start are read from the record's prose fields. */
    private static Outcome grouped(HloModule module, JsonNode r, IndexingMap.Notation style) {
        String adaptor = r.get("fusion_adaptor").asText();
        HloComputation comp = module.entry();
        Predicate<HloInstruction> inGroup;
        Matcher pc = PRODUCER_CONSUMER.matcher(adaptor);
        Matcher fi = FOR_INSTRUCTION.matcher(adaptor);
        if (pc.find()) {
            Set<String> names = Set.of(pc.group(1).strip(), pc.group(2).strip());
            inGroup = i -> names.contains(i.name());
        } else if (fi.find()) {
            HloInstruction only = comp.instruction(fi.group(1).strip());
            if (only.opcode().equals("fusion")) {
                comp = module.computation(only.text("calls").orElseThrow());
                inGroup = i -> !i.opcode().equals("parameter");
            } else {
                inGroup = i -> i.name().equals(only.name());
            }
        } else {
            throw new IllegalArgumentException("unsupported fusion adaptor " + adaptor);
        }
        String startText = r.get("start_instruction").asText();
        Matcher of = OPERAND_OF.matcher(startText);
        HloInstruction start = of.matches()
                ? comp.instruction(comp.instruction(of.group(2)).operands().get(Integer.parseInt(of.group(1))))
                : comp.instruction(startText.split(" ")[0]);
        Map<String, Set<OperandIndexing>> actual = HloIndexing.groupedOutputToInput(module, comp, inGroup, start);
        boolean exact = true;
        Iterator<Map.Entry<String, JsonNode>> it = r.get("expected").fields();
        int checked = 0;
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            String name = e.getKey().split(" ")[0];
            List<String> want = new ArrayList<>();
            e.getValue().get("maps").forEach(t -> want.add(t.asText()));
            Set<OperandIndexing> got = actual.getOrDefault(name, Set.of());
            String d = MapSemantics.sameSet(got.stream().map(OperandIndexing::map).toList(),
                    want.stream().map(IndexingConformanceTest::mainMap).toList(),
                    e.getValue().get("order").asText().equals("ordered"), SEED);
            if (d != null) {
                return new Outcome(name + ": " + d, false);
            }
            Set<String> gotText = new java.util.HashSet<>();
            got.forEach(o -> gotText.add(squash(o.isUndefined() ? "UNDEFINED" : o.toText(style))));
            Set<String> wantText = new java.util.HashSet<>();
            want.forEach(t -> wantText.add(squash(t)));
            exact &= gotText.equals(wantText);
            checked++;
        }
        return new Outcome(checked == 0 ? "no expectations" : null, exact);
    }

    private static Outcome epilogue(HloModule module, JsonNode r, IndexingMap.Notation style) {
        HloInstruction fusion = module.entry().root();
        HloComputation comp = module.computation(fusion.text("calls").orElseThrow());
        IndexingMap actual = HloIndexing.epilogueInputToOutput(module, comp,
                comp.instruction(r.get("epilogue_parent").asText()), comp.instruction(r.get("epilogue_root").asText()));
        String expected = r.get("expected").asText();
        return new Outcome(MapSemantics.difference(actual, expected, SEED),
                squash(actual.toText(style)).equals(squash(expected)));
    }

    /** Seed records name the instruction, direction, operand and (for the variadic reduce) output. */
    private static Outcome seed(HloModule module, JsonNode r, IndexingMap.Notation style) {
        HloInstruction instr = module.instruction(r.get("instruction").asText());
        int operand = r.get("operand").asInt();
        int output = r.has("output_index") && !r.get("output_index").isNull() ? r.get("output_index").asInt() : 0;
        Set<OperandIndexing> got;
        if (r.get("direction").asText().equals("output_to_input")) {
            got = HloIndexing.outputToInput(module, instr, output, false).operand(operand);
        } else {
            got = HloIndexing.inputToOutput(module, instr, operand, false).operand(output);
        }
        List<String> want = new ArrayList<>();
        JsonNode e = r.get("expected");
        if (e.isArray()) {
            e.forEach(t -> want.add(t.asText()));
        } else {
            want.add(e.asText());
        }
        String d = MapSemantics.sameSet(got.stream().map(OperandIndexing::map).toList(), want, false, SEED);
        Set<String> gotText = new java.util.HashSet<>();
        got.forEach(o -> gotText.add(squash(o.toText(style))));
        Set<String> wantText = new java.util.HashSet<>();
        want.forEach(t -> wantText.add(squash(t)));
        return new Outcome(d, gotText.equals(wantText));
    }

    private static Stream<Arguments> cases(String resource) {
        List<Arguments> out = new ArrayList<>();
        try (InputStream in = IndexingConformanceTest.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + resource);
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            int n = 0;
            while ((line = reader.readLine()) != null) {
                if (!line.isBlank()) {
                    JsonNode r = JSON.readTree(line);
                    String dir = r.get("direction").asText();
                    String which = r.has("operand") && !r.get("operand").isNull() ? " operand " + r.get("operand") : "";
                    out.add(Arguments.of("#" + (++n) + " " + r.get("source").asText() + " [" + dir + which + "]", r));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.stream();
    }
}
