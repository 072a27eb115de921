package dev.tensorbuf.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import dev.tensorbuf.views.StridedLayout.TensorFormat;

/** Every record of conformance/seeds/directml.jsonl (seed 003 and the DirectML reference table). */
class DirectMLConformanceTest {
    record Vector(String source, JsonNode json) {
        @Override
        public String toString() {
            return source;
        }
    }

    static Stream<Vector> vectors() throws IOException {
        ObjectMapper mapper = new ObjectMapper();
        List<Vector> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(Objects.requireNonNull(
                DirectMLConformanceTest.class.getResourceAsStream("/conformance/seeds/directml.jsonl")),
                StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (!line.isBlank()) {
                    JsonNode json = mapper.readTree(line);
                    out.add(new Vector(json.get("source").asText(), json));
                }
            }
        }
        assertEquals(20, out.size());
        return out.stream();
    }

    private static long[] longs(JsonNode array) {
        long[] out = new long[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asLong();
        }
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void directMLVector(Vector v) {
        JsonNode j = v.json();
        DType type = DType.fromDirectML(j.get("dtype").asText());
        long[] sizes = longs(j.get("sizes"));
        StridedLayout layout = j.get("strides").isNull()
                ? StridedLayout.packed(sizes)
                : StridedLayout.of(sizes, longs(j.get("strides")));
        if (j.get("strides").isNull()) {
            assertEquals(StridedLayout.of(TensorFormat.NCHW, sizes).strides(), layout.strides(), "null strides are packed NCHW");
        }
        assertEquals(j.get("expected_buffer_bytes").asLong(), layout.bufferBytes(type), "buffer bytes");
        assertEquals(j.get("packed").asBoolean(), layout.isPacked(), "packed");
        assertEquals(j.get("broadcast").asBoolean(), layout.isBroadcast(), "broadcast");
        assertEquals(j.get("padded").asBoolean(), layout.isPadded(), "padded");
        assertEquals(j.get("broadcast").asBoolean(), layout.isOverlapping(), "these vectors overlap only by broadcasting");
        assertTrue(layout.isDirectMLExpressible());
        for (Iterator<Map.Entry<String, JsonNode>> it = j.get("element_offsets").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            long[] index = Arrays.stream(e.getKey().split(",")).mapToLong(Long::parseLong).toArray();
            assertEquals(e.getValue().asLong(), layout.offsetOf(index), "offset of " + e.getKey());
        }
        // layout_name covers DirectML's 4-D/5-D names only; lower ranks carry their label in source.
        Optional<TensorFormat> name = layout.rank() >= 4 ? layout.format() : Optional.empty();
        JsonNode expectedName = j.get("layout_name");
        assertEquals(expectedName.isNull() ? null : expectedName.asText(), name.map(Enum::name).orElse(null), "layout name");
        for (String label : List.of("HW", "WH", "DHW")) {
            if (layout.rank() < 4 && v.source().contains("'" + label + "'")) {
                assertTrue(TensorFormat.matching(layout).contains(TensorFormat.valueOf(label)),
                        label + " should match " + layout + ", matches " + TensorFormat.matching(layout));
            }
        }
        if (j.has("base_offset_bytes")) {
            // The window starts 6 elements into its parent: the offsets above are relative to it.
            long base = j.get("base_offset_bytes").asLong() / type.byteWidth();
            StridedLayout inParent = layout.withOffset(base);
            assertEquals(base + 12, inParent.offsetOf(0, 0, 2, 2));
            assertTrue(j.get("base_offset_bytes").asLong() % 16 != 0, "not bindable: DML needs 16-byte binding offsets");
        }
    }
}
