package dev.tensorbuf.views;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.params.provider.Arguments;

/** Reads a JSON Lines conformance file from the test resources, one JUnit case per line named by its {@code source}. */
final class ConformanceVectors {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ConformanceVectors() {
    }

    static List<JsonNode> read(String resource) {
        List<JsonNode> records = new ArrayList<>();
        try (InputStream in = ConformanceVectors.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + resource);
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            while ((line = reader.readLine()) != null) {
                if (!line.isBlank()) {
                    records.add(JSON.readTree(line));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return records;
    }

    /** {@return one argument pair (name, record) per line; the name is {@code source} and the kind} */
    static Stream<Arguments> cases(String resource) {
        return read(resource).stream()
                .map(r -> Arguments.of(r.get("source").asText() + " [" + r.get("kind").asText() + "]", r));
    }

    static long[] longs(JsonNode array) {
        long[] out = new long[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asLong();
        }
        return out;
    }

    static List<Long> longList(JsonNode array) {
        List<Long> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asLong()));
        return out;
    }
}
