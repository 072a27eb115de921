package dev.tensorbuf.net;

import dev.tensorbuf.interop.internal.FileReplacement;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.net.internal.ArrowDTypes;
import dev.tensorbuf.net.internal.ArrowMemory;
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
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
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
        if (rows.rank() == 0) {
            throw new IllegalArgumentException("column '" + name + "': a scalar " + rows.shape()
                    + " has no dim 0 to make rows of; reshape it to [1]");
        }
        DType dtype = rows.dtype();
        ArrowDTypes.arrowType(dtype); // refuses the types Arrow has no name for, before any work
        int rank = rows.rank();
        List<Long> dims = rows.dims();
        Optional<int[]> order = ArrowMemory.rowMajorOrder(rows);
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
                    List<FieldVector> vectors = new ArrayList<>();
                    for (Map.Entry<String, TensorView> e : tensors.entrySet()) {
                        vectors.add(ArrowTensors.toVector(e.getKey(), TensorProducer.rowsOf(e.getValue(), r, end), allocator));
                    }
                    if (root == null) {
                        List<Field> fields = vectors.stream().map(FieldVector::getField).toList();
                        root = new VectorSchemaRoot(fields, vectors, (int) (end - r));
                        writer = file ? new ArrowFileWriter(root, null, channel) : new ArrowStreamWriter(root, null, channel);
                        writer.start();
                    } else {
                        for (int i = 0; i < vectors.size(); i++) {
                            vectors.get(i).makeTransferPair(root.getVector(i)).transfer();
                            vectors.get(i).close();
                        }
                        root.setRowCount((int) (end - r));
                    }
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
        boolean isFile = isFileFormat(file);
        BufferAllocator allocator = ArrowTensors.allocator();
        try {
            SeekableByteChannel channel = Files.newByteChannel(file);
            try (ArrowReader reader = isFile ? new ArrowFileReader(channel, allocator)
                    : new ArrowStreamReader(Channels.newInputStream(channel), allocator)) {
                return read(reader, allocator, file.toString());
            } catch (IOException e) {
                throw e.getMessage() != null && e.getMessage().contains(file.toString()) ? e
                        : new IOException(file + " is not a readable Arrow IPC file or stream: " + e.getMessage(), e);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
            }
        } catch (IOException | RuntimeException e) {
            allocator.close();
            throw e;
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
     * @param metadata the schema's own key-values
     * @param columns the {@code arrow.fixed_shape_tensor} columns, in schema order
     */
    public record Header(String format, int batches, Map<String, String> metadata, List<ColumnHeader> columns) {
        /** Copies the metadata and columns. */
        public Header {
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
        boolean isFile = isFileFormat(file);
        try (FileChannel channel = FileChannel.open(file)) {
            try {
                return isFile ? describeFile(file, channel) : describeStream(channel);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
            } catch (IOException | RuntimeException e) {
                throw new IOException(file + " is not a readable Arrow IPC file or stream: " + e.getMessage(), e);
            }
        }
    }

    private static Header describeFile(Path file, FileChannel channel) throws IOException {
        List<ArrowBlock> blocks;
        Schema schema;
        try (BufferAllocator allocator = allocator();
                ArrowFileReader reader = new ArrowFileReader(Files.newByteChannel(file), allocator)) {
            blocks = reader.getRecordBlocks();
            schema = reader.getVectorSchemaRoot().getSchema();
        }
        List<BatchHeader> batches = new ArrayList<>();
        for (ArrowBlock b : blocks) {
            channel.position(b.getOffset());
            MessageMetadataResult m = readMessage(channel);
            if (m == null || m.getMessage().headerType() != MessageHeader.RecordBatch) {
                throw new IOException("the footer's block at byte " + b.getOffset() + " is not a record batch");
            }
            batches.add(new BatchHeader((RecordBatch) m.getMessage().header(new RecordBatch()),
                    b.getOffset() + b.getMetadataLength()));
        }
        return header("file", schema, batches);
    }

    private static Header describeStream(FileChannel channel) throws IOException {
        channel.position(0);
        MessageMetadataResult first = readMessage(channel);
        if (first == null || first.getMessage().headerType() != MessageHeader.Schema) {
            throw new IOException("the stream does not open with a schema message");
        }
        Schema schema = MessageSerializer.deserializeSchema(first.getMessage());
        List<BatchHeader> batches = new ArrayList<>();
        for (MessageMetadataResult m = readMessage(channel); m != null; m = readMessage(channel)) {
            long body = channel.position();
            if (m.getMessageBodyLength() < 0 || m.getMessageBodyLength() > channel.size() - body) {
                throw new IOException("the message at byte " + body + " has a body of " + m.getMessageBodyLength()
                        + " bytes, past the end of the " + channel.size() + "-byte file");
            }
            if (m.getMessage().headerType() == MessageHeader.RecordBatch) {
                batches.add(new BatchHeader((RecordBatch) m.getMessage().header(new RecordBatch()), body));
            }
            channel.position(Math.addExact(body, m.getMessageBodyLength()));
        }
        return header("stream", schema, batches);
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
                columns.add(new ColumnHeader(f.getName(), type, rows, offset, size));
            }
            buffer += buffers(f);
        }
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("it has no " + FixedShapeTensorType.EXTENSION_NAME + " column (columns: "
                    + schema.getFields().stream().map(f -> f.getName() + " " + f.getType()).toList() + ")");
        }
        Map<String, String> metadata = schema.getCustomMetadata() == null ? Map.of() : schema.getCustomMetadata();
        return new Header(format, batches.size(), metadata, columns);
    }

    /** {@return the buffers a field and its children take in a record batch, in Arrow's pre-order} */
    private static int buffers(Field f) {
        int n = TypeLayout.getTypeBufferCount(f.getType());
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

    /**
     * {@return the tensors of an IPC stream read from {@code in}}
     *
     * @param what names the stream in messages
     */
    public static Tensors readStream(InputStream in, String what) throws IOException {
        BufferAllocator allocator = ArrowTensors.allocator();
        try (ArrowStreamReader reader = new ArrowStreamReader(in, allocator)) {
            return read(reader, allocator, what);
        } catch (IOException | RuntimeException e) {
            allocator.close();
            throw e;
        }
    }

    private static Tensors read(ArrowReader reader, BufferAllocator allocator, String what) throws IOException {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        List<Field> fields = root.getSchema().getFields();
        Map<String, FixedShapeTensorType> types = new LinkedHashMap<>();
        for (Field f : fields) {
            FixedShapeTensorType.ofField(f).ifPresent(t -> types.put(f.getName(), t));
        }
        if (types.isEmpty()) {
            throw new IllegalArgumentException(what + " has no " + FixedShapeTensorType.EXTENSION_NAME + " column (columns: "
                    + fields.stream().map(f -> f.getName() + " " + f.getType()).toList() + ")");
        }
        Map<String, List<ArrowTensors.Column>> batches = new LinkedHashMap<>();
        types.keySet().forEach(n -> batches.put(n, new ArrayList<>()));
        List<AutoCloseable> owned = new ArrayList<>();
        try {
            while (reader.loadNextBatch()) {
                for (String name : types.keySet()) {
                    ArrowTensors.Column c = ArrowTensors.read(root.getVector(name));
                    owned.add(c);
                    batches.get(name).add(c);
                }
            }
            Allocator joined = null;
            Map<String, TensorView> views = new LinkedHashMap<>();
            for (Map.Entry<String, List<ArrowTensors.Column>> e : batches.entrySet()) {
                FixedShapeTensorType type = types.get(e.getKey());
                List<ArrowTensors.Column> parts = e.getValue();
                if (parts.size() == 1) {
                    views.put(e.getKey(), parts.getFirst().view());
                    continue;
                }
                // Batches lie apart in Arrow's memory: one buffer holds them all, in physical order.
                if (joined == null) {
                    joined = Allocators.shared();
                    owned.add(joined);
                }
                long rows = parts.stream().mapToLong(ArrowTensors.Column::rows).sum();
                long rowBytes = (long) type.listSize() * type.dtype().byteWidth();
                MemoryBuffer all = joined.allocate(Math.max(1, Math.multiplyExact(rows, rowBytes)));
                long at = 0;
                for (ArrowTensors.Column c : parts) {
                    long n = c.rows() * rowBytes;
                    MemorySegment.copy(c.buffer().segment(), 0, all.segment(), at, n);
                    at += n;
                    c.close();
                }
                views.put(e.getKey(), ArrowTensors.view(all.slice(0, rows * rowBytes), type, rows));
            }
            return new Tensors(views, types, owned, allocator);
        } catch (IOException | RuntimeException e) {
            for (AutoCloseable c : owned) {
                closeQuietly(c);
            }
            throw e;
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
        private final BufferAllocator allocator;

        Tensors(Map<String, TensorView> views, Map<String, FixedShapeTensorType> types, List<AutoCloseable> owned,
                BufferAllocator allocator) {
            this.views = views;
            this.types = types;
            this.owned = owned;
            this.allocator = allocator;
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

        /** Frees the memory; views of it then refuse access. */
        @Override
        public void close() {
            for (AutoCloseable c : owned) {
                closeQuietly(c);
            }
            allocator.close();
        }
    }


}
