package dev.tensorbuf.views.internal;

import java.util.Collection;

/**
 * "Did you mean ...?" for mistyped names: the CLI's commands, options and batch keys, and the HLO
 * parser's opcodes (in {@code ops}). One place, so every hint weighs a typo the same way.
 */
public final class Suggestions {
    private Suggestions() {}

    /** {@return the closest candidate within a small edit distance, or null} */
    public static String closest(String typed, Collection<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String c : candidates) {
            int d = distance(typed, c);
            if (d < bestDistance) {
                best = c;
                bestDistance = d;
            }
        }
        // A suggestion further than a third of the word away is noise, not help.
        return best != null && bestDistance <= Math.max(2, typed.length() / 3) ? best : null;
    }

    /** {@return " (did you mean X?)" or the empty string} */
    public static String didYouMean(String typed, Collection<String> candidates, String prefix) {
        String c = closest(typed, candidates);
        return c == null ? "" : " (did you mean " + prefix + c + "?)";
    }

    /** Levenshtein distance with adjacent transpositions counted as one edit. */
    public static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                int v = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    v = Math.min(v, d[i - 2][j - 2] + 1);
                }
                d[i][j] = v;
            }
        }
        return d[a.length()][b.length()];
    }
}
