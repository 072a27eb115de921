package dev.tensorbuf.cli;

import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.TensorView;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The order of the output's dims as {@code convert} is asked for it: {@code --transpose PERM}, or
 * {@code --from-format} and {@code --to-format}, two named formats of the same letters. Output dim
 * {@code i} is input dim {@code perm[i]}, as in NumPy's {@code x.transpose(perm)}; the file
 * written holds {@code np.ascontiguousarray(x.transpose(perm))}.
 * {@snippet :
 * // tensorbuf convert x.npy y.npy --from-format NCHW --to-format NHWC
 * DimOrder.parse(in).perm();   // [0, 2, 3, 1]
 * // --from-format OIHW --to-format HWIO: [2, 3, 1, 0]
 * }
 *
 * @param perm the input dim of each output dim
 * @param text how the user asked for it, for messages: {@code "--transpose 0,2,3,1"} or
 *     {@code "--from-format NCHW --to-format NHWC"}
 */
record DimOrder(List<Integer> perm, String text) {
    /**
     * The formats {@code --from-format} and {@code --to-format} take: images and volumes (N batch, C
     * channels, D H W depth, height, width) and conv weights (O output and I input channels, H W the
     * kernel window). Any two of the same letters make a permutation.
     */
    static final List<String> FORMATS = List.of("NCHW", "NHWC", "NCDHW", "NDHWC", "CHW", "HWC", "OIHW", "HWIO", "OHWI");

    DimOrder {
        perm = List.copyOf(perm);
    }

    /**
     * {@return the dim order asked for, or null when the command line asks for none}
     *
     * @throws UsageException naming the option and what is wrong: a list that is not a permutation
     *     of {@code 0..n-1}, an unknown format, formats of different letters, one format without the
     *     other, or both ways of asking at once
     */
    static DimOrder parse(Invocation in) {
        String transpose = in.value("transpose");
        String from = in.value("from-format");
        String to = in.value("to-format");
        if (transpose != null && (from != null || to != null)) {
            throw new UsageException("--transpose " + transpose + " and --" + (from != null ? "from" : "to")
                    + "-format both give the output's dim order: give one of them");
        }
        if (transpose != null) {
            return new DimOrder(permutation(transpose), "--transpose " + transpose);
        }
        if (from == null && to == null) {
            return null;
        }
        if (from == null || to == null) {
            String given = from == null ? "--to-format " + to : "--from-format " + from;
            throw new UsageException(given + " needs --" + (from == null ? "from" : "to") + "-format too: the input's"
                    + " and the output's order of the same letters, e.g. --from-format NCHW --to-format NHWC");
        }
        String f = format(from, "--from-format");
        String t = format(to, "--to-format");
        if (!sorted(f).equals(sorted(t))) {
            throw new UsageException("--from-format " + f + " and --to-format " + t + " have different letters:"
                    + " no order of the dims of one is the other (formats of the same letters: "
                    + FORMATS.stream().filter(o -> sorted(o).equals(sorted(f))).collect(Collectors.joining(", ")) + ")");
        }
        return new DimOrder(t.chars().mapToObj(c -> f.indexOf(c)).toList(), "--from-format " + f + " --to-format " + t);
    }

    /** {@return the named format in upper case} @throws UsageException for a name not in {@link #FORMATS} */
    private static String format(String name, String option) {
        String upper = name.strip().toUpperCase(Locale.ROOT);
        if (!FORMATS.contains(upper)) {
            throw new UsageException(option + " " + name + ": unknown format; known: " + String.join(", ", FORMATS)
                    + " (or give the order itself: --transpose 0,2,3,1)");
        }
        return upper;
    }

    private static String sorted(String letters) {
        char[] c = letters.toCharArray();
        Arrays.sort(c);
        return new String(c);
    }

    /** {@return the list as a permutation} @throws UsageException naming an entry out of range or repeated */
    private static List<Integer> permutation(String text) {
        long[] p = Invocation.parseLongs(text, "--transpose");
        if (p.length == 0) {
            throw new UsageException("--transpose '" + text + "' is empty: give the input dim of each output dim,"
                    + " e.g. 0,2,3,1");
        }
        // An entry past the list's length is refused by apply, once the input's rank is known: "0,2"
        // for a rank-3 input is a dim left out, which the rank says better than the range does.
        java.util.Set<Long> seen = new java.util.HashSet<>();
        for (long d : p) {
            if (d < 0 || d > Integer.MAX_VALUE) {
                throw new UsageException("--transpose " + text + " is not a permutation: " + d + " is not in [0, "
                        + p.length + ") (" + p.length + " dims, each named once)");
            }
            if (!seen.add(d)) {
                throw new UsageException("--transpose " + text + " is not a permutation: " + d + " appears twice ("
                        + p.length + " dims, each named once)");
            }
        }
        return Arrays.stream(p).mapToObj(d -> (int) d).toList();
    }

    /** {@return the rank the order is for} */
    int rank() {
        return perm.size();
    }

    /** {@return the permutation as a comma-separated list, as --transpose takes it} */
    String list() {
        return perm.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    /**
     * {@return {@code view} with its dims in this order: a view, no element moves}
     *
     * @param what names the tensor in the message, e.g. {@code "x.npy"} or {@code "tensor 'w' of m.safetensors"}
     * @throws UsageException if the view's rank is not the permutation's
     */
    TensorView apply(TensorView view, String what) {
        if (view.rank() != rank()) {
            throw new UsageException(text + " orders " + rank() + " dims, but " + what + " is " + view.dtype()
                    + view.dims().toString().replace(" ", "") + " of rank " + view.rank());
        }
        for (int d : perm) {
            if (d >= rank()) {
                throw new UsageException(text + " is not a permutation: " + d + " is not in [0, " + rank() + ") ("
                        + rank() + " dims, each named once)");
            }
        }
        return Ops.transpose(view, IntStream.range(0, rank()).map(perm::get).toArray());
    }
}
