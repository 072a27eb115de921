package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;

/**
 * One side of a copy: the bytes, the element type, the logical dimensions and how a logical
 * index finds its element. This is the copy engine's own small description of a view; a
 * {@code TensorView} adapts to it by its map form (strided, tiled, general).
 * {@snippet :
 * MemorySegment m = Arena.ofAuto().allocate(2 * 3 * 4);
 * Access nchw = Access.strided(m, DType.F32, StridedLayout.packed(2, 3));
 * nchw.dims();          // [2, 3]
 * nchw.elementCount();  // 6
 * Access t = Access.tiled(m, ArrayShape.parse("f32[2,3]{0,1}"));
 * t.dims();             // [2, 3]
 * }
 *
 * @param segment the memory holding the elements; element offsets count from its start
 * @param dtype the element type
 * @param dims logical sizes, one per dimension
 * @param addressing how a logical index becomes an element offset
 * @param ownedBytes as a destination, the bytes from the segment's start that its layout owns
 *     ({@link #owning}): a plan writes each of them that is no element's slot as zero (tile
 *     padding past the slots the addressing reads, gaps between strided rows); 0 when it owns
 *     none, as a source or a part cut from a bigger destination
 */
public record Access(MemorySegment segment, DType dtype, List<Long> dims, Addressing addressing, long ownedBytes) {

    /** How a logical index becomes an element offset in the segment. */
    public sealed interface Addressing permits Strided, Tiled, Mapped {
    }

    /** @param layout sizes, strides (elements; zero and negative allowed) and offset */
    public record Strided(StridedLayout layout) implements Addressing {
        /** @throws NullPointerException if {@code layout} is null */
        public Strided {
            Objects.requireNonNull(layout, "layout");
        }
    }

    /** @param shape an array shape whose (possibly tiled) XLA layout places every element */
    public record Tiled(ArrayShape shape) implements Addressing {
        /** @throws IllegalArgumentException if the shape has no layout or a dynamic dimension */
        public Tiled {
            shape.requireLayout();
            if (!shape.isStatic()) {
                throw new IllegalArgumentException("copy needs a static shape, got " + shape);
            }
        }
    }

    /** @param map a map from the logical index to one result, the element offset; no constraints */
    public record Mapped(IndexingMap map) implements Addressing {
        /**
         * @throws IllegalArgumentException if the map does not have exactly one result, or has
         *     range or runtime variables or constraints
         */
        public Mapped {
            if (map.results().size() != 1) {
                throw new IllegalArgumentException("an element map needs exactly one result (the element offset), got "
                        + map.results().size() + ": " + map);
            }
            if (!map.rangeVars().isEmpty() || !map.runtimeVars().isEmpty()) {
                throw new IllegalArgumentException("an element map for a copy may not have range or runtime variables: "
                        + map);
            }
            if (!map.constraints().isEmpty()) {
                // The copy moves every index of the domain's box; a constraint would leave some
                // out, and the bounds check and the kernels could not agree on which.
                throw new IllegalArgumentException("an element map for a copy may not have constraints (the copy"
                        + " visits every index of its domain box): " + map);
            }
        }
    }

