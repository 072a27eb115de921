package dev.tensorbuf.views;

import dev.tensorbuf.views.internal.Errors;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A named packed layout: the letters of its logical order (how sizes are given) and of its
 * physical order (outermost first in memory), as DirectML names them.
 *
 * <p>Sizes always come in the logical order: NCHW for NHWC too, CHW for HWC, DHW for WHD, HW for
 * WH (DirectML expresses NHWC only through strides, its sizes stay NCHW). The stride of a dim is
 * the product of the sizes of the dims after it in the physical order (a size of 0 counts as 1, as
 * in NumPy, so an empty tensor still has distinct strides).
 * {@snippet :
 * TensorFormat.NHWC.packedStrides(1, 3, 1, 2);   // [6, 1, 6, 3]: memory R G B R G B
 * TensorFormat.WH.packedStrides(2, 3);           // [1, 2]: column-major
 * TensorFormat.of(StridedLayout.of(new long[] {1, 1, 3, 5}, new long[] {15, 1, 5, 1})); // Optional[NHWC]
 * }
 *
 * <p>Ambiguity: the name from strides ({@link #of(StridedLayout)}) compares strides exactly, so
 * dims of size 1 still matter ({@code [1, 1, 3, 5]} with NCHW strides {@code [15, 15, 5, 1]} is
 * NCHW and with {@code [15, 1, 5, 1]} is NHWC, though both are the same memory). Several formats
 * match when their stride formulas agree: CHW and DHW always (both row-major), and e.g. NCHW and
 * NHWC when C = H * W = 1. {@link #matching(StridedLayout)} lists every match; {@link #of}
 * returns the first in declaration order (NCHW, NHWC, NCDHW, NDHWC, CHW, HWC, HW, WH, DHW, WHD).
 * The offset plays no part.
 */
public enum TensorFormat {
    NCHW("NCHW", "NCHW"),
    NHWC("NCHW", "NHWC"),
    NCDHW("NCDHW", "NCDHW"),
    NDHWC("NCDHW", "NDHWC"),
    CHW("CHW", "CHW"),
    HWC("CHW", "HWC"),
    HW("HW", "HW"),
    WH("HW", "WH"),
    DHW("DHW", "DHW"),
    WHD("DHW", "WHD");

    /** The dim letters in the order sizes are given, e.g. {@code "NCHW"} for NHWC. */
    private final String logicalOrder;
    /** The dim letters from outermost to innermost in memory, e.g. {@code "NHWC"}. */
    private final String physicalOrder;

    TensorFormat(String logicalOrder, String physicalOrder) {
        this.logicalOrder = logicalOrder;
        this.physicalOrder = physicalOrder;
    }


    /** {@return the number of dims} */
    public int rank() {
        return logicalOrder.length();
    }

    /**
     * {@return the packed strides for sizes in the logical order}
     *
     * @throws IllegalArgumentException if the number of sizes is not the rank, or the element count overflows
     */
    public long[] packedStrides(long... sizes) {
        if (sizes.length != rank()) {
            throw new IllegalArgumentException(name() + " needs " + rank() + " sizes (" + logicalOrder + "), got "
                    + sizes.length + ": " + Arrays.toString(sizes));
        }
        long[] strides = new long[sizes.length];
        long step = 1;
        for (int p = physicalOrder.length() - 1; p >= 0; p--) {
            int d = logicalOrder.indexOf(physicalOrder.charAt(p));
            strides[d] = step;
            try {
                step = Math.multiplyExact(step, Math.max(sizes[d], 1));
            } catch (ArithmeticException e) {
                throw Errors.overflows("element count of " + name() + " sizes " + Arrays.toString(sizes), e);
            }
        }
        return strides;
    }

    /** {@return the packed layout of this format, sizes in the logical order, offset 0} */
    public StridedLayout layout(long... sizes) {
        return StridedLayout.of(sizes, packedStrides(sizes));
    }

    /** {@return every format whose packed strides for the layout's sizes equal its strides, in declaration order} */
    public static List<TensorFormat> matching(StridedLayout layout) {
        List<TensorFormat> out = new ArrayList<>();
        long[] sizes = Extents.toArray(layout.sizes());
        for (TensorFormat f : values()) {
            if (f.rank() == sizes.length && f.packsTo(sizes, layout.strides())) {
                out.add(f);
            }
        }
        return out;
    }

    private boolean packsTo(long[] sizes, List<Long> strides) {
        try {
            return Extents.boxed(packedStrides(sizes)).equals(strides);
        } catch (IllegalArgumentException overflow) {
            return false; // an empty tensor whose other sizes multiply past a long: no packed strides exist
        }
    }

    /** {@return the first format matching the layout, empty when none does} See the ambiguity note above. */
    public static Optional<TensorFormat> of(StridedLayout layout) {
        return matching(layout).stream().findFirst();
    }

    /**
     * {@return the format with this name, any case}
     *
     * @throws IllegalArgumentException naming the unknown name and the known ones
     */
    public static TensorFormat fromName(String name) {
        for (TensorFormat f : values()) {
            if (f.name().equals(name.toUpperCase(Locale.ROOT))) {
                return f;
            }
        }
        throw Errors.unknown("tensor format", name, "one of " + Arrays.toString(values()));
    }
}
