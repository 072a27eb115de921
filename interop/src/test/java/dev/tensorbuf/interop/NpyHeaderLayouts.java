package dev.tensorbuf.interop;

import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.StridedLayout;
import java.util.List;

/** Row-major layouts for tests. */
final class NpyHeaderLayouts {
    private NpyHeaderLayouts() {
    }

    static StridedLayout cOrder(List<Long> shape) {
        return StridedLayout.packed(Extents.toArray(shape));
    }
}
