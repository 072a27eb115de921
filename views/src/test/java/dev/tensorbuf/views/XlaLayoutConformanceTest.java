package dev.tensorbuf.views;

import static dev.tensorbuf.views.ConformanceVectors.longList;
import static dev.tensorbuf.views.ConformanceVectors.longs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import dev.tensorbuf.views.text.TextFormatException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import dev.tensorbuf.views.XlaShape.BufferShape;

/**
 * Every vector of {@code conformance/xla/layouts.jsonl} (XLA's own tests at e5d008bb) and
 * {@code conformance/seeds/layouts.jsonl} (the seeds' worked examples). Vectors that test XLA
 * functions outside this library's API are skipped with the reason listed in {@link #OUT_OF_SCOPE}.
 */
class XlaLayoutConformanceTest {

    /**
     * Intentional exceptions: XLA functions we do not offer, each with the reason. Such a vector is
     * reported as skipped (an aborted assumption), never as passed.
     */
    static final Map<String, String> OUT_OF_SCOPE = Map.ofEntries(
            Map.entry("Layout::DeleteDimension", "shape surgery belongs to the ops module (reshape/slice views)"),
            Map.entry("Shape::DeleteDimensions", "shape surgery belongs to the ops module"),
            Map.entry("ShapeUtil::DeleteDimensions", "shape surgery belongs to the ops module"),
            Map.entry("LayoutUtil::MoveDimToMajor", "layout assignment helper, not a layout property"),
            Map.entry("LayoutUtil::MoveDimToMinor", "layout assignment helper, not a layout property"),
            Map.entry("ShapeUtil::ChangeElementType", "dtype conversion rules belong to the copy/convert engine"),
            Map.entry("ShapeUtil::DeviceShapeToHostShape", "device/host transfer policy, not shape text or math"),
            Map.entry("ShapeUtil::PrependMajorDimension", "shape surgery belongs to the ops module"),
            Map.entry("ShapeUtil::AppendMinorDimension", "shape surgery belongs to the ops module"),
            Map.entry("ShapeUtil::InsertDimensionAtIndex", "shape surgery belongs to the ops module"),
            Map.entry("ShapeUtil::InsertDimensionsAtIndex", "shape surgery belongs to the ops module"),
            Map.entry("ShapeUtil::PermuteDimensionsIgnoringLayout", "transpose views belong to the ops module"),
            Map.entry("ShapeUtil::MakeShapeWithDescendingLayoutAndSamePhysicalLayout",
                    "layout normalisation belongs to the ops module"),
            Map.entry("ShapeUtil::AlignLayouts(input, output_shape_without_layout)",
                    "bitcast-reshape layout inference belongs to the ops module's reshape"),
            Map.entry("LayoutUtil::IsUntiledLayout(tiles, physical_shape)",
                    "predicate of XLA's layout assignment; our map simplifier answers 'is it strided'"),
            Map.entry("LayoutUtil::ByteStridesIsMajorToMinor", "strided-layout predicate, owned by StridedLayout"),
            Map.entry("ShapeUtil::ReshapeIsBitcast", "answered by the ops module's reshape view"),
            Map.entry("ShapeUtil::ReshapeIsBitcast(ignore_element_type=true)", "answered by the ops module's reshape"),
            Map.entry("ShapeUtil::ReshapeIsBitcast(ignore_element_type=false)", "answered by the ops module's reshape"),
            Map.entry("ShapeUtil::IsReshapeOrTransposeBitcast", "answered by the ops module's bitcast view"),
            Map.entry("ShapeUtil::LastDimIsMinorMost", "one-line predicate over minorToMajor(), not worth API"),
            Map.entry("ShapeUtil::IsDecomposableBitcast", "answered by the ops module's bitcast view"),
            Map.entry("ShapeUtil::DecomposeBitcast", "answered by the ops module's bitcast view"),
            Map.entry("ShapeUtil::DeduceTransposeDimensionsForBitcast", "answered by the ops module's bitcast view"),
            Map.entry("ShapeUtil::GetNormalizedLogicalTransposeShape", "transpose normalisation, ops module"),
            Map.entry("ShapeUtil::DimensionsUnmodifiedByReshape", "reshape analysis, ops module"),
            Map.entry("IndexUtil::BumpIndices", "odometer iteration; views iterate by their indexing map"),
            Map.entry("Layout::ToString with physical_shape",
                    "P(...) (physical shape) is sparse-only; we reject it when reading, as XLA's shape parser does"),
            Map.entry("LayoutUtil::CopyLayoutBetweenShapes",
                    "not our API; the same mismatch through withLayout is asserted, with XLA's validator message"));

