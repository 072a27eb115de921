package dev.tensorbuf.interop.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.views.DType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The header's edges, where mutation testing found nothing pinned: the header length at each of
 * its limits, tensors listed out of offset order, messages quoting the sizes they compare, and
 * the writer's order among tensors of one alignment.
 */
class SafetensorsCodecEdgesTest {

    private static final long MAX = SafetensorsCodec.MAX_HEADER_BYTES;

    @Test
    void headerLengthsAtEachLimitAreAcceptedAndOnePastIsRefused() {
        assertEquals(2, SafetensorsCodec.checkHeaderLength(2, 100, "f"));
        assertEquals(92, SafetensorsCodec.checkHeaderLength(92, 100, "f"));
        assertEquals(MAX, SafetensorsCodec.checkHeaderLength(MAX, MAX + 8, "f"));
        assertEquals("f: header length 93 runs past the end of the file (100 bytes, so at most 92)",
                refusedLength(93, 100).replace(": not a safetensors file, or a truncated one", ""));
        assertEquals("f: header length 1 is too short for a JSON object", refusedLength(1, 100));
        assertEquals("f: header length 0 is too short for a JSON object", refusedLength(0, 100));
        assertTrue(refusedLength(MAX + 1, MAX + 100).contains("exceeds the limit of " + MAX), refusedLength(MAX + 1, MAX + 100));
        assertTrue(refusedLength(-1, 100).contains("18446744073709551615"));
    }

    private static String refusedLength(long n, long fileSize) {
        return assertThrows(IllegalArgumentException.class, () -> SafetensorsCodec.checkHeaderLength(n, fileSize, "f"))
                .getMessage();
    }

    private static SafetensorsCodec.Header read(String json, long dataSize) {
        return SafetensorsCodec.read(ByteBuffer.wrap(json.getBytes(StandardCharsets.UTF_8)), dataSize, "f");
    }

    @Test
    void tensorsListedOutOfOffsetOrderTileTheDataAndComeBackInOffsetOrder() {
        SafetensorsCodec.Header h = read("{\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]},"
                + "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 16);
        assertEquals(List.of("a", "b"), h.entries().stream().map(SafetensorsCodec.Entry::name).toList());
        assertEquals(8, h.entries().get(1).begin());
    }

    @Test
    void aSizeMismatchQuotesBothSizes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> read("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,16]}}", 16));
        assertEquals("f: tensor 'a': F32 [2] is 8 bytes but data_offsets [4, 16] hold 12", e.getMessage());
    }

    @Test
    void aHeaderOfOnlyWhitespaceIsRefusedAsNoObject() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> read(" \n ", 0));
        assertTrue(e.getMessage().startsWith("f: header must start with '{'"), e.getMessage());
    }

    @Test
    void longStringsAreCutInMessagesPastFortyCharacters() {
        String forty = "x".repeat(40);
        String message = assertThrows(IllegalArgumentException.class,
                () -> read("{\"a\":{\"dtype\":\"F32\",\"shape\":\"" + forty + "\",\"data_offsets\":[0,0]}}", 0)).getMessage();
        assertTrue(message.contains("\"" + forty + "\""), message);
        String cut = assertThrows(IllegalArgumentException.class,
                () -> read("{\"a\":{\"dtype\":\"F32\",\"shape\":\"" + forty + "y\",\"data_offsets\":[0,0]}}", 0)).getMessage();
        assertTrue(cut.contains("\"" + forty + "...\""), cut);
    }

    @Test
    void theWriterOrdersByAlignmentThenByUtf8Bytes() {
        List<Map.Entry<String, DType>> entries = new ArrayList<>(List.of(Map.entry("b", DType.F32),
                Map.entry("\u00e9", DType.F32), Map.entry("a", DType.F32), Map.entry("z", DType.U8),
                Map.entry("c", DType.F64), Map.entry("B", DType.F32)));
        entries.sort(SafetensorsCodec.writeOrder(t -> t));
        assertEquals(List.of("c", "B", "a", "b", "\u00e9", "z"), entries.stream().map(Map.Entry::getKey).toList());
    }
}
