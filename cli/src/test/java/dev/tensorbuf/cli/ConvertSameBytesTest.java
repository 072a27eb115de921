package dev.tensorbuf.cli;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaShape;
import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.internal.CountedWrites;
import dev.tensorbuf.views.DType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which sources a convert writes as their own bytes, skipping the engine: only those already the output's bytes. */
class ConvertSameBytesTest {
    private static ArrayShape shape(String text) {
        return (ArrayShape) XlaShape.parse(text);
    }

    @Test
    void aRowMajorSourceOfTheOutputsTypeIsItsOwnBytesFromItsOffset() {
        try (Allocator arena = Allocators.shared()) {
            MemoryBuffer b = arena.allocate(4 * 30);
            for (int i = 0; i < 30; i++) {
                b.segment().setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, i);
            }
            TensorView whole = TensorView.of(b, "f32[2,3,5]{2,1,0}");
            MemorySegment same = ConvertCommand.sameBytes(whole, shape("f32[2,3,5]{2,1,0}"));
            assertEquals(120, same.byteSize());
            assertEquals(b.segment().address(), same.address());
            // The second of two [3,5] blocks: row-major, starting 15 elements in.
            TensorView second = Ops.slice(whole, new long[] {1, 0, 0}, new long[] {2, 3, 5}, new long[] {1, 1, 1});
            MemorySegment part = ConvertCommand.sameBytes(second, shape("f32[1,3,5]{2,1,0}"));
            assertEquals(60, part.byteSize());
            assertEquals(15f, part.get(ValueLayout.JAVA_FLOAT_UNALIGNED, 0));
            assertEquals(29f, part.get(ValueLayout.JAVA_FLOAT_UNALIGNED, 56));
        }
    }

    @Test
    void anotherTypeOrderOrGappedSourceGoesThroughTheEngine() {
        try (Allocator arena = Allocators.shared()) {
            TensorView whole = TensorView.of(arena.allocate(4 * 30), "f32[2,3,5]{2,1,0}");
            assertNull(ConvertCommand.sameBytes(whole, shape("bf16[2,3,5]{2,1,0}")), "a new type");
            assertNull(ConvertCommand.sameBytes(Ops.transpose(whole, 0, 2, 1), shape("f32[2,5,3]{2,1,0}")), "a transpose");
            assertNull(ConvertCommand.sameBytes(TensorView.of(arena.allocate(4 * 30), "f32[2,3,5]{0,1,2}"),
                    shape("f32[2,3,5]{2,1,0}")), "column-major in memory");
            TensorView gapped = Ops.slice(whole, new long[] {0, 0, 0}, new long[] {2, 3, 4}, new long[] {1, 1, 1});
            assertNull(ConvertCommand.sameBytes(gapped, shape("f32[2,3,4]{2,1,0}")), "rows with gaps");
        }
    }

    @TempDir
    Path dir;

    /** A .npy of {@code count} f32 values 0.5, 1.5, ...: more than one 64 MiB piece when count is large. */
    private Path npy(String name, int count) throws IOException {
        float[] values = new float[count];
        for (int i = 0; i < count; i++) {
            values[i] = i + 0.5f;
        }
        Path file = dir.resolve(name);
        Npy.write(file, new DenseTensor(DType.F32, List.of(2L, (long) count / 2), Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, values)));
        return file;
    }

    @Test
    void aPlainCopyWritesTheInputFileByteForByteAndIntoItselfLeavesItAsItWas() throws IOException {
        // 17M floats: 68 MB, two pieces of the file-to-file transfer.
        Path in = npy("x.npy", 17 << 20);
        byte[] before = Files.readAllBytes(in);
        Path out = dir.resolve("y.npy");
        CliHarness r = CliHarness.run("convert", in.toString(), out.toString(), "--quiet");
        assertEquals(0, r.code(), r.err());
        assertArrayEquals(before, Files.readAllBytes(out));
        r = CliHarness.run("convert", in.toString(), in.toString(), "--quiet");
        assertEquals(0, r.code(), r.err());
        assertArrayEquals(before, Files.readAllBytes(in));
        try (var left = Files.list(dir)) {
            assertEquals(List.of("x.npy", "y.npy"), left.map(p -> p.getFileName().toString()).sorted().toList());
        }
    }

    @Test
    void transferFromCountsTheBytesAndRefusesAnInputThatEndsEarly() throws IOException {
        Path from = dir.resolve("from.bin");
        byte[] bytes = new byte[100];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (i * 7);
        }
        Files.write(from, bytes);
        Path to = dir.resolve("to.bin");
        try (FileChannel src = FileChannel.open(from, StandardOpenOption.READ);
             FileChannel dst = FileChannel.open(to, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            CountedWrites counted = new CountedWrites(dst, 60, "t");
            counted.transferFrom(src, 10, 40);
            IllegalStateException tooMany = assertThrows(IllegalStateException.class, () -> counted.transferFrom(src, 0, 21));
            assertTrue(tooMany.getMessage().contains("holds 60 data bytes"), tooMany.getMessage());
            IOException ended = assertThrows(IOException.class, () -> counted.transferFrom(src, 90, 20));
            assertTrue(ended.getMessage().contains("changed while being read"), ended.getMessage());
        }
        // The 40 bytes from 10, then what the input still held from 90 before it ended.
        byte[] expected = new byte[50];
        System.arraycopy(bytes, 10, expected, 0, 40);
        System.arraycopy(bytes, 90, expected, 40, 10);
        assertArrayEquals(expected, Files.readAllBytes(to));
    }
}
