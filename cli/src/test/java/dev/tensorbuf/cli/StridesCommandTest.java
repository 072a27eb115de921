package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.json.Json;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
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
    void theFormatShownIsTheOneAskedFor() {
        CliHarness dhw = CliHarness.run("strides", "--dtype", "f32", "--sizes", "2,3,4", "--format", "dhw");
        assertEquals(0, dhw.code(), dhw.err());
        assertTrue(dhw.out().startsWith("f32 sizes [2, 3, 4] strides [12, 4, 1] (DHW)\n"), dhw.out());
        CliHarness json = CliHarness.run("strides", "--dtype", "f32", "--sizes", "2,3,4", "--format", "DHW", "--json");
        assertTrue(json.out().contains("\"format\":\"DHW\""), json.out());
        // Strides alone: the first format they are the packed strides of.
        CliHarness strides = CliHarness.run("strides", "--dtype", "f32", "--sizes", "2,3,4", "--strides", "12,4,1", "--json");
        assertTrue(strides.out().contains("\"format\":\"CHW\""), strides.out());
        CliHarness batch = CliHarness.runWithInput("{\"dtype\": \"f32\", \"sizes\": [2, 3, 4], \"format\": \"DHW\"}\n",
                "strides", "--batch");
        assertTrue(batch.out().contains("\"format\":\"DHW\""), batch.out());
    }

    @Test
    void jsonHasTheFixedKeys() {
        CliHarness r = CliHarness.run("strides", "--dtype", "INT8", "--sizes", "2,3", "--strides", "5,1",
                "--index", "1,2", "--json");
        assertEquals(0, r.code(), r.err());
        assertEquals("{\"buffer_bytes\":8,\"min_bytes\":8,\"packed\":false,\"broadcast\":false,\"padded\":true,"
                + "\"overlapping\":false,\"format\":null,\"strides\":[5,1],\"offset\":0,\"offsets\":[{\"index\":[1,2],\"offset\":7}]}\n",
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
                {"error":"unknown request key 'stride' (did you mean strides?); keys: dtype, sizes, strides, offset, format, indices"}
                {"error":"request key \\"strides\\" must be a list of 64-bit integers, got \\"0,1\\""}
                {"error":"request key \\"sizes\\" must be a list of 64-bit integers, got [2, \\"3\\"]"}
                {"error":"request key \\"format\\" must be a string, got 7"}
                """, r.out());
    }

    @Test
    void batchQuotesValuesAsWrittenAndRefusesNull() {
        String input = """
                {"dtype": "f32", "sizes": [2.0]}
                {"dtype": "f32", "sizes": [2], "strides": null}
                {"dtype": "f32", "sizes": [2], "format": null}
                """;
        CliHarness r = CliHarness.runWithInput(input, "strides", "--batch");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                {"error":"request key \\"sizes\\" must be a list of 64-bit integers, got [2.0]"}
                {"error":"request key \\"strides\\" must be a list of 64-bit integers, got null (leave the key out for its default)"}
                {"error":"request key \\"format\\" must be a string, got null (leave the key out for its default)"}
                """, r.out());
    }

    @Test
    void negativeStridesNeedAnOffsetAndSayHowToPassIt() {
        CliHarness r = CliHarness.run("strides", "--dtype", "f32", "--sizes", "2,3", "--strides", "3,-1");
        assertEquals(2, r.code());
        assertEquals("tensorbuf strides: negative strides [3, -1] reach element offset -2 for sizes [2, 3] from offset 0:"
                + " pass --offset 2 or more\n", r.err());
        // No long offset reaches 2^63: the message must not ask for one.
        r = CliHarness.run("strides", "--dtype", "u8", "--sizes", "2", "--strides", "-9223372036854775808", "--offset",
                "9223372036854775807");
        assertEquals(2, r.code());
        assertEquals("tensorbuf strides: negative strides [-9223372036854775808] reach element offset -1 for sizes [2] from"
                + " offset 9223372036854775807: they reach back 9223372036854775808 elements, more than any offset (at most"
                + " 9223372036854775807) makes up\n", r.err());
        r = CliHarness.run("strides", "--dtype", "u8", "--sizes", "9223372036854775807");
        assertEquals(2, r.code());
        assertEquals("tensorbuf strides: 9223372036854775807 bytes (u8) rounded up to a multiple of 4 overflow a long\n", r.err());
        r = CliHarness.run("strides", "--dtype", "f32", "--sizes", "2,3", "--strides", "3,-1", "--offset", "2",
                "--index", "0,0", "--index", "1,2");
        assertEquals(0, r.code(), r.err());
        // Offsets and the buffer count from the buffer's start: 6 f32 elements at offsets 0..5.
        assertEquals("""
                f32 sizes [2, 3] strides [3, -1] offset 2
                buffer 24 bytes (minimum 24)
                packed yes, broadcast no, padded no, overlapping no
                index [0, 0] -> offset 2
                index [1, 2] -> offset 3
                """, r.out());
        CliHarness json = CliHarness.run("strides", "--dtype", "u8", "--sizes", "2,3", "--format", "HW", "--offset", "5",
                "--index", "1,2", "--json");
        assertEquals("{\"buffer_bytes\":12,\"min_bytes\":11,\"packed\":true,\"broadcast\":false,\"padded\":false,"
                + "\"overlapping\":false,\"format\":\"HW\",\"strides\":[3,1],\"offset\":5,"
                + "\"offsets\":[{\"index\":[1,2],\"offset\":10}]}\n", json.out());
        CliHarness batch = CliHarness.runWithInput("""
                {"dtype": "f32", "sizes": [2, 3], "strides": [3, -1]}
                {"dtype": "f32", "sizes": [2, 3], "strides": [3, -1], "offset": 2, "indices": [[1, 2]]}
                {"dtype": "f32", "sizes": [2], "offset": 1.0}
                """, "strides", "--batch");
        assertEquals("""
                {"error":"negative strides [3, -1] reach element offset -2 for sizes [2, 3] from offset 0: set \\"offset\\" to 2 or more"}
                {"buffer_bytes":24,"min_bytes":24,"packed":true,"broadcast":false,"padded":false,"overlapping":false,"format":null,"strides":[3,-1],"offset":2,"offsets":[{"index":[1,2],"offset":3}]}
                {"error":"request key \\"offset\\" must be a 64-bit integer, got 1.0"}
                """, batch.out());
        r = CliHarness.run("strides", "--dtype", "f32", "--sizes", "2", "--offset", "two");
        assertEquals("tensorbuf strides: --offset: 'two' is not an integer\n", r.err());
        r = CliHarness.run("strides", "--dtype", "f32", "--sizes", "2", "--offset", "-1");
        assertEquals("tensorbuf strides: offset -1 is negative\n", r.err());
    }

    @Test
    void optionsThatTheBatchWouldIgnoreAreRefused() {
        CliHarness r = CliHarness.runWithInput("{\"dtype\": \"u8\", \"sizes\": [2]}\n", "strides", "--batch", "--dtype", "f32");
        assertEquals(2, r.code());
        assertEquals("", r.out());
        assertEquals("tensorbuf strides: --dtype cannot be combined with --batch: each request line carries its own values"
                + " (keys: dtype, sizes, strides, offset, format, indices)\n", r.err());
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

    @Test
    void paddedWhenSomeSlotOfTheSpanIsUnusedOverlappingOrNot() {
        CliHarness r = CliHarness.run("strides", "--dtype", "f16", "--sizes", "4,4", "--strides", "2,2");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                f16 sizes [4, 4] strides [2, 2]
                buffer 28 bytes (minimum 26)
                packed no, broadcast no, padded yes, overlapping yes
                """, r.out());
        CliHarness picture = CliHarness.run("render", "--dtype", "f16", "--sizes", "4,4", "--strides", "2,2", "--json");
        assertEquals("{\"svg\":null,\"cells\":16,\"padding_slots\":6,\"summarised\":false}\n", picture.out());
    }

    /**
     * Every fact {@code strides --json} prints, and render's count of unused slots, against an
     * enumeration of every index of small random layouts (zero and negative strides, overlaps,
     * empty dims, offsets).
     */
    @Test
    void everyPrintedFactMatchesBruteForce() {
        long seed = Long.getLong("tensorbuf.seed", System.nanoTime());
        System.out.println("StridesCommandTest.everyPrintedFactMatchesBruteForce seed=" + seed
                + " (rerun with -Dtensorbuf.seed=" + seed + ")");
        Random random = new Random(seed);
        for (int trial = 0; trial < 500; trial++) {
            int rank = 1 + random.nextInt(3);
            long[] sizes = new long[rank];
            long[] strides = new long[rank];
            for (int d = 0; d < rank; d++) {
                sizes[d] = random.nextInt(12) == 0 ? 0 : 1 + random.nextInt(4);
                strides[d] = random.nextInt(13) - 6;
                if (random.nextInt(4) == 0) {
                    strides[d] *= 1 + random.nextInt(6);
                }
            }
            long offset = random.nextInt(3);
            for (int d = 0; d < rank; d++) {
                offset -= Math.min(0, Math.max(0, sizes[d] - 1) * strides[d]);
            }
            String what = "seed " + seed + " trial " + trial + ": sizes " + text(sizes) + " strides " + text(strides)
                    + " offset " + offset;

            List<long[]> indices = new ArrayList<>();
            List<Long> offsets = new ArrayList<>();
            Set<Long> used = new HashSet<>();
            long lo = Long.MAX_VALUE;
            long hi = Long.MIN_VALUE;
            for (long[] index : allIndices(sizes)) {
                long at = offset;
                for (int d = 0; d < rank; d++) {
                    at += index[d] * strides[d];
                }
                indices.add(index);
                offsets.add(at);
                used.add(at);
                lo = Math.min(lo, at);
                hi = Math.max(hi, at);
            }
            long count = indices.size();
            long span = count == 0 ? 0 : hi - lo + 1;
            boolean broadcast = false;
            for (int d = 0; d < rank; d++) {
                broadcast |= sizes[d] > 1 && strides[d] == 0;
            }
            long minBytes = count == 0 ? 0 : Math.ceilDiv((hi + 1) * 16, 8);

            List<String> args = new ArrayList<>(List.of("strides", "--dtype", "f16", "--sizes", text(sizes),
                    "--strides", text(strides), "--offset", Long.toString(offset), "--json"));
            for (long[] index : indices) {
                args.add("--index");
                args.add(text(index));
            }
            CliHarness r = CliHarness.run(args.toArray(String[]::new));
            assertEquals(0, r.code(), what + ": " + r.err());
            Map<String, Object> json = Json.parseObject(r.out().strip());
            assertEquals(minBytes, json.get("min_bytes"), what);
            assertEquals(minBytes + (-minBytes & 3), json.get("buffer_bytes"), what);
            assertEquals(used.size() < count, json.get("overlapping"), what);
            assertEquals(used.size() == count && span == count, json.get("packed"), what);
            assertEquals(broadcast, json.get("broadcast"), what);
            assertEquals(offset, json.get("offset"), what);
            assertEquals(used.size() < span, json.get("padded"), what + ": an offset in the span is never used");
            List<?> printed = (List<?>) json.get("offsets");
            assertEquals(count, printed.size(), what);
            for (int i = 0; i < count; i++) {
                assertEquals(offsets.get(i), ((Map<?, ?>) printed.get(i)).get("offset"), what + " index " + text(indices.get(i)));
            }
            if (count > 0) {
                CliHarness picture = CliHarness.run("render", "--dtype", "f16", "--sizes", text(sizes),
                        "--strides", text(strides), "--offset", Long.toString(offset), "--json");
                assertEquals(0, picture.code(), what + ": " + picture.err());
                assertEquals(hi + 1 - used.size(), Json.parseObject(picture.out().strip()).get("padding_slots"),
                        what + ": slots [0, " + hi + "] that no index uses");
            }
        }
    }

    private static String text(long[] values) {
        return java.util.Arrays.stream(values).mapToObj(Long::toString).collect(Collectors.joining(","));
    }

    /** Every index of {@code sizes}, last dim fastest; none when a size is 0. */
    private static List<long[]> allIndices(long[] sizes) {
        List<long[]> out = new ArrayList<>();
        for (long size : sizes) {
            if (size == 0) {
                return out;
            }
        }
        long[] index = new long[sizes.length];
        while (true) {
            out.add(index.clone());
            int d = sizes.length - 1;
            while (d >= 0 && ++index[d] == sizes[d]) {
                index[d] = 0;
                d--;
            }
            if (d < 0) {
                return out;
            }
        }
    }
}
