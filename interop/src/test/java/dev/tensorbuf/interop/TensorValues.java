package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/** The value formula the Python peers share, and element-by-element comparison in C order. */
final class TensorValues {
    private TensorValues() {
    }

    /** {@return element i of the peers' formula: a Long, a Double or a [re, im] list} */
    static Object value(DType t, long i) {
        return switch (t.kind()) {
            case BOOLEAN -> i % 3 == 0 ? 1L : 0L;
            case SIGNED -> (i * 37) % 200 - 100;
            case UNSIGNED -> (i * 37) % 250;
            case FLOAT -> (i - 3) * 0.5;
            case COMPLEX -> List.of((i - 3) * 0.5, (double) -i);
            case NONE -> throw new IllegalArgumentException(t.toString());
        };
    }

    /** {@return a C-order tensor of the formula's first elementCount values} */
    static DenseTensor tensor(DType t, List<Long> dims, Arena arena) {
        long n = dims.stream().reduce(1L, Math::multiplyExact);
        ElementAccess access = ElementAccess.of(t);
        MemorySegment bytes = arena.allocate(Math.max(1, access.byteSize(n))).asSlice(0, access.byteSize(n));
        for (long i = 0; i < n; i++) {
            switch (value(t, i)) {
                case Long l when t.kind() == DType.Kind.BOOLEAN -> access.setBoolean(bytes, i, l != 0);
                case Long l -> access.setLong(bytes, i, l);
                case Double d -> access.setDouble(bytes, i, d);
                case List<?> c -> access.setComplex(bytes, i, (Double) c.get(0), (Double) c.get(1));
                default -> throw new AssertionError();
            }
        }
        return new DenseTensor(t, dims, bytes);
    }

    /** {@return the elements in C order (logical index order), as the manifest writes them} */
    static List<Object> read(DType t, StridedLayout layout, MemorySegment data) {
        ElementAccess access = ElementAccess.of(t);
        List<Object> out = new ArrayList<>();
        long n = layout.elementCount();
        int rank = layout.rank();
        long[] index = new long[rank];
        for (long k = 0; k < n; k++) {
            long e = layout.offsetOf(index);
            out.add(switch (t.kind()) {
                case BOOLEAN -> access.getBoolean(data, e) ? 1L : 0L;
                case SIGNED, UNSIGNED -> access.getLong(data, e);
                case FLOAT -> access.getDouble(data, e);
                case COMPLEX -> List.of(access.getReal(data, e), access.getImag(data, e));
                case NONE -> throw new AssertionError();
            });
            for (int d = rank - 1; d >= 0; d--) {
                if (++index[d] < layout.sizes().get(d)) {
                    break;
                }
                index[d] = 0;
            }
        }
        return out;
    }

    /** {@return the view's elements in logical C order, read by index through the view} */
    static List<Object> read(TensorView view) {
        List<Object> out = new ArrayList<>();
        TensorElements.of(view).forEachIndex(index -> out.add(switch (view.dtype().kind()) {
            case BOOLEAN, SIGNED, UNSIGNED -> TensorElements.of(view).getLong(index);
            case FLOAT -> TensorElements.of(view).getDouble(index);
            case COMPLEX -> List.of(TensorElements.of(view).getReal(index), TensorElements.of(view).getImag(index));
            case NONE -> throw new AssertionError();
        }));
        return out;
    }

    /** Asserts equal values, comparing numbers by their double or long value. */
    static void assertValues(List<?> expected, List<Object> actual, String what) {
        assertEquals(expected.size(), actual.size(), what + ": element count");
        for (int i = 0; i < expected.size(); i++) {
            Object e = expected.get(i);
            Object a = actual.get(i);
            if (e instanceof List<?> pair) {
                List<?> got = (List<?>) a;
                assertEquals(((Number) pair.get(0)).doubleValue(), ((Number) got.get(0)).doubleValue(), what + " real " + i);
                assertEquals(((Number) pair.get(1)).doubleValue(), ((Number) got.get(1)).doubleValue(), what + " imag " + i);
            } else if (a instanceof Double d) {
                assertEquals(((Number) e).doubleValue(), d, what + " element " + i);
            } else {
                assertEquals(((Number) e).longValue(), ((Number) a).longValue(), what + " element " + i);
            }
        }
    }
}
