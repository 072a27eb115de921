package dev.tensorbuf.net.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.testing.DamagedFiles;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

/** The decoders' tests: a frame decoded into bytes, and damaged copies of good frames decoded or refused. */
final class Frames {
    private Frames() {
    }

    /** {@return {@code frame} decoded by {@code codec} into exactly {@code size} bytes} */
    static byte[] decode(BufferCodec codec, byte[] frame, int size) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(Math.max(1, size)).asSlice(0, size);
            codec.decode(MemorySegment.ofArray(frame), out);
            return out.toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /**
     * Decodes 300 damaged copies of {@code frame} (of {@code size} bytes decoded), failing on any
     * other outcome than the size asked for or a refusal, and on fewer than 100 refusals.
     */
    static void damagedDecodeToSizeOrAreRefused(String name, BufferCodec codec, byte[] frame, int size, Random random) {
        int refused = 0;
        for (int trial = 0; trial < 300; trial++) {
            try {
                assertEquals(size, decode(codec, DamagedFiles.damaged(frame, trial, random), size).length);
            } catch (IllegalArgumentException expected) {
                refused++;
            }
        }
        assertTrue(refused > 100, name + ": " + refused + " of 300 damaged frames refused");
    }
}
