package dev.tensorbuf.net;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What a Flight ticket of {@link TensorServer} asks for: a tensor of a file under the server's
 * directory and, optionally, a box of it ({@code start} inclusive, {@code limit} exclusive, per
 * dim). On the wire it is JSON, so a client in any language writes it by hand:
 * {@snippet :
 * TensorTicket t = TensorTicket.of("model.safetensors", "w").withBox(List.of(2L, 0L), List.of(4L, 3L));
 * t.toJson();  // {"path":"model.safetensors","tensor":"w","start":[2,0],"limit":[4,3]}
 * TensorTicket.parse("{\"path\":\"x.npy\",\"start\":[1]}".getBytes(UTF_8));
 * // IllegalArgumentException: "ticket: start [1] without limit; give both, one entry per dim"
 * }
 *
 * @param path the file, relative to the server's directory, {@code /}-separated
 * @param tensor the tensor's name in a safetensors file; empty for a {@code .npy} file
 * @param start the box's first index per dim; empty for the whole tensor
 * @param limit the box's end index per dim (exclusive); empty for the whole tensor
 */
public record TensorTicket(String path, String tensor, List<Long> start, List<Long> limit) {
    /** Tickets longer than this are refused unread: a real one is a few hundred bytes. */
    public static final int MAX_TICKET_BYTES = 64 * 1024;
    private static final Set<String> KEYS = Set.of("path", "tensor", "start", "limit");
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();

    static {
        JSON.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(8)
                .maxNumberLength(32).maxStringLength(MAX_TICKET_BYTES).build());
    }

    /**
     * @throws IllegalArgumentException if the path is empty, start and limit are not both empty
     *     or of one length, or an entry of start is negative or above its limit
     */
    public TensorTicket {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(tensor, "tensor");
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

    /** {@return a ticket for all of {@code tensor} of {@code path} (tensor "" for a .npy file)} */
    public static TensorTicket of(String path, String tensor) {
        return new TensorTicket(path, tensor, List.of(), List.of());
    }

    /** {@return this ticket for the box {@code [start, limit)} of the tensor} */
    public TensorTicket withBox(List<Long> start, List<Long> limit) {
        return new TensorTicket(path, tensor, start, limit);
    }

    /** {@return whether the ticket asks for a box rather than the whole tensor} */
    public boolean hasBox() {
        return !start.isEmpty();
    }

    /** {@return the tensor named as people write it: {@code model.safetensors:w}, {@code x.npy}} */
    public String describe() {
        String name = tensor.isEmpty() ? path : path + ":" + tensor;
        if (!hasBox()) {
            return name;
        }
        StringBuilder b = new StringBuilder(name).append('[');
        for (int i = 0; i < start.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(start.get(i)).append(':').append(limit.get(i));
        }
        return b.append(']').toString();
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
                        + "'; a ticket has path, tensor, start and limit");
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
        return new TensorTicket(path.textValue(), tensor == null || tensor.isNull() ? "" : tensor.textValue(), start, limit);
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
