package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Files written piece by piece through a {@link DenseTensor.DataWriter}: the same bytes as from a whole tensor, or refused. */
class DataWriterTest {
    @TempDir
    Path dir;

    private static final float[] VALUES = {1, 2, 3, 4, 5, 6};

    /** Writes the values of {@link #VALUES} from {@code from} to {@code to}, one element per write. */
    private static DenseTensor.DataWriter elements(int from, int to) {
        return channel -> {
            for (int i = from; i < to; i++) {
                ByteBuffer b = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putFloat(0, VALUES[i]);
                while (b.hasRemaining()) {
                    channel.write(b);
                }
            }
        };
    }

    @Test
    void npyWrittenInPiecesIsTheFileOfTheWholeTensor() throws IOException {
        Path whole = dir.resolve("whole.npy");
        Npy.write(whole, new DenseTensor(DType.F32, List.of(2L, 3L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, VALUES)));
        Path pieces = dir.resolve("pieces.npy");
        Npy.write(pieces, DType.F32, List.of(2L, 3L), elements(0, 6));
        assertArrayEquals(Files.readAllBytes(whole), Files.readAllBytes(pieces));
        // bf16 goes as np.save writes ml_dtypes' bfloat16: '<V2'.
        Path bf = dir.resolve("bf.npy");
        Npy.write(bf, DType.BF16, List.of(2L), channel -> channel.write(ByteBuffer.wrap(new byte[] {(byte) 0x80, 0x3f, 0, 0x40})));
        try (Npy.Tensor a = Npy.map(bf, DType.BF16)) {
            assertEquals("<V2", a.header().descr());
            assertEquals(List.of(2L), a.header().shape());
        }
    }

    @Test
    void aWriterOfTooFewOrTooManyBytesIsRefusedAndTheOldFileStays() throws IOException {
        Path file = dir.resolve("x.npy");
        Files.writeString(file, "old");
        IllegalStateException few = assertThrows(IllegalStateException.class,
                () -> Npy.write(file, DType.F32, List.of(2L, 3L), elements(0, 5)));
        assertEquals(file + " holds 24 data bytes, and the writer wrote only 20", few.getMessage());
        IllegalStateException many = assertThrows(IllegalStateException.class,
                () -> Npy.write(file, DType.F32, List.of(5L), elements(0, 6)));
        assertEquals(file + " holds 20 data bytes, and the writer wrote 24 (20 before a write of 4)", many.getMessage());
        assertEquals("old", Files.readString(file));
        try (var files = Files.list(dir)) {
            assertEquals(List.of(file), files.toList(), "no .part file left");
        }
        IllegalArgumentException s4 = assertThrows(IllegalArgumentException.class,
                () -> Npy.write(file, DType.S4, List.of(2L), elements(0, 0)));
        assertEquals("cannot write s4[2] to " + file + " from a DenseTensor.DataWriter: a .npy file holds s4 one element to a byte;"
                + " write a DenseTensor of it", s4.getMessage());
    }

    @Test
    void safetensorsWrittenInPiecesIsTheFileOfTheWholeTensors() throws IOException {
        Path whole = dir.resolve("whole.safetensors");
        SafetensorsFile.write(whole, Map.of(
                "a", new DenseTensor(DType.F32, List.of(2L, 2L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2, 3, 4)),
                "b", new DenseTensor(DType.F32, List.of(2L), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 5, 6))),
                Map.of("format", "np"));
        Path pieces = dir.resolve("pieces.safetensors");
        SafetensorsFile.write(pieces, Map.of("a", ArrayShape.of(DType.F32, 2, 2), "b", ArrayShape.of(DType.F32, 2)),
                Map.of("format", "np"), Map.of("a", elements(0, 4), "b", elements(4, 6)));
        assertArrayEquals(Files.readAllBytes(whole), Files.readAllBytes(pieces));
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                () -> SafetensorsFile.write(pieces, Map.of("a", ArrayShape.of(DType.F32, 2, 2)), Map.of(), Map.of()));
        assertEquals("tensor 'a' has no DenseTensor.DataWriter; writers are given for []", missing.getMessage());
        IllegalStateException few = assertThrows(IllegalStateException.class,
                () -> SafetensorsFile.write(pieces, Map.of("a", ArrayShape.of(DType.F32, 2, 2)), Map.of(),
                        Map.of("a", elements(0, 3))));
        assertEquals("tensor 'a' of " + pieces + " holds 16 data bytes, and the writer wrote only 12", few.getMessage());
        assertArrayEquals(Files.readAllBytes(whole), Files.readAllBytes(pieces));
    }
}
