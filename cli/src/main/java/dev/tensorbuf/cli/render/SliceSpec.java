package dev.tensorbuf.cli.render;

import dev.tensorbuf.memory.internal.AsciiDigits;
import java.util.ArrayList;
import java.util.List;

/**
 * Which part of an array a picture shows: per dim a fixed index or {@code :} (drawn). One
 * {@code :} draws a row, two draw a 2-D grid with the first as rows.
 * {@snippet :
 * SliceSpec s = SliceSpec.parse("0,:,:,1", List.of(2L, 3L, 4L, 5L));
 * s.rowDim();    // 1
 * s.colDim();    // 2
 * s.fixed();     // [0, -1, -1, 1]
 * s.toString();  // "[0,:,:,1]"
 * }
 *
 * @param fixed per dim the fixed index, or {@link #FREE}
 */
public record SliceSpec(List<Long> fixed) {
    /** The marker of a drawn dim, {@code :} in text. */
    public static final long FREE = -1;

    /** @throws IllegalArgumentException if no dim or more than two dims are drawn */
    public SliceSpec {
        fixed = List.copyOf(fixed);
        long free = fixed.stream().filter(f -> f == FREE).count();
        if (free < 1 || free > 2) {
            throw new IllegalArgumentException("slice " + text(fixed) + " must draw one or two dims (':'), got " + free);
        }
    }

    /**
     * Reads {@code "0,:,:,1"} for an array of sizes {@code dims}.
     *
     * @throws IllegalArgumentException naming the entry that is not an index or {@code :}, or a rank mismatch
     * @throws IndexOutOfBoundsException when a fixed index is outside its dim
     */
    public static SliceSpec parse(String text, List<Long> dims) {
        AsciiDigits.require(text, 0, text.length(), (problem, at) -> new IllegalArgumentException(
                "slice '" + text + "': " + problem + " at position " + at));
        String[] parts = text.strip().split(",", -1);
        if (parts.length != dims.size()) {
            throw new IllegalArgumentException("slice '" + text + "' has " + parts.length + " entries but the array has rank "
                    + dims.size() + " (sizes " + dims + ")");
        }
        List<Long> fixed = new ArrayList<>();
        for (int d = 0; d < parts.length; d++) {
            String p = parts[d].strip();
            if (p.equals(":")) {
                fixed.add(FREE);
                continue;
            }
            long i;
            try {
                i = Long.parseLong(p);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("slice '" + text + "': entry " + d + " '" + p
                        + "' is neither an index nor ':'");
            }
            if (i < 0 || i >= dims.get(d)) {
                throw new IndexOutOfBoundsException("slice index " + i + " out of bounds [0, " + dims.get(d) + ") for dim "
                        + d + " of sizes " + dims);
            }
            fixed.add(i);
        }
        return new SliceSpec(fixed);
    }

    /** {@return the full slice of a rank-1 or rank-2 array: every dim drawn} */
    public static SliceSpec all(int rank) {
        List<Long> fixed = new ArrayList<>();
        for (int d = 0; d < rank; d++) {
            fixed.add(FREE);
        }
        return new SliceSpec(fixed);
    }

    /** {@return the drawn dim shown as rows, or -1 when only one dim is drawn} */
    public int rowDim() {
        int first = fixed.indexOf(FREE);
        return first == fixed.lastIndexOf(FREE) ? -1 : first;
    }

    /** {@return the drawn dim shown as columns} */
    public int colDim() {
        return fixed.lastIndexOf(FREE);
    }

    @Override
    public String toString() {
        return text(fixed);
    }

    private static String text(List<Long> fixed) {
        StringBuilder b = new StringBuilder("[");
        for (int d = 0; d < fixed.size(); d++) {
            b.append(d > 0 ? "," : "").append(fixed.get(d) == FREE ? ":" : Long.toString(fixed.get(d)));
        }
        return b.append(']').toString();
    }
}
