package dev.tensorbuf.interop.internal;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Strict UTF-8 decoding of file headers. The JDK's own exception says only "Input length = 1";
 * a header is found by where its bad byte sits in the file, so that is what a failure names.
 */
public final class StrictUtf8 {
    private StrictUtf8() {
    }

    /**
     * {@return the text of {@code bytes} (from its position to its limit)}
     *
     * @param fileOffset where {@code bytes}' first byte sits in the file
     * @param file the file, as messages name it
     * @param part what the bytes are, e.g. {@code "header"}
     * @throws IllegalArgumentException naming the file, the part, the first bad byte, and its
     *     offset in the file and in the part
     */
    public static String decode(ByteBuffer bytes, long fileOffset, String file, String part) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        int start = bytes.position();
        CharBuffer out = CharBuffer.allocate(bytes.remaining()); // UTF-8 never decodes to more chars than bytes
        CoderResult result = decoder.decode(bytes, out, true);
        if (!result.isError()) {
            result = decoder.flush(out);
        }
        if (result.isError()) {
            int at = bytes.position() - start; // the decoder stops at the first byte of the bad sequence
            throw new IllegalArgumentException(String.format("%s: %s is not valid UTF-8: byte 0x%02x at offset %d of the"
                    + " file (byte %d of the %s)", file, part, bytes.get(bytes.position()) & 0xff, fileOffset + at, at, part));
        }
        return out.flip().toString();
    }
}
