package dev.tensorbuf.net.internal;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;

/**
 * A stream's or file's {@code arrow.fixed_shape_tensor} column as Arrow's unloader sees it: either the
 * batch's values lent as one buffer ({@link #lend}), sent with zero-length validity buffers, or
 * what the wrapped vector holds ({@link #useVector}).
 *
 * <p>Arrow's IPC format lets an array whose null count is 0 send no validity bitmap (a buffer of
 * length 0), and pyarrow's servers send none; Arrow Java's vectors always carry one, and loading a
 * vector without nulls allocates and fills it: 512 KiB of ones per 16 MiB batch of f32, counted
 * again for the null count, and sent (3% more bytes). Readers take a null count of 0 as all
 * valid, whatever the buffer (Arrow C++ skips it, Arrow Java makes its own, {@link DoGetReader}
 * skips it).
 */
public final class LentColumn extends WrappedVector<FixedSizeListVector> {
    private final Values values;
    private final int listSize;
    /** The bytes of one value, or 0 when the values are not whole bytes (bits) or not fixed-width. */
    private final int valueBytes;
    private ArrowBuf lent;
    private long rows;

    /** Wraps {@code column}, a vector of an {@code arrow.fixed_shape_tensor} field, which it then owns. */
    public LentColumn(FixedSizeListVector column) {
        super(column);
        this.listSize = column.getListSize();
        FieldVector child = column.getDataVector();
        this.valueBytes = child instanceof BaseFixedWidthVector f && !(child instanceof BitVector) ? f.getTypeWidth() : 0;
        this.values = new Values(child, this);
    }

    /** {@return whether batches can be lent: the values are of a fixed number of bytes each} */
    boolean lends() {
        return valueBytes > 0;
    }

    /**
     * Makes the column {@code rows} rows over the first bytes of {@code data} (C order,
     * {@code rows * listSize} values), taking a reference on it and dropping the buffer lent before.
     *
     * @throws IllegalArgumentException if the values are not whole bytes, there are more than a
     *     batch holds, or {@code data} is too small
     */
    public void lend(ArrowBuf data, long rows) {
        if (!lends()) {
            throw new IllegalArgumentException("values of " + values.getField().getType() + " cannot be lent as bytes");
        }
        if (rows < 0 || rows > Integer.MAX_VALUE || rows * listSize > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(rows + " rows of " + listSize + " values are more than a batch holds");
        }
        if (data.capacity() < rows * listSize * valueBytes) {
            throw new IllegalArgumentException(rows + " rows of " + listSize + " values of " + valueBytes
                    + " bytes do not fit in a buffer of " + data.capacity());
        }
        data.getReferenceManager().retain();
        useVector();
        lent = data;
        this.rows = rows;
    }

    /**
     * Makes the column what the wrapped vector holds (a batch loaded or transferred into it),
     * dropping the buffer lent before.
     */
    void useVector() {
        if (lent != null) {
            lent.getReferenceManager().release();
            lent = null;
        }
    }

    @Override
    public int getValueCount() {
        return lent == null ? super.getValueCount() : (int) rows;
    }

    @Override
    public void setValueCount(int valueCount) {
        // The root sets its row count on every vector; a lent batch already has its own.
        if (lent == null) {
            super.setValueCount(valueCount);
        } else if (valueCount != rows) {
            throw new IllegalStateException("a lent batch of " + rows + " rows given a row count of " + valueCount);
        }
    }

    @Override
    public int getNullCount() {
        return lent == null ? super.getNullCount() : 0;
    }

    @Override
    public List<ArrowBuf> getFieldBuffers() {
        return lent == null ? super.getFieldBuffers() : List.of(noBitmap());
    }

    @Override
    public List<FieldVector> getChildrenFromFields() {
        return lent == null ? super.getChildrenFromFields() : List.of(values);
    }

    @Override
    public void close() {
        useVector();
        super.close();
    }

    /** {@return a validity buffer of no bytes} (the allocator's empty buffer, whose indices are 0) */
    private ArrowBuf noBitmap() {
        ArrowBuf none = getAllocator().getEmpty();
        none.readerIndex(0);
        none.writerIndex(0);
        return none;
    }

    /** The column's values (its list's child) while a batch is lent. */
    private static final class Values extends WrappedVector<FieldVector> {
        private final LentColumn column;

        Values(FieldVector values, LentColumn column) {
            super(values);
            this.column = column;
        }

        @Override
        public int getValueCount() {
            return (int) (column.rows * column.listSize);
        }

        @Override
        public int getNullCount() {
            return 0;
        }

        @Override
        public List<ArrowBuf> getFieldBuffers() {
            ArrowBuf data = column.lent;
            data.readerIndex(0);
            data.writerIndex(column.rows * column.listSize * column.valueBytes);
            List<ArrowBuf> out = new ArrayList<>(2);
            out.add(column.noBitmap());
            out.add(data);
            return out;
        }

        @Override
        public List<FieldVector> getChildrenFromFields() {
            return List.of();
        }

        @Override
        public void close() {
            // The list column owns the values vector.
        }
    }
}
