package dev.tensorbuf.interop.internal;

import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.memory.internal.AsciiDigits;
import dev.tensorbuf.views.DType;
import java.io.IOException;
import java.math.BigInteger;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code .npy} preamble: magic, version, header length and the Python-literal header, read
 * strictly and written byte for byte as NumPy 2.x writes it.
 */
public final class NpyCodec {
    /** The longest header read: NumPy refuses more than 10,000 bytes by default; we allow v2 headers of many dims. */
    public static final int MAX_HEADER_BYTES = 1 << 20;

    private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
    private static final int ALIGN = 64;
    /** NumPy 2's {@code NPY_MAXDIMS}. */
    private static final int NUMPY_MAX_DIMS = 64;
    // NumPy leaves room for the growth axis to reach 21 digits, so a header can be rewritten in place.
    private static final int GROWTH_AXIS_MAX_DIGITS = 21;
    private static final Set<String> KEYS = Set.of("descr", "fortran_order", "shape");

    private NpyCodec() {
    }

    /**
     * Reads and checks the preamble at the start of the channel; never reads past
     * {@code min(fileSize, 10 + MAX_HEADER_BYTES)}.
     *
     * @throws IllegalArgumentException naming the file and the problem
     */
    public static Npy.Header read(FileChannel channel, long fileSize, String file) throws IOException {
        return read(channel, fileSize, file, null);
    }

    /**
     * Reads as {@link #read(FileChannel, long, String)}, taking a void descr ({@code '<V2'}) of
     * {@code voidType}'s width as that type (null: void descrs are refused).
     */
    public static Npy.Header read(FileChannel channel, long fileSize, String file, DType voidType) throws IOException {
        return read((position, length) -> readFully(channel, position, length), fileSize, file, voidType);
    }

