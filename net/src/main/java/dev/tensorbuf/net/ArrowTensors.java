package dev.tensorbuf.net;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.net.internal.ArrowDTypes;
import dev.tensorbuf.net.internal.ArrowMemory;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;

/**
 * Tensors as Arrow columns of {@link FixedShapeTensorType}: a tensor of dims {@code [N, ...rest]}
 * is {@code N} rows, each a tensor of dims {@code rest}. Both directions share memory where the
 * layouts allow: a view whose strides are a row-major order of its dims (dim 0 outermost) is lent
 * to Arrow as it is, as a column with a {@code permutation} when the order is not the logical
 * one; a column is read as a view over Arrow's own buffer, a transpose view when it has a
 * permutation.
 * {@snippet :
 * try (BufferAllocator arrow = ArrowTensors.allocator(); Allocator arena = Allocators.shared()) {
 *     TensorView rows = TensorView.of(arena.allocate(4 * 2 * 3 * 4), "f32[4,2,3]{2,1,0}");   // 4 rows of f32[2,3]
 *     try (FieldVector column = ArrowTensors.toVector("t", Ops.transpose(rows, 0, 2, 1), arrow)) {
 *         FixedShapeTensorType.ofField(column.getField()).orElseThrow().metadataJson();
 *         // {"shape":[2,3],"permutation":[1,0]}: rows of f32[3,2] over rows' own bytes, not a copy
 *     }
 * }
 * }
 */
public final class ArrowTensors {
    private ArrowTensors() {}

    /** {@return a new root allocator (arrow-memory-unsafe's manager), without a limit} */
    public static BufferAllocator allocator() {
        return new org.apache.arrow.memory.RootAllocator();
    }

    /**
     * {@return a column of {@code rows.dims()[0]} tensors, sharing {@code rows}' memory when its
     * layout allows, else a C-order copy made by the copy engine in memory of {@code allocator}}
     * The column holds a loan on the view's buffer until Arrow releases it.
     *
     * @param name the column's name
     * @param rows the tensors, stacked along dim 0 (rank at least 1)
     * @throws IllegalArgumentException for a scalar view, or an element type Arrow has no type for
     */
    public static FieldVector toVector(String name, TensorView rows, BufferAllocator allocator) {
        if (rows.rank() == 0) {
            throw new IllegalArgumentException("column '" + name + "': a scalar " + rows.shape()
                    + " has no dim 0 to make rows of; reshape it to [1]");
        }
        DType dtype = rows.dtype();
        ArrowDTypes.arrowType(dtype); // refuses the types Arrow has no name for, before any work
        int rank = rows.rank();
        List<Long> dims = rows.dims();
        Optional<int[]> order = rowMajorOrder(rows);
        ArrowBuf data;
        FixedShapeTensorType type;
        long count = rows.elementCount();
        long bytes = Math.multiplyExact(count, (long) dtype.byteWidth());
        if (order.isPresent()) {
            int[] phys = order.get();
            StridedLayout layout = rows.stridedLayout().orElseThrow();
            MemorySegment segment = rows.buffer().segment()
                    .asSlice(layout.offset() * dtype.byteWidth(), bytes);
            data = ArrowMemory.lend(allocator, rows.buffer(), segment);
            List<Long> shape = new ArrayList<>();
            List<Integer> perm = new ArrayList<>();
            for (int j = 1; j < rank; j++) {
                shape.add(dims.get(phys[j]));
            }
            for (int i = 1; i < rank; i++) {
                for (int j = 1; j < rank; j++) {
                    if (phys[j] == i) {
                        perm.add(j - 1);
                    }
                }
            }
            type = FixedShapeTensorType.of(dtype, shape).withPermutation(perm);
        } else {
            data = allocator.buffer(Math.max(bytes, 1));
            try (Arena arena = Arena.ofShared()) {
                MemorySegment seg = bytes == 0 ? arena.allocate(1).asSlice(0, 0) : ArrowMemory.segment(data, bytes, arena);
                MemoryBuffer into = MemoryBuffer.foreign(seg, MemorySpace.HOST, "arrow", () -> { });
                long[] d = new long[rank];
                for (int i = 0; i < rank; i++) {
                    d[i] = dims.get(i);
                }
                CopyEngine.defaults().copy(rows, TensorView.strided(into, dtype, StridedLayout.packed(d)));
                into.close();
            } catch (RuntimeException e) {
                data.close();
                throw e;
            }
            type = FixedShapeTensorType.of(dtype, dims.subList(1, rank));
        }
        try {
            return vector(name, type, dims.getFirst(), data, allocator);
        } finally {
            data.getReferenceManager().release();
        }
    }

