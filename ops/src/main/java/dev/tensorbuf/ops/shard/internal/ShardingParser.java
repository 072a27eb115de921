package dev.tensorbuf.ops.shard.internal;

import dev.tensorbuf.memory.internal.AsciiDigits;
import dev.tensorbuf.ops.shard.HloSharding;
import dev.tensorbuf.ops.shard.HloSharding.ShardGroup;
import dev.tensorbuf.ops.shard.HloSharding.SubgroupType;
import dev.tensorbuf.ops.shard.HloSharding.TileAssignment;
import dev.tensorbuf.views.text.TextFormatException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads XLA's sharding text with the grammar of XLA's HLO parser ({@code ParseSharding},
 * {@code ParseSingleSharding}): words and attributes in any order up to the closing brace, then
 * the checks XLA makes, then XLA's normalisation. Stricter than XLA where XLA would silently pick
 * one of two contradicting words or crash: two kinds ({@code {replicated manual}}), an attribute
 * given twice, a device list whose count is not the grid's, both subgroup forms.
 *
 * <p>Every problem is a {@link TextFormatException} at the offending character.
 *
 * <p>Not API.
 */
public final class ShardingParser {
    /** Deeper bracket nesting inside a skipped {@code metadata={...}} is refused. */
    private static final int MAX_DEPTH = 64;
    /** More tuple elements than this are refused: XLA's tuples have one per leaf. */
    static final int MAX_TUPLE = 1 << 16;

    private final String text;
    private int pos;

    private ShardingParser(String text, int start) {
        this.text = text;
        this.pos = start;
    }