    /**
     * Reads as {@link #read(FileChannel, long, String, DType)} from bytes in memory: a {@code .npy}
     * member of an {@code .npz} archive, mapped or inflated, of {@code size} bytes of which
     * {@code start} holds at least the first {@code min(size, 12 + MAX_HEADER_BYTES)}. The
     * header's data offset is from the member's start.
     */
    public static Npy.Header read(MemorySegment start, long size, String file, DType voidType) {
        try {
            return read((position, length) -> ByteBuffer.wrap(start.asSlice(position, length).toArray(ValueLayout.JAVA_BYTE)),
                    size, file, voidType);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);   // memory is not read by I/O
        }
    }

    /** Reads {@code length} bytes at {@code position}, which the caller has checked lie within the source. */
    private interface Source {
        ByteBuffer read(long position, int length) throws IOException;
    }

    private static Npy.Header read(Source channel, long fileSize, String file, DType voidType) throws IOException {
        if (fileSize < 10) {
            throw Errors.tooShort(file, fileSize, "a .npy preamble (at least 10)");
        }
        ByteBuffer start = channel.read(0, 12 <= fileSize ? 12 : 10);
        for (int i = 0; i < MAGIC.length; i++) {
            if (start.get(i) != MAGIC[i]) {
                throw new IllegalArgumentException(file + ": not a .npy file: it starts with " + hex(start, 6)
                        + ", expected 93 4e 55 4d 50 59 (\\x93NUMPY)");
            }
        }
        int major = start.get(6) & 0xff;
        int minor = start.get(7) & 0xff;
        if (major < 1 || major > 3 || minor != 0) {
            throw new IllegalArgumentException(file + ": unsupported .npy version " + major + "." + minor
                    + " (expected 1.0, 2.0 or 3.0)");
        }
        int lengthBytes = major == 1 ? 2 : 4;
        if (fileSize < 8 + lengthBytes) {
            throw Errors.tooShort(file, fileSize, "a version " + major + ".0 preamble (" + (8 + lengthBytes) + " bytes)");
        }
        start.order(ByteOrder.LITTLE_ENDIAN);
        long headerLength = major == 1 ? start.getShort(8) & 0xffffL : start.getInt(8) & 0xffff_ffffL;
        long headerStart = 8 + lengthBytes;
        if (headerLength > MAX_HEADER_BYTES) {
            throw Errors.headerTooLong(file, String.valueOf(headerLength), MAX_HEADER_BYTES);
        }
        if (headerStart + headerLength > fileSize) {
            throw Errors.headerPastEnd(file, headerLength, fileSize + " bytes, header starts at " + headerStart);
        }
        ByteBuffer raw = channel.read(headerStart, (int) headerLength);
        String text = major < 3 ? StandardCharsets.ISO_8859_1.decode(raw).toString()
                : StrictUtf8.decode(raw, headerStart, file, "version 3.0 header");
        long dataOffset = headerStart + headerLength;
        Npy.Header header = interpret(PyLiteral.parse(withoutPadding(text), file), major, dataOffset, file, voidType);
        long need = header.dataByteSize();
        if (need > fileSize - dataOffset) {
            throw new IllegalArgumentException(file + ": shape " + tupleText(header.shape()) + " of " + header.descr()
                    + " needs " + need + " bytes of data but the file has " + (fileSize - dataOffset)
                    + " after the header (file " + fileSize + " bytes, data at " + dataOffset + ")");
        }
        return header;
    }

    /**
     * {@return the header without the spaces and newline that pad it to 64 bytes} The parser skips
     * them anyway; dropping them keeps its messages, which quote the header, on one line.
     */
    private static String withoutPadding(String header) {
        int end = header.length();
        while (end > 0 && (header.charAt(end - 1) == ' ' || header.charAt(end - 1) == '\n')) {
            end--;
        }
        return header.substring(0, end);
    }

    private static Npy.Header interpret(Object literal, int major, long dataOffset, String file, DType voidType) {
        if (!(literal instanceof Map<?, ?> dict)) {
            throw Errors.wrongKind(file + ": header", kind(literal), "a dict");
        }
        if (!dict.keySet().equals(KEYS)) {
            throw Errors.wrongKeys(file + ": header", dict.keySet(), "'descr', 'fortran_order' and 'shape'");
        }
        Object descrValue = dict.get("descr");
        if (descrValue instanceof List<?> fields) {
            throw new IllegalArgumentException(file + ": structured dtype with " + fields.size()
                    + (fields.size() == 1 ? " field" : " fields") + " is not supported: only numeric dtypes");
        }
        if (!(descrValue instanceof String descr)) {
            throw Errors.wrongKind(file + ": 'descr'", kind(descrValue), "a string such as '<f4'");
        }
        if (!(dict.get("fortran_order") instanceof Boolean fortran)) {
            throw Errors.wrongKind(file + ": 'fortran_order'", kind(dict.get("fortran_order")), "True or False");
        }
        List<Long> shape = shape(dict.get("shape"), file);
        ByteOrder order = byteOrder(descr);
        DType dtype = dtype(descr, file, voidType);
        String context = file + ": " + descr + " " + shape;
        Sizes.unpackedByteSize(dtype, Sizes.elementCount(shape, context), context);
        try {
            return new Npy.Header(major, descr, dtype, dtype.byteWidth() == 1 ? ByteOrder.LITTLE_ENDIAN : order, fortran,
                    shape, dataOffset);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(context + ": " + e.getMessage(), e);
        }
    }

    private static List<Long> shape(Object value, String file) {
        if (!(value instanceof PyLiteral.Tuple tuple)) {
            throw Errors.wrongKind(file + ": 'shape'", kind(value), "a tuple of ints");
        }
        List<Long> dims = new ArrayList<>(tuple.items().size());
        for (int i = 0; i < tuple.items().size(); i++) {
            Object d = tuple.items().get(i);
            if (d instanceof BigInteger big) {
                throw new IllegalArgumentException(file + ": dim " + i + " of 'shape' is " + big + ", beyond a long");
            }
            if (!(d instanceof Long dim)) {
                throw Errors.wrongKind(file + ": dim " + i + " of 'shape'", kind(d), "an int");
            }
            if (dim < 0) {
                throw new IllegalArgumentException(file + ": dim " + i + " of 'shape' is negative (" + dim + ")");
            }
            dims.add(dim);
        }
        return dims;
    }

    private static ByteOrder byteOrder(String descr) {
        return switch (descr.isEmpty() ? ' ' : descr.charAt(0)) {
            case '>' -> ByteOrder.BIG_ENDIAN;
            case '<', '|' -> ByteOrder.LITTLE_ENDIAN;
            // '=' and a descr without one ('d', 'float32') are the writer's native order.
            default -> ByteOrder.nativeOrder();
        };
    }

    private static DType dtype(String descr, String file, DType voidType) {
        AsciiDigits.require(descr, 0, descr.length(), (problem, at) -> new IllegalArgumentException(
                file + ": descr '" + descr + "': " + problem + " at position " + at));
        boolean bare = descr.isEmpty() || "<>=|".indexOf(descr.charAt(0)) < 0;
        String written = bare ? descr : descr.substring(1);
        if (bare) {
            // ml_dtypes' names ('bfloat16', 'int4'), which np.load reads once ml_dtypes is imported.
            for (DType t : DType.values()) {
                if (!t.isNumpyNative() && t.numpyDescr().filter(written::equals).isPresent()) {
                    return t;
                }
            }
        }
        String longDouble = NumpyDescrs.longDouble(written);
        if (longDouble != null) {
            throw new IllegalArgumentException(file + ": descr '" + descr + "' is NumPy's " + longDouble
                    + ", which has no element type here; save it as float64 or complex128 (a.astype(np.float64))");
        }
        String body = NumpyDescrs.kindAndWidth(written, bare);
        String kind = body.isEmpty() ? "" : body.substring(0, 1);
        if (kind.equals("V")) {
            return voidAs(descr, body, file, voidType);
        }
        if (body.equals("f1")) {
            // NumPy has no 1-byte float; ml_dtypes 0.5 registers float8_e5m2 as kind 'f', so np.save
            // writes it as '<f1' (its other 8-bit floats as '<V1'), a file np.load itself cannot read.
            return DType.F8E5M2;
        }
        switch (body.equals("c") ? "S" : kind) {
            case "O" -> throw new IllegalArgumentException(file + ": descr '" + descr
                    + "' is an object array: its data are pickled Python objects, which are never read");
            case "S", "U", "a" -> throw new IllegalArgumentException(file + ": descr '" + descr
                    + "' is a string type: only numeric dtypes are supported");
            case "M" -> throw new IllegalArgumentException(file + ": descr '" + descr
                    + "' is a datetime type: only numeric dtypes are supported");
            case "m" -> throw new IllegalArgumentException(file + ": descr '" + descr
                    + "' is a timedelta type: only numeric dtypes are supported");
            default -> { }
        }
        for (DType t : DType.values()) {
            if (t.isNumpyNative() && t.numpyDescr().orElseThrow().substring(1).equals(body)) {
                return t;
            }
        }
        // Every spelling named here is one we read: the message must never suggest the one refused.
        throw new IllegalArgumentException(file + ": unknown NumPy descr '" + descr + "': expected a NumPy dtype such as"
                + " '<f4', 'float32', 'd' or '|u1', or an ml_dtypes name such as 'bfloat16'");
    }

    /**
     * ml_dtypes saves its types that NumPy lacks as bare voids of their width (all but
     * float8_e5m2, which it saves as {@code '<f1'}): bf16 as {@code '<V2'}, the f8 types and the
     * sub-byte ones (int4, float4_e2m1fn..., one element to a byte) as {@code '<V1'}. The caller
     * names which.
     */
    private static DType voidAs(String descr, String body, String file, DType voidType) {
        String digits = body.substring(1);
        if (!digits.matches("[0-9]{1,18}")) {
            throw new IllegalArgumentException(file + ": descr '" + descr + "' is a void type of unknown width");
        }
        long width = Long.parseLong(digits);
        String each = width + (width == 1 ? " byte" : " bytes") + " each";
        if (voidType == null) {
            String hint = switch ((int) Math.min(width, 3)) {
                case 1 -> ": ml_dtypes saves its f8 types (but float8_e5m2) and its sub-byte types (int4,"
                        + " float4_e2m1fn..., one to a byte) that way without saying which; name the type (tensorbuf"
                        + " convert --from-dtype f8e4m3fn, Npy.map(file, DType.F8E4M3FN))";
                case 2 -> ": ml_dtypes saves bf16 that way without saying so; name the type (tensorbuf convert"
                        + " --from-dtype bf16, Npy.map(file, DType.BF16))";
                default -> ": raw bytes of no numeric type, which are not read";
            };
            throw new IllegalArgumentException(file + ": descr '" + descr + "' is a void type (" + each + ")" + hint);
        }
        String not = voidType.isNumpyNative() ? voidType + " has a NumPy descr of its own, '"
                        + voidType.numpyDescr().orElseThrow() + "'"
                : voidType.byteWidth() != width ? voidType + " elements take " + voidType.byteWidth()
                        + (voidType.byteWidth() == 1 ? " byte" : " bytes") + (voidType.isSubByte() ? ", one to a byte" : "")
                : null;
        if (not != null) {
            throw new IllegalArgumentException(file + ": descr '" + descr + "' holds " + width + "-byte elements; " + not);
        }
        return voidType;
    }

    /**
     * {@return why {@code np.load} would refuse an array of these dims, or empty} NumPy holds at
     * most {@value #NUMPY_MAX_DIMS} dims, and builds strides from the non-zero dims even when a 0
     * dim leaves the array empty, so their product times the element size must fit its
     * {@code intp}: {@code (0, 2**62)} of f4 is "array is too big" there, though it holds nothing.
     *
     * @param itemSize the bytes of one element as written, e.g. 4 for {@code '<f4'}, 1 for {@code '<V1'}
     */
    public static Optional<String> whyNumpyRefuses(List<Long> shape, long itemSize) {
        if (shape.size() > NUMPY_MAX_DIMS) {
            return Optional.of(shape.size() + " dimensions: NumPy reads arrays of at most " + NUMPY_MAX_DIMS
                    + " (NPY_MAXDIMS), so it could not load this file");
        }
        BigInteger bytes = BigInteger.valueOf(itemSize);
        for (long d : shape) {
            if (d != 0) {
                bytes = bytes.multiply(BigInteger.valueOf(d));
            }
        }
        if (bytes.bitLength() > 63) {
            return Optional.of("shape " + tupleText(shape) + " of " + itemSize + "-byte elements: its non-zero dims times"
                    + " the element size are " + bytes + " bytes, past NumPy's limit of " + Long.MAX_VALUE
                    + " (the largest intp), so np.load would refuse the file (\"array is too big\")");
        }
        return Optional.empty();
    }

    /**
     * {@return the whole preamble NumPy would write for this array: magic, version, length,
     * header padded to 64 bytes}
     *
     * @param version 1, 2 or 3; 0 picks the oldest that fits, as {@code numpy.save} does
     * @throws IllegalArgumentException if the header does not fit the version asked for
     */
    public static byte[] preamble(String descr, boolean fortranOrder, List<Long> shape, int version) {
        if (shape.size() > NUMPY_MAX_DIMS) {
            throw new IllegalArgumentException(shape.size() + " dimensions: NumPy reads arrays of at most "
                    + NUMPY_MAX_DIMS + " (NPY_MAXDIMS), so it could not load this file");
        }
        StringBuilder h = new StringBuilder(128);
        h.append("{'descr': '").append(descr).append("', 'fortran_order': ").append(fortranOrder ? "True" : "False")
                .append(", 'shape': ").append(tupleText(shape)).append(", }");
        if (!shape.isEmpty()) {
            long growth = shape.get(fortranOrder ? shape.size() - 1 : 0);
            h.repeat(' ', Math.max(0, GROWTH_AXIS_MAX_DIGITS - Long.toString(growth).length()));
        }
        String text = h.toString();
        boolean latin1 = text.chars().allMatch(c -> c < 256);
        int chosen = version;
        if (chosen == 0) {
            chosen = !latin1 ? 3 : paddedLength(text.length(), 2) <= 0xffff ? 1 : 2;
        }
        if (chosen < 1 || chosen > 3) {
            throw Errors.npyVersion(chosen);
        }
        if (chosen < 3 && !latin1) {
            throw new IllegalArgumentException("header " + text + " is not latin-1: it needs version 3.0, not " + chosen + ".0");
        }
        byte[] body = text.getBytes(chosen == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        int lengthBytes = chosen == 1 ? 2 : 4;
        long headerLength = paddedLength(body.length, lengthBytes);
        if (chosen == 1 && headerLength > 0xffff) {
            throw new IllegalArgumentException("header of " + headerLength + " bytes does not fit version 1.0 (at most 65535)");
        }
        ByteBuffer out = ByteBuffer.allocate(Math.toIntExact(8 + lengthBytes + headerLength)).order(ByteOrder.LITTLE_ENDIAN);
        out.put(MAGIC).put((byte) chosen).put((byte) 0);
        if (chosen == 1) {
            out.putShort((short) headerLength);
        } else {
            out.putInt((int) headerLength);
        }
        out.put(body);
        while (out.remaining() > 1) {
            out.put((byte) ' ');
        }
        out.put((byte) '\n');
        return out.array();
    }

    // NumPy's rule: pad = 64 - (preamble + text + newline) % 64, which is 64, never 0, when aligned.
    private static long paddedLength(long textBytes, int lengthBytes) {
        long withNewline = textBytes + 1;
        long pad = ALIGN - ((8 + lengthBytes + withNewline) % ALIGN);
        return withNewline + pad;
    }

    /** {@return the shape as Python prints a tuple: {@code ()}, {@code (3,)}, {@code (2, 3)}} */
    public static String tupleText(List<Long> shape) {
        if (shape.size() == 1) {
            return "(" + shape.getFirst() + ",)";
        }
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < shape.size(); i++) {
            sb.append(i > 0 ? ", " : "").append(shape.get(i));
        }
        return sb.append(')').toString();
    }

    private static ByteBuffer readFully(FileChannel channel, long position, int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length);
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, position + buffer.position()) < 0) {
                throw new IOException("file ended after " + (position + buffer.position()) + " bytes while reading "
                        + length + " bytes at " + position);
            }
        }
        return buffer.flip();
    }

    private static String hex(ByteBuffer b, int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append(i > 0 ? " " : "").append(String.format("%02x", b.get(i) & 0xff));
        }
        return sb.toString();
    }

    private static String kind(Object v) {
        return switch (v) {
            case null -> "None";
            case String s -> "the string '" + s + "'";
            case Boolean b -> b ? "True" : "False";
            case Long l -> "the int " + l;
            case BigInteger b -> "the int " + b;
            case PyLiteral.Tuple t -> "a tuple";
            case List<?> l -> "a list";
            case Map<?, ?> m -> "a dict";
            default -> v.getClass().getSimpleName();
        };
    }
}
