package dev.tensorbuf.net.internal;

import dev.tensorbuf.interop.internal.RestrictedNative;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ForeignAllocation;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;

/**
 * The two zero-copy bridges: tensorbuf memory lent to Arrow as a foreign allocation, and Arrow
 * memory wrapped as a tensorbuf buffer that keeps its Arrow buffer alive.
 */
public final class ArrowMemory {
    private ArrowMemory() {}

    /**
     * {@return an Arrow buffer over {@code bytes} of {@code owner}, lent to Arrow until Arrow
     * releases the buffer} The loan keeps {@code owner}'s memory from being freed while Netty or
     * an IPC writer may still read it at its address, even if {@code owner} is closed meanwhile.
     */
    public static ArrowBuf lend(BufferAllocator allocator, MemoryBuffer owner, MemorySegment bytes) {
        MemoryBuffer.Hold loan = owner.lend();
        try {
            return allocator.wrapForeignAllocation(new ForeignAllocation(bytes.byteSize(), bytes.address()) {
                @Override
                protected void release0() {
                    loan.close();
                }
            });
        } catch (RuntimeException e) {
            loan.close();
            throw e;
        }
    }

    /**
     * {@return a host buffer over the first {@code byteSize} bytes of {@code buf}, holding a reference
     * on it until the buffer is closed} Closing the tensorbuf buffer revokes its segment first,
     * then lets Arrow free the memory.
     *
     * @throws IllegalArgumentException if {@code buf} holds fewer bytes
     */
    public static MemoryBuffer wrap(ArrowBuf buf, long byteSize, String owner) {
        if (buf.capacity() < byteSize) {
            throw new IllegalArgumentException(owner + ": the Arrow buffer holds " + buf.capacity() + " bytes, "
                    + byteSize + " expected");
        }
        Arena arena = Arena.ofShared();
        buf.getReferenceManager().retain();
        try {
            MemorySegment seg = byteSize == 0 ? arena.allocate(1).asSlice(0, 0)
                    : RestrictedNative.segment(buf.memoryAddress(), byteSize, arena);
            return MemoryBuffer.foreign(seg, MemorySpace.HOST, owner, () -> {
                arena.close();
                buf.getReferenceManager().release();
            });
        } catch (RuntimeException e) {
            arena.close();
            buf.getReferenceManager().release();
            throw e;
        }
    }

    /**
     * Makes {@code column} (a fixed-size list of {@code listSize} values a row) hold {@code rows}
     * rows over {@code data}, without nulls, taking its own reference on {@code data} and dropping
     * the buffers it held.
     */
    public static void load(FixedSizeListVector column, long rows, int listSize, ArrowBuf data) {
        ArrowBuf none = column.getAllocator().getEmpty();
        column.loadFieldBuffers(new ArrowFieldNode(rows, 0), List.of(none));
        FieldVector values = column.getDataVector();
        values.loadFieldBuffers(new ArrowFieldNode(rows * listSize, 0), List.of(none, data));
    }

    /** {@return a segment over an Arrow buffer's bytes, valid while {@code arena} is open and the buffer lives} */
    public static MemorySegment segment(ArrowBuf buf, long byteSize, Arena arena) {
        if (byteSize == 0) {
            return MemorySegment.NULL;
        }
        return RestrictedNative.segment(buf.memoryAddress(), byteSize, arena);
    }

    /**
     * {@return the dims in physical order, outermost first, when {@code view} is one host buffer
     * read row-major in some order of its dims with dim 0 outermost; empty otherwise}
     */
    public static Optional<int[]> rowMajorOrder(TensorView view) {
        if (!view.isHostAccessible() || view.buffers().size() != 1) {
            return Optional.empty();
        }
        Optional<StridedLayout> maybe = view.stridedLayout();
        if (maybe.isEmpty() || view.elementCount() == 0) {
            return Optional.empty();
        }
        StridedLayout layout = maybe.get();
        int rank = layout.rank();
        List<Long> sizes = layout.sizes();
        List<Long> strides = layout.strides();
        Integer[] order = new Integer[rank];
        for (int i = 0; i < rank; i++) {
            order[i] = i;
        }
        // A dim of size 1 has no stride that matters: it goes innermost, where any stride fits.
        java.util.Arrays.sort(order, 1, rank, java.util.Comparator.comparingLong((Integer i) -> sizes.get(i) == 1 ? 0 : -strides.get(i)));
        List<Integer> sorted = new ArrayList<>(List.of(order));
        long expected = 1;
        for (int k = rank - 1; k >= 0; k--) {
            int d = sorted.get(k);
            long size = sizes.get(d);
            if (size != 1 && strides.get(d) != expected) {
                return Optional.empty();
            }
            expected *= size;
        }
        int[] result = new int[rank];
        for (int k = 0; k < rank; k++) {
            result[k] = sorted.get(k);
        }
        return Optional.of(result);
    }
}
