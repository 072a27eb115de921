package dev.tensorbuf.interop.internal;

import dev.tensorbuf.interop.GgmlType;
import dev.tensorbuf.interop.GgufValue;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads and writes the GGUF header: magic, version, counts, metadata key-values and tensor infos.
 * Every length and count from the file is checked against the bytes left before it is used, so
 * a bad file is refused with the offset and the numbers, never by an out-of-bounds read.
 */
public final class GgufCodec {
    /** "GGUF" read as a little-endian u32. */
    public static final int MAGIC = 0x46554747;
    /** The alignment when {@code general.alignment} is absent. */
    public static final int DEFAULT_ALIGNMENT = 32;
    /** ggml's GGML_MAX_DIMS: llama.cpp refuses a tensor of more dims. */
    public static final int MAX_DIMS = 4;
    /** Arrays of arrays deeper than this are refused: real files nest at most once, and recursion must stay bounded. */
    public static final int MAX_NESTING = 16;
    public static final String ALIGNMENT_KEY = "general.alignment";

    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private GgufCodec() {
    }

    /**
     * One tensor info as the file gives it.
     *
     * @param ggufDims the dims in GGUF order, innermost first
     * @param offset from the start of the data section
     * @param at where the info starts in the file, for messages
     */
    public record Info(String name, long[] ggufDims, GgmlType type, long offset, long at) {
    }

    /** The parsed header. */
    public record Header(int version, Map<String, GgufValue> metadata, List<Info> infos, long alignment, long dataStart) {
    }

    /** Reading position over the file with the checks every read needs. */
    private static final class Cursor {
        final MemorySegment all;
        final String file;
        long pos;

        Cursor(MemorySegment all, String file) {
            this.all = all;
            this.file = file;
        }

        long left() {
            return all.byteSize() - pos;
        }

        void need(long bytes, String what) {
            if (bytes > left()) {
                throw new IllegalArgumentException(file + ": truncated: " + what + " at offset " + pos + " needs " + bytes
                        + " bytes, the file has " + left() + " left (" + all.byteSize() + " bytes)");
            }
        }

        int u32(String what) {
            need(4, what);
            int v = all.get(U32, pos);
            pos += 4;
            return v;
        }

        long u64(String what) {
            need(8, what);
            long v = all.get(U64, pos);
            pos += 8;
            return v;
        }

        String string(String what) {
            long at = pos;
            long length = u64("the length of " + what);
            if (length < 0 || length > left()) {
                throw new IllegalArgumentException(file + ": string length " + Long.toUnsignedString(length) + " of " + what
                        + " at offset " + at + " runs past the end of the file (" + left() + " bytes left of "
                        + all.byteSize() + ")");
            }
            if (length > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException(file + ": string length " + length + " of " + what + " at offset " + at
                        + " exceeds the longest string read (2^31 - 9 bytes)");
            }
            ByteBuffer bytes = all.asSlice(pos, length).asByteBuffer();
            String s = StrictUtf8.decode(bytes, pos, file, what);
            pos += length;
            return s;
        }
    }

