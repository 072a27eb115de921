package dev.tensorbuf.net;

import dev.tensorbuf.interop.internal.FileMapping;
import dev.tensorbuf.interop.internal.FileReplacement;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.net.internal.ArrowDTypes;
import dev.tensorbuf.net.internal.ArrowMemory;
import dev.tensorbuf.net.internal.LentColumn;
import dev.tensorbuf.net.internal.BufferCodec;
import dev.tensorbuf.net.internal.TensorProducer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.flatbuf.BodyCompression;
import org.apache.arrow.flatbuf.BodyCompressionMethod;
import org.apache.arrow.flatbuf.Buffer;
import org.apache.arrow.flatbuf.CompressionType;
import org.apache.arrow.flatbuf.DictionaryBatch;
import org.apache.arrow.flatbuf.Endianness;
import org.apache.arrow.flatbuf.FieldNode;
import org.apache.arrow.flatbuf.Footer;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.MessageMetadataResult;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Tensors in Arrow: as columns of {@link FixedShapeTensorType} ({@link #toVector}, {@link #read(FieldVector)})
 * and as Arrow IPC files and streams of such columns ({@link #write}, {@link #read(Path)},
 * {@link #writeStream}, {@link #readStream}), one column per tensor. A tensor of dims
 * {@code [N, ...rest]} is {@code N} rows, each a tensor of dims {@code rest}. Both directions share
 * memory where the layouts allow: a view whose strides are a row-major order of its dims (dim 0
 * outermost) is lent to Arrow as it is, as a column with a {@code permutation} when the order is not
 * the logical one; a column is read as a view over Arrow's own buffer, a transpose view when it has
 * a permutation. Reading a file of one record batch gives views over Arrow's buffers, and a file of
 * several batches one buffer per tensor that the batches are copied into.
 * {@snippet :
 * try (BufferAllocator arrow = ArrowTensors.allocator(); Allocator arena = Allocators.shared()) {
 *     TensorView rows = TensorView.of(arena.allocate(4 * 2 * 3 * 4), "f32[4,2,3]{2,1,0}");   // 4 rows of f32[2,3]
 *     try (FieldVector column = ArrowTensors.toVector("t", Ops.transpose(rows, 0, 2, 1), arrow)) {
 *         FixedShapeTensorType.ofField(column.getField()).orElseThrow().metadataJson();
 *         // {"shape":[2,3],"permutation":[1,0]}: rows of f32[3,2] over rows' own bytes, not a copy
 *     }
 * }
 * ArrowTensors.write(Path.of("x.arrow"), Map.of("x", view));     // view: f32[4,2,3]
 * // python: pa.ipc.open_file("x.arrow").read_all()["x"].combine_chunks().to_numpy_ndarray().shape == (4, 2, 3)
 * try (ArrowTensors.Tensors t = ArrowTensors.read(Path.of("x.arrow"))) {
 *     t.view("x").dims();   // [4, 2, 3]
 * }
 * }
 */
public final class ArrowTensors {
    private static final byte[] FILE_MAGIC = {'A', 'R', 'R', 'O', 'W', '1'};
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
        ColumnData column = columnData(name, rows, allocator);
        try {
            return vector(name, column.type(), rows.dims().getFirst(), column.data(), allocator);
        } finally {
            column.data().getReferenceManager().release();
        }
    }

    /** A column's type and its values in Arrow memory, C order in the type's physical dims. */
    private record ColumnData(FixedShapeTensorType type, ArrowBuf data) {
    }

    /**
     * {@return {@code rows}' values as Arrow memory: lent when the layout allows, else a C-order
     * copy} The caller releases the buffer.
     */
    private static ColumnData columnData(String name, TensorView rows, BufferAllocator allocator) {
        if (rows.rank() == 0) {
            throw new IllegalArgumentException("column '" + name + "': a scalar " + rows.shape()
                    + " has no dim 0 to make rows of; reshape it to [1]");
        }
        DType dtype = rows.dtype();
        ArrowDTypes.arrowType(dtype); // refuses the types Arrow has no name for, before any work
        int rank = rows.rank();
        List<Long> dims = rows.dims();
        Optional<int[]> order = ArrowMemory.rowMajorOrder(rows);
        long count = rows.elementCount();
        long bytes = Math.multiplyExact(count, (long) dtype.byteWidth());
        if (order.isPresent()) {
            int[] phys = order.get();
            StridedLayout layout = rows.stridedLayout().orElseThrow();
            MemorySegment segment = rows.buffer().segment()
                    .asSlice(layout.offset() * dtype.byteWidth(), bytes);
            ArrowBuf data = ArrowMemory.lend(allocator, rows.buffer(), segment);
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
            return new ColumnData(FixedShapeTensorType.of(dtype, shape).withPermutation(perm), data);
        }
        ArrowBuf data = allocator.buffer(Math.max(bytes, 1));
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
        return new ColumnData(FixedShapeTensorType.of(dtype, dims.subList(1, rank)), data);
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
            ArrowMemory.load(vector, rows, type.listSize(), data);
            return vector;
        } catch (RuntimeException e) {
            vector.close();
            throw e;
        }
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

    /**
     * Writes the tensors as an Arrow IPC file (the {@code .arrow} / Feather v2 format), replacing
     * {@code file} only once complete.
     *
     * @param tensors column name to tensor; all with the same dim 0, the rows
     * @throws IllegalArgumentException if the tensors do not share dim 0, or one has a type or rank
     *     Arrow cannot hold, naming it
     */
    public static void write(Path file, Map<String, TensorView> tensors) throws IOException {
        FileReplacement.write(file, where -> {
            try (FileChannel channel = FileReplacement.open(where)) {
                write(channel, tensors, true);
            }
        });
    }

    /**
     * Writes the tensors as an Arrow IPC stream into {@code file} (by custom {@code .arrows}),
     * replacing it whole as {@link #write(Path, Map)} does.
     */
    public static void writeStream(Path file, Map<String, TensorView> tensors) throws IOException {
        FileReplacement.write(file, where -> {
            try (FileChannel channel = FileReplacement.open(where)) {
                write(channel, tensors, false);
            }
        });
    }

    /** Writes the tensors as an Arrow IPC stream to {@code channel}, as {@link #write(Path, Map)} writes a file. */
    public static void writeStream(WritableByteChannel channel, Map<String, TensorView> tensors) throws IOException {
        write(channel, tensors, false);
    }

    private static void write(WritableByteChannel channel, Map<String, TensorView> tensors, boolean file) throws IOException {
        if (tensors.isEmpty()) {
            throw new IllegalArgumentException("no tensors to write: an Arrow file needs at least one column");
        }
        long rows = -1;
        String first = null;
        for (Map.Entry<String, TensorView> e : tensors.entrySet()) {
            TensorView v = e.getValue();
            if (v.rank() == 0) {
                throw new IllegalArgumentException("tensor '" + e.getKey() + "' is a scalar " + v.shape()
                        + "; an Arrow column needs rows along dim 0: reshape it to [1]");
            }
            long n = v.dims().getFirst();
            if (rows >= 0 && n != rows) {
                throw new IllegalArgumentException("tensor '" + e.getKey() + "' has " + n + " rows (dim 0 of " + v.dims()
                        + ") but '" + first + "' has " + rows + "; the columns of an Arrow file share their rows");
            }
            rows = n;
            first = first == null ? e.getKey() : first;
        }
        long batchRows = rows;
        for (TensorView v : tensors.values()) {
            long perRow = Math.max(1, v.elementCount() / Math.max(1, rows));
            batchRows = Math.min(batchRows, Math.max(1, Integer.MAX_VALUE / perRow));
        }
        try (BufferAllocator allocator = ArrowTensors.allocator()) {
            VectorSchemaRoot root = null;
            ArrowWriter writer = null;
            try {
                for (long r = 0; r < rows || r == 0; r += batchRows) {
                    long end = Math.min(rows, r + batchRows);
                    List<ColumnData> columns = new ArrayList<>();
                    try {
                        for (Map.Entry<String, TensorView> e : tensors.entrySet()) {
                            columns.add(columnData(e.getKey(), TensorProducer.rowsOf(e.getValue(), r, end), allocator));
                        }
                        if (root == null) {
                            // Lent columns go without validity bitmaps, as pyarrow writes them: Arrow
                            // Java's own vectors would make and write one of ones, 3% of an f32 file.
                            List<Field> fields = new ArrayList<>();
                            List<FieldVector> vectors = new ArrayList<>();
                            int i = 0;
                            for (String name : tensors.keySet()) {
                                Field f = columns.get(i++).type().field(name);
                                fields.add(f);
                                vectors.add(new LentColumn((FixedSizeListVector) f.createVector(allocator)));
                            }
                            root = new VectorSchemaRoot(fields, vectors, 0);
                            writer = file ? new ArrowFileWriter(root, null, channel) : new ArrowStreamWriter(root, null, channel);
                            writer.start();
                        }
                        for (int i = 0; i < columns.size(); i++) {
                            ((LentColumn) root.getVector(i)).lend(columns.get(i).data(), end - r);
                        }
                    } finally {
                        for (ColumnData c : columns) {
                            c.data().getReferenceManager().release();
                        }
                    }
                    root.setRowCount((int) (end - r));
                    writer.writeBatch();
                    if (rows == 0) {
                        break;
                    }
                }
                writer.end();
            } finally {
                if (writer != null) {
                    writer.close();
                }
                if (root != null) {
                    root.close();
                }
            }
        }
    }

    /**
     * {@return the tensors of an Arrow IPC file or stream: every {@code arrow.fixed_shape_tensor}
     * column, in schema order}
     *
     * @throws IOException if the file cannot be read or is not Arrow IPC
     * @throws IllegalArgumentException if it holds no tensor column, or one is malformed (naming it)
     */
    public static Tensors read(Path file) throws IOException {
        // Arrow's readers allocate what the file's lengths say, and a damaged file gets an
        // OutOfMemoryError, an index error from deep inside, or memory Arrow never frees. So every
        // length and offset is checked against the file first, and the tensor columns are read
        // from a mapping of the file by those checked headers, without Arrow's loader.
        Structure st = checked(file, isFileFormat(file));
        Map<String, FixedShapeTensorType> types = new LinkedHashMap<>();
        Map<String, int[]> firsts = new LinkedHashMap<>();   // a column's first field node and buffer in a batch
        int node = 0;
        int buffer = 0;
        boolean countable = true;   // whether the buffers so far are as many as their types say
        try {
            for (Field f : st.schema().getFields()) {
                Optional<FixedShapeTensorType> t = FixedShapeTensorType.ofField(f);
                if (t.isPresent()) {
                    if (!countable) {
                        // A view type's batches say how many buffers it has (variadicBufferCounts).
                        throw new IllegalArgumentException("column '" + nameOf(f) + "' follows a column of a view type"
                                + " (Utf8View, BinaryView, ListView), which tensorbuf does not step over");
                    }
                    String name = nameOf(f);
                    if (f.getDictionary() != null) {
                        throw new IllegalArgumentException("column '" + name + "' is dictionary-encoded; a tensor column holds its values");
                    }
                    if (types.put(name, t.get()) != null) {
                        throw new IllegalArgumentException("two tensor columns are named '" + name + "'");
                    }
                    firsts.put(name, new int[] {node, buffer});
                }
                node += nodes(f);
                buffer += buffers(f);
                countable &= fixedBufferCounts(f);
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
        if (types.isEmpty()) {
            throw new IllegalArgumentException(file + " has no " + FixedShapeTensorType.EXTENSION_NAME + " column (columns: "
                    + st.schema().getFields().stream().map(f -> f.getName() + " " + f.getType()).toList() + ")");
        }
        List<AutoCloseable> owned = new ArrayList<>();
        try (FileChannel channel = FileChannel.open(file)) {
            MemoryBuffer mapping = FileMapping.map(channel, 0, st.fileSize(), "mapped " + file.getFileName());
            owned.add(mapping);
            Allocator decoded = Allocators.shared();   // values decompressed, and batches joined
            owned.add(decoded);
            Map<String, TensorView> views = new LinkedHashMap<>();
            for (Map.Entry<String, FixedShapeTensorType> e : types.entrySet()) {
                String name = e.getKey();
                FixedShapeTensorType type = e.getValue();
                long rowBytes = Math.multiplyExact((long) type.listSize(), type.dtype().byteWidth());
                List<MemoryBuffer> parts = new ArrayList<>();
                long rows = 0;
                for (BatchHeader b : st.batches()) {
                    long n = b.batch().length();
                    parts.add(values(mapping, b, firsts.get(name), name, type, decoded));
                    rows = Math.addExact(rows, n);
                }
                if (parts.size() == 1) {
                    views.put(name, view(parts.getFirst(), type, rows));
                    continue;
                }
                // Batches lie apart in the file: one buffer holds them all, in physical order.
                MemoryBuffer all = decoded.allocate(Math.max(1, Math.multiplyExact(rows, rowBytes)));
                long at = 0;
                for (MemoryBuffer part : parts) {
                    MemorySegment.copy(part.segment(), 0, all.segment(), at, part.byteSize());
                    at += part.byteSize();
                }
                views.put(name, view(all.slice(0, rows * rowBytes), type, rows));
            }
            return new Tensors(views, types, owned);
        } catch (ArithmeticException e) {
            // Only rows of no values can count past a long: the others' bytes are in the file.
            closeAll(owned);
            throw new IllegalArgumentException(file + ": its batches' rows add up past a long", e);
        } catch (IllegalArgumentException e) {
            closeAll(owned);
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            closeAll(owned);
            throw e;
        }
    }

    /**
     * {@return a batch's values of a tensor column: a slice of the mapped file, or for a batch of
     * LZ4- or Zstandard-compressed buffers the values decoded into memory of {@code decoded}} Its
     * field nodes (the list's, then the values') and buffers (the list's validity, the values' validity, the
     * values) are the column's {@code first} node and buffer on; the headers were checked to lie
     * within the file.
     *
     * @throws IllegalArgumentException if the column has null rows or elements, fewer values than
     *     the batch's rows need, or compressed values that are damaged, naming it
     */
    private static MemoryBuffer values(MemoryBuffer mapping, BatchHeader b, int[] first, String name, FixedShapeTensorType type,
                                       Allocator decoded) {
        RecordBatch rb = b.batch();
        long rows = rb.length();
        FieldNode list = rb.nodes(first[0]);
        FieldNode values = rb.nodes(first[0] + 1);
        if (list.nullCount() != 0) {
            throw new IllegalArgumentException("column '" + name + "' has " + list.nullCount() + " null rows of "
                    + rows + "; a tensor has a value in every row");
        }
        if (values.nullCount() != 0) {
            throw new IllegalArgumentException("column '" + name + "' has " + values.nullCount()
                    + " null elements; a tensor has a value in every element");
        }
        long rowBytes = (long) type.listSize() * type.dtype().byteWidth();
        long need = rowBytes == 0 || rows <= Long.MAX_VALUE / rowBytes ? rows * rowBytes : Long.MAX_VALUE;
        Buffer data = rb.buffers(first[1] + 2);
        String where = "column '" + name + "' in the batch whose body is at byte " + b.bodyOffset();
        BodyCompression compression = rb.compression();
        long stored = compression == null || data.length() == 0 ? data.length() : data.length() - 8;
        if (list.length() != rows || (compression == null && data.length() < need)) {
            throw new IllegalArgumentException(where + " holds " + list.length() + " rows in " + stored
                    + " bytes of values, where the batch has " + rows + " rows of " + type.listSize() + " " + type.dtype()
                    + " values" + (need == Long.MAX_VALUE ? " (more bytes than a long counts)" : " (" + need + " bytes)"));
        }
        long at = b.bodyOffset() + data.offset();
        if (compression == null || need == 0) {
            return mapping.slice(at, need);
        }
        BufferCodec codec = BufferCodec.of(compression.codec());   // checkBuffers refused any other
        // Each compressed buffer starts with its length uncompressed, -1 for a buffer stored as is.
        if (data.length() < 8) {
            throw new IllegalArgumentException(where + ": a compressed buffer of " + data.length()
                    + " bytes, too few for its 8-byte length");
        }
        long length = mapping.segment().get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), at);
        if (length == -1 && stored >= need) {
            return mapping.slice(at + 8, need);
        }
        if (length != need) {
            throw new IllegalArgumentException(where + ": its compressed values say they are " + length + " bytes, "
                    + need + " expected");
        }
        if (!codec.canHold(stored, need)) {
            throw new IllegalArgumentException(where + ": " + stored + " bytes of " + codec.label()
                    + " cannot hold " + need + " bytes of values");
        }
        MemoryBuffer out = decoded.allocate(need, 64);
        try {
            codec.decode(mapping.segment().asSlice(at + 8, stored), out.segment());
        } catch (IllegalArgumentException e) {
            out.close();
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
        return out;
    }

    /** {@return a field's name; Arrow gives null for one the file leaves out, which readers take as empty} */
    private static String nameOf(Field f) {
        return f.getName() == null ? "" : f.getName();
    }

    private static void closeAll(List<AutoCloseable> owned) {
        for (AutoCloseable c : owned.reversed()) {
            closeQuietly(c);
        }
    }

    /**
     * What an Arrow IPC file or stream holds, read from its schema and record batch headers
     * without reading the tensors' data: what {@code tensorbuf inspect} prints.
     * {@snippet :
     * ArrowTensors.Header h = ArrowTensors.describe(Path.of("x.arrow"));   // written from f32[4,2,3]
     * h.columns().getFirst().dims();       // [4, 2, 3]
     * h.columns().getFirst().byteOffset(); // where its values start in the file (one batch, uncompressed)
     * }
     *
     * @param format {@code "file"} (the random-access format, magic {@code ARROW1}) or {@code "stream"}
     * @param batches the record batches
     * @param codecs the codecs the batches' buffers are compressed with, by Arrow's names
     *     ({@code LZ4_FRAME}, {@code ZSTD}), in the order first met; empty when none is
     * @param metadata the schema's own key-values
     * @param columns the {@code arrow.fixed_shape_tensor} columns, in schema order
     */
    public record Header(String format, int batches, List<String> codecs, Map<String, String> metadata,
                         List<ColumnHeader> columns) {
        /** Copies the codecs, metadata and columns. */
        public Header {
            codecs = List.copyOf(codecs);
            metadata = Map.copyOf(metadata);
            columns = List.copyOf(columns);
        }
    }

    /**
     * A tensor column of an Arrow IPC file or stream.
     *
     * @param name the column's name
     * @param type its extension type (row shape, dim names, permutation)
     * @param rows the rows in all batches: the tensor's dim 0
     * @param byteOffset where its values start in the file, or -1 when they are not one range of it
     *     (several batches, compressed buffers)
     * @param byteSize the bytes of its values: rows times a row's elements times their width
     */
    public record ColumnHeader(String name, FixedShapeTensorType type, long rows, long byteOffset, long byteSize) {
        /** {@return the tensor's dims as {@link Tensors#view} gives them: rows, then a row's dims as a reader sees them} */
        public List<Long> dims() {
            List<Long> dims = new ArrayList<>();
            dims.add(rows);
            dims.addAll(type.logicalDims());
            return List.copyOf(dims);
        }
    }

    /**
     * {@return the schema and batch headers of an Arrow IPC file or stream, its tensors' data unread}
     *
     * @throws IOException if the file cannot be read or is not Arrow IPC
     * @throws IllegalArgumentException if it holds no tensor column, or one is malformed (naming it)
     */
    public static Header describe(Path file) throws IOException {
        Structure st = checked(file, isFileFormat(file));
        try {
            return header(st.format(), st.schema(), st.batches());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new IOException(file + " is not a readable Arrow IPC file or stream: " + e, e);
        }
    }

    /** An Arrow IPC file's or stream's schema and record batch headers, every length in them checked against the file. */
    private record Structure(String format, long fileSize, Schema schema, List<BatchHeader> batches) {
    }

    /**
     * {@return the schema and batch headers of {@code file}} Every message length, footer block,
     * batch body and buffer is checked to lie within the file, before anything is allocated for
     * what they say (Arrow's message reader allocates a message's length as it finds it).
     *
     * @throws IOException naming the file and what in it is damaged
     */
    private static Structure checked(Path file, boolean isFile) throws IOException {
        try (FileChannel channel = FileChannel.open(file)) {
            try {
                return isFile ? checkedFile(channel) : checkedStream(channel);
            } catch (IOException | RuntimeException e) {
                String why = e instanceof IOException || e instanceof IllegalArgumentException ? e.getMessage() : e.toString();
                throw new IOException(file + " is not a readable Arrow IPC file or stream: " + why, e);
            }
        }
    }

    private static Structure checkedFile(FileChannel channel) throws IOException {
        // The footer read here rather than by Arrow's file reader, which loads the dictionaries as it opens.
        long size = channel.size();
        int trailer = FILE_MAGIC.length + 4;   // the footer's length, then the magic again
        java.nio.ByteBuffer tail = java.nio.ByteBuffer.allocate(trailer).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        if (size < 8 + trailer) {
            throw new IOException("its " + size + " bytes are too few for an Arrow IPC file");
        }
        readFully(channel, tail, size - trailer);
        if (!Arrays.equals(Arrays.copyOfRange(tail.array(), 4, trailer), FILE_MAGIC)) {
            throw new IOException("it does not end with the magic ARROW1 (a file cut short?)");
        }
        int footerLength = tail.getInt(0);
        if (footerLength <= 0 || footerLength > size - 8 - trailer) {
            throw new IOException("its footer says it is " + footerLength + " bytes long, in a " + size + "-byte file");
        }
        java.nio.ByteBuffer footerBytes = java.nio.ByteBuffer.allocate(footerLength).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        readFully(channel, footerBytes, size - trailer - footerLength);
        Footer footer = Footer.getRootAsFooter(footerBytes);
        if (footer.schema() == null) {
            throw new IOException("its footer has no schema");
        }
        checkLittleEndian(footer.schema());
        Schema schema = Schema.convertSchema(footer.schema());
        List<ArrowBlock> blocks = new ArrayList<>();
        for (int i = 0; i < footer.recordBatchesLength(); i++) {
            org.apache.arrow.flatbuf.Block b = footer.recordBatches(i);
            blocks.add(new ArrowBlock(b.offset(), b.metaDataLength(), b.bodyLength()));
        }
        List<ArrowBlock> dictionaries = new ArrayList<>();
        for (int i = 0; i < footer.dictionariesLength(); i++) {
            org.apache.arrow.flatbuf.Block b = footer.dictionaries(i);
            dictionaries.add(new ArrowBlock(b.offset(), b.metaDataLength(), b.bodyLength()));
        }
        List<BatchHeader> batches = new ArrayList<>();
        FieldCounts counts = FieldCounts.of(schema);
        for (ArrowBlock b : blocks) {
            RecordBatch rb = checkedBlock(channel, b, size, schema);
            batches.add(new BatchHeader(rb, b.getOffset() + b.getMetadataLength()));
            checkBuffers(rb, counts, b.getBodyLength(), b.getOffset() + b.getMetadataLength());
        }
        for (ArrowBlock b : dictionaries) {
            checkBuffers(checkedBlock(channel, b, size, null), null, b.getBodyLength(), b.getOffset() + b.getMetadataLength());
        }
        return new Structure("file", size, schema, batches);
    }

    /**
     * {@return the record batch of a footer block (with a null {@code schema}, of a dictionary
     * block), the block checked to lie within the file and to hold a message of its kind}
     */
    private static RecordBatch checkedBlock(FileChannel channel, ArrowBlock b, long size, Schema schema) throws IOException {
        byte kind = schema != null ? MessageHeader.RecordBatch : MessageHeader.DictionaryBatch;
        String block = (kind == MessageHeader.RecordBatch ? "record batch" : "dictionary") + " block at byte " + b.getOffset();
        if (b.getOffset() < 0 || b.getOffset() > size || b.getMetadataLength() <= 0 || b.getMetadataLength() > size - b.getOffset()
                || b.getBodyLength() < 0 || b.getBodyLength() > size - b.getOffset() - b.getMetadataLength()) {
            throw new IOException("the footer's " + block + " (a " + b.getMetadataLength() + "-byte header, a "
                    + b.getBodyLength() + "-byte body) does not lie within the " + size + "-byte file");
        }
        channel.position(b.getOffset());
        MessageMetadataResult m = readMessage(channel);
        if (m == null || m.getMessage().headerType() != kind) {
            throw new IOException("the footer's " + block + " is not a " + (kind == MessageHeader.RecordBatch ? "record batch" : "dictionary batch"));
        }
        RecordBatch rb = kind == MessageHeader.RecordBatch ? (RecordBatch) m.getMessage().header(new RecordBatch())
                : ((DictionaryBatch) m.getMessage().header(new DictionaryBatch())).data();
        return rb;
    }

    private static Structure checkedStream(FileChannel channel) throws IOException {
        channel.position(0);
        long size = channel.size();
        MessageMetadataResult first = readMessage(channel);
        if (first == null || first.getMessage().headerType() != MessageHeader.Schema) {
            throw new IOException("the stream does not open with a schema message");
        }
        checkLittleEndian((org.apache.arrow.flatbuf.Schema) first.getMessage().header(new org.apache.arrow.flatbuf.Schema()));
        Schema schema = MessageSerializer.deserializeSchema(first.getMessage());
        List<BatchHeader> batches = new ArrayList<>();
        FieldCounts counts = FieldCounts.of(schema);
        for (MessageMetadataResult m = readMessage(channel); m != null; m = readMessage(channel)) {
            long body = channel.position();
            if (m.getMessageBodyLength() < 0 || m.getMessageBodyLength() > size - body) {
                throw new IOException("the message at byte " + body + " has a body of " + m.getMessageBodyLength()
                        + " bytes, past the end of the " + size + "-byte file");
            }
            if (m.getMessage().headerType() == MessageHeader.RecordBatch) {
                RecordBatch rb = (RecordBatch) m.getMessage().header(new RecordBatch());
                checkBuffers(rb, counts, m.getMessageBodyLength(), body);
                batches.add(new BatchHeader(rb, body));
            } else if (m.getMessage().headerType() == MessageHeader.DictionaryBatch) {
                checkBuffers(((DictionaryBatch) m.getMessage().header(new DictionaryBatch())).data(), null,
                        m.getMessageBodyLength(), body);
            } else {
                throw new IOException("the message at byte " + body + " is neither a record batch nor a dictionary batch"
                        + " (header type " + m.getMessage().headerType() + "), which is all a stream holds after its schema");
            }
            channel.position(body + m.getMessageBodyLength());
        }
        return new Structure("stream", size, schema, batches);
    }

    private static void checkLittleEndian(org.apache.arrow.flatbuf.Schema schema) throws IOException {
        if (schema != null && schema.endianness() == Endianness.Big) {
            throw new IOException("its schema says big-endian; tensorbuf reads little-endian Arrow data");
        }
    }

    private static void readFully(FileChannel channel, java.nio.ByteBuffer into, long at) throws IOException {
        while (into.hasRemaining()) {
            if (channel.read(into, at + into.position()) < 0) {
                throw new IOException("the file ends at byte " + (at + into.position()) + ", inside its footer");
            }
        }
        into.flip();
    }

    /** The field nodes and the fewest buffers a batch of a schema's fields holds. */
    private record FieldCounts(int nodes, int buffers) {
        static FieldCounts of(Schema schema) {
            int nodes = 0;
            int buffers = 0;
            for (Field f : schema.getFields()) {
                nodes += ArrowTensors.nodes(f);
                buffers += ArrowTensors.buffers(f);
            }
            return new FieldCounts(nodes, buffers);
        }
    }

    /**
     * Checks a batch against the file: its rows and field nodes are not negative, it has the field
     * nodes and buffers of its schema's fields ({@code counts}; null for a dictionary's batch,
     * whose fields are the dictionary's), and its buffers lie within its body.
     */
    private static void checkBuffers(RecordBatch rb, FieldCounts counts, long bodyLength, long bodyOffset) throws IOException {
        String batch = "the batch whose body is at byte " + bodyOffset;
        if (rb == null) {
            throw new IOException(batch + " has no header");
        }
        if (rb.length() < 0) {
            throw new IOException(batch + " has " + rb.length() + " rows");
        }
        for (int i = 0; i < rb.nodesLength(); i++) {
            FieldNode n = rb.nodes(i);
            if (n.length() < 0 || n.nullCount() < 0 || n.nullCount() > n.length()) {
                throw new IOException(batch + " has a field node " + i + " of " + n.length() + " values, " + n.nullCount()
                        + " of them null");
            }
        }
        for (int i = 0; i < rb.buffersLength(); i++) {
            Buffer b = rb.buffers(i);
            if (b.offset() < 0 || b.length() < 0 || b.length() > bodyLength || b.offset() > bodyLength - b.length()) {
                throw new IOException(batch + " has a buffer " + i + " of " + b.length() + " bytes at " + b.offset()
                        + ", outside its " + bodyLength + "-byte body");
            }
        }
        if (counts != null && (rb.nodesLength() != counts.nodes() || rb.buffersLength() < counts.buffers())) {
            throw new IOException(batch + " has " + rb.nodesLength() + " field nodes and " + rb.buffersLength()
                    + " buffers, where the schema's fields need " + counts.nodes() + " and " + counts.buffers());
        }
        // Read here, where a damaged table is refused by name, before the values are read by it.
        BodyCompression compression = rb.compression();
        if (compression != null && (compression.method() != BodyCompressionMethod.BUFFER
                || compression.codec() < 0 || compression.codec() >= CompressionType.names.length)) {
            throw new IOException(batch + " is compressed by method " + compression.method() + " with codec "
                    + compression.codec() + ", not one Arrow defines (buffer by buffer, LZ4_FRAME or ZSTD)");
        }
    }

    /** {@return the type a field's values are stored as in a batch: a dictionary-encoded field's indices} */
    private static org.apache.arrow.vector.types.pojo.ArrowType storedType(Field f) {
        return f.getDictionary() != null ? f.getDictionary().getIndexType() : f.getType();
    }

    /** {@return whether a field and its children have as many buffers as their types say (not view types)} */
    private static boolean fixedBufferCounts(Field f) {
        if (!TypeLayout.getTypeLayout(storedType(f)).isFixedBufferCount()) {
            return false;
        }
        for (Field child : f.getChildren()) {
            if (!fixedBufferCounts(child)) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@return the message at the channel's position, or null at the end} Its length is checked
     * against the file first: Arrow's reader allocates what a length prefix says, so four bytes
     * of a damaged file could ask for 2 GiB.
     */
    private static MessageMetadataResult readMessage(FileChannel channel) throws IOException {
        long at = channel.position();
        java.nio.ByteBuffer prefix = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        channel.read(prefix, at);
        if (prefix.position() >= 4) {
            int first = prefix.getInt(0);
            long length = first == -1 ? (prefix.position() == 8 ? prefix.getInt(4) : 0) : first;
            if (length < 0 || length > channel.size() - at - (first == -1 ? 8 : 4)) {
                throw new IOException("the message at byte " + at + " says it is " + length + " bytes long, past the end of the "
                        + channel.size() + "-byte file");
            }
        }
        return MessageSerializer.readMessage(new ReadChannel(channel));
    }

    /** A record batch's header and where its body starts in the file. */
    private record BatchHeader(RecordBatch batch, long bodyOffset) {
    }

    private static Header header(String format, Schema schema, List<BatchHeader> batches) {
        List<ColumnHeader> columns = new ArrayList<>();
        int buffer = 0;
        for (Field f : schema.getFields()) {
            Optional<FixedShapeTensorType> t = FixedShapeTensorType.ofField(f);
            if (t.isPresent()) {
                FixedShapeTensorType type = t.get();
                long rows = 0;
                for (BatchHeader b : batches) {
                    rows = Math.addExact(rows, b.batch().length());
                }
                long rowBytes = Math.multiplyExact((long) type.listSize(), type.dtype().byteWidth());
                long size = Math.multiplyExact(rows, rowBytes);
                long offset = -1;
                // The list's validity, the values' validity, then the values.
                int values = buffer + 2;
                if (batches.size() == 1 && batches.getFirst().batch().compression() == null
                        && values < batches.getFirst().batch().buffersLength()) {
                    offset = Math.addExact(batches.getFirst().bodyOffset(), batches.getFirst().batch().buffers(values).offset());
                }
                columns.add(new ColumnHeader(nameOf(f), type, rows, offset, size));
            }
            buffer += buffers(f);
        }
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("it has no " + FixedShapeTensorType.EXTENSION_NAME + " column (columns: "
                    + schema.getFields().stream().map(f -> f.getName() + " " + f.getType()).toList() + ")");
        }
        Map<String, String> metadata = schema.getCustomMetadata() == null ? Map.of() : schema.getCustomMetadata();
        Set<String> codecs = new LinkedHashSet<>();
        for (BatchHeader b : batches) {
            if (b.batch().compression() != null) {
                codecs.add(BufferCodec.of(b.batch().compression().codec()).name());   // checked to be one of them
            }
        }
        return new Header(format, batches.size(), List.copyOf(codecs), metadata, columns);
    }

    /** {@return the field nodes a field and its children take in a record batch} */
    private static int nodes(Field f) {
        int n = 1;
        for (Field child : f.getChildren()) {
            n += nodes(child);
        }
        return n;
    }

    /** {@return the buffers a field and its children take in a record batch, in Arrow's pre-order} */
    private static int buffers(Field f) {
        int n = TypeLayout.getTypeBufferCount(storedType(f));
        for (Field child : f.getChildren()) {
            n += buffers(child);
        }
        return n;
    }

    /**
     * {@return whether {@code file} is in the IPC file format (magic {@code ARROW1}) rather than the
     * stream format} A stream opens with a message's continuation marker (every writer since Arrow
     * 0.15); without this check a reader takes any four bytes as a length, and may allocate gigabytes.
     *
     * @throws IOException if it starts with neither
     */
    private static boolean isFileFormat(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] head = in.readNBytes(FILE_MAGIC.length);
            if (Arrays.equals(head, FILE_MAGIC)) {
                return true;
            }
            if (head.length >= 4 && head[0] == -1 && head[1] == -1 && head[2] == -1 && head[3] == -1) {
                return false;
            }
            throw new IOException(file + " is not a readable Arrow IPC file or stream: it starts with neither"
                    + " the file magic ARROW1 nor a stream message's continuation marker 0xFFFFFFFF");
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // already failing: the first exception says why
        }
    }

    /**
     * The tensors read from an Arrow IPC file or stream, each a view over memory this object owns
     * until {@link #close()}.
     */
    public static final class Tensors implements AutoCloseable {
        private final Map<String, TensorView> views;
        private final Map<String, FixedShapeTensorType> types;
        private final List<AutoCloseable> owned;

        Tensors(Map<String, TensorView> views, Map<String, FixedShapeTensorType> types, List<AutoCloseable> owned) {
            this.views = views;
            this.types = types;
            this.owned = owned;
        }

        /** {@return the tensor columns' names, in schema order} */
        public List<String> names() {
            return List.copyOf(views.keySet());
        }

        /**
         * {@return the tensor of column {@code name}: dims {@code [rows, ...]}, read-only}
         *
         * @throws IllegalArgumentException if there is no such tensor column, listing those there are
         */
        public TensorView view(String name) {
            TensorView v = views.get(Objects.requireNonNull(name, "name"));
            if (v == null) {
                throw new IllegalArgumentException("no tensor column '" + name + "'; there are " + names());
            }
            return v;
        }

        /** {@return the column's extension type (shape, dim names, permutation)} */
        public FixedShapeTensorType type(String name) {
            view(name);
            return types.get(name);
        }

        /** Unmaps the file and frees what was copied from it; views of it then refuse access. */
        @Override
        public void close() {
            closeAll(owned);
        }
    }
}
