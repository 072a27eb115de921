package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.quant.BlockTensor;
import dev.tensorbuf.views.BlockType;
import dev.tensorbuf.views.TensorView;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opening a GGUF file past 4 GiB and reading one tensor touches that tensor's pages and no
 * others: the file is sparse (a 4 GiB F32 tensor that is a hole, then a 272 KiB Q8_0 tensor at an
 * offset past 2^32), and the process's resident memory ({@code VmRSS}) grows by far less than the
 * big tensor while the small one is read, and read right. Skipped where {@code /proc/self/status}
 * is missing or the temporary file system cannot hold the file's length.
 */
class GgufResidentMemoryTest {
    private static final long BIG = 1L << 30;          // f32 values: 4 GiB
    private static final long SMALL_COLS = 4096;
    private static final long SMALL_ROWS = 64;
    private static final long SLACK = 24L << 20;       // JIT, class loading, the output buffer

    @TempDir
    Path dir;

    private static long residentBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IOException("no VmRSS line in /proc/self/status");
    }

    @Test
    void readingOneTensorOfABigFileTouchesOnlyItsPages() throws IOException {
        assumeTrue(Files.isReadable(Path.of("/proc/self/status")), "no /proc/self/status to read resident memory from");
        assumeTrue(Files.getFileStore(dir).getUsableSpace() > (5L << 30),
                "the temporary file system has under 5 GiB free: it might not hold a 4 GiB sparse file");
        long smallBytes = BlockType.Q8_0.byteSize(SMALL_COLS * SMALL_ROWS);
        GgufBytes header = GgufBytes.header(3, 2, 0)
                .info("big", 0, 0, BIG)
                .info("small", 8, 4 * BIG, SMALL_COLS, SMALL_ROWS)
                .data(32, 0);
        long dataStart = header.size();
        Path file = dir.resolve("sparse.gguf");
        header.writeTo(file);
        byte[] small = new byte[(int) smallBytes];
        Random random = new Random(38);
        random.nextBytes(small);
        MemorySegment smallSegment = MemorySegment.ofArray(small);
        for (long b = 0; b < smallBytes / 34; b++) {
            smallSegment.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 34 * b,
                    Float.floatToFloat16(random.nextFloat()));
        }
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(dataStart + 4 * BIG + smallBytes);
            raf.seek(dataStart + 4 * BIG);
            raf.write(small);
        } catch (IOException e) {
            assumeTrue(false, "the temporary file system cannot hold a " + (dataStart + 4 * BIG + smallBytes)
                    + "-byte sparse file: " + e);
        }
        try (Allocator arena = Allocators.confined()) {
            MemoryBuffer outBuffer = arena.allocate(4 * SMALL_COLS * SMALL_ROWS);
            MemorySegment out = outBuffer.segment();
            out.fill((byte) 0);
            MemoryBuffer expectedBuffer = arena.allocate(out.byteSize());
            MemoryBuffer smallCopy = arena.allocate(smallBytes);
            smallCopy.segment().copyFrom(smallSegment);
            BlockTensor.of(smallCopy, BlockType.Q8_0, SMALL_ROWS, SMALL_COLS)
                    .dequantize(TensorView.of(expectedBuffer, "f32[" + SMALL_ROWS + "," + SMALL_COLS + "]"));
            MemorySegment expected = expectedBuffer.segment();
            // The kernels ran once above, on the heap copy: their classes are loaded before measuring.
            long before = residentBytes();
            try (GgufFile f = GgufFile.open(file)) {
                long opened = residentBytes();
                assertEquals(List.of(BIG), f.tensor("big").dims());
                assertTrue(f.tensor("small").fileOffset() > 1L << 32, "the small tensor sits past 2^32");
                f.tensor("small").blocks().dequantize(TensorView.of(outBuffer, "f32[" + SMALL_ROWS + "," + SMALL_COLS + "]"));
                long read = residentBytes();
                System.out.printf("GgufResidentMemoryTest: VmRSS %d MiB before open, +%d KiB after open, +%d KiB after"
                        + " reading the %d KiB tensor (file %d MiB)%n", before >> 20, (opened - before) >> 10,
                        (read - opened) >> 10, smallBytes >> 10, Files.size(file) >> 20);
                assertTrue(opened - before < SLACK, "opening grew resident memory by " + (opened - before) + " bytes");
                assertTrue(read - opened < smallBytes + SLACK, "reading one tensor grew resident memory by "
                        + (read - opened) + " bytes; the file is " + Files.size(file));
            }
            assertEquals(-1, expected.mismatch(out), "the small tensor's values");
        }
    }
}
