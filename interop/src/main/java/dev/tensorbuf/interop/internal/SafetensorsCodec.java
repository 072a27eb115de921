package dev.tensorbuf.interop.internal;

import dev.tensorbuf.interop.json.Json;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.text.TextFormatException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The safetensors header: read with every rule of the reference reader, written as the reference writes it. */
public final class SafetensorsCodec {
    /** The reference library's limit on the JSON header, in bytes. */
    public static final long MAX_HEADER_BYTES = 100_000_000;
    /** The key of the string-to-string metadata. */
    public static final String METADATA_KEY = "__metadata__";

    private static final Set<String> ENTRY_KEYS = Set.of("dtype", "shape", "data_offsets");
    private static final List<String> ENTRY_ORDER = List.of("dtype", "shape", "data_offsets");
    /** Every dtype safetensors names, in the reference's order (by alignment, as its enum declares them). */
    private static final Map<String, DType> DTYPES = dtypes();

    private SafetensorsCodec() {
    }

    /**
     * One tensor of the header.
     *
     * @param begin offset of the first byte from the start of the data section
     * @param end offset one past the last byte
     */
    public record Entry(String name, DType dtype, List<Long> shape, long begin, long end) {
    }

    /** The checked header: metadata, and tensors in data order. */
    public record Header(Map<String, String> metadata, List<Entry> entries) {
    }

    /** {@code \x93NUMPY}, the first 6 bytes of a {@code .npy} file, as the low bytes of a little-endian long. */
    private static final long NPY_MAGIC = 0x59504d554e93L;
    private static final long NPY_MAGIC_MASK = 0xffff_ffff_ffffL;

    /**
     * {@return the header length N, checked against the limit and the file size} A length past the
     * limit is what the first 8 bytes of some other file read as (a {@code .npy} file's give
     * 379676406402707 and more), so the refusal says first that this is no safetensors file.
     */
    public static long checkHeaderLength(long n, long fileSize, String file) {
        if ((n & NPY_MAGIC_MASK) == NPY_MAGIC) {
            throw new IllegalArgumentException(file + ": not a safetensors file: it starts with \\x93NUMPY, the magic of a"
                    + " .npy file (Npy.map reads those)");
        }
        if (n < 0 || n > MAX_HEADER_BYTES) {
            throw Errors.headerTooLong(file + ": not a safetensors file", Long.toUnsignedString(n), MAX_HEADER_BYTES);
        }
        if (n > fileSize - 8) {
            throw Errors.headerPastEnd(file + ": not a safetensors file, or a truncated one", n,
                    fileSize + " bytes, so at most " + (fileSize - 8));
        }
        if (n < 2) {
            throw new IllegalArgumentException(file + ": header length " + n + " is too short for a JSON object");
        }
        return n;
    }

    /**
     * Reads the header bytes and checks every tensor against the data section of
     * {@code dataSize} bytes.
     *
     * @throws IllegalArgumentException naming the file, the tensor and the problem
     */
    public static Header read(ByteBuffer headerBytes, long dataSize, String file) {
        String text = StrictUtf8.decode(headerBytes, 8, file, "header"); // the header follows the 8-byte length
        int first = 0;
        while (first < text.length() && " \t\n\r".indexOf(text.charAt(first)) >= 0) {
            first++; // JSON whitespace, which the reference reader (serde_json) skips too
        }
        if (!text.startsWith("{", first)) {
            throw new IllegalArgumentException(file + ": header must start with '{', found "
                    + (text.isEmpty() ? "nothing" : "'" + excerpt(text, first) + "'"));
        }
        Map<String, Object> json;
        try {
            json = Json.parseObject(text);
        } catch (TextFormatException e) {
            String problem = e.getMessage();
            int cut = problem.indexOf(" at position " + e.position() + " of '");
            throw new IllegalArgumentException(file + ": header is not valid JSON: "
                    + (cut >= 0 ? problem.substring(0, cut) : problem) + " at byte " + e.position()
                    + " near '" + excerpt(text, e.position()) + "'", e);
        }
        Map<String, String> metadata = new LinkedHashMap<>();
        List<Entry> entries = new ArrayList<>();
        for (Map.Entry<String, Object> e : json.entrySet()) {
            if (e.getKey().equals(METADATA_KEY)) {
                // null is "no metadata" to the reference reader (an Option), so it is here too.
                metadata = e.getValue() == null ? new LinkedHashMap<>() : metadata(e.getValue(), file);
            } else {
                entries.add(entry(e.getKey(), e.getValue(), file));
            }
        }
        checkCoverage(entries, dataSize, file);
        return new Header(metadata, List.copyOf(entries));
    }