    /**
     * {@return the header of the file whose bytes are {@code all}}
     *
     * @throws IllegalArgumentException naming the file, the offset and the rule broken
     */
    public static Header read(MemorySegment all, String file) {
        Cursor c = new Cursor(all, file);
        int magic = c.u32("the magic 'GGUF'");
        if (magic != MAGIC) {
            byte[] m = all.asSlice(0, 4).toArray(ValueLayout.JAVA_BYTE);
            throw new IllegalArgumentException(file + ": not a GGUF file: it starts with bytes "
                    + java.util.HexFormat.ofDelimiter(" ").formatHex(m) + ", expected 47 47 55 46 ('GGUF')");
        }
        int version = c.u32("the version");
        if (version != 2 && version != 3) {
            int swapped = Integer.reverseBytes(version);
            throw new IllegalArgumentException(file + ": " + (swapped == 2 || swapped == 3
                    ? "big-endian GGUF (version " + swapped + " byte-swapped) is not read; only little-endian files are"
                    : version == 1 ? "GGUF version 1 (32-bit counts) is not read; expected version 2 or 3"
                    : "GGUF version " + Integer.toUnsignedString(version) + " is not read; expected version 2 or 3"));
        }
        long tensorCount = c.u64("the tensor count");
        long kvCount = c.u64("the metadata count");
        checkCount(c, kvCount, 13, "metadata key-values");
        Map<String, GgufValue> metadata = new LinkedHashMap<>();
        for (long i = 0; i < kvCount; i++) {
            long at = c.pos;
            String key = c.string("metadata key " + i);
            long typeAt = c.pos;
            int typeId = c.u32("the value type of '" + key + "'");
            GgufValue.Type type = valueType(typeId, "metadata '" + key + "'", typeAt, file);
            GgufValue value = new GgufValue(type, value(c, type, "metadata '" + key + "'", 0));
            if (metadata.putIfAbsent(key, value) != null) {
                throw new IllegalArgumentException(file + ": duplicate metadata key '" + key + "' at offset " + at);
            }
        }
        checkCount(c, tensorCount, 24, "tensor infos");
        List<Info> infos = new ArrayList<>();
        for (long i = 0; i < tensorCount; i++) {
            long at = c.pos;
            String name = c.string("the name of tensor " + i);
            String who = "tensor '" + name + "'";
            long nDims = Integer.toUnsignedLong(c.u32("the dim count of " + who));
            if (nDims > MAX_DIMS) {
                throw new IllegalArgumentException(file + ": " + who + " at offset " + at + " has " + nDims
                        + " dims; ggml allows at most " + MAX_DIMS + " (GGML_MAX_DIMS)");
            }
            long[] dims = new long[(int) nDims];
            for (int d = 0; d < nDims; d++) {
                dims[d] = c.u64("dim " + d + " of " + who);
                if (dims[d] < 0) {
                    throw new IllegalArgumentException(file + ": " + who + " has dim " + Long.toUnsignedString(dims[d])
                            + " (GGUF dim " + d + "), past the largest a tensor can have (2^63 - 1)");
                }
            }
            long typeId = Integer.toUnsignedLong(c.u32("the type of " + who));
            GgmlType type;
            try {
                type = GgmlType.fromId(typeId);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(file + ": " + who + " has " + e.getMessage(), e);
            }
            long offset = c.u64("the data offset of " + who);
            infos.add(new Info(name, dims, type, offset, at));
        }
        long alignment = alignment(metadata, file);
        long dataStart = alignUp(c.pos, alignment);
        return new Header(version, metadata, infos, alignment, dataStart);
    }

    private static void checkCount(Cursor c, long count, long minBytes, String what) {
        if (count < 0 || count > c.left() / minBytes) {
            throw new IllegalArgumentException(c.file + ": " + Long.toUnsignedString(count) + " " + what + " at offset "
                    + (c.pos - 8) + " need at least " + minBytes + " bytes each, more than the " + c.left()
                    + " bytes left in the file");
        }
    }

