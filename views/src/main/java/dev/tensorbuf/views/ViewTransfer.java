package dev.tensorbuf.views;

import dev.tensorbuf.views.internal.DistinctSlots;
import java.lang.foreign.MemorySegment;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.PrimitiveIterator;
import java.util.function.Consumer;
import dev.tensorbuf.views.internal.Extents;

/** Bulk transfer between views and Java arrays, in logical (row-major) order. */
final class ViewTransfer {
    private ViewTransfer() {
    }

    /** One element: read into or write from slot {@code i} of an array. */
    private interface Step {
        void at(MemorySegment segment, long offset, int i);
    }

    /**
     * Visits every element in logical order. A one-buffer view takes its segment once; each
     * element is located through the view's fast path, with one index array for the whole walk.
     */
    private static void walk(TensorView view, boolean write, Step step) {
        long[] dims = view.dimsArray();
        long count = view.elementCount();
        if (count == 0) {
            return;
        }
        long[] index = new long[dims.length];
        try {
            for (int i = 0; i < (int) count; i++) {
                long at = ElementLocator.locate(view, index, write);
                step.at(ElementLocator.segment(view, index), at, i);
                for (int d = dims.length - 1; d >= 0; d--) {
                    if (++index[d] < dims[d]) {
                        break;
                    }
                    index[d] = 0;
                }
            }
        } catch (WrongThreadException e) {
            throw ElementLocator.wrongThread(view, e);
        }
    }

    private static int length(TensorView view) {
        long n = view.elementCount();
        if (n > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException(view + " has " + n + " elements, more than a Java array holds");
        }
        return (int) n;
    }

    /**
     * Refuses an array of the wrong length, and a view that writes several indices to one slot
     * (a broadcast, overlapping strides, or a broadcast reshaped out of the strided family): the
     * result would be whichever value came last, so a copy into such a view is refused too. A view
     * without strides is checked by visiting it ({@link DistinctSlots}), which also refuses an
     * index on a pad's fill or on read-only memory before anything is written.
     */
    private static void checkWritable(TensorView view, int length) {
        if (length != view.elementCount()) {
            throw new IllegalArgumentException("array of " + length + " values for " + view + " of "
                    + view.elementCount() + " elements");
        }
        Optional<StridedLayout> strided = view.stridedLayout();
        String why;
        if (strided.isPresent()) {
            if (!strided.get().isOverlapping()) {
                return;
            }
            why = "it reads several indices from one slot (a broadcast, or overlapping strides)";
        } else {
            if (!view.isHostAccessible()) {
                return; // the first element write says where the memory is
            }
            DistinctSlots.Repeat r = DistinctSlots.firstRepeat(view);
            if (r == null) {
                return;
            }
            why = r + " share one slot";
        }
        throw new IllegalArgumentException("cannot write " + length + " values into " + view + ": " + why
                + ", so all but one value would be lost; write what it was made from instead");
    }

    static float[] toFloatArray(TensorView view) {
        float[] out = new float[length(view)];
        ElementAccess a = view.access();
        walk(view, false, (segment, offset, i) -> out[i] = a.getFloat(segment, offset));
        return out;
    }

    static double[] toDoubleArray(TensorView view) {
        double[] out = new double[length(view)];
        ElementAccess a = view.access();
        walk(view, false, (segment, offset, i) -> out[i] = a.getDouble(segment, offset));
        return out;
    }

    static long[] toLongArray(TensorView view) {
        long[] out = new long[length(view)];
        ElementAccess a = view.access();
        walk(view, false, (segment, offset, i) -> out[i] = a.getLong(segment, offset));
        return out;
    }

    static int[] toIntArray(TensorView view) {
        int[] out = new int[length(view)];
        ElementAccess a = view.access();
        walk(view, false, (segment, offset, i) -> {
            long v = a.getLong(segment, offset);
            if (v != (int) v) {
                throw new IllegalArgumentException("element " + i + " of " + view + " is " + v + ", past the range of int");
            }
            out[i] = (int) v;
        });
        return out;
    }

    static void copyFrom(TensorView view, float[] values) {
        checkWritable(view, values.length);
        ElementAccess a = view.access();
        walk(view, true, (segment, offset, i) -> a.setFloat(segment, offset, values[i]));
    }

    static void copyFrom(TensorView view, double[] values) {
        checkWritable(view, values.length);
        ElementAccess a = view.access();
        walk(view, true, (segment, offset, i) -> a.setDouble(segment, offset, values[i]));
    }

    static void copyFrom(TensorView view, long[] values) {
        checkWritable(view, values.length);
        ElementAccess a = view.access();
        walk(view, true, (segment, offset, i) -> a.setLong(segment, offset, values[i]));
    }

    static void copyFrom(TensorView view, int[] values) {
        checkWritable(view, values.length);
        ElementAccess a = view.access();
        walk(view, true, (segment, offset, i) -> a.setLong(segment, offset, values[i]));
    }

    static void forEachIndex(long[] dims, Consumer<long[]> action) {
        long count = Extents.elementCount("", dims); // a view's dims, checked when it was made
        long[] index = new long[dims.length];
        for (long n = 0; n < count; n++) {
            action.accept(index);
            for (int d = dims.length - 1; d >= 0; d--) {
                if (++index[d] < dims[d]) {
                    break;
                }
                index[d] = 0;
            }
        }
    }

    static PrimitiveIterator.OfDouble doubles(TensorView view) {
        long[] dims = view.dimsArray();
        long count = view.elementCount();
        TensorElements elements = TensorElements.of(view);
        return new PrimitiveIterator.OfDouble() {
            private final long[] index = new long[dims.length];
            private long done;

            @Override
            public boolean hasNext() {
                return done < count;
            }

            @Override
            public double nextDouble() {
                if (done >= count) {
                    throw new NoSuchElementException("all " + count + " elements of " + view + " visited");
                }
                double v = elements.getDouble(index);
                done++;
                for (int d = dims.length - 1; d >= 0; d--) {
                    if (++index[d] < dims[d]) {
                        break;
                    }
                    index[d] = 0;
                }
                return v;
            }
        };
    }
}