    static Stream<Arguments> xlaVectors() {
        return ConformanceVectors.cases("/conformance/xla/layouts.jsonl");
    }

    static Stream<Arguments> seedVectors() {
        return ConformanceVectors.cases("/conformance/seeds/layouts.jsonl");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("xlaVectors")
    void xlaVector(String name, JsonNode r) {
        String kind = r.get("kind").asText();
        String function = text(r, "function");
        switch (kind) {
            case "roundtrip" -> xlaRoundtrip(r);
            case "parse" -> assertEquals(r.get("derived_canonical_print").asText(),
                    XlaShape.parse(r.get("string").asText()).toString());
            case "corpus_shape" -> corpusShape(r.get("string").asText());
            case "invalid" -> invalid(r);
            case "valid" -> {
                XlaShape s = parseValidatorShape(textOr(r, "shape_text_equivalent", text(r, "shape")));
                assertInstanceOf(XlaShape.class, s);
            }
            case "byte_size" -> assertEquals(r.get("expected").asLong(), byteSize(function, r));
            case "byte_strides" -> {
                ArrayShape a = array(r.get("shape").asText());
                if (function.equals("ShapeUtil::UnpackedByteStrides")) {
                    assertEquals(longList(r.get("expected")), a.unpackedByteStrides());
                } else {
                    Optional<List<Long>> expected = r.get("expected").isNull()
                            ? Optional.empty() : Optional.of(longList(r.get("expected")));
                    assertEquals(expected, a.byteStrides());
                }
            }
            case "elements_in" -> assertEquals(r.get("expected").asLong(), array(r.get("shape").asText()).elementCount());
            case "max_split_size" -> assertEquals(r.get("expected").asLong(),
                    array(r.get("shape").asText()).maxSplitSize(r.get("args").get("logical_dim").asInt()));
            case "shape_equality" -> assertEquals(r.get("expected").asBoolean(), shapesEqual(r));
            case "linear_index" -> {
                ArrayShape a = array(r.get("shape").asText());
                if (function.startsWith("IndexUtil::")) {
                    // IndexUtil ignores tiles: these vectors must not have any for the comparison to mean anything.
                    assertTrue(a.requireLayout().tiles().isEmpty(), "IndexUtil vector with tiles: " + a);
                }
                assertEquals(r.get("expected").asLong(), a.linearIndex(longs(r.get("multi_index"))));
            }
            case "multi_index" -> {
                ArrayShape a = array(r.get("shape").asText());
                assertEquals(Optional.of(longList(r.get("expected"))), a.logicalIndex(r.get("linear_index").asLong()));
            }
            case "layout_transform" -> layoutTransform(function, r);
            case "predicate", "bitcast", "normalized_transpose", "reshape_dims", "bump_indices" -> skip(function);
            default -> fail("unknown vector kind '" + kind + "': add it to this test");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("seedVectors")
    void seedVector(String name, JsonNode r) {
        switch (r.get("kind").asText()) {
            case "linear_index" -> assertEquals(r.get("expected").asLong(),
                    array(r.get("shape").asText()).linearIndex(longs(r.get("multi_index"))));
            case "physical_elements" -> assertEquals(r.get("expected").asLong(),
                    array(r.get("shape").asText()).physicalElementCount());
            case "roundtrip" -> assertEquals(r.get("expected").asText(), XlaShape.parse(r.get("text").asText()).toString());
            case "element_order" -> {
                ArrayShape a = array(r.get("shape").asText());
                List<JsonNode> values = new ArrayList<>();
                r.get("values").forEach(values::add);
                List<String> actual = new ArrayList<>();
                for (long slot = 0; slot < a.physicalElementCount(); slot++) {
                    actual.add(a.logicalIndex(slot).map(idx -> values.get((int) rowMajor(a, idx)).toString())
                            .orElse("null"));
                }
                List<String> expected = new ArrayList<>();
                r.get("expected_memory_order").forEach(v -> expected.add(v.toString()));
                assertEquals(expected, actual);
            }
            default -> fail("unknown vector kind '" + r.get("kind").asText() + "': add it to this test");
        }
    }

    private static void xlaRoundtrip(JsonNode r) {
        String expected = r.get("expected").asText();
        switch (r.get("what").asText()) {
            case "shape" -> assertEquals(expected, XlaShape.parse(expected).toString());
            case "layout" -> {
                if (expected.contains("P(")) {
                    skip("Layout::ToString with physical_shape");
                }
                assertEquals(expected, XlaLayout.parse(expected).toString());
            }
            case "tile" -> assertEquals(expected, XlaLayout.parse("{:T" + expected + "}").tiles().getFirst().toString());
            default -> fail("unknown roundtrip subject " + r.get("what"));
        }
    }

    /** Corpus strings are parse inputs: they must read, and printing must be a fixed point of parse. */
    private static void corpusShape(String text) {
        XlaShape shape = XlaShape.parse(text);
        String printed = shape.toString();
        XlaShape again = XlaShape.parse(printed);
        assertEquals(shape, again);
        assertEquals(printed, again.toString());
    }

    private static void invalid(JsonNode r) {
        String validator = r.get("validator").asText();
        String substring = text(r, "error_substring");
        IllegalArgumentException e;
        if (r.has("string")) {
            e = assertThrows(TextFormatException.class, () -> XlaShape.parse(r.get("string").asText()));
        } else if (validator.equals("LayoutUtil::CopyLayoutBetweenShapes")) {
            // The XLA message names CopyLayoutBetweenShapes; the same mismatch is caught by withLayout.
            ArrayShape src = array("f32[123,42,7]{2,0,1}");
            e = assertThrows(IllegalArgumentException.class,
                    () -> ArrayShape.of(DType.F32, 2, 3).withLayout(src.requireLayout()));
            substring = "layout minor_to_major field contains 3 elements, but shape has 2 dimensions";
        } else if (r.has("shape_text_equivalent")) {
            e = assertThrows(IllegalArgumentException.class,
                    () -> parseValidatorShape(r.get("shape_text_equivalent").asText()));
        } else if (r.get("source").asText().endsWith("ValidateLayout_MissingArrayLayout")) {
            e = assertThrows(IllegalArgumentException.class,
                    () -> requireLayouts(ArrayShape.of(DType.F32, 2, 3).withoutLayout()));
        } else if (r.get("source").asText().endsWith("ValidateLayout_TupleSubshapesWithMissingLayouts")) {
            XlaShape tuple = XlaShape.Tuple.of(
                    XlaShape.Tuple.of(ArrayShape.of(DType.F32, 1, 2), ArrayShape.of(DType.F32, 1, 2).withoutLayout()),
                    XlaShape.Tuple.of(ArrayShape.of(DType.F32, 9).withoutLayout()));
            e = assertThrows(IllegalArgumentException.class, () -> requireLayouts(tuple));
        } else {
            fail("no way to build invalid vector " + r);
            return;
        }
        if (substring != null) {
            assertTrue(e.getMessage().contains(substring), "message '" + e.getMessage() + "' lacks '" + substring + "'");
        }
    }

    /** XLA's ValidateLayoutInShape(allow_missing_layouts=false), as the tests use it. */
    private static void requireLayouts(XlaShape shape) {
        switch (shape) {
            case ArrayShape a -> a.requireLayout();
            case XlaShape.Tuple t -> t.elements().forEach(XlaLayoutConformanceTest::requireLayouts);
            case BufferShape b -> b.array().requireLayout();
            case XlaShape.Token tok -> { }
            case XlaShape.Opaque o -> { }
        }
    }

    /**
     * Builds a validator vector's shape through the value API rather than the text parser, so the
     * check that fires is the layout-for-shape validation (XLA's ValidateLayoutInShape), not the
     * parser's earlier rank check.
     */
    private static XlaShape parseValidatorShape(String text) {
        int split = text.lastIndexOf(']') + 1;
        if (split == text.length()) {
            return XlaShape.parse(text);
        }
        ArrayShape dims = array(text.substring(0, split));
        return dims.withLayout(XlaLayout.parse(text.substring(split)));
    }

    private static long byteSize(String function, JsonNode r) {
        return switch (function) {
            case "ShapeUtil::ByteSizeOfPrimitiveType" -> DType.fromXlaName(r.get("element_type").asText()).byteWidth();
            case "ShapeUtil::ByteSizeOf" -> XlaShape.parse(r.get("shape").asText()).byteSizeOf(8);
            case "ShapeUtil::ByteSizeOfElementsRecursive" ->
                    XlaShape.parse(r.get("shape").asText()).byteSizeOfElementsRecursive();
            case "ShapeUtil::ArraySize" -> array(r.get("shape").asText()).arraySize();
            case "ShapeUtil::ArrayDataSize" -> array(r.get("shape").asText()).arrayDataSize();
            default -> throw new AssertionError("unknown byte size function " + function);
        };
    }

    private static boolean shapesEqual(JsonNode r) {
        String comparator = textOr(r, "comparator", "Shape::Equal()");
        XlaShape lhs = XlaShape.parse(r.get("lhs").asText());
        XlaShape rhs = XlaShape.parse(r.get("rhs").asText());
        if (comparator.contains("IgnoreBuffer")) {
            lhs = unwrapBuffer(lhs);
            rhs = unwrapBuffer(rhs);
        }
        if (comparator.contains("IgnoreLayout")) {
            lhs = lhs instanceof ArrayShape a ? a.withoutLayout() : lhs;
            rhs = rhs instanceof ArrayShape a ? a.withoutLayout() : rhs;
        }
        if (comparator.contains("IgnoreSplitConfigInLayout")) {
            lhs = lhs instanceof ArrayShape a ? a.withLayout(a.requireLayout().withSplitConfigs(List.of())) : lhs;
            rhs = rhs instanceof ArrayShape a ? a.withLayout(a.requireLayout().withSplitConfigs(List.of())) : rhs;
        }
        return lhs.equals(rhs);
    }

    private static XlaShape unwrapBuffer(XlaShape s) {
        return s instanceof BufferShape b ? b.array() : s;
    }

    private static void layoutTransform(String function, JsonNode r) {
        if (function.startsWith("LayoutUtil::GetDefaultLayoutForRank") || function.equals("LayoutUtil::MakeDescendingLayout")) {
            int rank = r.get("args").get("rank").asInt();
            assertEquals(minorToMajor(r.get("expected")), XlaLayout.descending(rank).minorToMajor());
        } else if (function.equals("LayoutUtil::MakeAscendingLayout")) {
            int rank = r.get("args").get("rank").asInt();
            assertEquals(minorToMajor(r.get("expected")), XlaLayout.of(IntStream.range(0, rank).toArray()).minorToMajor());
        } else {
            skip(function);
        }
    }

    private static List<Integer> minorToMajor(JsonNode expected) {
        List<Integer> out = new ArrayList<>();
        expected.get("minor_to_major").forEach(n -> out.add(n.asInt()));
        return out;
    }

    private static void skip(String function) {
        String reason = OUT_OF_SCOPE.get(function);
        if (reason == null) {
            fail("vector for '" + function + "' is neither implemented nor listed in OUT_OF_SCOPE");
        }
        Assumptions.abort("out of scope: " + function + ": " + reason);
    }

    private static long rowMajor(ArrayShape a, List<Long> index) {
        long n = 0;
        for (int i = 0; i < a.rank(); i++) {
            n = n * a.dim(i) + index.get(i);
        }
        return n;
    }

    static ArrayShape array(String text) {
        return assertInstanceOf(ArrayShape.class, XlaShape.parse(text));
    }

    private static String text(JsonNode r, String field) {
        return r.hasNonNull(field) ? r.get(field).asText() : null;
    }

    private static String textOr(JsonNode r, String field, String fallback) {
        String t = text(r, field);
        return t == null ? fallback : t;
    }
}
