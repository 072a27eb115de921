package dev.tensorbuf.interop.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;

/**
 * The channel a {@link dev.tensorbuf.interop.DenseTensor.DataWriter} writes to: it passes the bytes on and
 * counts them, so that a writer that writes too few or too many bytes for its tensor is refused
 * instead of leaving a file whose header lies. Closing it does not close the file.
 */
public final class CountedWrites implements WritableByteChannel {
    private final WritableByteChannel out;
    private final long expected;
    private final String what;
    private long written;
    private boolean open = true;

    /** @param what names the tensor in messages, e.g. {@code "x.npy"} or {@code "tensor 'w' of m.safetensors"} */
    public CountedWrites(WritableByteChannel out, long expected, String what) {
        this.out = out;
        this.expected = expected;
        this.what = what;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        if (!open) {
            throw new IllegalStateException("the data of " + what + " were written already: the channel is used only"
                    + " during DenseTensor.DataWriter.write");
        }
        if (src.remaining() > expected - written) {
            throw new IllegalStateException(what + " holds " + expected + " data bytes, and the writer wrote "
                    + (written + src.remaining()) + " (" + written + " before a write of " + src.remaining() + ")");
        }
        int n = out.write(src);
        written += n;
        return n;
    }

    /**
     * Passes on {@code count} bytes of {@code from} starting at {@code position}, file to file in the
     * kernel where the file being written is a {@link FileChannel} ({@code copy_file_range} or
     * {@code sendfile} on Linux): a plain copy then never maps or reads the bytes into this process,
     * whose page faults on a mapping cost more than the copy (bench/RESULTS.md, "Convert end to end").
     *
     * @throws IOException if {@code from} ends before {@code position + count} (changed while read)
     */
    public void transferFrom(FileChannel from, long position, long count) throws IOException {
        if (!open) {
            throw new IllegalStateException("the data of " + what + " were written already: the channel is used only"
                    + " during DenseTensor.DataWriter.write");
        }
        if (count < 0 || count > expected - written) {
            throw new IllegalStateException(what + " holds " + expected + " data bytes, and the writer wrote "
                    + (written + count) + " (" + written + " before a write of " + count + ")");
        }
        for (long done = 0; done < count; ) {
            long n = from.transferTo(position + done, count - done, out);
            if (n <= 0) {
                throw new IOException("the input ended after " + (position + done) + " bytes while " + what
                        + " was written from it: it changed while being read");
            }
            done += n;
            written += n;
        }
    }

    /**
     * Ends the writer's turn.
     *
     * @throws IllegalStateException if fewer bytes than the tensor's were written
     */
    public void finish() {
        open = false;
        if (written != expected) {
            throw new IllegalStateException(what + " holds " + expected + " data bytes, and the writer wrote only "
                    + written);
        }
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public void close() {
        open = false;
    }
}
