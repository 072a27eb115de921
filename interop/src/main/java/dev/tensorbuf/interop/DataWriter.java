package dev.tensorbuf.interop;

import java.io.IOException;
import java.nio.channels.WritableByteChannel;

/**
 * Writes one tensor's data bytes, in file order, to a channel a file writer hands it: the way to
 * write a {@code .npy} or safetensors file piece by piece, without a buffer of the whole tensor.
 * The writer has already written what comes before (the header) and checks afterwards that exactly
 * the tensor's byte count was written.
 * {@snippet :
 * // f32[2,3] holding 0..5, written one row at a time
 * Npy.write(Path.of("x.npy"), DType.F32, List.of(2L, 3L), channel -> {
 *     for (int row = 0; row < 2; row++) {
 *         ByteBuffer b = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
 *         b.putFloat(3 * row).putFloat(3 * row + 1).putFloat(3 * row + 2).flip();
 *         while (b.hasRemaining()) {
 *             channel.write(b);
 *         }
 *     }
 * });   // np.load("x.npy") is [[0, 1, 2], [3, 4, 5]]
 * }
 */
@FunctionalInterface
public interface DataWriter {
    /**
     * Writes the tensor's bytes: row-major, little-endian, exactly its byte count.
     *
     * @param channel where they go; not to be closed, and used only during this call
     */
    void write(WritableByteChannel channel) throws IOException;
}