    /**
     * {@return a column of {@code rows} tensors of {@code type} over {@code data}, taking its own
     * reference on it}
     */
    static FixedSizeListVector vector(String name, FixedShapeTensorType type, long rows, ArrowBuf data,
                                      BufferAllocator allocator) {
        if (rows > Integer.MAX_VALUE || rows * (long) type.listSize() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("column '" + name + "': " + rows + " rows of " + type.listSize()
                    + " elements exceed an Arrow vector's " + Integer.MAX_VALUE + " values; send it in batches");
        }
        FixedSizeListVector vector = (FixedSizeListVector) type.field(name).createVector(allocator);
        try {
            ArrowBuf none = allocator.getEmpty();
            vector.loadFieldBuffers(new ArrowFieldNode(rows, 0), List.of(none));
            FieldVector values = vector.getDataVector();
            values.loadFieldBuffers(new ArrowFieldNode(rows * type.listSize(), 0), List.of(none, data));
            return vector;
        } catch (RuntimeException e) {
            vector.close();
            throw e;
        }
    }

    /**
     * {@return the dims in physical order, outermost first, when {@code view} is one host buffer
     * read row-major in some order of its dims with dim 0 outermost; empty otherwise}
     */
    static Optional<int[]> rowMajorOrder(TensorView view) {
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
        java.util.Arrays.sort(order, 1, rank, Comparator.comparingLong((Integer i) -> sizes.get(i) == 1 ? 0 : -strides.get(i)));
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

    /**
     * {@return a view of a column of {@link FixedShapeTensorType} as one tensor of dims
     * {@code [rows, ...logical dims]}, over Arrow's memory} The column holds a reference on
     * Arrow's buffer until {@link Column#close()}.
     *
     * @throws IllegalArgumentException if the field is not a fixed_shape_tensor, or a row or an
     *     element is null, naming the column
     */
    public static Column read(FieldVector vector) {
        FixedShapeTensorType type = FixedShapeTensorType.ofField(vector.getField()).orElseThrow(() ->
                new IllegalArgumentException("column '" + vector.getName() + "' is " + vector.getField().getType()
                        + ", not " + FixedShapeTensorType.EXTENSION_NAME));
        FixedSizeListVector list = (FixedSizeListVector) vector;
        String name = vector.getName();
        int rows = list.getValueCount();
        if (list.getNullCount() != 0) {
            throw new IllegalArgumentException("column '" + name + "' has " + list.getNullCount() + " null rows of "
                    + rows + "; a tensor has a value in every row");
        }
        FieldVector values = list.getDataVector();
        if (!(values instanceof BaseFixedWidthVector fixed)) {
            throw new IllegalArgumentException("column '" + name + "' stores " + values.getField().getType()
                    + " values, not fixed-width numbers");
        }
        if (fixed.getNullCount() != 0) {
            throw new IllegalArgumentException("column '" + name + "' has " + fixed.getNullCount()
                    + " null elements; a tensor has a value in every element");
        }
        long count = (long) rows * type.listSize();
        long bytes = Math.multiplyExact(count, (long) type.dtype().byteWidth());
        MemoryBuffer buffer = ArrowMemory.wrap(fixed.getDataBuffer(), bytes, "arrow column '" + name + "'");
        return new Column(name, type, rows, buffer);
    }

    /**
     * One tensor read from a column: {@link #view()} is the rows stacked along dim 0, over
     * {@link #buffer()}, which holds the column's Arrow memory until closed.
     *
     * @param name the column's name
     * @param type the column's type
     * @param rows the number of rows
     * @param buffer the memory, Arrow's until closed
     */
    public record Column(String name, FixedShapeTensorType type, long rows, MemoryBuffer buffer) implements AutoCloseable {
        /** {@return the rows as one tensor {@code [rows, ...logical dims]}; a transpose view when the type has a permutation} */
        public TensorView view() {
            return ArrowTensors.view(buffer, type, rows);
        }

        /** Releases the column's memory; views of it then refuse access. */
        @Override
        public void close() {
            buffer.close();
        }
    }

    /** {@return rows of {@code type} laid out row-major in physical order in {@code buffer}, as logical view} */
    static TensorView view(MemoryBuffer buffer, FixedShapeTensorType type, long rows) {
        List<Long> shape = type.shape();
        long[] physical = new long[shape.size() + 1];
        physical[0] = rows;
        for (int i = 0; i < shape.size(); i++) {
            physical[i + 1] = shape.get(i);
        }
        TensorView v = TensorView.strided(buffer.asReadOnly(), type.dtype(), StridedLayout.packed(physical));
        if (type.permutation().isEmpty()) {
            return v;
        }
        int[] perm = new int[physical.length];
        for (int i = 0; i < type.permutation().size(); i++) {
            perm[i + 1] = type.permutation().get(i) + 1;
        }
        return Ops.transpose(v, perm);
    }
}
