package dev.tensorbuf.interop.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * A {@link DirectBuffer} over read-only memory (a mapped file) that cannot be cast to a
 * {@link MutableDirectBuffer}: Agrona's {@code UnsafeBuffer} writes through raw addresses, so a
 * write into a read-only mapping would crash the JVM instead of throwing. Every read delegates to
 * the wrapped buffer; re-pointing it ({@code wrap}) is refused, since it would no longer describe
 * the tensor it was made for.
 */
public final class ReadOnlyDirectBuffer implements DirectBuffer {
    private final DirectBuffer delegate;
    private final String description;

    /**
     * @param delegate the buffer read through; never handed out
     * @param description what it holds, for messages and {@link #toString()}
     */
    public ReadOnlyDirectBuffer(DirectBuffer delegate, String description) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.description = Objects.requireNonNull(description, "description");
    }

    private UnsupportedOperationException noWrap() {
        return new UnsupportedOperationException("the read-only bridge of " + description
                + " cannot be re-pointed; make a new DirectBuffer instead");
    }

    @Override public void wrap(byte[] buffer) { throw noWrap(); }
    @Override public void wrap(byte[] buffer, int offset, int length) { throw noWrap(); }
    @Override public void wrap(ByteBuffer buffer) { throw noWrap(); }
    @Override public void wrap(ByteBuffer buffer, int offset, int length) { throw noWrap(); }
    @Override public void wrap(DirectBuffer buffer) { throw noWrap(); }
    @Override public void wrap(DirectBuffer buffer, int offset, int length) { throw noWrap(); }
    @Override public void wrap(long address, int length) { throw noWrap(); }

    @Override public long addressOffset() { return delegate.addressOffset(); }
    @Override public byte[] byteArray() { return delegate.byteArray(); }
    // A read-only view, so the ByteBuffer route cannot write either.
    @Override public ByteBuffer byteBuffer() {
        ByteBuffer b = delegate.byteBuffer();
        return b == null ? null : b.asReadOnlyBuffer();
    }
    @Override public int capacity() { return delegate.capacity(); }
    @Override public void checkLimit(int limit) { delegate.checkLimit(limit); }
    @Override public long getLong(int index, ByteOrder order) { return delegate.getLong(index, order); }
    @Override public long getLong(int index) { return delegate.getLong(index); }
    @Override public int getInt(int index, ByteOrder order) { return delegate.getInt(index, order); }
    @Override public int getInt(int index) { return delegate.getInt(index); }
    @Override public int parseNaturalIntAscii(int index, int length) { return delegate.parseNaturalIntAscii(index, length); }
    @Override public long parseNaturalLongAscii(int index, int length) { return delegate.parseNaturalLongAscii(index, length); }
    @Override public int parseIntAscii(int index, int length) { return delegate.parseIntAscii(index, length); }
    @Override public long parseLongAscii(int index, int length) { return delegate.parseLongAscii(index, length); }
    @Override public double getDouble(int index, ByteOrder order) { return delegate.getDouble(index, order); }
    @Override public double getDouble(int index) { return delegate.getDouble(index); }
    @Override public float getFloat(int index, ByteOrder order) { return delegate.getFloat(index, order); }
    @Override public float getFloat(int index) { return delegate.getFloat(index); }
    @Override public short getShort(int index, ByteOrder order) { return delegate.getShort(index, order); }
    @Override public short getShort(int index) { return delegate.getShort(index); }
    @Override public char getChar(int index, ByteOrder order) { return delegate.getChar(index, order); }
    @Override public char getChar(int index) { return delegate.getChar(index); }
    @Override public byte getByte(int index) { return delegate.getByte(index); }
    @Override public void getBytes(int index, byte[] dst) { delegate.getBytes(index, dst); }
    @Override public void getBytes(int index, byte[] dst, int offset, int length) { delegate.getBytes(index, dst, offset, length); }
    @Override public void getBytes(int index, MutableDirectBuffer dst, int dstIndex, int length) {
        delegate.getBytes(index, dst, dstIndex, length);
    }
    @Override public void getBytes(int index, ByteBuffer dst, int length) { delegate.getBytes(index, dst, length); }
    @Override public void getBytes(int index, ByteBuffer dst, int dstOffset, int length) {
        delegate.getBytes(index, dst, dstOffset, length);
    }
    @Override public String getStringAscii(int index) { return delegate.getStringAscii(index); }
    @Override public int getStringAscii(int index, Appendable appendable) { return delegate.getStringAscii(index, appendable); }
    @Override public String getStringAscii(int index, ByteOrder order) { return delegate.getStringAscii(index, order); }
    @Override public int getStringAscii(int index, Appendable appendable, ByteOrder order) {
        return delegate.getStringAscii(index, appendable, order);
    }
    @Override public String getStringAscii(int index, int length) { return delegate.getStringAscii(index, length); }
    @Override public int getStringAscii(int index, int length, Appendable appendable) {
        return delegate.getStringAscii(index, length, appendable);
    }
    @Override public String getStringWithoutLengthAscii(int index, int length) {
        return delegate.getStringWithoutLengthAscii(index, length);
    }
    @Override public int getStringWithoutLengthAscii(int index, int length, Appendable appendable) {
        return delegate.getStringWithoutLengthAscii(index, length, appendable);
    }
    @Override public String getStringUtf8(int index) { return delegate.getStringUtf8(index); }
    @Override public String getStringUtf8(int index, ByteOrder order) { return delegate.getStringUtf8(index, order); }
    @Override public String getStringUtf8(int index, int length) { return delegate.getStringUtf8(index, length); }
    @Override public String getStringWithoutLengthUtf8(int index, int length) {
        return delegate.getStringWithoutLengthUtf8(index, length);
    }
    @Override public void boundsCheck(int index, int length) { delegate.boundsCheck(index, length); }
    @Override public int wrapAdjustment() { return delegate.wrapAdjustment(); }

    @Override public int compareTo(DirectBuffer other) { return delegate.compareTo(other); }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReadOnlyDirectBuffer r ? delegate.equals(r.delegate) : delegate.equals(o);
    }

    @Override
    public int hashCode() {
        return delegate.hashCode();
    }

    @Override
    public String toString() {
        return "ReadOnlyDirectBuffer[" + description + ", capacity " + delegate.capacity() + "]";
    }
}
