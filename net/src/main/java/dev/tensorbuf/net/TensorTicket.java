package dev.tensorbuf.net;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tensorbuf.ops.shard.HloSharding;
import dev.tensorbuf.views.DType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What a Flight ticket of {@link TensorServer} asks for: a tensor of a file under the server's
 * directory and, optionally, either a box of it ({@code start} inclusive, {@code limit} exclusive,
 * per dim) or one device's shard of it under an XLA sharding ({@code sharding} and {@code device}:
 * the box {@link dev.tensorbuf.ops.shard.ShardedTensor} gives that device, by XLA's rule of
 * ceil-divided tiles), and optionally the element type to send ({@code dtype}, an XLA name; a
 * GGUF block-quantized tensor is dequantized to it, f32 when absent). On the wire it is JSON, so
 * a client in any language writes it by hand:
 * {@snippet :
 * TensorTicket t = TensorTicket.of("model.safetensors", "w").withBox(List.of(2L, 0L), List.of(4L, 3L));
 * t.toJson();  // {"path":"model.safetensors","tensor":"w","start":[2,0],"limit":[4,3]}
 * TensorTicket.of("x.npy", "").withShard("{devices=[2,2]<=[4]}", 3).toJson();
 * // {"path":"x.npy","sharding":"{devices=[2,2]<=[4]}","device":3}  (x.npy f32[7,5]: rows 4:7, cols 3:5)
 * TensorTicket.parse("{\"path\":\"x.npy\",\"start\":[1]}".getBytes(UTF_8));
 * // IllegalArgumentException: "ticket: start [1] without limit; give both, one entry per dim"
 * }
 *
 * @param path the file, relative to the server's directory, {@code /}-separated
 * @param tensor the tensor's name in a safetensors, GGUF or checkpoint index file; empty for a {@code .npy} file
 * @param start the box's first index per dim; empty for the whole tensor (or a shard)
 * @param limit the box's end index per dim (exclusive); empty for the whole tensor (or a shard)
 * @param sharding XLA's text of a sharding, e.g. {@code {devices=[2,2]<=[4]}}; empty for none
 * @param device the device whose shard is asked for, with {@code sharding}; -1 without one
 * @param dtype the XLA name of the element type to send, e.g. {@code bf16}; empty for the stored
 *     type (f32 for a block-quantized one)
 */
