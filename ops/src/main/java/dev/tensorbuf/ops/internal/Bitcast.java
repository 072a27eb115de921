package dev.tensorbuf.ops.internal;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.MapForm;
import dev.tensorbuf.views.Remap;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import dev.tensorbuf.views.XlaLayout;
import dev.tensorbuf.views.XlaShape;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.internal.RemapChains;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * XLA's {@code bitcast}: the same bytes under another shape and layout. Its output-to-input map
 * runs output logical index to physical offset (the target layout) and back through the
 * source layout's inverse, written once as view ops ({@link #steps}): HLO indexing composes
 * them ({@link #outputToInput}), and {@link #apply} remaps the view through them, so the result
 * shares the source's buffer and offset and a strided source stays strided by arithmetic. The
 * source must therefore be one buffer whose map is an XLA layout: a view made from an XLA shape,
 * or a strided view whose strides pack its elements in some dimension order, or one that is its
 * buffer's whole layout ({@link ViewMap.Single#wholeLayout()}) with strides that leave the gaps
 * of tile padding, sized by the bytes that layout owns. Where either side is tiled (or the two
 * hold different element counts in the same bytes, as a tail padding allows) the map is no
 * view op's: the target is laid over the source's bytes from its first element
 * ({@link TensorView#of}). A view made by other ops is first simplified
 * ({@link TensorView#form()}) to find its layout.
 * {@snippet :
 * TensorView v = TensorView.of(buffer, "f32[2,3]{1,0}");
 * Bitcast.apply(v, "f32[3,2]{0,1}").indexingMap().toString();
 * // "(d0, d1) -> (d1 * 3 + d0), domain: d0 in [0, 2], d1 in [0, 1]"
 * }
 */
public final class Bitcast {
    private Bitcast() {
    }

    /** {@return the bitcast view} @see #apply(TensorView, ArrayShape) */
    public static TensorView apply(TensorView view, String targetShape) {
        if (!(XlaShape.parse(targetShape) instanceof ArrayShape target)) {
            throw new IllegalArgumentException("bitcast of " + view + " needs an array shape, not " + targetShape);
        }
        return apply(view, target);
    }

    /**
     * {@return the same bytes as {@code target}}
     *
     * @throws IllegalArgumentException if the source's map is not an XLA layout (naming its
     *     form), element widths differ, or the byte sizes differ
     */
    public static TensorView apply(TensorView view, ArrayShape target) {
        ArrayShape laidOut = target.laidOut();
        TensorView packed = packedRemap(view, laidOut);
        if (packed != null) {
            return packed;
        }
        ArrayShape source;
        long offset;
        Optional<MapForm.Tiled.Layout> tiled = tiledLayout(view);
        if (tiled.isPresent()) {
            // A tiled layout recovered from the view's map (made from an XLA shape, a transpose of
            // one, or the same map made another way): its bytes from the layout's first slot.
            source = tiled.get().shape(view.dtype());
            offset = tiled.get().offset();
        } else {
            Optional<StridedLayout> strided = view.stridedLayout();
            if (strided.isEmpty() && !(view.map() instanceof ViewMap.Single)) {
                throw new IllegalArgumentException("bitcast of " + view + ": a padded or concatenated view has no layout to reinterpret");
            }
            source = sourceLayout(view, strided);
            // The untiled source layout puts index 0 at 0: the view's offset there is the layout's.
            offset = strided.orElseThrow().offset();
        }
        int bits = view.access().storageBits();
        if (bits != 8 * view.dtype().byteWidth()) {
            // A packed sub-byte view keeps its element size: without it, the size counts a byte an element.
            source = source.withLayout(source.requireLayout().withElementSizeInBits(bits));
        }
        if (view.dtype().bitWidth() != laidOut.dtype().bitWidth()
                || view.access().storageBits() != storageBits(laidOut)) {
            throw new IllegalArgumentException("bitcast of " + view + " to " + laidOut + ": element storage differs ("
                    + view.access().storageBits() + " vs " + storageBits(laidOut) + " bits)");
        }
        if (source.layout().map(l -> !l.tiles().isEmpty()).orElse(false) && source.physicalByteSize() > source.arraySize()) {
            // XLA sizes a tiled array by its first tile; a later tile that pads inside it puts
            // elements past that size, where the target's bytes end.
            throw new IllegalArgumentException("bitcast of " + view + ": its layout " + source + " places elements in "
                    + source.physicalByteSize() + " bytes, past XLA's array size of " + source.arraySize()
                    + " bytes (a later tile pads inside the first), so a bitcast would leave some out");
        }
        if (source.arraySize() != laidOut.arraySize()) {
            throw new IllegalArgumentException("bitcast of " + view + " to " + laidOut + ": " + source.arraySize()
                    + " bytes vs " + laidOut.arraySize() + " bytes");
        }
        long bitOffset = Math.multiplyExact(offset, view.access().storageBits());
        if (bitOffset % 8 != 0) {
            throw new IllegalArgumentException("bitcast of " + view + ": element offset " + offset + " is not at a byte");
        }
        long bytes = view.buffer().byteSize() - bitOffset / 8;
        return TensorView.of(view.buffer().slice(bitOffset / 8, bytes), laidOut);
    }

    /**
     * {@return the bitcast of a strided view whose strides pack its elements in some order (its
     * layout, no padding owned) to an untiled target of as many elements stored alike, from a
     * byte; else null, and {@link #apply} checks and refuses as for any view} The common case
     * builds no XLA shape for the source (validating one costs more than the remaps).
     */
    private static TensorView packedRemap(TensorView view, ArrayShape laidOut) {
        Optional<StridedLayout> strided = view.stridedLayout();
        XlaLayout to = laidOut.requireLayout();
        if (strided.isEmpty() || !to.tiles().isEmpty() || view.dtype().bitWidth() != laidOut.dtype().bitWidth()) {
            return null;
        }
        int bits = view.access().storageBits();
        long[] outDims = longs(laidOut.dims());
        long count = 1;
        for (long d : outDims) {
            count *= d;
        }
        StridedLayout l = strided.get();
        int[] order = packedOrder(l);
        if (order == null || bits != storageBits(laidOut) || count != view.elementCount()
                || Math.multiplyExact(l.offset(), bits) % 8 != 0 || ownsMoreThanItsElements(view)) {
            return null;
        }
        return remapped(view, steps(longs(view.dims()), order, outDims, ints(to.minorToMajor())));
    }

    /**
     * {@return the view remapped through the steps in turn, made once: its map is the source
     * layout's at its offset, so the result's is the target's}
     */
    private static TensorView remapped(TensorView view, List<Remap> steps) {
        return RemapChains.remap(view, steps);
    }

    /** {@return the tiled layout a one-buffer view reads whole (every element, in its own dims), from its map form} */
    private static Optional<MapForm.Tiled.Layout> tiledLayout(TensorView view) {
        if (!(view.map() instanceof ViewMap.Single) || view.stridedLayout().isPresent()
                || !(view.form() instanceof MapForm.Tiled t)) {
            return Optional.empty();
        }
        // A recovered layout's dims cover its start plus the view's dims, so dims equal to the
        // view's put the start at 0: no start test is needed.
        return t.layout().filter(l -> l.dims().equals(view.dims()));
    }

    private static int storageBits(ArrayShape shape) {
        long e = shape.requireLayout().elementSizeInBits();
        return e != 0 ? (int) e : 8 * shape.dtype().byteWidth();
    }

    /**
     * {@return the XLA shape whose layout map is the view's map up to a constant offset}: the
     * dimensions ordered by stride, minor first, when each stride is the product of the sizes
     * more minor than it (size-1 dimensions aside) and the view owns no padding; else, for a
     * view that is its buffer's whole layout, the one {@link #wholeStridedLayout} builds
     */
    private static ArrayShape sourceLayout(TensorView view, Optional<StridedLayout> strided) {
        if (strided.isPresent()) {
            StridedLayout l = strided.get();
            int[] order = byStride(l);
            boolean packed = packs(l, order);
            ArrayShape whole = packed && !ownsMoreThanItsElements(view) ? null : wholeStridedLayout(view, l, order);
            if (whole != null) {
                return whole;
            }
            if (packed) {
                return view.shape().withLayout(XlaLayout.of(order));
            }
        }
        throw new IllegalArgumentException("bitcast of " + view + " reads its bytes in place, so it takes a view made"
                + " from an XLA shape or a strided view whose strides pack its elements; this one " + whyNot(view, strided)
                + ": materialize it in the layout you want first (CopyEngine.materialize)");
    }

    /** {@return the dimensions by stride, minor first, ties to the higher dimension first (more minor)} */
    private static int[] byStride(StridedLayout l) {
        int[] order = new int[l.rank()];
        for (int i = 0; i < order.length; i++) {
            int k = i;
            while (k > 0 && minorFirst(l, i, order[k - 1])) {
                order[k] = order[k - 1];
                k--;
            }
            order[k] = i;
        }
        return order;
    }

    /** {@return whether each stride in {@code order} is the product of the sizes before it, size-1 dimensions aside} */
    private static boolean packs(StridedLayout l, int[] order) {
        long step = 1;
        for (int d : order) {
            if (l.sizes().get(d) != 1 && l.strides().get(d) != step) {
                return false;
            }
            step *= l.sizes().get(d);
        }
        return true;
    }

    /** {@return the layout (minor to major) whose strides the view's are, or null when they do not pack} */
    private static int[] packedOrder(StridedLayout l) {
        int[] order = byStride(l);
        return packs(l, order) ? order : null;
    }

    /** {@return whether the view is its buffer's whole layout and that layout takes more bytes than its elements (tile padding)} */
    private static boolean ownsMoreThanItsElements(TensorView view) {
        return view.map() instanceof ViewMap.Single s && s.wholeLayout()
                && s.layoutBytes() != (Math.multiplyExact(view.elementCount(), view.access().storageBits()) + 7) / 8;
    }

    /**
     * {@return an XLA shape whose layout reads as {@code l} (its dimensions in {@code byStride},
     * the packed check's stride order, minor first) and takes the bytes the view's whole layout
     * owns ({@link ViewMap.Single#layoutBytes()}), or null when the view is not marked as its
     * buffer's whole layout, or starts past element 0, flips or is empty (the packed rule and its
     * refusals decide those)}
     *
     * <p>Strides with gaps cannot say which tiles made them: {@code f32[10,20]{1,0:T(8,128)}} and
     * {@code T(16,128)} both read {@code d0 * 128 + d1} and both take 8,192 bytes. A bitcast reads
     * only the bytes and their count, so every tiling that agrees on the map and the layout's bytes
     * gives XLA's answer; the one built here is the plainest: the dimensions in stride order, one
     * tile of the padded extents the strides leave (the room below the smallest stride held by a
     * size-1 dimension, as in {@code f32[1,20]{0,1:T(384,3)}}), the outermost extent or else
     * {@code L(n)} making up the layout's bytes. Only a view with padding comes here (a packed
     * one without is its plain minor-to-major order, which {@link #sourceLayout} gives): a packed
     * one with padding ({@code f32[2,128]{1,0:T(8,128)}}, 4,096 bytes) takes its padded size, as XLA's.
     *
     * @throws IllegalArgumentException if the view is such a whole layout but its strides nest in
     *     no XLA layout, or reach past the layout's bytes
     */
    private static ArrayShape wholeStridedLayout(TensorView view, StridedLayout l, int[] byStride) {
        if (!(view.map() instanceof ViewMap.Single single) || !single.wholeLayout() || l.offset() != 0
                || view.elementCount() == 0) {
            return null;
        }
        int rank = l.rank();
        List<Integer> ones = new ArrayList<>();
        for (int d = 0; d < rank; d++) {
            if (l.sizes().get(d) == 1) {
                ones.add(d);
            } else if (l.strides().get(d) < 0) {
                return null;
            }
        }
        // The packed check's order, size-1 dimensions left out: they hold no stride.
        List<Integer> order = new ArrayList<>(rank - ones.size());
        for (int d : byStride) {
            if (l.sizes().get(d) != 1) {
                order.add(d);
            }
        }
        List<Integer> minorToMajor = new ArrayList<>();
        List<Long> extents = new ArrayList<>();
        long below = 1;
        long reach = 1;
        for (int d : order) {
            long stride = l.strides().get(d);
            if (stride < reach || stride % below != 0) {
                throw noLayout(view, l, stride < reach ? "dimension " + d + "'s stride " + stride
                        + " falls inside the dimensions below it, which reach " + reach
                        : "dimension " + d + "'s stride " + stride + " is not a multiple of " + below);
            }
            if (minorToMajor.isEmpty() && stride > 1) {
                if (ones.isEmpty()) {
                    throw noLayout(view, l, "its smallest stride is " + stride
                            + ", and no size-1 dimension holds the room below it");
                }
                minorToMajor.add(ones.removeFirst());
                extents.add(stride);
            } else if (!minorToMajor.isEmpty()) {
                extents.set(extents.size() - 1, stride / below);
            }
            minorToMajor.add(d);
            extents.add(l.sizes().get(d));
            below = stride;
            reach = Math.multiplyExact(stride, l.sizes().get(d));
        }
        if (minorToMajor.isEmpty()) {
            // One element: a size-1 dimension holds whatever padding the layout has.
            minorToMajor.add(ones.removeFirst());
            extents.add(1L);
        }
        minorToMajor.addAll(ones);
        int bits = view.access().storageBits();
        long bytes = single.layoutBytes();
        long slots = Math.multiplyExact(bytes, 8) / bits;
        if (reach > slots) {
            throw noLayout(view, l, "its dimensions take " + reach + " slots with their padding, past the " + slots
                    + " of its layout's " + bytes + " bytes");
        }
        XlaLayout plain = XlaLayout.of(minorToMajor.stream().mapToInt(Integer::intValue).toArray());
        if (slots % below == 0) {
            extents.set(extents.size() - 1, slots / below);
        }
        ArrayShape candidate = laidOutIn(view, plain.withTiles(tileOf(extents)), bits);
        if (candidate.arraySize() != bytes) {
            candidate = laidOutIn(view, plain.withTiles(tileOf(extents)).withTailPaddingAlignment(slots), bits);
        }
        if (candidate.arraySize() != bytes) {
            throw noLayout(view, l, "no layout of these strides takes its layout's " + bytes + " bytes");
        }
        return candidate;
    }

    private static ArrayShape laidOutIn(TensorView view, XlaLayout layout, int bits) {
        XlaLayout sized = bits != 8 * view.dtype().byteWidth() ? layout.withElementSizeInBits(bits) : layout;
        return view.shape().withLayout(sized);
    }

    /** {@return one tile of the extents, physical minor first, most major first as a tile is written} */
    private static XlaLayout.Tile tileOf(List<Long> extentsMinorFirst) {
        long[] dims = new long[extentsMinorFirst.size()];
        for (int k = 0; k < dims.length; k++) {
            dims[dims.length - 1 - k] = extentsMinorFirst.get(k);
        }
        return XlaLayout.Tile.of(dims);
    }

    private static IllegalArgumentException noLayout(TensorView view, StridedLayout l, String why) {
        return new IllegalArgumentException("bitcast of " + view + " reads its bytes in place, so it takes a view whose map"
                + " is an XLA layout; this one is its buffer's whole layout with strides " + l.strides() + " for sizes "
                + l.sizes() + ", which nest in no XLA layout (" + why + "): materialize it in the layout you want first"
                + " (CopyEngine.materialize)");
    }

    private static String whyNot(TensorView view, Optional<StridedLayout> strided) {
        if (strided.isEmpty()) {
            return "has the map " + view.indexingMap() + " (" + view.form().whyNotStrided().orElse("not strided") + ")";
        }
        List<Long> strides = strided.get().strides();
        for (int d = 0; d < strides.size(); d++) {
            if (strides.get(d) < 0 && strided.get().sizes().get(d) > 1) {
                return "has stride " + strides.get(d) + " in dimension " + d + ", a flip no layout describes";
            }
        }
        return "has strides " + strides + " for sizes " + strided.get().sizes() + ", which leave gaps or overlap";
    }

    private static boolean minorFirst(StridedLayout l, int a, int b) {
        long sa = l.strides().get(a);
        long sb = l.strides().get(b);
        return sa < sb || (sa == sb && a > b);
    }

    /**
     * {@return output logical index to input logical index of a bitcast} The one writing of the
     * map: the composition of {@link #steps}, which {@link #apply} remaps an untiled view through.
     */
    public static IndexingMap outputToInput(ArrayShape input, ArrayShape output) {
        List<Remap> steps = steps(input, output);
        if (steps.size() == 1 && steps.getFirst() instanceof Remap.Affine only) {
            // A permutation (or the identity) is already in its simplest form.
            return only.toIndexingMap();
        }
        IndexingMap map = steps.getFirst().toIndexingMap();
        for (int k = 1; k < steps.size(); k++) {
            map = IndexingMap.compose(map, steps.get(k).toIndexingMap());
        }
        return map.simplify();
    }

    /**
     * {@return a bitcast's output-to-input map as view ops, the input's first}: when the physical
     * orders line up dimension by dimension (XLA's {@code TransposeIsBitcast}) one transpose;
     * else input physical to logical (a transpose), the reshape of the physical shapes, output
     * logical to physical (a transpose), leaving out the transposes that are identities (a
     * bitcast that changes nothing is the identity transpose). Remapping a view through them in order gives the view
     * whose map is {@link #outputToInput}'s composed into its own.
     * {@snippet :
     * Bitcast.steps(ArrayShape.parse("f32[2,3]{0,1}"), ArrayShape.parse("f32[6]{0}"));
     * // "[(d0, d1) -> (d1, d0), domain: d0 in [0, 2], d1 in [0, 1], reshape [3, 2] -> [6]]" (toString)
     * }
     *
     * @throws IllegalArgumentException if the element counts differ
     */
    public static List<Remap> steps(ArrayShape input, ArrayShape output) {
        return steps(longs(input.dims()), ints(minorToMajor(input)), longs(output.dims()), ints(minorToMajor(output)));
    }

    private static List<Remap> steps(long[] inDims, int[] in, long[] outDims, int[] out) {
        int rank = in.length;
        if (rank == out.length) {
            int[] perm = new int[rank];
            boolean lined = true;
            for (int k = 0; k < rank && lined; k++) {
                lined = inDims[in[k]] == outDims[out[k]];
                perm[out[k]] = in[k];
            }
            if (lined) {
                return List.of(Transpose.affine(outDims, perm));
            }
        }
        int[] toLogical = physicalOrder(in);
        int[] outOrder = physicalOrder(out);
        long[] inPhysical = permuted(inDims, toLogical);
        long[] outPhysical = permuted(outDims, outOrder);
        Remap reshape = Remap.Reshape.of(inPhysical, outPhysical);
        Remap first = isIdentity(toLogical) ? null : Transpose.affine(inPhysical, toLogical);
        Remap last = isIdentity(outOrder) ? null : Transpose.affine(outDims, inverse(outOrder));
        if (first == null) {
            return last == null ? List.of(reshape) : List.of(reshape, last);
        }
        return last == null ? List.of(first, reshape) : List.of(first, reshape, last);
    }

    private static long[] permuted(long[] dims, int[] order) {
        long[] out = new long[order.length];
        for (int k = 0; k < order.length; k++) {
            out[k] = dims[order[k]];
        }
        return out;
    }

    /** {@return the logical dim of each physical dim, major first: a transpose from physical to logical order} */
    private static int[] physicalOrder(int[] minorToMajor) {
        int rank = minorToMajor.length;
        int[] perm = new int[rank];
        for (int k = 0; k < rank; k++) {
            perm[k] = minorToMajor[rank - 1 - k];
        }
        return perm;
    }

    private static int[] inverse(int[] perm) {
        int[] inv = new int[perm.length];
        for (int k = 0; k < perm.length; k++) {
            inv[perm[k]] = k;
        }
        return inv;
    }

    private static boolean isIdentity(int[] perm) {
        for (int k = 0; k < perm.length; k++) {
            if (perm[k] != k) {
                return false;
            }
        }
        return true;
    }

    /** {@return the layout's dims, minor first; XLA's default (descending) when none is written} */
    public static List<Integer> minorToMajor(ArrayShape shape) {
        return shape.layout().map(XlaLayout::minorToMajor).orElseGet(() -> XlaLayout.descending(shape.rank()).minorToMajor());
    }

    /** {@return the dimension sizes in physical (major-to-minor) order} */
    public static List<Long> physicalDims(ArrayShape shape) {
        List<Integer> m2m = minorToMajor(shape);
        List<Long> out = new ArrayList<>();
        for (int k = m2m.size() - 1; k >= 0; k--) {
            out.add(shape.dim(m2m.get(k)));
        }
        return out;
    }

    /** {@return logical index to physical index: physical dim k is logical dim m2m[rank-1-k]} */
    public static IndexingMap logicalToPhysical(ArrayShape shape) {
        return Transpose.affine(longs(shape.dims()), inverse(physicalOrder(ints(minorToMajor(shape))))).toIndexingMap();
    }

    /** {@return physical index to logical index} */
    public static IndexingMap physicalToLogical(ArrayShape shape) {
        return Transpose.affine(longs(physicalDims(shape)), physicalOrder(ints(minorToMajor(shape)))).toIndexingMap();
    }

    private static int[] ints(List<Integer> values) {
        int[] out = new int[values.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = values.get(i);
        }
        return out;
    }

    private static long[] longs(List<Long> values) {
        long[] out = new long[values.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = values.get(i);
        }
        return out;
    }
}
