package dev.tensorbuf.ops.hlo.internal;

import dev.tensorbuf.memory.internal.AsciiDigits;
import dev.tensorbuf.ops.hlo.internal.HloAttribute.ConvolutionDims;
import dev.tensorbuf.ops.hlo.internal.HloAttribute.PadDim;
import dev.tensorbuf.ops.hlo.internal.HloAttribute.SliceDim;
import dev.tensorbuf.ops.hlo.internal.HloAttribute.WindowDim;
import dev.tensorbuf.ops.shard.HloSharding;
import dev.tensorbuf.views.text.TextFormatException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads attribute values into the typed form their names call for, with positions in errors. */
final class Attributes {
    private Attributes() {
    }

    private static final Set<String> INT_LISTS = Set.of(
            "dimensions", "dynamic_slice_sizes", "lhs_contracting_dims", "rhs_contracting_dims",
            "lhs_batch_dims", "rhs_batch_dims", "offset_dims", "collapsed_slice_dims", "start_index_map",
            "slice_sizes", "operand_batching_dims", "start_indices_batching_dims", "update_window_dims",
            "inserted_window_dims", "scatter_dims_to_operand_dims", "input_batching_dims",
            "scatter_indices_batching_dims", "fft_length");
    private static final Set<String> INTS = Set.of(
            "index_vector_dim", "iota_dimension", "feature_group_count", "batch_group_count", "index",
            "num_carries");
    private static final Pattern INT = Pattern.compile("-?\\d+");

    static HloAttribute read(String key, String value, int at, ErrorAt errors) {
        if (INT_LISTS.contains(key)) {
            return new HloAttribute.Ints(intList(key, value, at, errors));
        }
        if (INTS.contains(key)) {
            return new HloAttribute.Int(integer(key, value.strip(), at, errors));
        }
        return switch (key) {
            case "slice" -> slices(value, at, errors);
            case "padding" -> new HloAttribute.Padding(padding(key, value, at, errors));
            case "window" -> window(value, at, errors);
            case "dim_labels" -> new HloAttribute.DimLabels(dimLabels(value, at, errors));
            case "sharding" -> sharding(value, at, errors);
            default -> new HloAttribute.Text(value);
        };
    }

    private static HloAttribute sharding(String value, int at, ErrorAt errors) {
        try {
            return new HloAttribute.Sharding(HloSharding.parse(value));
        } catch (TextFormatException e) {
            throw errors.at("bad sharding: " + e.problem(), at + e.position());
        }
    }

    private static long integer(String key, String text, int at, ErrorAt errors) {
        if (!INT.matcher(text).matches()) {
            throw errors.at("expected an integer for " + key + ", got '" + text + "'", at);
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw errors.at("integer " + text + " of " + key + " does not fit in 64 bits", at);
        }
    }

    private static List<Long> intList(String key, String value, int at, ErrorAt errors) {
        if (!value.startsWith("{") || !value.endsWith("}")) {
            throw errors.at("expected '{' integers '}' for " + key + ", got '" + value + "'", at);
        }
        List<Long> out = new ArrayList<>();
        String inner = value.substring(1, value.length() - 1);
        if (inner.isBlank()) {
            return out;
        }
        int offset = at + 1;
        for (String part : inner.split(",", -1)) {
            int lead = part.length() - part.stripLeading().length();
            out.add(integer(key, part.strip(), offset + lead, errors));
            offset += part.length() + 1;
        }
        return out;
    }

    private static final Pattern SLICE = Pattern.compile("\\s*\\[\\s*(-?\\d+)\\s*:\\s*(-?\\d+)\\s*(?::\\s*(-?\\d+)\\s*)?]\\s*");

