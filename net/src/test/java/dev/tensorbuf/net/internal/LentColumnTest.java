package dev.tensorbuf.net.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tensorbuf.net.FixedShapeTensorType;
import dev.tensorbuf.views.DType;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.channels.Channels;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.ArrowBuffer;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** {@link LentColumn}: a lent batch unloads as its values alone, with zero-length validity buffers. */
class LentColumnTest {
    private static final int ROWS = 5;
    private static final int COLS = 3;

    private static Schema schema() {
        return new Schema(List.of(FixedShapeTensorType.of(DType.F32, List.of((long) COLS)).field("tensor")), Map.of());
    }

    private static VectorSchemaRoot root(BufferAllocator allocator) {
        Schema schema = schema();
        return new VectorSchemaRoot(schema,
                List.of(new LentColumn((FixedSizeListVector) schema.getFields().getFirst().createVector(allocator))), 0);
    }

    /** {@return ROWS x COLS floats 0.5, 1.5, ...} */
    private static ArrowBuf values(BufferAllocator allocator, float offset) {
        ArrowBuf data = allocator.buffer(ROWS * COLS * 4L);
        for (int i = 0; i < ROWS * COLS; i++) {
            data.setFloat(i * 4L, i + offset);
        }
        return data;
    }

    @Test
    void aLentBatchUnloadsAsItsValuesWithNoValidityBytesAndNoNulls() {
        try (BufferAllocator allocator = new RootAllocator();
             VectorSchemaRoot root = root(allocator)) {
            LentColumn column = (LentColumn) root.getVector(0);
            ArrowBuf data = values(allocator, 0.5f);
            column.lend(data, ROWS);
            data.getReferenceManager().release();
            root.setRowCount(ROWS);
            try (ArrowRecordBatch batch = new VectorUnloader(root, true, true).getRecordBatch()) {
                assertEquals(ROWS, batch.getLength());
                List<ArrowFieldNode> nodes = batch.getNodes();
                assertEquals(List.of(ROWS, ROWS * COLS), nodes.stream().map(ArrowFieldNode::getLength).toList());
                assertEquals(List.of(0, 0), nodes.stream().map(ArrowFieldNode::getNullCount).toList());
                List<ArrowBuffer> layout = batch.getBuffersLayout();
                assertEquals(List.of(0L, 0L, ROWS * COLS * 4L), layout.stream().map(ArrowBuffer::getSize).toList(),
                        "the list's validity, the values' validity, the values");
                assertEquals(64, batch.computeBodyLength(), "the 60 bytes of values, padded to a multiple of 8");
            }
        }
    }

    @Test
    void arrowJavaReadsALentBatchBackAsAllValid() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (BufferAllocator allocator = new RootAllocator();
             VectorSchemaRoot root = root(allocator);
             ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(out))) {
            LentColumn column = (LentColumn) root.getVector(0);
            writer.start();
            for (float offset : new float[] {0.5f, 100.25f}) {
                ArrowBuf data = values(allocator, offset);
                column.lend(data, ROWS);
                data.getReferenceManager().release();
                root.setRowCount(ROWS);
                writer.writeBatch();
            }
            writer.end();
        }
        try (BufferAllocator allocator = new RootAllocator();
             ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), allocator)) {
            for (float offset : new float[] {0.5f, 100.25f}) {
                assertEquals(true, reader.loadNextBatch());
                FixedSizeListVector list = (FixedSizeListVector) reader.getVectorSchemaRoot().getVector(0);
                Float4Vector floats = (Float4Vector) list.getDataVector();
                assertEquals(ROWS, list.getValueCount());
                assertEquals(0, list.getNullCount());
                assertEquals(0, floats.getNullCount());
                for (int i = 0; i < ROWS * COLS; i++) {
                    assertEquals(i + offset, floats.get(i));
                }
            }
            assertEquals(false, reader.loadNextBatch());
        }
    }

    @Test
    void lendingAnotherBatchReleasesTheOneBeforeAndClosingTheLast() {
        try (BufferAllocator allocator = new RootAllocator()) {
            ArrowBuf first = values(allocator, 0);
            ArrowBuf second = values(allocator, 1);
            try (VectorSchemaRoot root = root(allocator)) {
                LentColumn column = (LentColumn) root.getVector(0);
                column.lend(first, ROWS);
                assertEquals(2, first.refCnt());
                column.lend(second, 2);
                assertEquals(1, first.refCnt());
                assertEquals(2, second.refCnt());
                assertThrows(IllegalStateException.class, () -> root.setRowCount(ROWS), "a lent batch of 2 rows");
            }
            assertEquals(1, second.refCnt());
            first.getReferenceManager().release();
            second.getReferenceManager().release();
        }
    }

    @Test
    void withoutALoanTheColumnUnloadsWhatItsVectorHolds() {
        try (BufferAllocator allocator = new RootAllocator();
             VectorSchemaRoot root = root(allocator)) {
            LentColumn column = (LentColumn) root.getVector(0);
            ArrowBuf data = values(allocator, 0);
            column.lend(data, ROWS);
            data.getReferenceManager().release();
            column.useVector();
            FixedSizeListVector list = column.getUnderlyingVector();
            Float4Vector floats = (Float4Vector) list.getDataVector();
            list.setNull(0);
            for (int i = 0; i < 2 * COLS; i++) {
                floats.setSafe(i, 7f);
            }
            list.setNotNull(1);
            root.setRowCount(2);
            try (ArrowRecordBatch batch = new VectorUnloader(root, true, true).getRecordBatch()) {
                assertEquals(List.of(1, 0), batch.getNodes().stream().map(ArrowFieldNode::getNullCount).toList(),
                        "row 0 null, as its vector says");
                assertEquals(1L, batch.getBuffersLayout().getFirst().getSize(), "the list's validity bitmap is sent");
            }
        }
    }
}