    private static Map<String, String> metadata(Object value, String file) {
        if (!(value instanceof Map<?, ?> map)) {
            throw Errors.wrongKind(file + ": '" + METADATA_KEY + "'", kind(value), "an object of strings");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (!(e.getValue() instanceof String s)) {
                throw new IllegalArgumentException(file + ": metadata '" + e.getKey() + "' is " + kind(e.getValue())
                        + ", but metadata values must be strings");
            }
            out.put((String) e.getKey(), s);
        }
        return out;
    }

    private static Entry entry(String name, Object value, String file) {
        String where = file + ": tensor '" + name + "'";
        if (!(value instanceof Map<?, ?> map)) {
            throw Errors.wrongKind(where, kind(value), "an object");
        }
        // Other keys are ignored, as the reference reader (serde, without deny_unknown_fields) ignores
        // them: writers other than the reference add their own.
        if (!map.keySet().containsAll(ENTRY_KEYS)) {
            List<String> missing = ENTRY_ORDER.stream().filter(k -> !map.containsKey(k)).toList();
            throw new IllegalArgumentException(where + " has keys " + map.keySet() + ", missing " + String.join(" and ", missing)
                    + " (a tensor needs dtype, shape and data_offsets)");
        }
        if (!(map.get("dtype") instanceof String dtypeName)) {
            throw Errors.wrongKind(where + ": dtype", kind(map.get("dtype")), "a string");
        }
        DType dtype = DTYPES.get(dtypeName);
        if (dtype == null) {
            throw new IllegalArgumentException(where + ": unknown safetensors dtype '" + dtypeName + "': expected one of "
                    + String.join(", ", DTYPES.keySet()));
        }
        List<Long> shape = longs(map.get("shape"), -1, where + ": shape");
        List<Long> offsets = longs(map.get("data_offsets"), 2, where + ": data_offsets");
        long begin = offsets.get(0);
        long end = offsets.get(1);
        if (end < begin) {
            throw new IllegalArgumentException(where + ": data_offsets [" + begin + ", " + end + "] end before they begin");
        }
        long count = Sizes.elementCount(shape, where);
        long bytes = Sizes.byteSize(dtype, count, where);
        if (bytes != end - begin) {
            throw new IllegalArgumentException(where + ": " + dtypeName + " " + shape + " is " + bytes
                    + " bytes but data_offsets [" + begin + ", " + end + "] hold " + (end - begin));
        }
        return new Entry(name, dtype, shape, begin, end);
    }

    private static List<Long> longs(Object value, int expectedSize, String where) {
        if (!(value instanceof List<?> list)) {
            throw Errors.wrongKind(where, kind(value), "an array of integers");
        }
        if (expectedSize >= 0 && list.size() != expectedSize) {
            throw new IllegalArgumentException(where + " has " + list.size() + " numbers, expected " + expectedSize);
        }
        List<Long> out = new ArrayList<>(list.size());
        for (Object o : list) {
            if (!(o instanceof Long l) || l < 0) {
                throw new IllegalArgumentException(where + " " + list + " holds " + kind(o)
                        + ", expected integers from 0 to " + Long.MAX_VALUE);
            }
            out.add(l);
        }
        return out;
    }

    // The reference's anti-polyglot rule: sorted by offset, tensors tile [0, dataSize) exactly.
    private static void checkCoverage(List<Entry> entries, long dataSize, String file) {
        entries.sort(Comparator.comparingLong(Entry::begin).thenComparingLong(Entry::end)
                .thenComparing(Entry::name));
        long at = 0;
        String previous = null;
        for (Entry e : entries) {
            if (e.begin() != at) {
                String relation = e.begin() < at ? "overlaps" : "leaves a gap of " + (e.begin() - at) + " bytes after";
                throw new IllegalArgumentException(file + ": tensor '" + e.name() + "' at data_offsets [" + e.begin()
                        + ", " + e.end() + "] " + relation + " "
                        + (previous == null ? "the start of the data" : "tensor '" + previous + "' ending at " + at));
            }
            at = e.end();
            previous = e.name();
        }
        if (at != dataSize) {
            throw new IllegalArgumentException(file + ": tensors cover " + at + " bytes but the data section holds "
                    + dataSize + (at < dataSize ? " (bytes after the last tensor)" : " (the last tensor runs past the end of the file)"));
        }
    }

