package dev.tensorbuf.cli;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaShape;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

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
}