    public static HloSharding parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("sharding text is null");
        }
        ShardingParser p = new ShardingParser(text, 0);
        HloSharding s = p.sharding();
        p.skipSpace();
        if (p.pos < text.length()) {
            throw p.error("expected end of input after the sharding, found " + p.describeHere(), p.pos);
        }
        return s;
    }

    /**
     * Reads one sharding starting at {@code start} (a {@code '{'}) of a larger text, e.g. an
     * HLO attribute value; errors carry positions in {@code text}.
     *
     * @param endOut receives, in its first slot, the position just after the sharding
     * @return the sharding
     */
    public static HloSharding parseAt(String text, int start, int[] endOut) {
        ShardingParser p = new ShardingParser(text, start);
        HloSharding s = p.sharding();
        endOut[0] = p.pos;
        return s;
    }

    private TextFormatException error(String problem, int at) {
        return new TextFormatException(problem, text, at);
    }

    private void skipSpace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                pos++;
            } else if (text.startsWith("/*", pos)) {
                // XLA prints /*index=5*/ between tuple elements and its lexer skips comments.
                int end = text.indexOf("*/", pos + 2);
                if (end < 0) {
                    throw error("unterminated comment '/*'", pos);
                }
                pos = end + 2;
            } else {
                return;
            }
        }
    }

    private String describeHere() {
        if (pos >= text.length()) {
            return "end of input";
        }
        int cp = text.codePointAt(pos);
        if (AsciiDigits.isOtherDigit(cp)) {
            return AsciiDigits.describe(cp);
        }
        if (isWordStart(text.charAt(pos))) {
            return "'" + word(pos) + "'";
        }
        return "'" + new String(Character.toChars(cp)) + "'";
    }

    private static boolean isWordStart(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    }

    private static boolean isWordChar(char c) {
        return isWordStart(c) || AsciiDigits.isDigit(c) || c == '.' || c == '-';
    }

    private String word(int at) {
        int end = at;
        while (end < text.length() && isWordChar(text.charAt(end))) {
            end++;
        }
        return text.substring(at, end);
    }

    private boolean peek(char c) {
        skipSpace();
        return pos < text.length() && text.charAt(pos) == c;
    }

    private boolean eat(char c) {
        if (peek(c)) {
            pos++;
            return true;
        }
        return false;
    }

    private void expect(char c, String what) {
        if (!eat(c)) {
            throw error("expected " + what + ", found " + describeHere(), pos);
        }
    }

    private long number(String what) {
        skipSpace();
        int start = pos;
        if (pos < text.length() && text.charAt(pos) == '-') {
            throw error(what + " must be >= 0, found '-'", pos);
        }
        while (pos < text.length() && AsciiDigits.isDigit(text.charAt(pos))) {
            pos++;
        }
        if (pos == start) {
            if (pos < text.length() && AsciiDigits.isOtherDigit(text.codePointAt(pos))) {
                throw error(AsciiDigits.notAsciiDigit(text, pos), pos);
            }
            throw error("expected " + what + " (a number), found " + describeHere(), pos);
        }
        if (pos < text.length() && AsciiDigits.isOtherDigit(text.codePointAt(pos))) {
            throw error(AsciiDigits.notAsciiDigit(text, pos), pos);
        }
        try {
            return Long.parseLong(text, start, pos, 10);
        } catch (NumberFormatException e) {
            throw error(what + " " + text.substring(start, pos) + " does not fit in 64 bits", start);
        }
    }

    private List<Long> numberList(String what) {
        List<Long> out = new ArrayList<>();
        do {
            if (out.size() >= TileAssignment.MAX_DEVICES) {
                throw error("more than " + TileAssignment.MAX_DEVICES + " entries in the " + what + " list", pos);
            }
            out.add(number(what));
        } while (eat(','));
        return out;
    }

    private HloSharding sharding() {
        int start = pos;
        skipSpace();
        start = pos;
        expect('{', "'{' to start a sharding");
        if (peek('{') || peek('}')) {
            List<HloSharding> elements = new ArrayList<>();
            if (!peek('}')) {
                do {
                    if (elements.size() >= MAX_TUPLE) {
                        throw error("more than " + MAX_TUPLE + " tuple elements", pos);
                    }
                    skipSpace();
                    if (!peek('{')) {
                        throw error("expected '{' to start a tuple element's sharding, found " + describeHere(), pos);
                    }
                    pos++;
                    elements.add(single(pos - 1));
                } while (eat(','));
            }
            expect('}', "',' or '}' to end the tuple sharding");
            return HloSharding.tuple(elements);
        }
        return single(start);
    }

    private enum KindWord { REPLICATED, MAXIMAL, MANUAL, UNKNOWN, UNREDUCED }

    /** Reads one sharding after its '{' at {@code open}, through its '}'. */
    private HloSharding single(int open) {
        skipSpace();
        if (pos < text.length() && isWordStart(text.charAt(pos))) {
            String w = word(pos);
            if (w.equals("mesh") || w.equals("maximal_mesh")) {
                throw error("named shardings ('" + w + "[...]', XLA's mesh and axes form) are not read; XLA prints"
                        + " the device forms ({devices=[...]...}) for them too", pos);
            }
        }
        KindWord kind = null;
        int kindAt = -1;
        List<Long> deviceList = null;
        int devicesAt = -1;
        List<Long> gridDims = null;
        List<Long> iotaDims = null;
        List<Integer> iotaPerm = null;
        boolean lastTileDimReplicate = false;
        int replicateAt = -1;
        List<SubgroupType> lastTileDims = null;
        int lastTileDimsAt = -1;
        ShardGroup group = ShardGroup.NONE;
        int groupAt = -1;
        boolean metadataSeen = false;
        while (!peek('}')) {
            int at = pos;
            if (at >= text.length()) {
                throw error("expected '}' to end the sharding opened at position " + open + ", found end of input", at);
            }
            if (!isWordStart(text.charAt(at))) {
                throw error("expected a sharding word (replicated, maximal, manual, unknown, unreduced,"
                        + " last_tile_dim_replicate, shard_as, shard_like) or attribute (device=, devices=,"
                        + " last_tile_dims=, metadata=), found " + describeHere(), at);
            }
            String w = word(at);
            pos = at + w.length();
            boolean attribute = eat('=');
            if (attribute) {
                switch (w) {
                    case "device" -> {
                        if (deviceList != null) {
                            throw error("device= or devices= given twice", at);
                        }
                        devicesAt = at;
                        deviceList = List.of(number("device id"));
                    }
                    case "devices" -> {
                        if (deviceList != null || gridDims != null) {
                            throw error("device= or devices= given twice", at);
                        }
                        devicesAt = at;
                        expect('[', "'[' to start the tile grid of devices=");
                        int gridAt = pos;
                        if (eat(']')) {
                            // XLA prints a grid whose subgroups all merged away as devices=[]<=[1]
                            // (its parser does not read that back); read it, as the iota it is.
                            gridDims = List.of();
                            skipSpace();
                            if (!text.startsWith("<=", pos)) {
                                throw error("an empty tile grid [] must be the iota []<=[1]", gridAt);
                            }
                        } else {
                            gridDims = numberList("tile grid size");
                            expect(']', "',' or ']' to end the tile grid");
                        }
                        skipSpace();
                        if (text.startsWith("<=", pos)) {
                            pos += 2;
                            expect('[', "'[' to start the iota reshape dimensions after '<='");
                            iotaDims = numberList("iota reshape size");
                            expect(']', "',' or ']' to end the iota reshape dimensions");
                            if (iotaDims.size() == 1) {
                                iotaPerm = List.of(0);
                            } else {
                                skipSpace();
                                if (!(pos < text.length() && text.charAt(pos) == 'T'
                                        && word(pos).equals("T"))) {
                                    throw error("expected 'T(' to start the iota transpose after a reshape of "
                                            + iotaDims.size() + " dimensions, found " + describeHere(), pos);
                                }
                                pos++;
                                expect('(', "'(' after 'T'");
                                iotaPerm = new ArrayList<>();
                                do {
                                    skipSpace();
                                    int entryAt = pos;
                                    long v = number("iota transpose entry");
                                    if (v >= iotaDims.size()) {
                                        throw error("iota transpose entry " + v + " out of range [0, "
                                                + iotaDims.size() + ")", entryAt);
                                    }
                                    iotaPerm.add((int) v);
                                } while (eat(','));
                                expect(')', "',' or ')' to end the iota transpose");
                            }
                        } else {
                            deviceList = numberList("device id");
                        }
                        if (deviceList == null) {
                            deviceList = List.of();
                        }
                    }
                    case "last_tile_dims" -> {
                        if (lastTileDims != null) {
                            throw error("last_tile_dims= given twice", at);
                        }
                        lastTileDimsAt = at;
                        lastTileDims = subgroupTypes();
                    }
                    case "metadata" -> {
                        if (metadataSeen) {
                            throw error("metadata= given twice", at);
                        }
                        metadataSeen = true;
                        skipSpace();
                        if (!peek('{')) {
                            throw error("expected '{' to start metadata, found " + describeHere(), pos);
                        }
                        skipBalanced();
                    }
                    default -> throw error("unknown attribute '" + w + "=' in a sharding: expected device=, devices=,"
                            + " last_tile_dims= or metadata=", at);
                }
                continue;
            }
            switch (w) {
                case "replicated", "maximal", "manual", "unknown", "unreduced" -> {
                    if (kind != null) {
                        throw error("'" + w + "' after '" + kind.name().toLowerCase() + "': a sharding has one kind", at);
                    }
                    kind = KindWord.valueOf(w.toUpperCase());
                    kindAt = at;
                }
                case "last_tile_dim_replicate" -> {
                    if (lastTileDimReplicate) {
                        throw error("last_tile_dim_replicate given twice", at);
                    }
                    lastTileDimReplicate = true;
                    replicateAt = at;
                }
                case "shard_as", "shard_like" -> {
                    if (group.kind() != ShardGroup.Kind.NONE) {
                        throw error("a second shard group '" + w + "': a sharding has at most one", at);
                    }
                    groupAt = at;
                    long id = number("shard group id");
                    group = new ShardGroup(w.equals("shard_as") ? ShardGroup.Kind.AS : ShardGroup.Kind.LIKE, id);
                }
                default -> throw error("unexpected '" + w + "' in a sharding: expected replicated, maximal, manual,"
                        + " unknown, unreduced, last_tile_dim_replicate, shard_as, shard_like, device=, devices=,"
                        + " last_tile_dims= or metadata=", at);
            }
        }
        pos++;
        HloSharding s = build(open, kind, kindAt, deviceList, devicesAt, gridDims, iotaDims, iotaPerm,
                lastTileDimReplicate, replicateAt, lastTileDims, lastTileDimsAt);
        if (group.kind() != ShardGroup.Kind.NONE) {
            if (s instanceof HloSharding.Tuple) {
                throw error("shard group on a tuple", groupAt);
            }
            s = s.withShardGroup(group);
        }
        return s;
    }

    private HloSharding build(int open, KindWord kind, int kindAt, List<Long> deviceList, int devicesAt,
                              List<Long> gridDims, List<Long> iotaDims, List<Integer> iotaPerm,
                              boolean replicate, int replicateAt, List<SubgroupType> lastTileDims, int lastTileDimsAt) {
        if (kind != null && kind != KindWord.MAXIMAL && (deviceList != null || gridDims != null)) {
            throw error(kind.name().toLowerCase() + " shardings should not have any devices assigned", devicesAt);
        }
        if (kind != null && (replicate || lastTileDims != null)) {
            throw error(kind.name().toLowerCase() + " shardings have no tile grid, so no "
                    + (replicate ? "last_tile_dim_replicate" : "last_tile_dims="), replicate ? replicateAt : lastTileDimsAt);
        }
        if (kind == KindWord.MAXIMAL) {
            if (deviceList == null || deviceList.size() != 1 || iotaDims != null) {
                throw error("maximal shardings should have exactly one device assigned (device=N)",
                        deviceList == null ? kindAt : devicesAt);
            }
            return HloSharding.maximal(deviceList.getFirst());
        }
        if (kind != null) {
            return switch (kind) {
                case REPLICATED -> HloSharding.replicated();
                case MANUAL -> HloSharding.manual();
                case UNKNOWN -> new HloSharding.Unknown(ShardGroup.NONE);
                case UNREDUCED -> new HloSharding.Unreduced(ShardGroup.NONE);
                case MAXIMAL -> throw new AssertionError();
            };
        }
        if (gridDims == null) {
            throw error("non-maximal shardings must have a tile assignment list including dimensions (devices=[...])",
                    deviceList == null ? open : devicesAt);
        }
        if (replicate && lastTileDims != null) {
            throw error("last_tile_dim_replicate and last_tile_dims= together: the first is last_tile_dims={replicated}",
                    lastTileDimsAt);
        }
        TileAssignment tiles;
        try {
            if (iotaDims != null) {
                tiles = TileAssignment.iota(gridDims, iotaDims, iotaPerm);
            } else {
                if (deviceList.size() <= 1) {
                    throw error("non-maximal shardings must have more than one device assigned", devicesAt);
                }
                tiles = TileAssignment.listed(gridDims, deviceList);
            }
        } catch (TextFormatException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage(), devicesAt);
        }
        List<SubgroupType> types = replicate ? List.of(SubgroupType.REPLICATED)
                : lastTileDims == null ? List.of() : lastTileDims;
        if (types.size() > gridDims.size()) {
            throw error(types.size() + " subgroup dimension" + (types.size() == 1 ? "" : "s") + " but the tile grid "
                    + gridDims + " has " + gridDims.size(), replicate ? replicateAt : lastTileDimsAt);
        }
        try {
            return HloSharding.subgroup(tiles, types);
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage(), devicesAt);
        }
    }

    private List<SubgroupType> subgroupTypes() {
        expect('{', "'{' to start the last_tile_dims list");
        List<SubgroupType> out = new ArrayList<>();
        if (eat('}')) {
            return out;
        }
        do {
            skipSpace();
            int at = pos;
            String w = pos < text.length() && isWordStart(text.charAt(pos)) ? word(pos) : "";
            SubgroupType t = SubgroupType.forXlaNameOrNull(w);
            if (t == null) {
                throw error("expected a subgroup type (maximal, manual, unreduced or replicated), found " + describeHere(), at);
            }
            if (out.size() >= 64) {
                throw error("more than 64 subgroup types", at);
            }
            pos += w.length();
            out.add(t);
        } while (eat(','));
        expect('}', "',' or '}' to end the last_tile_dims list");
        return out;
    }

    /** Skips a balanced {...} group holding strings and nested braces (metadata). */
    private void skipBalanced() {
        int open = pos;
        int depth = 0;
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c == '"') {
                pos++;
                while (pos < text.length() && text.charAt(pos) != '"') {
                    pos += text.charAt(pos) == '\\' ? 2 : 1;
                }
                if (pos >= text.length()) {
                    throw error("unterminated string in metadata", open);
                }
            } else if (c == '{') {
                if (++depth > MAX_DEPTH) {
                    throw error("metadata nested deeper than " + MAX_DEPTH + " levels", pos);
                }
            } else if (c == '}') {
                if (--depth == 0) {
                    pos++;
                    return;
                }
            }
            pos++;
        }
        throw error("unclosed '{' of metadata", open);
    }
}
