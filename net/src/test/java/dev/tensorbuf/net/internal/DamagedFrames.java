package dev.tensorbuf.net.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.testing.DamagedFiles;
import java.util.Random;

/** Damaged copies of good compressed frames, for the decoders' tests: each decodes to the size asked for or is refused. */
final class DamagedFrames {
    private DamagedFrames() {
    }

    /** A decoder under test: {@code frame} into exactly {@code size} bytes, or an {@link IllegalArgumentException}. */
    @FunctionalInterface
    interface Decoder {
        byte[] decode(byte[] frame, int size);
    }

    /**
     * Decodes 300 damaged copies of {@code frame} (of {@code size} bytes decoded), failing on any
     * other outcome than the size asked for or a refusal, and on fewer than 100 refusals.
     */
    static void decodeToSizeOrAreRefused(String name, byte[] frame, int size, Decoder decoder, Random random) {
        int refused = 0;
        for (int trial = 0; trial < 300; trial++) {
            try {
                assertEquals(size, decoder.decode(DamagedFiles.damaged(frame, trial, random), size).length);
            } catch (IllegalArgumentException expected) {
                refused++;
            }
        }
        assertTrue(refused > 100, name + ": " + refused + " of 300 damaged frames refused");
    }
}