    private static GgufValue.Type valueType(long id, String what, long at, String file) {
        try {
            return GgufValue.Type.fromId(id);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + what + " at offset " + at + " has " + e.getMessage(), e);
        }
    }

    private static Object value(Cursor c, GgufValue.Type type, String what, int depth) {
        return switch (type) {
            case UINT8 -> {
                c.need(1, what);
                yield Byte.toUnsignedInt(c.all.get(ValueLayout.JAVA_BYTE, c.pos++));
            }
            case INT8 -> {
                c.need(1, what);
                yield (int) c.all.get(ValueLayout.JAVA_BYTE, c.pos++);
            }
            case BOOL -> {
                c.need(1, what);
                byte b = c.all.get(ValueLayout.JAVA_BYTE, c.pos);
                if (b != 0 && b != 1) {
                    throw new IllegalArgumentException(c.file + ": " + what + " at offset " + c.pos + " is BOOL byte "
                            + Byte.toUnsignedInt(b) + ", expected 0 or 1");
                }
                c.pos++;
                yield b == 1;
            }
            case UINT16, INT16 -> {
                c.need(2, what);
                short s = c.all.get(U16, c.pos);
                c.pos += 2;
                yield type == GgufValue.Type.UINT16 ? Short.toUnsignedInt(s) : (int) s;
            }
            case UINT32 -> Integer.toUnsignedLong(c.u32(what));
            case INT32 -> c.u32(what);
            case FLOAT32 -> Float.intBitsToFloat(c.u32(what));
            case UINT64, INT64 -> c.u64(what);
            case FLOAT64 -> Double.longBitsToDouble(c.u64(what));
            case STRING -> c.string(what);
            case ARRAY -> {
                if (depth >= MAX_NESTING) {
                    throw new IllegalArgumentException(c.file + ": " + what + " at offset " + c.pos
                            + " nests arrays more than " + MAX_NESTING + " deep");
                }
                long typeAt = c.pos;
                GgufValue.Type element = valueType(Integer.toUnsignedLong(c.u32("the element type of " + what)), what,
                        typeAt, c.file);
                long count = c.u64("the length of " + what);
                checkCount(c, count, element.minBytes(), "items of " + element + " in " + what);
                List<Object> items = new ArrayList<>((int) Math.min(count, 1 << 16));
                for (long i = 0; i < count; i++) {
                    items.add(value(c, element, what + "[" + i + "]", depth + 1));
                }
                yield new GgufValue.Array(element, items);
            }
        };
    }

    private static long alignment(Map<String, GgufValue> metadata, String file) {
        GgufValue a = metadata.get(ALIGNMENT_KEY);
        if (a == null) {
            return DEFAULT_ALIGNMENT;
        }
        if (a.type() != GgufValue.Type.UINT32) {
            throw new IllegalArgumentException(file + ": " + ALIGNMENT_KEY + " is " + a.type() + ", expected UINT32");
        }
        long v = (Long) a.value();
        if (v == 0 || Long.bitCount(v) != 1) {
            throw new IllegalArgumentException(file + ": " + ALIGNMENT_KEY + " " + v + " is not a power of two");
        }
        return v;
    }

    /** {@return {@code n} rounded up to a multiple of the power of two {@code alignment}} */
    public static long alignUp(long n, long alignment) {
        return Math.addExact(n, alignment - 1) & -alignment;
    }

    /** {@return the bytes of the header through the last tensor info, unpadded} */
    public static byte[] write(int version, Map<String, GgufValue> metadata, List<Info> infos) {
        Out out = new Out();
        out.u32(MAGIC);
        out.u32(version);
        out.u64(infos.size());
        out.u64(metadata.size());
        for (Map.Entry<String, GgufValue> e : metadata.entrySet()) {
            out.string(e.getKey());
            out.u32(e.getValue().type().id());
            writeValue(out, e.getValue().type(), e.getValue().value());
        }
        for (Info info : infos) {
            out.string(info.name());
            out.u32(info.ggufDims().length);
            for (long d : info.ggufDims()) {
                out.u64(d);
            }
            out.u32(info.type().id());
            out.u64(info.offset());
        }
        return out.bytes();
    }

    private static void writeValue(Out out, GgufValue.Type type, Object v) {
        switch (type) {
            case UINT8, INT8 -> out.u8((Integer) v);
            case BOOL -> out.u8((Boolean) v ? 1 : 0);
            case UINT16, INT16 -> {
                out.u8((Integer) v);
                out.u8((Integer) v >> 8);
            }
            case UINT32 -> out.u32((int) (long) (Long) v);
            case INT32 -> out.u32((Integer) v);
            case FLOAT32 -> out.u32(Float.floatToRawIntBits((Float) v));
            case UINT64, INT64 -> out.u64((Long) v);
            case FLOAT64 -> out.u64(Double.doubleToRawLongBits((Double) v));
            case STRING -> out.string((String) v);
            case ARRAY -> {
                GgufValue.Array a = (GgufValue.Array) v;
                out.u32(a.elementType().id());
                out.u64(a.items().size());
                for (Object item : a.items()) {
                    writeValue(out, a.elementType(), item);
                }
            }
        }
    }

    private static final class Out {
        private final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();

        void u8(int v) {
            bytes.write(v);
        }

        void u32(int v) {
            for (int i = 0; i < 4; i++) {
                bytes.write(v >>> (8 * i));
            }
        }

        void u64(long v) {
            for (int i = 0; i < 8; i++) {
                bytes.write((int) (v >>> (8 * i)));
            }
        }

        void string(String s) {
            byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            u64(b.length);
            bytes.writeBytes(b);
        }

        byte[] bytes() {
            return bytes.toByteArray();
        }
    }
}
