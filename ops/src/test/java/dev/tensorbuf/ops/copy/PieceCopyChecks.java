package dev.tensorbuf.ops.copy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.copy.CopyPlan.Explanation;
import dev.tensorbuf.ops.copy.CopyPlan.Explanation.Route;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.ValueLayout;
import java.util.List;

/** The checks the tests of copies over pieces share: the element-by-element reference, bytes, element steps. */
final class PieceCopyChecks {
    private PieceCopyChecks() {
    }

    /** Writes every index of {@code src} into {@code dst} through their element access. */
    static void reference(TensorView src, TensorView dst) {
        TensorElements from = TensorElements.of(src);
        TensorElements to = TensorElements.of(dst);
        from.forEachIndex(i -> to.setDouble(from.getDouble(i), i));
    }

    /** Asserts each buffer of {@code actual} holds the bytes of the same one of {@code expected}. */
    static void assertSameBytes(List<MemoryBuffer> expected, List<MemoryBuffer> actual, String what) {
        for (int k = 0; k < expected.size(); k++) {
            assertArrayEquals(expected.get(k).segment().toArray(ValueLayout.JAVA_BYTE),
                    actual.get(k).segment().toArray(ValueLayout.JAVA_BYTE), what + ": buffer " + k);
        }
    }

    /** {@return the element-by-element copies in {@code e} with elements to copy} */
    static long elementCopies(Explanation e) {
        long n = e.route() == Route.ELEMENTS && e.elements() > 0 ? 1 : 0;
        for (Explanation p : e.parts()) {
            n += elementCopies(p);
        }
        return n;
    }
}
