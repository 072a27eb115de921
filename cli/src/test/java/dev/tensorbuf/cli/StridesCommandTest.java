package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class StridesCommandTest {
    @Test
    void exampleFromHelp() {
        CliHarness r = CliHarness.run("strides", "--dtype", "f32", "--sizes", "1,3,224,224", "--format", "NHWC",
                "--index", "0,2,223,223");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                f32 sizes [1, 3, 224, 224] strides [150528, 1, 672, 3] (NHWC)
                buffer 602112 bytes (minimum 602112)
                packed yes, broadcast no, padded no, overlapping no
                index [0, 2, 223, 223] -> offset 150527
                """, r.out());
    }

    @Test
    void jsonHasTheFixedKeys() {
        CliHarness r = CliHarness.run("strides", "--dtype", "INT8", "--sizes", "2,3", "--strides", "5,1",
                "--index", "1,2", "--json");
        assertEquals(0, r.code(), r.err());
        assertEquals("{\"buffer_bytes\":8,\"min_bytes\":8,\"packed\":false,\"broadcast\":false,\"padded\":true,"
                + "\"overlapping\":false,\"format\":null,\"strides\":[5,1],\"offsets\":[{\"index\":[1,2],\"offset\":7}]}\n",
                r.out());
    }

    @Test
    void batchAnswersEachLineAndReportsErrorsInPlace() {
        String input = """
                {"dtype": "u8", "sizes": [2, 3, 4, 5], "strides": [0, 0, 0, 0], "indices": [[1, 2, 3, 4]]}
                {"dtype": "s4", "sizes": [1, 1, 1, 5]}
                {"dtype": "f32", "sizes": [2, 4], "indices": [[1, 7]]}
                {"sizes": [2]}
                """;
        CliHarness r = CliHarness.runWithInput(input, "strides", "--batch");
        assertEquals(0, r.code(), r.err());
        String[] lines = r.out().split("\n");
        assertEquals(4, lines.length, r.out());
        assertTrue(lines[0].startsWith("{\"buffer_bytes\":4,\"min_bytes\":1,\"packed\":false,\"broadcast\":true,"), lines[0]);
        assertTrue(lines[0].endsWith("\"offsets\":[{\"index\":[1,2,3,4],\"offset\":0}]}"), lines[0]);
        assertTrue(lines[1].startsWith("{\"buffer_bytes\":4,\"min_bytes\":3,\"packed\":true"), lines[1]);
        assertEquals("{\"error\":\"index 7 out of bounds [0, 4) for dim 1 of sizes [2, 4] (index [1, 7])\"}", lines[2]);
        assertEquals("{\"error\":\"request needs \\\"dtype\\\": the element type name\"}", lines[3]);
    }

    @Test
    void badInputExitsTwoWithOneLine() {
        CliHarness r = CliHarness.run("strides", "--dtype", "f32", "--sizes", "2,3", "--strides", "1");
        assertEquals(2, r.code());
        assertEquals("tensorbuf strides: rank mismatch: 2 sizes [2, 3] but 1 strides [1]\n", r.err());
        r = CliHarness.run("strides", "--dtype", "f33", "--sizes", "2");
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("tensorbuf strides: --dtype: unknown element type 'f33'; expected an XLA name (pred, s1,"), r.err());
        r = CliHarness.run("strides", "--dtype", "f32", "--sizes", "2,3", "--strides", "3,1", "--format", "HW");
        assertEquals(2, r.code());
        assertEquals("tensorbuf strides: give strides or a format, not both\n", r.err());
    }

    @Test
    void batchNamesUnknownKeysAndWrongTypesInsteadOfAnsweringAnotherQuestion() {
        String input = """
                {"dtype": "f32", "sizes": [2, 3], "stride": [0, 1]}
                {"dtype": "f32", "sizes": [2, 3], "strides": "0,1"}
                {"dtype": "f32", "sizes": [2, "3"]}
                {"dtype": "f32", "sizes": [2, 3], "format": 7}
                """;
        CliHarness r = CliHarness.runWithInput(input, "strides", "--batch");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                {"error":"unknown request key 'stride' (did you mean strides?); keys: dtype, sizes, strides, format, indices"}
                {"error":"request key \\"strides\\" must be a list of 64-bit integers, got \\"0,1\\""}
                {"error":"request key \\"sizes\\" must be a list of 64-bit integers, got [2,\\"3\\"]"}
                {"error":"request key \\"format\\" must be a string, got 7"}
                """, r.out());
    }

    @Test
    void optionsThatTheBatchWouldIgnoreAreRefused() {
        CliHarness r = CliHarness.runWithInput("{\"dtype\": \"u8\", \"sizes\": [2]}\n", "strides", "--batch", "--dtype", "f32");
        assertEquals(2, r.code());
        assertEquals("", r.out());
        assertEquals("tensorbuf strides: --dtype cannot be combined with --batch: each request line carries its own values"
                + " (keys: dtype, sizes, strides, format, indices)\n", r.err());
        CliHarness json = CliHarness.runWithInput("{\"dtype\": \"u8\", \"sizes\": [2]}\n", "strides", "--batch", "--json");
        assertEquals(0, json.code(), json.err());
        assertTrue(json.out().startsWith("{\"buffer_bytes\":4,\"min_bytes\":2,"), "--json changes nothing: " + json.out());
    }

    @Test
    void dtypeTakesXlaAndDirectMLNamesInAnyCase() {
        for (String name : List.of("f32", "F32", "FLOAT32", "float32", "DML_TENSOR_DATA_TYPE_FLOAT32")) {
            CliHarness r = CliHarness.run("strides", "--dtype", name, "--sizes", "2");
            assertEquals(0, r.code(), name + ": " + r.err());
            assertTrue(r.out().startsWith("f32 sizes [2] strides [1]\n"), name + ": " + r.out());
        }
        CliHarness bf16 = CliHarness.runWithInput("{\"dtype\": \"BF16\", \"sizes\": [3]}\n", "strides", "--batch");
        assertTrue(bf16.out().startsWith("{\"buffer_bytes\":8,\"min_bytes\":6,"), bf16.out());
        CliHarness token = CliHarness.run("strides", "--dtype", "token", "--sizes", "2");
        assertEquals(2, token.code());
        assertEquals("tensorbuf strides: --dtype: element type 'token' holds no data; expected a type such as f32, bf16 or s4\n",
                token.err());
    }
}
