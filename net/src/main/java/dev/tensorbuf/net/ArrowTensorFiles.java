package dev.tensorbuf.net;

import dev.tensorbuf.interop.FileReplacement;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.net.internal.ArrowMemory;
import dev.tensorbuf.ops.Ops;
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
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Arrow IPC files and streams of tensors: one {@link FixedShapeTensorType} column per tensor,
 * its dim 0 the rows. Writing lends the views' memory to Arrow where the layout allows (see
 * {@link ArrowTensors#toVector}); reading a file of one record batch gives views over Arrow's
 * buffers, and a file of several batches one buffer per tensor that the batches are copied into.
 * {@snippet :
 * ArrowTensorFiles.write(Path.of("x.arrow"), Map.of("x", view));     // view: f32[4,2,3]
 * // python: pa.ipc.open_file("x.arrow").read_all()["x"].combine_chunks().to_numpy_ndarray().shape == (4, 2, 3)
 * try (ArrowTensorFiles.Tensors t = ArrowTensorFiles.read(Path.of("x.arrow"))) {
 *     t.view("x").dims();   // [4, 2, 3]
 * }
 * }
 */
public final class ArrowTensorFiles {
    private static final byte[] FILE_MAGIC = {'A', 'R', 'R', 'O', 'W', '1'};

    private ArrowTensorFiles() {}

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
            try (FileChannel channel = FileChannel.open(where, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                write(channel, tensors, true);
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
                        vectors.add(ArrowTensors.toVector(e.getKey(), rowsOf(e.getValue(), r, end), allocator));
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

    private static TensorView rowsOf(TensorView v, long from, long to) {
        if (from == 0 && to == v.dims().getFirst()) {
            return v;
        }
        long[] lo = new long[v.rank()];
        long[] hi = v.dims().stream().mapToLong(Long::longValue).toArray();
        long[] step = new long[v.rank()];
        Arrays.fill(step, 1);
        lo[0] = from;
        hi[0] = to;
        return Ops.slice(v, lo, hi, step);
    }

    /**
     * {@return the tensors of an Arrow IPC file or stream: every {@code arrow.fixed_shape_tensor}
     * column, in schema order}
     *
     * @throws IOException if the file cannot be read or is not Arrow IPC
     * @throws IllegalArgumentException if it holds no tensor column, or one is malformed (naming it)
     */
    public static Tensors read(Path file) throws IOException {
        boolean isFile;
        try (InputStream in = Files.newInputStream(file)) {
            byte[] head = in.readNBytes(FILE_MAGIC.length);
            isFile = Arrays.equals(head, FILE_MAGIC);
            // A stream opens with a message's continuation marker (every writer since Arrow 0.15);
            // without this check the reader takes any four bytes as a length, and may allocate gigabytes.
            if (!isFile && !(head.length >= 4 && head[0] == -1 && head[1] == -1 && head[2] == -1 && head[3] == -1)) {
                throw new IOException(file + " is not a readable Arrow IPC file or stream: it starts with neither"
                        + " the file magic ARROW1 nor a stream message's continuation marker 0xFFFFFFFF");
            }
        }
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
