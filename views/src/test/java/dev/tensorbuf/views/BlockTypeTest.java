package dev.tensorbuf.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class BlockTypeTest {
    @Test
    void exampleFromJavadoc() {
        BlockType q = BlockType.fromGgmlId(8);
        assertEquals(BlockType.Q8_0, q);
        assertEquals(32, q.blockValues());
        assertEquals(34, q.blockBytes());
        assertEquals(4352, q.byteSize(4096));
        assertEquals(BlockType.Q4_K, BlockType.fromName("q4_k"));
        assertEquals("ggml type id 4 is not a block-quantized type tensorbuf knows",
                assertThrows(IllegalArgumentException.class, () -> BlockType.fromGgmlId(4)).getMessage());
    }

    @Test
    void sizesAreGgmlsForTheKQuants() {
        // gguf-py GGML_QUANT_SIZES (checked in full against gguf-py by interop's GgufReferenceTest).
        assertEquals(84, BlockType.Q2_K.blockBytes());
        assertEquals(110, BlockType.Q3_K.blockBytes());
        assertEquals(144, BlockType.Q4_K.blockBytes());
        assertEquals(176, BlockType.Q5_K.blockBytes());
        assertEquals(210, BlockType.Q6_K.blockBytes());
        assertEquals(40, BlockType.Q8_1.blockBytes());
    }

    @Test
    void partialBlocksAndOverflowAreRefused() {
        assertEquals("33 values of Q4_0 are not a whole number of 32-value blocks",
                assertThrows(IllegalArgumentException.class, () -> BlockType.Q4_0.byteSize(33)).getMessage());
        assertEquals("9223372036854775776 values of Q8_0 (34 bytes per 32) overflow a long byte size",
                assertThrows(IllegalArgumentException.class, () -> BlockType.Q8_0.byteSize(Long.MAX_VALUE / 32 * 32))
                        .getMessage());
    }
}
