package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;

/**
 * The bytes one side of a copy can touch, so that two views of one buffer are compared by what
 * they address rather than by the whole segment: the top and bottom halves of an image, or two
 * slices of one weights file, do not overlap. Strided sides are exact; a tiled side covers all
 * its slots (padding is written); a mapped side covers its map's range, which may be wider than
 * the offsets it takes.
 * {@snippet :
 * Access top = Access.strided(image, DType.F32, StridedLayout.of(new long[] {2, 6}, new long[] {6, 1}));
 * Access bottom = Access.strided(image, DType.F32, StridedLayout.of(new long[] {2, 6}, new long[] {6, 1}, 12));
 * Reach.overlap(top, bottom); // false: bytes [0, 48) and [48, 96) of the same segment
 * }
 */
public final class Reach {
    private Reach() {
    }

    /** {@return whether some byte {@code a} can touch is also one {@code b} can touch} */
    public static boolean overlap(Access a, Access b) {
        if (a.segment().asOverlappingSlice(b.segment()).isEmpty()) {
            return false;
        }
        long[] ra = bytes(a);
        long[] rb = bytes(b);
        if (ra == null || rb == null) {
            return false;
        }
        // Segments that overlap share one base (native memory or one heap array), so their
        // addresses compare.
        long aLo = a.segment().address() + ra[0];
        long bLo = b.segment().address() + rb[0];
        return aLo < b.segment().address() + rb[1] && bLo < a.segment().address() + ra[1];
    }

    /** {@return {@code [first, end)} bytes of the segment the side can touch, or null when it has no element} */
    static long[] bytes(Access a) {
        if (a.elementCount() == 0) {
            return null;
        }
        long width = a.dtype().byteWidth();
        long size = a.segment().byteSize();
        return switch (a.addressing()) {
            case Access.Strided(StridedLayout l) -> new long[] {
                    clamp(l.minOffset(), width, size), clamp(l.maxOffset() + 1, width, size)};
            case Access.Tiled(ArrayShape shape) -> new long[] {0, Math.min(size, shape.physicalByteSize())};
            case Access.Mapped(IndexingMap map) -> {
                Interval r = map.range(map.results().getFirst());
                yield new long[] {clamp(r.lo(), width, size), clamp(r.hi() == Long.MAX_VALUE ? r.hi() : r.hi() + 1, width, size)};
            }
        };
    }

    /** {@return element offset {@code e} in bytes, within {@code [0, size]}} */
    private static long clamp(long e, long width, long size) {
        if (e <= 0) {
            return 0;
        }
        return e >= size / width + 1 ? size : Math.min(size, e * width);
    }
}