    /**
     * {@return the reference writer's order: descending dtype alignment, then name by UTF-8 bytes}
     */
    public static <T> Comparator<Map.Entry<String, T>> writeOrder(java.util.function.Function<T, DType> dtypeOf) {
        return Comparator.<Map.Entry<String, T>>comparingInt(e -> -alignmentRank(dtypeOf.apply(e.getValue())))
                .thenComparing(e -> e.getKey().getBytes(StandardCharsets.UTF_8), Arrays::compareUnsigned);
    }

    /** {@return the header bytes, padded with spaces to a multiple of 8} */
    public static byte[] header(Map<String, String> metadata, List<Entry> entries) {
        Map<String, Object> json = new LinkedHashMap<>();
        if (!metadata.isEmpty()) {
            json.put(METADATA_KEY, metadata);
        }
        for (Entry e : entries) {
            Map<String, Object> info = new LinkedHashMap<>();
            info.put("dtype", e.dtype().safetensorsName().orElseThrow());
            info.put("shape", e.shape());
            info.put("data_offsets", List.of(e.begin(), e.end()));
            json.put(e.name(), info);
        }
        byte[] text = Json.write(json).getBytes(StandardCharsets.UTF_8);
        byte[] padded = Arrays.copyOf(text, (text.length + 7) & ~7);
        Arrays.fill(padded, text.length, padded.length, (byte) ' ');
        return padded;
    }

    private static Map<String, DType> dtypes() {
        List<DType> types = new ArrayList<>(Arrays.stream(DType.values()).filter(t -> t.safetensorsName().isPresent()).toList());
        types.sort(Comparator.comparingInt(SafetensorsCodec::alignmentRank));
        Map<String, DType> byName = new LinkedHashMap<>();
        types.forEach(t -> byName.put(t.safetensorsName().orElseThrow(), t));
        return Collections.unmodifiableMap(byName);
    }

    // Position in the reference's Dtype enum, which is declared in increasing alignment.
    private static int alignmentRank(DType t) {
        return switch (t) {
            case PRED -> 0;
            case F4E2M1FN -> 1;
            case F6E2M3FN -> 2;
            case F6E3M2FN -> 3;
            case U8 -> 4;
            case S8 -> 5;
            case F8E5M2 -> 6;
            case F8E4M3FN -> 7;
            case F8E8M0FNU -> 8;
            case F8E4M3FNUZ -> 9;
            case F8E5M2FNUZ -> 10;
            case S16 -> 11;
            case U16 -> 12;
            case F16 -> 13;
            case BF16 -> 14;
            case S32 -> 15;
            case U32 -> 16;
            case F32 -> 17;
            case C64 -> 18;
            case F64 -> 19;
            case S64 -> 20;
            case U64 -> 21;
            case S1, S2, S4, U1, U2, U4, F8E4M3, F8E4M3B11FNUZ, F8E3M4, C128, TOKEN, OPAQUE ->
                    throw Errors.noSafetensorsDtype(t, null);
        };
    }

    private static String excerpt(String text, int position) {
        int from = Math.max(0, position - 20);
        int to = Math.min(text.length(), position + 20);
        return text.substring(from, to).replace("\n", "\\n");
    }

    private static String kind(Object v) {
        return switch (v) {
            case null -> "null";
            case String s -> "the string \"" + (s.length() > 40 ? s.substring(0, 40) + "..." : s) + "\"";
            case Boolean b -> b.toString();
            case Long l -> "the integer " + l;
            case BigInteger b -> "the integer " + b;
            case Double d -> "the number " + d;
            case List<?> l -> "an array";
            case Map<?, ?> m -> "an object";
            default -> v.getClass().getSimpleName();
        };
    }
}
