package dev.tensorbuf.cli;

import dev.tensorbuf.interop.internal.NpyCodec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * A .npy file of any descr, as np.save writes the types tensorbuf cannot write itself: ml_dtypes'
 * bfloat16 ('<V2'), its one-byte types ('<V1', '<f1'). Header from {@link NpyCodec}, then the bytes.
 */
final class NpyBytes {
    private NpyBytes() {
    }

    static Path write(Path file, String descr, List<Long> shape, byte[] data) throws IOException {
        byte[] preamble = NpyCodec.preamble(descr, false, shape, 0);
        byte[] all = Arrays.copyOf(preamble, preamble.length + data.length);
        System.arraycopy(data, 0, all, preamble.length, data.length);
        Files.write(file, all);
        return file;
    }
}
