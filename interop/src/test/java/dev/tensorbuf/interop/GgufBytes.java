package dev.tensorbuf.interop;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Builds GGUF bytes field by field, for files the writer would never make. Test code only. */
final class GgufBytes {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    static GgufBytes header(int version, long tensors, long kvs) {
        return new GgufBytes().bytes("GGUF".getBytes(StandardCharsets.US_ASCII)).u32(version).u64(tensors).u64(kvs);
    }

    GgufBytes u8(int v) {
        out.write(v);
        return this;
    }

    GgufBytes u32(long v) {
        for (int i = 0; i < 4; i++) {
            out.write((int) (v >>> (8 * i)));
        }
        return this;
    }

    GgufBytes u64(long v) {
        for (int i = 0; i < 8; i++) {
            out.write((int) (v >>> (8 * i)));
        }
        return this;
    }

    GgufBytes str(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return u64(b.length).bytes(b);
    }

    GgufBytes bytes(byte[] b) {
        out.writeBytes(b);
        return this;
    }

    /** A tensor info: logical dims are given GGUF-order (innermost first), as the file stores them. */
    GgufBytes info(String name, int type, long offset, long... ggufDims) {
        str(name).u32(ggufDims.length);
        for (long d : ggufDims) {
            u64(d);
        }
        return u32(type).u64(offset);
    }

    /** Zeros up to a multiple of {@code alignment}, then {@code dataBytes} more zeros. */
    GgufBytes data(int alignment, int dataBytes) {
        while (out.size() % alignment != 0) {
            out.write(0);
        }
        return bytes(new byte[dataBytes]);
    }

    int size() {
        return out.size();
    }

    byte[] toArray() {
        return out.toByteArray();
    }

    Path writeTo(Path file) throws IOException {
        return Files.write(file, out.toByteArray());
    }
}
