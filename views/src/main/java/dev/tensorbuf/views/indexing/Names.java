package dev.tensorbuf.views.indexing;

import java.util.List;

/** Variable names for printing; a missing or empty name prints as {@code d<i>}, {@code s<i>}, {@code rt<i>}. */
record Names(List<String> dims, List<String> ranges, List<String> runtimes) {
    static final Names DEFAULT = new Names(List.of(), List.of(), List.of());

    Names {
        dims = List.copyOf(dims);
        ranges = List.copyOf(ranges);
        runtimes = List.copyOf(runtimes);
    }

    String dim(int i) {
        return pick(dims, i, "d");
    }

    String range(int i) {
        return pick(ranges, i, "s");
    }

    String runtime(int i) {
        return pick(runtimes, i, "rt");
    }

    private static String pick(List<String> names, int i, String prefix) {
        if (i < names.size() && !names.get(i).isEmpty()) {
            return names.get(i);
        }
        return prefix + i;
    }
}
