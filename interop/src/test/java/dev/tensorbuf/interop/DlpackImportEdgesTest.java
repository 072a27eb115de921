package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.internal.DlpackStructs;
import dev.tensorbuf.views.TensorElements;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * A versioned struct's edges, built here in Java with a NULL deleter (no C producer needed): the
 * largest rank, a scalar whose shape and strides are NULL, DLPack 1.2's rule on NULL strides, a
 * writable import, and strides that reach address 0 or below. Mutation testing found
 * each of these unpinned.
 */
class DlpackImportEdgesTest {

    private static final StructLayout LAYOUT = DlpackStructs.DL_MANAGED_TENSOR_VERSIONED;
    private static final int CPU = 1;
    private static final int FLOAT = 2;

    private static long off(String... field) {
        String[] path = new String[field.length + 1];
        path[0] = "dl_tensor";
        System.arraycopy(field, 0, path, 1, field.length);
        return DlpackStructs.offset(LAYOUT, path);
    }

    /** A versioned f32 struct on the host; shape and strides NULL when the arrays are null. */
    private static MemorySegment struct(Arena arena, int minor, long flags, MemorySegment data, long[] shape, long[] strides) {
        MemorySegment m = arena.allocate(LAYOUT);
        m.set(ValueLayout.JAVA_INT, DlpackStructs.offset(LAYOUT, "version", "major"), DlpackStructs.MAJOR_VERSION);
        m.set(ValueLayout.JAVA_INT, DlpackStructs.offset(LAYOUT, "version", "minor"), minor);
        m.set(ValueLayout.JAVA_LONG, DlpackStructs.offset(LAYOUT, "flags"), flags);
        m.set(ValueLayout.ADDRESS, DlpackStructs.offset(LAYOUT, "deleter"), MemorySegment.NULL);
        m.set(ValueLayout.ADDRESS, off("data"), data);
        m.set(ValueLayout.JAVA_INT, off("device", "device_type"), CPU);
        m.set(ValueLayout.JAVA_INT, off("ndim"), shape == null ? 0 : shape.length);
        m.set(ValueLayout.JAVA_BYTE, off("dtype", "code"), (byte) FLOAT);
        m.set(ValueLayout.JAVA_BYTE, off("dtype", "bits"), (byte) 32);
        m.set(ValueLayout.JAVA_SHORT, off("dtype", "lanes"), (short) 1);
        m.set(ValueLayout.ADDRESS, off("shape"), shape == null ? MemorySegment.NULL : arena.allocateFrom(ValueLayout.JAVA_LONG, shape));
        m.set(ValueLayout.ADDRESS, off("strides"),
                strides == null ? MemorySegment.NULL : arena.allocateFrom(ValueLayout.JAVA_LONG, strides));
        return m;
    }

    @Test
    void sixtyFourDimsImportAndSixtyFiveAreRefused() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocateFrom(ValueLayout.JAVA_FLOAT, 2.5f);
            long[] ones = new long[64];
            java.util.Arrays.fill(ones, 1);
            try (Dlpack.Tensor t = Dlpack.importVersioned(struct(arena, 2, 0, data, ones, ones))) {
                assertEquals(64, t.view().rank());
                assertEquals(2.5f, TensorElements.of(t.view()).getFloat(new long[64]));
            }
            long[] more = new long[65];
            java.util.Arrays.fill(more, 1);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Dlpack.importVersioned(struct(arena, 2, 0, data, more, more)));
            assertTrue(e.getMessage().contains("has ndim 65: expected 0 to 64"), e.getMessage());
        }
    }

    @Test
    void aScalarNeedsNeitherShapeNorStridesEvenUnderDlpack12() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocateFrom(ValueLayout.JAVA_FLOAT, 7f);
            try (Dlpack.Tensor t = Dlpack.importVersioned(struct(arena, 2, 0, data, null, null))) {
                assertEquals(0, t.view().rank());
                assertEquals(7f, TensorElements.of(t.view()).getFloat());
            }
        }
    }

    @Test
    void nullStridesAreRefusedFromDlpack12OnAndRowMajorBefore() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocateFrom(ValueLayout.JAVA_FLOAT, 1f, 2f, 3f, 4f);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Dlpack.importVersioned(struct(arena, 2, 0, data, new long[] {2, 2}, null)));
            assertTrue(e.getMessage().contains("of DLPack 1.2 has NULL strides for ndim 2"), e.getMessage());
            try (Dlpack.Tensor t = Dlpack.importVersioned(struct(arena, 1, 0, data, new long[] {2, 2}, null))) {
                assertArrayEquals(new float[] {1, 2, 3, 4}, TensorElements.of(t.view()).toFloatArray());
            }
        }
    }

    @Test
    void withoutTheReadOnlyFlagTheImportIsWritableThrough() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocateFrom(ValueLayout.JAVA_FLOAT, 1f, 2f);
            try (Dlpack.Tensor t = Dlpack.importVersioned(struct(arena, 2, DlpackStructs.FLAG_IS_SUBBYTE_TYPE_PADDED, data,
                    new long[] {2}, new long[] {1}))) {
                assertFalse(t.view().buffer().isReadOnly());
                assertFalse(t.root().isReadOnly());
                TensorElements.of(t.view()).setFloat(9f, 1);
            }
            assertEquals(9f, data.getAtIndex(ValueLayout.JAVA_FLOAT, 1), "the write reached the producer's memory");
        }
    }

    @Test
    void stridesReachingBelowAddressZeroAreNamedAndReachingZeroIsANullBase() {
        try (Arena arena = Arena.ofConfined()) {
            // Data at address 16, five f32 elements with stride -1: the last sits at address 0, a NULL base.
            IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> Dlpack.importVersioned(
                    struct(arena, 2, 0, MemorySegment.ofAddress(16), new long[] {5}, new long[] {-1})));
            assertTrue(zero.getMessage().startsWith("NULL address with 20 bytes"), zero.getMessage());
            IllegalArgumentException below = assertThrows(IllegalArgumentException.class, () -> Dlpack.importVersioned(
                    struct(arena, 2, 0, MemorySegment.ofAddress(15), new long[] {5}, new long[] {-1})));
            assertTrue(below.getMessage().endsWith("reaches 1 bytes below address 0"), below.getMessage());
        }
    }
}
