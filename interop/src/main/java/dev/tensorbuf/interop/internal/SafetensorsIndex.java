package dev.tensorbuf.interop.internal;

import dev.tensorbuf.interop.json.Json;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The text of a sharded checkpoint's {@code model.safetensors.index.json}, as Hugging Face writes
 * and reads it: <code>{"metadata": {"total_size": N, ...}, "weight_map": {"name": "file", ...}}</code>.
 * Reading checks what {@code huggingface_hub}'s loader checks (an object with a
 * {@code weight_map} object of strings; each shard a relative path without {@code ..}, ending in
 * {@code .safetensors}); writing gives the bytes of Python's {@code json.dump(index, f, indent=2)}.
 */
public final class SafetensorsIndex {
    /** The largest index read, as in {@code huggingface_hub}: an index is names and file names only. */
    public static final long MAX_INDEX_BYTES = 10L * 1024 * 1024;

    private SafetensorsIndex() {
    }

    /**
     * A parsed index.
     *
     * @param metadata the {@code metadata} object, values as JSON reads them (Long, String, ...); empty when absent
     * @param weightMap tensor name to shard file, in the index's order
     */
    public record Parsed(Map<String, Object> metadata, Map<String, String> weightMap) {
    }

    /**
     * {@return the index read from its bytes}
     *
     * @throws IllegalArgumentException naming {@code file} and what is wrong
     */
    public static Parsed read(ByteBuffer bytes, String file) {
        String text = StrictUtf8.decode(bytes, 0, file, "index");
        Map<String, Object> root;
        try {
            root = Json.parseObject(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": not a checkpoint index: " + e.getMessage(), e);
        }
        if (!(root.get("weight_map") instanceof Map<?, ?> map)) {
            throw new IllegalArgumentException(file + ": a checkpoint index needs a \"weight_map\" object (tensor name to"
                    + " shard file), found " + (root.containsKey("weight_map") ? Json.kind(root.get("weight_map")) : "none"));
        }
        Object metadata = root.getOrDefault("metadata", Map.of());
        if (!(metadata instanceof Map<?, ?> m)) {
            throw new IllegalArgumentException(file + ": \"metadata\" of a checkpoint index must be an object, found "
                    + Json.kind(metadata));
        }
        Map<String, String> weightMap = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (!(e.getValue() instanceof String shard)) {
                throw new IllegalArgumentException(file + ": tensor '" + e.getKey() + "' maps to " + Json.kind(e.getValue())
                        + "; each \"weight_map\" value must be a shard file name");
            }
            checkShardName(shard, file);
            weightMap.put((String) e.getKey(), shard);
        }
        Map<String, Object> meta = new LinkedHashMap<>();
        m.forEach((k, v) -> meta.put((String) k, v));
        return new Parsed(Collections.unmodifiableMap(meta), Collections.unmodifiableMap(weightMap));
    }

    /**
     * Refuses a shard name that leaves the index's folder or is not a safetensors file. Only the
     * name is judged, not where links lead: Hugging Face's cache links every shard to a blob
     * outside the snapshot folder.
     */
    static void checkShardName(String shard, String file) {
        String why = null;
        if (shard.isEmpty()) {
            why = "it is empty";
        } else if (shard.indexOf('\0') >= 0) {
            why = "it holds a NUL character";
        } else if (shard.startsWith("/") || shard.startsWith("\\") || shard.length() >= 2 && shard.charAt(1) == ':') {
            why = "it is an absolute path";
        } else if (List.of(shard.split("[/\\\\]")).contains("..")) {
            why = "a '..' in it leaves the index's folder";
        } else if (!shard.endsWith(".safetensors")) {
            why = "a shard must be a .safetensors file";
        }
        if (why != null) {
            throw new IllegalArgumentException(file + ": shard file name '" + shard + "' refused: " + why
                    + "; shards are named relative to the index's folder, as model-00001-of-00002.safetensors");
        }
    }

    /** {@return the index's bytes, as {@code json.dump({"metadata": ..., "weight_map": ...}, f, indent=2)} writes them} */
    public static byte[] write(Map<String, Object> metadata, Map<String, String> weightMap) {
        StringBuilder sb = new StringBuilder("{\n  \"metadata\": ");
        object(sb, metadata, "  ");
        sb.append(",\n  \"weight_map\": ");
        object(sb, weightMap, "  ");
        sb.append("\n}");
        return sb.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    private static void object(StringBuilder sb, Map<String, ?> m, String indent) {
        if (m.isEmpty()) {
            sb.append("{}");
            return;
        }
        sb.append("{");
        List<String> items = new ArrayList<>();
        for (Map.Entry<String, ?> e : m.entrySet()) {
            StringBuilder item = new StringBuilder("\n").append(indent).append("  ");
            pythonString(item, e.getKey());
            item.append(": ");
            if (e.getValue() instanceof String s) {
                pythonString(item, s);
            } else if (e.getValue() instanceof Long || e.getValue() instanceof Integer) {
                item.append(e.getValue());
            } else {
                throw new IllegalArgumentException("index metadata '" + e.getKey() + "' is " + e.getValue()
                        + "; only strings and integers are written");
            }
            items.add(item.toString());
        }
        sb.append(String.join(",", items)).append("\n").append(indent).append("}");
    }

    /** Python's {@code json.dumps} string: ASCII only ({@code ensure_ascii}), the short escapes, else {@code \\uXXXX}. */
    private static void pythonString(StringBuilder sb, String s) {
        int bad = Json.unpairedSurrogate(s);
        if (bad >= 0) {
            throw new IllegalArgumentException(String.format("name '%s' has an unpaired surrogate U+%04X at char %d,"
                    + " which UTF-8 cannot encode", s, (int) s.charAt(bad), bad));
        }
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20 || c > 0x7e) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
