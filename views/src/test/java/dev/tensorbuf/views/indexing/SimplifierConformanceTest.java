package dev.tensorbuf.views.indexing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs every vector of the simplifier corpora. Maps are always compared semantically (see
 * {@link MapSemantics}); exact text (whitespace ignored) is counted and printed, not required,
 * because term order differs between XLA versions.
 */
class SimplifierConformanceTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ExprSimplifier RANGELESS = new ExprSimplifier(new RangeEvaluator(List.of(), List.of(), List.of()));
    private static final java.util.concurrent.atomic.AtomicInteger CANONICAL_CHECKED = new java.util.concurrent.atomic.AtomicInteger();

    /**
     * Vectors whose XLA expectation is wrong, with why. The test asserts that the expectation
     * really differs from the input's meaning, so an entry cannot go stale silently.
     */
    static final Map<String, String> XLA_EXPECTATION_WRONG = Map.of(
            "IndexingMapTest.ConstraintIntervalSimplification_FloorDivNegativeDivisorNegativeBounds",
            "(only pointwise: s0 is unused by the results, so the result sets agree) "
                    + "floor(s0 / -3) in [-11, -5] holds exactly for s0 in [13, 33]: floor(13 / -3) = -5,"
                    + " floor(33 / -3) = -11, floor(34 / -3) = -12; XLA's [15, 35] drops 13, 14 and adds 34, 35");

    /** file -> {vectors, semantic agreements, exact-text checks, exact matches}. */
    private static final Map<String, int[]> COUNTS = new ConcurrentHashMap<>();

    static Stream<Arguments> xla() throws IOException {
        return vectors("conformance/xla/simplifier.jsonl");
    }

    static Stream<Arguments> legacy() throws IOException {
        return vectors("conformance/xla/simplifier.legacy-2025-04.jsonl");
    }

    static Stream<Arguments> seeds() throws IOException {
        return vectors("conformance/seeds/simplifier.jsonl");
    }

    /** XLA test cases the shared corpus lacks, transcribed from XLA's sources (see the file's records). */
    static Stream<Arguments> transcribed() throws IOException {
        return vectors("conformance/xla/simplifier.transcribed.jsonl");
    }

    private static Stream<Arguments> vectors(String resource) throws IOException {
        List<Arguments> out = new ArrayList<>();
        try (InputStream in = SimplifierConformanceTest.class.getClassLoader().getResourceAsStream(resource)) {
            assertNotNull(in, resource);
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            while ((line = r.readLine()) != null) {
                if (!line.isBlank()) {
                    JsonNode v = JSON.readTree(line);
                    String source = v.get("source").asText();
                    out.add(Arguments.of(source.substring(source.indexOf(':') + 1), resource, v));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("xla")
    void xlaCurrentVectors(String name, String file, JsonNode v) {
        new Vector(name, file, v, false).run();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("legacy")
    void xlaLegacyVectors(String name, String file, JsonNode v) {
        new Vector(name, file, v, true).run();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transcribed")
    void xlaTranscribedVectors(String name, String file, JsonNode v) {
        new Vector(name, file, v, false).run();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("seeds")
    void seedVectors(String name, String file, JsonNode v) {
        new Vector(name, file, v, true).run();
    }

    @AfterAll
    static void printCounts() {
        System.out.println("[indexing conformance] canonical forms no larger than XLA's: " + CANONICAL_CHECKED);
        new TreeMap<>(COUNTS).forEach((file, c) -> System.out.printf(
                "[indexing conformance] %s: %d vectors, %d semantic agreements, exact text %d of %d map/expr"
                        + " texts%n", file, c[0], c[1], c[3], c[2]));
    }

    static String strip(String s) {
        return s.replaceAll("\\s+", "");
    }

    static List<String> names(List<Variable> vars, String prefix) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < vars.size(); i++) {
            out.add(vars.get(i).name().isEmpty() ? prefix + i : vars.get(i).name());
        }
        return out;
    }

    static AffineExpr exprOf(IndexingMap m, String text) {
        return AffineExpr.parse(text, names(m.dims(), "d"), names(m.rangeVars(), "s"), names(m.runtimeVars(), "rt"));
    }

    private static final class Vector {
        final String name;
        final String file;
        final JsonNode v;
        final boolean legacy;
        final int[] counts;

        Vector(String name, String file, JsonNode v, boolean legacy) {
            this.name = name;
            this.file = file;
            this.v = v;
            this.legacy = legacy;
            this.counts = COUNTS.computeIfAbsent(file.substring(file.indexOf('/') + 1), k -> new int[4]);
            synchronized (counts) {
                counts[0]++;
            }
        }

        void agreed() {
            synchronized (counts) {
                counts[1]++;
            }
        }

        void exact(String expected, String actual) {
            synchronized (counts) {
                counts[2]++;
                if (strip(expected).equals(strip(actual))) {
                    counts[3]++;
                } else if (System.getenv("TENSORBUF_SHOW_MISMATCHES") != null) {
                    System.out.println("[text differs] " + name + "\n  xla:  " + expected.replaceAll("\\s+", " ")
                            + "\n  ours: " + actual);
                }
            }
        }

        void run() {
            String op = v.path("op").asText("");
            if (op.startsWith("interval_")) {
                intervalVector(op);
            } else if (op.startsWith("expr_")) {
                expression(op);
            } else {
                map(op);
            }
            agreed();
        }

        private void intervalVector(String op) {
            JsonNode a = v.get("input").get("a");
            JsonNode b = v.get("input").get("b");
            Interval x = new Interval(a.get(0).asLong(), a.get(1).asLong());
            Interval y = new Interval(b.get(0).asLong(), b.get(1).asLong());
            JsonNode e = v.get("expected");
            switch (op) {
                case "interval_add" -> assertEquals(new Interval(e.get(0).asLong(), e.get(1).asLong()), x.plus(y));
                case "interval_mul" -> assertEquals(new Interval(e.get(0).asLong(), e.get(1).asLong()), x.times(y));
                default -> {
                    Interval.Truth t = switch (op) {
                        case "interval_gt" -> x.gt(y);
                        case "interval_lt" -> x.lt(y);
                        case "interval_ge" -> x.ge(y);
                        case "interval_le" -> x.le(y);
                        case "interval_eq" -> x.eq(y);
                        case "interval_ne" -> x.ne(y);
                        default -> throw new AssertionError("unknown op " + op);
                    };
                    Interval.Truth want = e.isNull() ? Interval.Truth.UNKNOWN
                            : e.asBoolean() ? Interval.Truth.TRUE : Interval.Truth.FALSE;
                    assertEquals(want, t, op + " " + x + " " + y);
                }
            }
        }

        private void expression(String op) {
            String input = v.get("input").asText();
            JsonNode step = v.get("ops").get(0);
            List<String> vars = List.of("v0", "v1", "v2", "v3");
            String expected = v.get("expected").asText();
            String actual;
            AffineExpr parsed;
            if (op.equals("expr_print") && step.has("symbol_names")) {
                parsed = AffineExpr.parse(input, List.of("v0"), List.of("v1"), List.of());
                actual = parsed.toText(strings(step.get("dim_names")), strings(step.get("symbol_names")), List.of(),
                        IndexingMap.Notation.XLA);
            } else if (op.equals("expr_print") && step.has("var_names")) {
                parsed = AffineExpr.parse(input, vars, List.of(), List.of());
                actual = parsed.toText(strings(step.get("var_names")), List.of(), List.of(), IndexingMap.Notation.XLA);
            } else if (op.equals("expr_replace_variables")) {
                parsed = AffineExpr.parse(input, vars, List.of(), List.of());
                List<AffineExpr> with = new ArrayList<>();
                for (JsonNode s : step.get("substitutions")) {
                    with.add(s.isNull() ? null : AffineExpr.parse(s.asText(), vars, List.of(), List.of()));
                }
                while (with.size() < vars.size()) {
                    with.add(null);
                }
                parsed = parsed.replace(with, null, null);
                actual = parsed.toText(vars, List.of(), List.of(), IndexingMap.Notation.XLA);
            } else {
                parsed = AffineExpr.parse(input, vars, List.of(), List.of());
                if (op.equals("expr_canonicalize")) {
                    parsed = new ExprSimplifier(new RangeEvaluator(List.of(), List.of(), List.of())).simplify(parsed);
                }
                actual = parsed.toText(vars, List.of(), List.of(), IndexingMap.Notation.XLA);
            }
            exact(expected, actual);
            if (!op.equals("expr_print")) {
                AffineExpr want = AffineExpr.parse(expected, vars, List.of(), List.of());
                // Here the variables are unbounded: a product may overflow, and the simplifier leaves
                // such an expression as it is ((v0 * 8 + 3) / 4 stays, where XLA gives v0 * 2).
                if (op.equals("expr_canonicalize") && RANGELESS.fits(AffineExpr.parse(input, vars, List.of(), List.of()))) {
                    CANONICAL_CHECKED.incrementAndGet();
                    assertTrue(ExprSimplifierTest.divisions(parsed) <= ExprSimplifierTest.divisions(want)
                            && ExprSimplifierTest.variables(parsed) <= ExprSimplifierTest.variables(want),
                            name + ": " + actual + " is larger than XLA's " + expected);
                }
                for (long a = -7; a <= 7; a++) {
                    for (long b = -7; b <= 7; b += 3) {
                        long[] p = {a, b, a * 3 - b, b - 2};
                        assertEquals(want.evaluate(p, new long[0], new long[0]),
                                parsed.evaluate(p, new long[0], new long[0]), "at " + java.util.Arrays.toString(p));
                    }
                }
            }
        }

        private static List<String> strings(JsonNode n) {
            List<String> out = new ArrayList<>();
            n.forEach(x -> out.add(x.asText()));
            return out;
        }

        private void map(String op) {
            JsonNode input = v.get("input");
            JsonNode expected = v.get("expected");
            if (op.isEmpty()) {
                // Seed vectors: simplification.
                IndexingMap in = IndexingMap.parse(input.asText());
                IndexingMap out = in.simplify();
                checkSame(in, out, "simplified vs input");
                IndexingMap want = IndexingMap.parse(expected.asText());
                checkSame(want, out, "simplified vs expected");
                noLargerThan(want, out);
                exact(expected.asText(), out.toText(IndexingMap.Notation.MLIR));
                return;
            }
            switch (op) {
                case "verify" -> {
                    // XLA checks a symbol count we do not store separately; the analogous check is
                    // an expression using a variable the map lacks.
                    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                            () -> IndexingMap.of(List.of(Variable.of(0, 9)), List.of(Variable.of(0, 9)),
                                    List.of(AffineExpr.dim(0).plus(AffineExpr.sym(1)))));
                    assertTrue(e.getMessage().contains("uses s1 but the map has 1 range variable(s)"), e.getMessage());
                    return;
                }
                case "evaluate" -> {
                    IndexingMap m = IndexingMap.parse(input.asText());
                    JsonNode step = v.get("ops").get(0);
                    long[] dims = longs(step.get("dims"));
                    long[] syms = longs(step.get("symbols"));
                    assertEquals(java.util.Arrays.toString(longs(expected)),
                            java.util.Arrays.toString(m.evaluate(dims, syms, new long[0])));
                    return;
                }
                case "constraints_satisfied" -> {
                    IndexingMap m = IndexingMap.parse(input.asText());
                    for (JsonNode step : v.get("ops")) {
                        switch (step.get("op").asText()) {
                            case "constraints_satisfied" -> assertEquals(step.get("returns").asBoolean(),
                                    m.constraintsSatisfied(longs(step.get("dims")), longs(step.get("symbols")),
                                            new long[0]));
                            case "add_constraint" -> m = m.withConstraint(exprOf(m, step.get("expr").asText()),
                                    interval(step.get("interval")));
                            default -> fail("unknown step " + step);
                        }
                    }
                    return;
                }
                case "range_evaluator" -> {
                    IndexingMap m = IndexingMap.parse(input.asText());
                    for (JsonNode step : v.get("ops")) {
                        Interval r = m.range(exprOf(m, step.get("expr").asText()));
                        if (step.get("op").asText().equals("is_always_positive_or_zero")) {
                            assertEquals(step.get("returns").asBoolean(), r.lo() >= 0, step.toString());
                        } else {
                            assertEquals(interval(step.get("returns")), r, step.toString());
                        }
                    }
                    return;
                }
                default -> { }
            }
            IndexingMap in;
            IndexingMap out;
            if (op.startsWith("compose")) {
                IndexingMap first;
                IndexingMap second;
                if (input.has("lhs")) {
                    first = IndexingMap.parse(input.get("lhs").asText());
                    second = IndexingMap.parse(input.get("rhs").asText());
                } else {
                    second = IndexingMap.parse(input.get("producer").asText());
                    first = input.get("consumer").asText().equals("SAME_AS_PRODUCER") ? second
                            : IndexingMap.parse(input.get("consumer").asText());
                }
                out = IndexingMap.compose(second, first);
                in = out;
                checkComposition(second, first, out);
                if (v.path("expected_equals_input_map").asBoolean(false)) {
                    assertEquals(second, out);
                }
                if (op.contains("+simplify")) {
                    out = out.simplify();
                    checkSame(in, out, "simplified composition vs composition");
                }
                if (v.path("note").asText().contains("1 result expression")) {
                    assertEquals(1, out.results().size());
                }
            } else {
                in = IndexingMap.parse(input.asText());
                out = in;
                for (JsonNode step : v.get("ops")) {
                    String s = step.get("op").asText();
                    out = switch (s) {
                        case "simplify" -> out.simplify(step.path("args").asText().contains("kPreserve")
                                ? IndexingMap.PointDims.PRESERVE : IndexingMap.PointDims.SUBSTITUTE);
                        case "rescale_symbols" -> out.rescaleSymbols();
                        case "remove_unused_symbols" -> out.removeUnusedSymbols();
                        case "remove_unused_vars" -> out.removeUnusedVars();
                        case "convert_symbols_to_dimensions" -> out.convertSymbolsToDimensions();
                        case "convert_range_variables_to_dimensions" -> out.convertRangeVariablesToDimensions(
                                java.util.stream.StreamSupport.stream(step.get("range_var_indices").spliterator(), false)
                                        .mapToInt(JsonNode::asInt).toArray());
                        case "add_constraint" -> out.withConstraint(exprOf(out, step.get("expr").asText()),
                                interval(step.get("interval")));
                        case "parse", "print" -> out;
                        default -> throw new AssertionError("unknown op " + s);
                    };
                }
                boolean meaningKept = !op.contains("remove_unused_vars") && !op.contains("convert_")
                        && in.runtimeVars().size() == out.runtimeVars().size();
                if (meaningKept) {
                    checkSame(in, out, op + " result vs input");
                }
            }
            if (expected == null || expected.isNull()) {
                return;
            }
            if (expected.isObject() && expected.has("any_of")) {
                boolean matched = false;
                for (JsonNode alt : expected.get("any_of")) {
                    String r3 = out.results().get(3).toText(names(out.dims(), "d"), names(out.rangeVars(), "s"),
                            List.of(), IndexingMap.Notation.XLA);
                    matched |= r3.equals(alt.get("result3").asText()) && out.constraints().size() == 1;
                }
                synchronized (counts) {
                    counts[2]++;
                    counts[3] += matched ? 1 : 0;
                }
                return;
            }
            IndexingMap want = IndexingMap.parse(expected.asText());
            String why = XLA_EXPECTATION_WRONG.get(name);
            if (why != null) {
                assertNotNull(MapSemantics.pointwise(in, want), "listed as wrong but XLA agrees now: " + why);
                assertNull(MapSemantics.pointwise(in, out), "ours differs from the input");
                exact(expected.asText(), out.toText(legacy ? IndexingMap.Notation.MLIR : IndexingMap.Notation.XLA));
                return;
            }
            checkSame(want, out, "result vs XLA's expectation");
            if (op.contains("simplify") || op.isEmpty()) {
                noLargerThan(want, out);
            }
            exact(expected.asText(), out.toText(legacy ? IndexingMap.Notation.MLIR : IndexingMap.Notation.XLA));
        }

        private void checkComposition(IndexingMap second, IndexingMap first, IndexingMap composed) {
            if (composed.isKnownEmpty() || first.isKnownEmpty()) {
                return;
            }
            // composed(x) == second(first(x)) wherever x is in the composed domain.
            List<Interval> box = new ArrayList<>(composed.dimBounds());
            box.addAll(composed.rangeVarBounds());
            box.addAll(composed.runtimeVarBounds());
            int nd = composed.dims().size();
            int nsB = second.rangeVars().size();
            int ns = composed.rangeVars().size();
            int nrB = second.runtimeVars().size();
            for (long[] p : MapSemantics.points(box)) {
                long[] d = java.util.Arrays.copyOfRange(p, 0, nd);
                long[] s = java.util.Arrays.copyOfRange(p, nd, nd + ns);
                long[] r = java.util.Arrays.copyOfRange(p, nd + ns, p.length);
                if (!composed.contains(d, s, r)) {
                    continue;
                }
                long[] sB = java.util.Arrays.copyOfRange(s, 0, nsB);
                long[] sA = java.util.Arrays.copyOfRange(s, nsB, s.length);
                long[] rB = java.util.Arrays.copyOfRange(r, 0, nrB);
                long[] rA = java.util.Arrays.copyOfRange(r, nrB, r.length);
                long[] mid = first.evaluate(d, sA, rA);
                assertTrue(first.contains(d, sA, rA) && second.contains(mid, sB, rB),
                        "composed domain point outside the inputs' domains: " + java.util.Arrays.toString(p));
                assertEquals(java.util.Arrays.toString(second.evaluate(mid, sB, rB)),
                        java.util.Arrays.toString(composed.evaluate(d, s, r)));
            }
        }

        /**
         * Same meaning is not enough: a simplification that stopped before XLA's would pass it.
         * Ours holds no more divisions, variable occurrences or constraints than XLA's result.
         */
        private void noLargerThan(IndexingMap want, IndexingMap got) {
            if (want.isKnownEmpty()) {
                assertTrue(got.isKnownEmpty(), name + ": XLA knows the map is empty, ours " + got);
                return;
            }
            for (int i = 0; i < want.results().size(); i++) {
                AffineExpr w = want.results().get(i);
                AffineExpr g = got.results().get(i);
                assertTrue(ExprSimplifierTest.divisions(g) <= ExprSimplifierTest.divisions(w)
                        && ExprSimplifierTest.variables(g) <= ExprSimplifierTest.variables(w),
                        name + ": result " + i + " " + g + " is larger than XLA's " + w);
            }
            assertTrue(got.constraints().size() <= want.constraints().size(),
                    name + ": constraints " + got.constraints() + ", XLA's " + want.constraints());
        }

        private void checkSame(IndexingMap want, IndexingMap got, String what) {
            String diff = MapSemantics.difference(want, got);
            assertNull(diff, what + ":\n  want " + want + "\n  got  " + got + "\n  " + diff);
        }
    }

    static long[] longs(JsonNode n) {
        long[] out = new long[n.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = n.get(i).asLong();
        }
        return out;
    }

    static Interval interval(JsonNode n) {
        return new Interval(n.get(0).asLong(), n.get(1).asLong());
    }
}