    /**
     * @throws IllegalArgumentException if a size is negative, the addressing has another rank, a
     *     strided layout other sizes, a map a dimension not bounded by {@code [0, dims[i] - 1]}, or a
     *     tiled addressing's shape has another type or dims or an {@code E(n)} its type cannot use,
     *     or the owned bytes are negative or past the segment
     */
    public Access {
        Objects.requireNonNull(segment, "segment");
        if (ownedBytes < 0 || ownedBytes > segment.byteSize()) {
            throw new IllegalArgumentException("a side owning " + ownedBytes + " bytes of a segment of "
                    + segment.byteSize() + " bytes");
        }
        Objects.requireNonNull(dtype, "dtype");
        dims = List.copyOf(dims);
        Objects.requireNonNull(addressing, "addressing");
        for (int i = 0; i < dims.size(); i++) {
            if (dims.get(i) < 0) {
                throw new IllegalArgumentException("dimension " + i + " has negative size " + dims.get(i) + " in " + dims);
            }
        }
        int rank = switch (addressing) {
            case Strided s -> s.layout().rank();
            case Tiled t -> t.shape().rank();
            case Mapped m -> m.map().dims().size();
        };
        if (rank != dims.size()) {
            throw new IllegalArgumentException("addressing has rank " + rank + " but dims " + dims + " have rank "
                    + dims.size());
        }
        // The plan walks dims while the kernels and the bounds check read the addressing: sizes
        // that disagree would move elements the layout or map never placed, past the checked reach.
        switch (addressing) {
            case Tiled(ArrayShape shape) -> {
                if (shape.dtype() != dtype || !shape.dims().equals(dims)) {
                    throw new IllegalArgumentException("a tiled access of " + dtype + dims + " needs a shape of that type"
                            + " and those dims, got " + shape);
                }
                ElementAccess.of(shape); // an E(n) the type cannot be stored in is refused here, before a plan writes
            }
            case Strided(StridedLayout layout) -> {
                if (!layout.sizes().equals(dims)) {
                    throw new IllegalArgumentException("a strided access of " + dtype + dims + " needs a layout of those"
                            + " sizes, got " + layout);
                }
            }
            case Mapped(IndexingMap map) -> {
                for (int i = 0; i < dims.size(); i++) {
                    Interval bound = map.dimBounds().get(i);
                    if (bound.lo() != 0 || bound.hi() != dims.get(i) - 1) {
                        throw new IllegalArgumentException("a mapped access of " + dtype + dims + " needs dimension "
                                + i + " of its map in [0, " + (dims.get(i) - 1) + "], got " + bound + " in " + map);
                    }
                }
            }
        }
    }

    /**
     * A side that owns no bytes besides its elements' slots.
     *
     * @throws IllegalArgumentException as the canonical constructor
     */
    public Access(MemorySegment segment, DType dtype, List<Long> dims, Addressing addressing) {
        this(segment, dtype, dims, addressing, 0);
    }

    /**
     * {@return this side as a destination owning the first {@code bytes} bytes of its segment}
     * Only the view knows what its layout owns ({@code ViewMap.Single.layoutBytes}); the
     * planner zeroes what of it the addressing reads no element from, so that every plan into
     * the view writes its padding, whoever planned it.
     *
     * @throws IllegalArgumentException if {@code bytes} is negative or past the segment
     */
    public Access owning(long bytes) {
        return bytes == ownedBytes ? this : new Access(segment, dtype, dims, addressing, bytes);
    }

    /** {@return a strided access with the layout's sizes} */
    public static Access strided(MemorySegment segment, DType dtype, StridedLayout layout) {
        return new Access(segment, dtype, layout.sizes(), new Strided(layout));
    }

    /** {@return an access through an XLA array shape and its layout (tiles, padding, {@code E(n)})} */
    public static Access tiled(MemorySegment segment, ArrayShape shape) {
        return new Access(segment, shape.dtype(), shape.dims(), new Tiled(shape));
    }

    /** {@return an access through an element-offset map, its dims sized by the map's domain} */
    public static Access mapped(MemorySegment segment, DType dtype, IndexingMap map) {
        for (int i = 0; i < map.dimBounds().size(); i++) {
            if (map.dimBounds().get(i).lo() != 0) {
                throw new IllegalArgumentException("dimension " + i + " of an element map must start at 0, got "
                        + map.dimBounds().get(i) + " in " + map);
            }
        }
        List<Long> dims = map.dimBounds().stream().map(b -> b.hi() + 1).toList();
        return new Access(segment, dtype, dims, new Mapped(map));
    }

    /** {@return the number of logical elements} */
    public long elementCount() {
        return Extents.elementCount("", dims);
    }

    /** {@return the rank} */
    public int rank() {
        return dims.size();
    }
}
