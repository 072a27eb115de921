package dev.tensorbuf.views;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.views.internal.ConfinedMemory;
import dev.tensorbuf.views.internal.Errors;
import dev.tensorbuf.views.internal.ViewReader;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Where a logical index of a view reads: the element offset and the segment, after checking the
 * index. A strided view computes {@code base + sum(stride_i * i_i)}; any other one-buffer view
 * evaluates its compiled map; a padded or concatenated view asks its piece reader. None
 * allocates per element.
 */
final class ElementLocator {
    private ElementLocator() {
    }

    /** {@return the element offset of {@code index} in the buffer it reads} */
    static long locate(TensorView view, long[] index, boolean write) {
        checkIndex(view, index);
        if (view.bufferOrNull() != null) {
            if (write && view.bufferOrNull().isReadOnly()) {
                throw ViewReader.readOnly(index, view);
            }
            long[] strides = view.stridesArray();
            if (strides != null) {
                long at = view.base();
                for (int i = 0; i < index.length; i++) {
                    at += index[i] * strides[i];
                }
                return at;
            }
            return view.compiled().evaluate(0, index);
        }
        ViewReader reader = view.derived().reader();
        int p = reader.pieceOf(index);
        if (p < 0) {
            throw new IllegalStateException("no part of " + view + " holds index " + Arrays.toString(index));
        }
        if (write && reader.writeRefusal(p, index, view) instanceof IllegalArgumentException refused) {
            throw refused;
        }
        return reader.offset(p, index);
    }

    /** {@return the segment that {@code index} (already located) reads} */
    static MemorySegment segment(TensorView view, long[] index) {
        MemoryBuffer buffer = view.bufferOrNull();
        if (buffer != null) {
            return buffer.segment();
        }
        ViewReader reader = view.derived().reader();
        return reader.buffer(reader.pieceOf(index)).segment();
    }

    /**
     * {@return FFM's exception for a confined arena's segment read from another thread, with the
     * view and the cure in its message} For bulk transfers only: a {@code try} around the single
     * element read of {@code getFloat(i, j)} costs nothing once inlined, but takes its compiled
     * code past C2's {@code InlineSmallCode}, so it often is not inlined and each read allocates its
     * index array (bench/RESULTS.md, "Views: element access").
     */
    static WrongThreadException wrongThread(TensorView view, WrongThreadException cause) {
        return ConfinedMemory.wrongThread("cannot use " + view, cause);
    }

    private static void checkIndex(TensorView view, long[] index) {
        if (!view.isHostAccessible()) {
            throw new UnsupportedOperationException(view + " is over a buffer in " + firstDeviceSpace(view)
                    + ", which is not host-accessible: element access needs host memory; copy it to a host buffer first");
        }
        long[] dims = view.dimsArray();
        if (index.length != dims.length) {
            throw Errors.indexRank(index, view.shape(), dims.length);
        }
        for (int i = 0; i < index.length; i++) {
            if (index[i] < 0 || index[i] >= dims[i]) {
                throw Errors.indexOutOfBounds(index[i], dims[i], i, view.shape());
            }
        }
    }

    private static String firstDeviceSpace(TensorView view) {
        for (ViewMap.Single piece : view.map().pieces()) {
            if (!piece.buffer().memorySpace().hostAccessible()) {
                return piece.buffer().memorySpace().describe();
            }
        }
        return "?";
    }
}