    private static HloAttribute slices(String value, int at, ErrorAt errors) {
        if (!value.startsWith("{") || !value.endsWith("}")) {
            throw errors.at("expected '{[start:limit:stride], ...}' for slice, got '" + value + "'", at);
        }
        List<SliceDim> dims = new ArrayList<>();
        String inner = value.substring(1, value.length() - 1);
        int offset = at + 1;
        if (!inner.isBlank()) {
            for (String part : inner.split(",", -1)) {
                Matcher m = SLICE.matcher(part);
                if (!m.matches()) {
                    throw errors.at("expected '[start:limit]' or '[start:limit:stride]' in slice, got '"
                            + part.strip() + "'", offset + part.length() - part.stripLeading().length());
                }
                long stride = m.group(3) == null ? 1 : Long.parseLong(m.group(3));
                try {
                    dims.add(new SliceDim(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), stride));
                } catch (IllegalArgumentException e) {
                    throw errors.at(e.getMessage(), offset + part.length() - part.stripLeading().length());
                }
                offset += part.length() + 1;
            }
        }
        return new HloAttribute.Slices(dims);
    }

    private static List<PadDim> padding(String key, String value, int at, ErrorAt errors) {
        List<PadDim> dims = new ArrayList<>();
        int offset = at;
        for (String part : value.split("x", -1)) {
            String[] n = part.split("_", -1);
            if (n.length < 2 || n.length > 3 || Arrays.stream(n).anyMatch(s -> !INT.matcher(s).matches())) {
                throw errors.at("expected low_high or low_high_interior in " + key + ", got '" + part + "'", offset);
            }
            try {
                dims.add(new PadDim(Long.parseLong(n[0]), Long.parseLong(n[1]), n.length == 3 ? Long.parseLong(n[2]) : 0));
            } catch (IllegalArgumentException e) {
                throw errors.at(e.getMessage(), offset);
            }
            offset += part.length() + 1;
        }
        return dims;
    }

    private static HloAttribute window(String value, int at, ErrorAt errors) {
        if (!value.startsWith("{") || !value.endsWith("}")) {
            throw errors.at("expected '{size=...}' for window, got '" + value + "'", at);
        }
        long[][] fields = new long[7][];
        List<PadDim> pads = null;
        String inner = value.substring(1, value.length() - 1);
        Matcher m = Pattern.compile("\\S+").matcher(inner);
        while (m.find()) {
            String item = m.group();
            int itemAt = at + 1 + m.start();
            int eq = item.indexOf('=');
            if (eq < 0) {
                throw errors.at("expected key=value in window, got '" + item + "'", itemAt);
            }
            String k = item.substring(0, eq);
            String v = item.substring(eq + 1);
            int slot = switch (k) {
                case "size" -> 0;
                case "stride" -> 1;
                case "lhs_dilate" -> 4;
                case "rhs_dilate" -> 5;
                case "rhs_reversal" -> 6;
                case "pad" -> -1;
                default -> throw errors.at("unknown window field '" + k + "'", itemAt);
            };
            if (slot < 0) {
                pads = padding("window pad", v, itemAt + eq + 1, errors);
                continue;
            }
            String[] parts = v.split("x", -1);
            fields[slot] = new long[parts.length];
            for (int i = 0; i < parts.length; i++) {
                fields[slot][i] = integer("window " + k, parts[i], itemAt + eq + 1, errors);
            }
        }
        if (fields[0] == null) {
            if (inner.isBlank()) {
                return new HloAttribute.Window(List.of());
            }
            throw errors.at("window has no size", at);
        }
        int rank = fields[0].length;
        for (int f = 1; f < fields.length; f++) {
            if (fields[f] != null && fields[f].length != rank) {
                throw errors.at("window field has " + fields[f].length + " dimensions, size has " + rank, at);
            }
        }
        if (pads != null && pads.size() != rank) {
            throw errors.at("window pad has " + pads.size() + " dimensions, size has " + rank, at);
        }
        List<WindowDim> dims = new ArrayList<>();
        for (int i = 0; i < rank; i++) {
            try {
                dims.add(new WindowDim(fields[0][i], get(fields[1], i, 1),
                        pads == null ? 0 : pads.get(i).low(), pads == null ? 0 : pads.get(i).high(),
                        get(fields[4], i, 1), get(fields[5], i, 1), get(fields[6], i, 0) != 0));
            } catch (IllegalArgumentException e) {
                throw errors.at(e.getMessage(), at);
            }
        }
        return new HloAttribute.Window(dims);
    }

    private static long get(long[] values, int i, long fallback) {
        return values == null ? fallback : values[i];
    }

    private static ConvolutionDims dimLabels(String value, int at, ErrorAt errors) {
        Matcher m = Pattern.compile("([^_]+)_([^-]+)->(.+)").matcher(value);
        if (!m.matches()) {
            throw errors.at("expected dim_labels like b01f_01io->b01f, got '" + value + "'", at);
        }
        String in = m.group(1);
        String kernel = m.group(2);
        String out = m.group(3);
        int[] inDims = labels(in, 'b', 'f', at, errors);
        int[] kernelDims = labels(kernel, 'i', 'o', at + m.start(2), errors);
        int[] outDims = labels(out, 'b', 'f', at + m.start(3), errors);
        if (in.length() != kernel.length() || in.length() != out.length()) {
            throw errors.at("dim_labels parts have different ranks: '" + value + "'", at);
        }
        return new ConvolutionDims(inDims[0], inDims[1], spatial(inDims), kernelDims[0], kernelDims[1],
                spatial(kernelDims), outDims[0], outDims[1], spatial(outDims));
    }

    /** {@return [first label dim, second label dim, spatial 0 dim, spatial 1 dim, ...]} */
    private static int[] labels(String part, char first, char second, int at, ErrorAt errors) {
        if (part.length() < 2) {
            throw errors.at("dim_labels part '" + part + "' needs at least the labels " + first + " and " + second, at);
        }
        int[] dims = new int[part.length()];
        Arrays.fill(dims, -1);
        for (int i = 0; i < part.length(); i++) {
            char c = part.charAt(i);
            int slot;
            if (c == first) {
                slot = 0;
            } else if (c == second) {
                slot = 1;
            } else if (AsciiDigits.isDigit(c) && c - '0' + 2 < part.length()) {
                slot = c - '0' + 2;
            } else {
                throw errors.at("unexpected label '" + c + "' in dim_labels part '" + part + "' (expected "
                        + first + ", " + second + " or a spatial dimension 0.." + (part.length() - 3) + ")", at + i);
            }
            if (dims[slot] >= 0) {
                throw errors.at("label '" + c + "' appears twice in dim_labels part '" + part + "'", at + i);
            }
            dims[slot] = i;
        }
        return dims;
    }

    private static List<Integer> spatial(int[] dims) {
        List<Integer> out = new ArrayList<>();
        for (int i = 2; i < dims.length; i++) {
            out.add(dims[i]);
        }
        return out;
    }
}