public record TensorTicket(String path, String tensor, List<Long> start, List<Long> limit, String sharding, long device,
                           String dtype) {
    /** Tickets longer than this are refused unread: a real one is a few hundred bytes. */
    public static final int MAX_TICKET_BYTES = 64 * 1024;
    private static final Set<String> KEYS = Set.of("path", "tensor", "start", "limit", "sharding", "device", "dtype");
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();

    static {
        JSON.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(8)
                .maxNumberLength(32).maxStringLength(MAX_TICKET_BYTES).build());
    }

    /**
     * @throws IllegalArgumentException if the path is empty, start and limit are not both empty
     *     or of one length, an entry of start is negative or above its limit, a box and a sharding
     *     are both given, a sharding comes without a device (or a device without a sharding), the
     *     sharding is not XLA's text, or the dtype is not an XLA type name
     */
    public TensorTicket {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(tensor, "tensor");
        Objects.requireNonNull(sharding, "sharding");
        Objects.requireNonNull(dtype, "dtype");
        if (sharding.isEmpty() != (device < 0)) {
            throw new IllegalArgumentException(sharding.isEmpty()
                    ? "ticket: device " + device + " without a sharding; give \"sharding\" too, e.g. \"{devices=[2,2]<=[4]}\""
                    : "ticket: sharding " + FixedShapeTensorType.abbreviate(sharding)
                            + " without a device; give \"device\", a device id >= 0");
        }
        if (!sharding.isEmpty()) {
            if (!start.isEmpty() || !limit.isEmpty()) {
                throw new IllegalArgumentException("ticket: both a box and a sharding; give start/limit or sharding/device");
            }
            shardingOf(sharding);
        }
        if (!dtype.isEmpty() && DType.forXlaNameOrNull(dtype) == null) {
            throw new IllegalArgumentException("ticket: dtype '" + FixedShapeTensorType.abbreviate(dtype)
                    + "' is not an XLA element type name (f32, bf16, f16, s8, ...)");
        }
        start = List.copyOf(start);
        limit = List.copyOf(limit);
        if (path.isEmpty()) {
            throw new IllegalArgumentException("ticket: empty path; name a file under the server's directory");
        }
        if (start.size() != limit.size()) {
            throw new IllegalArgumentException("ticket: start " + start + " and limit " + limit
                    + " differ in length; give one entry per dim in each");
        }
        for (int i = 0; i < start.size(); i++) {
            if (start.get(i) < 0 || start.get(i) > limit.get(i)) {
                throw new IllegalArgumentException("ticket: box [" + start.get(i) + ", " + limit.get(i) + ") of dim " + i
                        + " is not a range: need 0 <= start <= limit");
            }
        }
    }

    /** A ticket of the box {@code [start, limit)} (both empty: the whole tensor), in the stored type. */
    public TensorTicket(String path, String tensor, List<Long> start, List<Long> limit) {
        this(path, tensor, start, limit, "", -1, "");
    }

    /** {@return a ticket for all of {@code tensor} of {@code path} (tensor "" for a .npy file)} */
    public static TensorTicket of(String path, String tensor) {
        return new TensorTicket(path, tensor, List.of(), List.of());
    }

    /** {@return this ticket for the box {@code [start, limit)} of the tensor, no sharding} */
    public TensorTicket withBox(List<Long> start, List<Long> limit) {
        return new TensorTicket(path, tensor, start, limit, "", -1, dtype);
    }

    /**
     * {@return this ticket for device {@code device}'s shard of the tensor under {@code sharding}
     * (XLA's text), no box}
     *
     * @throws IllegalArgumentException if the sharding is not XLA's text or the device is negative
     */
    public TensorTicket withShard(String sharding, long device) {
        if (device < 0) {
            throw new IllegalArgumentException("ticket: device " + device + " must be >= 0");
        }
        return new TensorTicket(path, tensor, List.of(), List.of(), sharding, device, dtype);
    }

    /** {@return this ticket asking for the elements as {@code type} (a block-quantized tensor dequantized to it)} */
    public TensorTicket withDType(DType type) {
        return new TensorTicket(path, tensor, start, limit, sharding, device, type.xlaName());
    }

    /** {@return whether the ticket asks for one device's shard} */
    public boolean hasShard() {
        return !sharding.isEmpty();
    }

    /**
     * {@return the sharding, parsed}
     *
     * @throws IllegalArgumentException if the ticket has none
     */
    public HloSharding parsedSharding() {
        if (sharding.isEmpty()) {
            throw new IllegalArgumentException("ticket " + describe() + " has no sharding");
        }
        return shardingOf(sharding);
    }

    private static HloSharding shardingOf(String text) {
        try {
            return HloSharding.parse(text);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("ticket: sharding " + FixedShapeTensorType.abbreviate(text)
                    + " is not XLA's sharding text: " + FixedShapeTensorType.firstLine(e.getMessage()));
        }
    }

    /** {@return whether the ticket asks for a box rather than the whole tensor} */
    public boolean hasBox() {
        return !start.isEmpty();
    }

    /** {@return the tensor named as people write it: {@code model.safetensors:w}, {@code x.npy}} */
    public String describe() {
        String name = tensor.isEmpty() ? path : path + ":" + tensor;
        if (hasShard()) {
            name = name + " device " + device + " of " + sharding;
        }
        String as = dtype.isEmpty() ? "" : " as " + dtype;
        if (!hasBox()) {
            return name + as;
        }
        StringBuilder b = new StringBuilder(name).append('[');
        for (int i = 0; i < start.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(start.get(i)).append(':').append(limit.get(i));
        }
        return b.append(']').append(as).toString();
    }

    /** {@return the ticket as the JSON a server reads} */
    public String toJson() {
        ObjectNode o = JSON.createObjectNode();
        o.put("path", path);
        if (!tensor.isEmpty()) {
            o.put("tensor", tensor);
        }
        if (hasBox()) {
            ArrayNode s = o.putArray("start");
            start.forEach(s::add);
            ArrayNode l = o.putArray("limit");
            limit.forEach(l::add);
        }
        if (hasShard()) {
            o.put("sharding", sharding);
            o.put("device", device);
        }
        if (!dtype.isEmpty()) {
            o.put("dtype", dtype);
        }
        return o.toString();
    }

    /** {@return the ticket as Flight's ticket bytes, UTF-8 JSON} */
    public byte[] toBytes() {
        return toJson().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * {@return the ticket in {@code bytes}}
     *
     * @throws IllegalArgumentException naming what is wrong: too long, not UTF-8 JSON, not an
     *     object, an unknown key, a value of the wrong kind, or a box that is not one
     */
    public static TensorTicket parse(byte[] bytes) {
        if (bytes.length > MAX_TICKET_BYTES) {
            throw new IllegalArgumentException("ticket of " + bytes.length + " bytes is longer than the " + MAX_TICKET_BYTES
                    + " a tensor ticket may be");
        }
        JsonNode root;
        try {
            root = JSON.readTree(bytes);
        } catch (java.io.IOException | RuntimeException e) {
            String m = FixedShapeTensorType.firstLine(e.getMessage());
            int at = m.indexOf(" at [Source");
            throw new IllegalArgumentException("ticket is not JSON (" + (at > 0 ? m.substring(0, at) : m)
                    + "); expected {\"path\": \"FILE\", \"tensor\": \"NAME\", \"start\": [..], \"limit\": [..]}");
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("ticket is not a JSON object; expected {\"path\": \"FILE\", ...}");
        }
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!KEYS.contains(key)) {
                throw new IllegalArgumentException("ticket: unknown key '" + FixedShapeTensorType.abbreviate(key)
                        + "'; a ticket has path, tensor, start, limit, sharding, device and dtype");
            }
        }
        JsonNode path = root.get("path");
        if (path == null || !path.isTextual()) {
            throw new IllegalArgumentException("ticket: \"path\" must be a string naming a file under the server's directory");
        }
        JsonNode tensor = root.get("tensor");
        if (tensor != null && !tensor.isTextual() && !tensor.isNull()) {
            throw new IllegalArgumentException("ticket: \"tensor\" must be a string, the tensor's name in its file");
        }
        List<Long> start = longs(root.get("start"), "start");
        List<Long> limit = longs(root.get("limit"), "limit");
        if (start.isEmpty() != limit.isEmpty() && (root.get("start") == null || root.get("limit") == null)) {
            throw new IllegalArgumentException("ticket: " + (root.get("start") == null ? "limit " + limit + " without start"
                    : "start " + start + " without limit") + "; give both, one entry per dim");
        }
        String sharding = text(root, "sharding", "XLA's sharding text, e.g. \"{devices=[2,2]<=[4]}\"");
        String dtype = text(root, "dtype", "an XLA element type name, e.g. \"f32\"");
        JsonNode device = root.get("device");
        long d = -1;
        if (device != null && !device.isNull()) {
            if (!device.isIntegralNumber() || !device.canConvertToLong() || device.longValue() < 0) {
                throw new IllegalArgumentException("ticket: \"device\" " + FixedShapeTensorType.abbreviate(device.toString())
                        + " is not a device id, an integer >= 0");
            }
            d = device.longValue();
        }
        return new TensorTicket(path.textValue(), tensor == null || tensor.isNull() ? "" : tensor.textValue(), start, limit,
                sharding, d, dtype);
    }

    private static String text(JsonNode root, String key, String what) {
        JsonNode n = root.get(key);
        if (n == null || n.isNull()) {
            return "";
        }
        if (!n.isTextual()) {
            throw new IllegalArgumentException("ticket: \"" + key + "\" must be a string, " + what);
        }
        return n.textValue();
    }

    private static List<Long> longs(JsonNode node, String key) {
        List<Long> out = new ArrayList<>();
        if (node == null || node.isNull()) {
            return out;
        }
        if (!node.isArray()) {
            throw new IllegalArgumentException("ticket: \"" + key + "\" must be an array of integers, one per dim");
        }
        if (node.size() > 64) {
            throw new IllegalArgumentException("ticket: \"" + key + "\" has " + node.size() + " entries; a tensor has at most 64 dims");
        }
        for (JsonNode n : node) {
            if (!n.isIntegralNumber() || !n.canConvertToLong()) {
                throw new IllegalArgumentException("ticket: \"" + key + "\" entry " + FixedShapeTensorType.abbreviate(n.toString())
                        + " is not an integer");
            }
            out.add(n.longValue());
        }
        return out;
    }
}
