package dev.tensorbuf.testing;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/** {@code .npy} files written byte by byte, for headers the library's writer would not write (strings, odd spellings). */
public final class NpyBytes {
    private NpyBytes() {
    }

    /** {@return a .npy of the header text, as a version 1.0 (latin-1) or 3.0 (UTF-8) file} */
    public static byte[] of(int version, String header, byte[] data) {
        byte[] text = header.getBytes(version == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        int lengthBytes = version == 1 ? 2 : 4;
        int total = 8 + lengthBytes + text.length + 1;
        int padded = (total + 63) / 64 * 64;
        int headerLength = padded - 8 - lengthBytes;
        ByteBuffer b = ByteBuffer.allocate(padded + data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', (byte) version, 0});
        if (version == 1) {
            b.putShort((short) headerLength);
        } else {
            b.putInt(headerLength);
        }
        b.put(text);
        while (b.position() < padded - 1) {
            b.put((byte) ' ');
        }
        return b.put((byte) '\n').put(data).array();
    }
}
