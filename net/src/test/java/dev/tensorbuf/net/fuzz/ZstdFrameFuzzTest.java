package dev.tensorbuf.net.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tensorbuf.net.internal.ZstdFrames;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Fuzzes {@link ZstdFrames}: the first three bytes of an input (little-endian) are the size the
 * rest must decode to; every input decodes to exactly that or is refused with an
 * {@link IllegalArgumentException} (never an index error, a read or write outside either segment,
 * or a hang). Seeds (frames pyarrow's codec wrote at levels 1 to 19) and findings:
 * {@code src/test/resources/dev/tensorbuf/net/fuzz/ZstdFrameFuzzTestInputs/}.
 */
class ZstdFrameFuzzTest {
    @FuzzTest
    void framesDecodeToTheirSizeOrAreRefused(byte[] data) {
        if (data.length < 3) {
            return;
        }
        int size = (data[0] & 0xFF) | (data[1] & 0xFF) << 8 | (data[2] & 0x0F) << 16;   // up to 1 MiB
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(Math.max(1, size)).asSlice(0, size);
            ZstdFrames.decode(MemorySegment.ofArray(Arrays.copyOfRange(data, 3, data.length)), out);
        } catch (IllegalArgumentException refused) {
            if (refused.getMessage() == null || refused.getMessage().isEmpty()) {
                throw new AssertionError("a refusal without a message", refused);
            }
        }
    }
}
