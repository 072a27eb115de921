package dev.tensorbuf.views;

import dev.tensorbuf.views.internal.Errors;
import dev.tensorbuf.views.internal.XlaShapeParser;
import dev.tensorbuf.views.internal.XlaShapePrinter;
import dev.tensorbuf.views.text.TextFormatException;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.ArrayList;

/**
 * An XLA layout: how an array's elements sit in memory. {@code minorToMajor} orders the logical
 * dimensions from fastest to slowest varying; {@code tiles} are applied to the physical
 * dimensions in order, outermost first (seed 000: {@code linear_index_with_tile}).
 * {@snippet :
 * XlaLayout l = XlaLayout.parse("{1,0:T(8,128)(2,1)S(1)}");
 * l.minorToMajor();   // [1, 0]
 * l.tiles();          // [(8,128), (2,1)]
 * l.memorySpaceId();  // 1
 * l.toString();       // "{1,0:T(8,128)(2,1)S(1)}"
 * }
 *
 * <p>Checks that need the shape's rank (minor_to_major is a permutation of its dimensions, split
 * configs name one of them, no sparse-only attributes) are made by {@link ArrayShape}.
 *
 * @apiNote Equality follows XLA's {@code Layout::operator==}: every field except
 * {@code dynamicShapeMetadataPrefixBytes} takes part.
 *
 * @param minorToMajor logical dimension numbers, most minor first; non-negative and distinct
 * @param tiles tiling levels, outermost first; empty for an untiled layout
 * @param tailPaddingAlignment {@code L(n)}: the element count is rounded up to a multiple of it; {@code >= 1}
 * @param indexPrimitiveType {@code #(t)}: sparse index type, an unsigned integer type (sparse arrays only)
 * @param pointerPrimitiveType {@code *(t)}: sparse pointer type, an unsigned integer type (sparse arrays only)
 * @param elementSizeInBits {@code E(n)}: packed element width, 0 for the type's own; {@code >= 0}
 * @param memorySpaceId {@code S(n)}: XLA memory space id, 0 = default device memory, 1 = on-device
 *     fast memory, 5 = host
 * @param splitConfigs {@code SC(...)}: split physical dimensions, distinct dimensions
 * @param dynamicShapeMetadataPrefixBytes {@code M(n)}: bytes of dynamic-shape metadata before
 *     the data; {@code >= 0}
 */
public record XlaLayout(
        List<Integer> minorToMajor,
        List<Tile> tiles,
        long tailPaddingAlignment,
        Optional<DType> indexPrimitiveType,
        Optional<DType> pointerPrimitiveType,
        long elementSizeInBits,
        long memorySpaceId,
        List<SplitConfig> splitConfigs,
        long dynamicShapeMetadataPrefixBytes) {

    /** @throws IllegalArgumentException naming the field that breaks its rule */
    public XlaLayout {
        minorToMajor = List.copyOf(minorToMajor);
        tiles = List.copyOf(tiles);
        splitConfigs = List.copyOf(splitConfigs);
        Objects.requireNonNull(indexPrimitiveType, "indexPrimitiveType");
        Objects.requireNonNull(pointerPrimitiveType, "pointerPrimitiveType");
        Set<Integer> seen = new HashSet<>();
        for (int d : minorToMajor) {
            if (d < 0) {
                throw new IllegalArgumentException(Errors.minorToMajorOutOfBounds(minorToMajor, null));
            }
            if (!seen.add(d)) {
                throw new IllegalArgumentException("layout minor_to_major field has duplicate values: "
                        + Errors.braced(minorToMajor));
            }
        }
        if (tailPaddingAlignment <= 0) {
            throw new IllegalArgumentException("layout tail_padding_alignment_in_elements field is <= 0: {"
                    + tailPaddingAlignment + "}");
        }
        indexPrimitiveType.ifPresent(t -> requireUnsigned(t, "index"));
        pointerPrimitiveType.ifPresent(t -> requireUnsigned(t, "pointer"));
        if (elementSizeInBits < 0) {
            throw new IllegalArgumentException("layout element_size_in_bits field is negative: " + elementSizeInBits);
        }
        Set<Long> splitDims = new HashSet<>();
        for (SplitConfig sc : splitConfigs) {
            if (!splitDims.add(sc.dimension())) {
                throw new IllegalArgumentException("layout has two split configs for physical dimension "
                        + sc.dimension());
            }
        }
        if (memorySpaceId < 0) {
            throw new IllegalArgumentException("layout memory space id is negative: S(" + memorySpaceId
                    + "); an id is at least 0, as MemorySpace.parse reads it");
        }
        if (dynamicShapeMetadataPrefixBytes < 0) {
            throw new IllegalArgumentException("layout dynamic shape metadata prefix bytes is negative: "
                    + dynamicShapeMetadataPrefixBytes);
        }
    }

    /** {@return a layout with this minor-to-major order and no other attribute} */
    public static XlaLayout of(int... minorToMajor) {
        return new XlaLayout(Arrays.stream(minorToMajor).boxed().toList(), List.of(), 1,
                Optional.empty(), Optional.empty(), 0, 0, List.of(), 0);
    }

    /** {@return XLA's default layout for a rank: {@code {rank-1,...,1,0}} (row-major), {@code {}} for scalars} */
    public static XlaLayout descending(int rank) {
        if (rank < 0) {
            throw new IllegalArgumentException("rank " + rank + " is negative");
        }
        int[] m2m = new int[rank];
        for (int i = 0; i < rank; i++) {
            m2m[i] = rank - 1 - i;
        }
        return of(m2m);
    }

    /**
     * {@return row-major as {@code .npy} and safetensors files hold an array of {@code type}:
     * {@link #descending}, with sub-byte types packed, first element in the low bits}
     * {@snippet :
     * XlaLayout.packedDescending(DType.S4, 2);   // {1,0:E(4)}: two to a byte
     * XlaLayout.packedDescending(DType.F32, 2);  // {1,0}
     * }
     */
    public static XlaLayout packedDescending(DType type, int rank) {
        XlaLayout rowMajor = descending(rank);
        return type.isSubByte() ? rowMajor.withElementSizeInBits(type.bitWidth()) : rowMajor;
    }

    /**
     * Reads a layout in XLA's text, e.g. {@code "{1,0:T(2,2)}"}, with any spacing between tokens.
     *
     * @throws TextFormatException naming what was expected, where
     */
    public static XlaLayout parse(String text) {
        return XlaShapeParser.parseLayout(text);
    }

    /** {@return the number of dimensions this layout orders} */
    public int rank() {
        return minorToMajor.size();
    }

    /** {@return whether anything besides minor_to_major is set: the text then has a {@code :} part} */
    public boolean hasAttributes() {
        return !tiles.isEmpty() || tailPaddingAlignment != 1 || indexPrimitiveType.isPresent()
                || pointerPrimitiveType.isPresent() || elementSizeInBits != 0 || memorySpaceId != 0
                || !splitConfigs.isEmpty() || dynamicShapeMetadataPrefixBytes != 0;
    }

    /** {@return the logical dimension that is {@code physical}-th from the major end (XLA's {@code Major})} */
    public int majorDimension(int physical) {
        return minorToMajor.get(minorToMajor.size() - 1 - physical);
    }

    /** {@return this layout with these tiles, outermost first} */
    public XlaLayout withTiles(List<Tile> newTiles) {
        return new XlaLayout(minorToMajor, newTiles, tailPaddingAlignment, indexPrimitiveType,
                pointerPrimitiveType, elementSizeInBits, memorySpaceId, splitConfigs, dynamicShapeMetadataPrefixBytes);
    }

    /** {@return this layout with these tiles, outermost first} */
    public XlaLayout withTiles(Tile... newTiles) {
        return withTiles(List.of(newTiles));
    }

    /** {@return this layout with tail padding alignment {@code L(n)}} */
    public XlaLayout withTailPaddingAlignment(long n) {
        return new XlaLayout(minorToMajor, tiles, n, indexPrimitiveType,
                pointerPrimitiveType, elementSizeInBits, memorySpaceId, splitConfigs, dynamicShapeMetadataPrefixBytes);
    }

    /** {@return this layout with element size {@code E(bits)}} */
    public XlaLayout withElementSizeInBits(long bits) {
        return new XlaLayout(minorToMajor, tiles, tailPaddingAlignment, indexPrimitiveType,
                pointerPrimitiveType, bits, memorySpaceId, splitConfigs, dynamicShapeMetadataPrefixBytes);
    }

    /** {@return this layout in memory space {@code S(id)}} */
    public XlaLayout withMemorySpaceId(long id) {
        return new XlaLayout(minorToMajor, tiles, tailPaddingAlignment, indexPrimitiveType,
                pointerPrimitiveType, elementSizeInBits, id, splitConfigs, dynamicShapeMetadataPrefixBytes);
    }

    /** {@return this layout with these split configs} */
    public XlaLayout withSplitConfigs(List<SplitConfig> configs) {
        return new XlaLayout(minorToMajor, tiles, tailPaddingAlignment, indexPrimitiveType,
                pointerPrimitiveType, elementSizeInBits, memorySpaceId, configs, dynamicShapeMetadataPrefixBytes);
    }

    /** {@return this layout with {@code M(bytes)}} */
    public XlaLayout withDynamicShapeMetadataPrefixBytes(long bytes) {
        return new XlaLayout(minorToMajor, tiles, tailPaddingAlignment, indexPrimitiveType,
                pointerPrimitiveType, elementSizeInBits, memorySpaceId, splitConfigs, bytes);
    }

    /** {@return the layout as XLA prints it, e.g. {@code "{1,0:T(2,2)L(4)E(4)S(1)}"}} */
    @Override
    public String toString() {
        return XlaShapePrinter.layout(this);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof XlaLayout l
                && minorToMajor.equals(l.minorToMajor) && tiles.equals(l.tiles)
                && tailPaddingAlignment == l.tailPaddingAlignment
                && indexPrimitiveType.equals(l.indexPrimitiveType) && pointerPrimitiveType.equals(l.pointerPrimitiveType)
                && elementSizeInBits == l.elementSizeInBits && memorySpaceId == l.memorySpaceId
                && splitConfigs.equals(l.splitConfigs);
    }

    @Override
    public int hashCode() {
        return Objects.hash(minorToMajor, tiles, tailPaddingAlignment, indexPrimitiveType, pointerPrimitiveType,
                elementSizeInBits, memorySpaceId, splitConfigs);
    }

    private static void requireUnsigned(DType t, String what) {
        if (t.kind() != DType.Kind.UNSIGNED) {
            throw new IllegalArgumentException("layout " + what + " primitive type " + t
                    + " is not an unsigned integer type");
        }
    }

    /**
     * One level of an XLA tiling: the tile's bounds over the most minor physical dimensions, most
     * major first. An entry may be {@link #COMBINE} (printed {@code *}): that dimension is merged
     * into the next more-minor one before this level is applied.
     *
     * <p>A tile may have more entries than the shape has dimensions; the shape is then padded with
     * leading size-1 dimensions.
     * {@snippet :
     * Tile t = Tile.of(8, 128);
     * t.toString();                                   // "(8,128)"
     * Tile.of(2, Tile.COMBINE, 128).toString();       // "(2,*,128)"
     * Tile.of(8, 128).elementCount();                 // 1024
     * }
     *
     * @param dims the tile bounds, each {@code > 0} or {@link #COMBINE}; at least one
     */
    public record Tile(List<Long> dims) {
        /**
         * The marker for a combined dimension ({@code *} in text). It is XLA's
         * {@code Tile::kCombineDimension}, the smallest {@code long}; no other negative entry is valid.
         */
        public static final long COMBINE = Long.MIN_VALUE;

        /**
         * @throws IllegalArgumentException if the tile is empty or an entry is {@code <= 0} and not
         *     {@link #COMBINE}
         */
        public Tile {
            dims = List.copyOf(dims);
            if (dims.isEmpty()) {
                throw new IllegalArgumentException("layout has invalid tiles: a tile needs at least one dimension, got ()");
            }
            for (int i = 0; i < dims.size(); i++) {
                long d = dims.get(i);
                if (d <= 0 && d != COMBINE) {
                    throw new IllegalArgumentException("layout has invalid tiles: entry " + d + " at position " + i
                            + " of tile " + describe(dims) + " must be > 0 or '*'");
                }
            }
        }

        /** {@return a tile with these bounds, most major first} */
        public static Tile of(long... dims) {
            List<Long> list = new ArrayList<>(dims.length);
            for (long d : dims) {
                list.add(d);
            }
            return new Tile(list);
        }

        /** {@return the number of entries} */
        public int rank() {
            return dims.size();
        }

        /** {@return the entry at {@code i}, possibly {@link #COMBINE}} */
        public long dim(int i) {
            return dims.get(i);
        }

        /** {@return whether entry {@code i} is the combine marker {@code *}} */
        public boolean isCombined(int i) {
            return dims.get(i) == COMBINE;
        }

        /** {@return whether any entry is the combine marker {@code *}} */
        public boolean hasCombined() {
            return dims.contains(COMBINE);
        }

        /**
         * {@return the product of the non-combined entries: the elements in one tile}
         *
         * @throws IllegalArgumentException if the product overflows a {@code long}
         */
        public long elementCount() {
            long n = 1;
            for (long d : dims) {
                if (d != COMBINE) {
                    try {
                        n = Math.multiplyExact(n, d);
                    } catch (ArithmeticException e) {
                        throw Errors.overflows("element count of tile " + this, e);
                    }
                }
            }
            return n;
        }

        /** {@return the tile as XLA prints it, e.g. {@code "(2,*,128)"}} */
        @Override
        public String toString() {
            return describe(dims);
        }

        private static String describe(List<Long> dims) {
            StringBuilder sb = new StringBuilder("(");
            for (int i = 0; i < dims.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                long d = Objects.requireNonNull(dims.get(i));
                sb.append(d == COMBINE ? "*" : Long.toString(d));
            }
            return sb.append(')').toString();
        }
    }

    /**
     * An XLA split config ({@code SC(d:i,j,...)}): the physical dimension {@code d}, counted from the
     * major end, is stored in pieces that start at the given split indices.
     * {@snippet :
     * SplitConfig sc = SplitConfig.of(1, 40, 130);
     * sc.toString(); // "(1:40,130)"
     * // in f32[150,200,100]{0,1,2:SC(1:40,130)} it splits logical dim 1 into 40, 90 and 70
     * }
     *
     * @param dimension the physical dimension, 0 = most major; {@code >= 0}
     * @param splitIndices where the pieces start, at least one
     */
    public record SplitConfig(long dimension, List<Long> splitIndices) {
        /** @throws IllegalArgumentException if the dimension is negative or there is no split index */
        public SplitConfig {
            splitIndices = List.copyOf(splitIndices);
            if (dimension < 0) {
                throw new IllegalArgumentException("split config dimension " + dimension + " is negative");
            }
            if (splitIndices.isEmpty()) {
                throw new IllegalArgumentException("split config for dimension " + dimension + " has no split index");
            }
        }

        /** {@return a split config of physical dimension {@code dimension} at these indices} */
        public static SplitConfig of(long dimension, long... splitIndices) {
            List<Long> list = new ArrayList<>(splitIndices.length);
            for (long i : splitIndices) {
                list.add(i);
            }
            return new SplitConfig(dimension, list);
        }

        /** {@return the config as XLA prints it inside {@code SC}, e.g. {@code "(1:40,130)"}} */
        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("(").append(dimension).append(':');
            for (int i = 0; i < splitIndices.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                sb.append(splitIndices.get(i));
            }
            return sb.append(')').toString();
        }
    }
}
