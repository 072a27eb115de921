package dev.tensorbuf.views;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.internal.RemapChains;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A logical tensor over memory: a {@link MemoryBuffer} plus a map from logical index to element offset
 * ({@link ViewMap}), with an element type and logical dimensions. Layouts lower to the map
 * ({@link StridedLayout#toIndexingMap()}, {@link ArrayShape#toIndexingMap()}); ops make new views
 * by composing their output-to-input map into it ({@link #remap}), never moving bytes. An op on a
 * view is made in O(rank) from the op's description (new strides, a {@link Remap}, a
 * {@link Remap.Pad}, parts side by side); the maps are composed when first asked for, then kept.
 *
 * <p>Making a view checks, from the map's range and without visiting elements, that every
 * element it reaches lies in its buffer, naming the first index that does not. Typed element
 * access (get and set by index, bulk transfer in logical order, iteration) is
 * {@link TensorElements}'s, and needs host-accessible memory; views over device buffers describe
 * it for the copy engine and exporters only. Views are immutable; the bytes are not.
 * {@snippet :
 * try (Allocator arena = Allocators.confined()) {
 *     TensorView v = TensorView.of(arena.allocate(96), "f32[3,5]{1,0:T(2,2)}");
 *     TensorElements.of(v).setFloat(7f, 2, 3);
 *     v.buffer().segment().getAtIndex(ValueLayout.JAVA_FLOAT, 17); // 7.0: Figure 1's slot of (2, 3)
 *     v.form();           // a Tiled form: xlaShape(F32) is Optional[f32[3,5]{1,0:T(2,2)}], recovered from the map
 *     v.stridedLayout();  // Optional.empty: tiles are not strides
 * }
 * }
 */
public final class TensorView {
    private final ArrayShape shape;
    private final long[] dims;
    private final ElementAccess access;
    private final boolean host;
    /** Fast path of a one-buffer view; null for padded and concatenated views. */
    private final MemoryBuffer buffer;
    /** Non-null when the single map is affine: offset = base + sum(index_i * strides_i). */
    private final long[] strides;
    private final long base;
    /** How the map is built on first need; null for a view made from a map. */
    private final PendingMap pending;
    private volatile ViewMap map;
    private volatile DerivedMap derived;
    private volatile IndexingMap.Compiled compiled;
    private volatile Optional<StridedLayout> layout;

    /**
     * A view; its map is {@code map} when given, else built from {@code pending} on first need.
     * The caller ({@link ViewFactory}, an op) has validated it and derived the fast-path fields.
     */
    TensorView(ArrayShape shape, long[] dims, ElementAccess access, boolean host, MemoryBuffer buffer, long[] strides, long base,
               ViewMap map, PendingMap pending) {
        this.shape = shape;
        this.dims = dims;
        this.access = access;
        this.host = host;
        this.buffer = buffer;
        this.strides = strides;
        this.base = base;
        this.map = map;
        this.pending = pending;
        // Only TensorView.of keeps an XLA layout in a view's shape (for printing and errors), and
        // its map is that layout's; what reads the layout (the copy engine's tiles) recovers it
        // from the map's form.
        assert shape.layout().isEmpty() || pending instanceof PendingMap.Layout
                || map instanceof ViewMap.Single single && single.map().equals(shape.toIndexingMap())
                : "a view keeps the XLA layout of " + shape + " but reads another map";
    }

    // ---- factories -------------------------------------------------------------------------

    /**
     * {@return a view of {@code buffer} laid out as {@code shape}: its XLA layout (the default
     * descending one when it has none), tiles and {@code E(n)} packing included}
     *
     * @throws IllegalArgumentException for dynamic dimensions, an {@code E(n)} the element
     *     access cannot store, or a buffer too small (naming the first index beyond it)
     */
    public static TensorView of(MemoryBuffer buffer, ArrayShape shape) {
        return ViewFactory.of(Objects.requireNonNull(buffer, "buffer"), shape);
    }

    /** {@return a view of {@code buffer} laid out as the XLA shape text, e.g. {@code "f32[2,4]{0,1}"}} @see #of(MemoryBuffer, ArrayShape) */
    public static TensorView of(MemoryBuffer buffer, String shapeText) {
        return of(buffer, ViewFactory.arrayShape(shapeText));
    }

    /**
     * {@return a view of {@code buffer} through a strided layout, one element per whole byte
     * count ({@link ElementAccess#of}: sub-byte types unpacked, as NumPy and ml_dtypes store them)}
     *
     * @throws IllegalArgumentException if the buffer is too small, naming the first index beyond it
     */
    public static TensorView strided(MemoryBuffer buffer, DType dtype, StridedLayout layout) {
        return strided(buffer, ElementAccess.of(dtype), layout);
    }

    /** {@return a strided view with the given element storage (e.g. {@link ElementAccess#packed} for DLPack's packed s4)} */
    public static TensorView strided(MemoryBuffer buffer, ElementAccess access, StridedLayout layout) {
        return ViewFactory.strided(Objects.requireNonNull(buffer, "buffer"), access, layout);
    }

    /**
     * {@return a view of any map over buffers: every piece's reach is checked against its buffer}
     * Used by ops that join or pad views; indices no piece holds throw on access.
     *
     * @param map the pieces; each map's dimensions are the view's
     * @param access the element storage of every buffer
     * @param dims the logical dimensions
     * @throws IllegalArgumentException if a piece's map does not have one dimension per logical
     *     dimension, or reaches outside its buffer, or a one-buffer map has constraints (it must
     *     place every index: a partial map is a piece of a padded or concatenated map)
     */
    public static TensorView over(ViewMap map, ElementAccess access, long... dims) {
        return ViewFactory.over(map, access, dims);
    }

    /**
     * {@return a rank-0 view of one element holding {@code value}, in memory freed when the view
     * is unreachable}: the fill of a pad, a broadcast constant. A complex type holds
     * {@code (value, 0)}.
     *
     * @throws IllegalArgumentException if the type cannot hold the value (see {@link ElementAccess#setDouble})
     */
    public static TensorView scalar(DType dtype, double value) {
        return ViewFactory.scalar(dtype, value);
    }

    /**
     * {@return a rank-0 view holding the integer {@code value}}: exact for every 64-bit value of
     * an integer type (a double holds integers exactly only up to 2^53), and the nearest value of
     * a floating-point or complex type.
     * {@snippet :
     * TensorElements.of(TensorView.scalar(DType.S64, Long.MAX_VALUE)).getLong(); // 9223372036854775807, INT64_MAX as a pad fill
     * TensorView.scalar(DType.U8, 256);                      // IllegalArgumentException: out of u8's range
     * }
     *
     * @throws IllegalArgumentException if an integer type or pred cannot hold the value
     */
    public static TensorView scalar(DType dtype, long value) {
        return ViewFactory.scalar(dtype, value);
    }

    // ---- ops as maps -----------------------------------------------------------------------

    /**
     * {@return the view read through {@code outputToInput}: the new map is
     * {@code compose(map(), outputToInput)}}, in O(size of the maps), no element moved. The
     * new view has no XLA layout; its {@link #form()} says what the composed map is.
     * {@snippet :
     * TensorView t = v.remap(IndexingMap.parse("(d0, d1) -> (d1, d0), domain: d0 in [0, 2], d1 in [0, 1]"), 3, 2);
     * t.indexingMap().toString(); // "(d0, d1) -> (d1 * 3 + d0), domain: d0 in [0, 2], d1 in [0, 1]" for v = f32[2,3]{1,0}
     * }
     *
     * @param outputToInput from the new logical index to this view's; its domain must be the
     *     whole box {@code [0, outputDims_i)} and its results stay in this view's dimensions
     * @param outputDims the new logical dimensions
     * @throws IllegalArgumentException naming the result, its range and the dimension it leaves
     */
    public TensorView remap(IndexingMap outputToInput, long... outputDims) {
        return OpViews.remap(this, outputToInput, outputDims);
    }

    /**
     * {@return the same view as {@link #remap(IndexingMap, long...)} with
     * {@code outputToInput.toIndexingMap()}}, made in O(rank^2) by arithmetic on the remap: a
     * view with strides composes an {@link Remap.Affine}, or a {@link Remap.Reshape} whose merged
     * groups are contiguous in it, into new strides; any other keeps the remap and composes the
     * maps when {@link #map()} or anything built on it first asks. A remap that leaves a
     * dimension, or an empty result, takes the general path.
     * {@snippet :
     * TensorView v = TensorView.of(buffer, "f32[2,3]{1,0}");
     * TensorView t = v.remap(Remap.Affine.of(new long[] {3, 2}, new long[][] {{0, 1}, {1, 0}}, new long[] {0, 0}));
     * t.toString(); // "f32[3,2] strides [1, 3]"
     * }
     *
     * @throws IllegalArgumentException if the map does not give one result per dimension of this
     *     view, or a result leaves its dimension (naming the result and its range)
     */
    public TensorView remap(Remap outputToInput) {
        return OpViews.remap(this, outputToInput);
    }

    static {
        // A remap through several steps at once is the bitcast's, in ops: not API, reached through views.internal.
        RemapChains.install(OpViews::remap);
    }

    /**
     * {@return the view read through {@code outputToInput} where its domain (bounds and
     * constraints) holds, and {@code fill} elsewhere; writes there throw}
     *
     * @param outputToInput from the new logical index to this view's, partial
     * @param outputDims the new logical dimensions
     * @param fill a rank-0 view of the same element type
     * @throws IllegalArgumentException if the fill is not a rank-0 view of this type, or a result
     *     leaves this view's dimensions
     */
    public TensorView padded(IndexingMap outputToInput, long[] outputDims, TensorView fill) {
        return OpViews.padded(this, outputToInput, outputDims, fill);
    }

    /**
     * {@return the view padded by {@code pad}'s windows, {@code fill} everywhere else}: the same
     * view as {@link #padded(IndexingMap, long[], TensorView)} with {@code pad.toIndexingMap()}, made
     * in O(rank) (its results stay in this view by construction), its map composed on first need.
     * {@snippet :
     * TensorView v = TensorView.of(buffer, "f32[2]{0}");   // [1, 2]
     * TensorElements.of(v.padded(Remap.Pad.of(new long[] {2}, new long[] {1}, new long[] {2}, new long[] {1}),
     *         TensorView.scalar(DType.F32, 0))).toFloatArray(); // [0, 1, 0, 2, 0, 0]
     * }
     *
     * @throws IllegalArgumentException if the fill is not a one-buffer rank-0 view of this type,
     *     or the pad is not of this view's dimensions
     */
    public TensorView padded(Remap.Pad pad, TensorView fill) {
        return OpViews.padded(this, pad, fill);
    }

    /**
     * {@return the parts side by side along {@code dimension}, no element moved}: part {@code k},
     * starting at {@code s_k}, is read on its slab {@code d_dimension in [s_k, s_k + n_k - 1]}
     * through {@code d -> d - s_k} (a {@link Remap.Pad} with no interior padding), made in
     * O(parts * rank); the {@link ViewMap.Concatenated} map is composed when first asked for.
     * {@snippet :
     * TensorElements.of(TensorView.concatenated(0, List.of(a, b))).toFloatArray(); // [1, 2, 3, 4, 5] for a = [1, 2], b = [3, 4, 5]
     * }
     *
     * @throws IllegalArgumentException if there are no parts, the dimension is not one of theirs,
     *     or they differ in type, storage, rank or any other dimension
     */
    public static TensorView concatenated(int dimension, List<TensorView> parts) {
        return ViewRemaps.concatenated(dimension, parts);
    }

    // ---- facts -----------------------------------------------------------------------------

    /** {@return the element type} */
    public DType dtype() {
        return shape.dtype();
    }

    /** {@return the logical shape: type, dimensions and, for a view made from an XLA shape, its layout} */
    public ArrayShape shape() {
        return shape;
    }

    /** {@return the logical dimensions} */
    public List<Long> dims() {
        return shape.dims();
    }

    /** {@return the number of dimensions} */
    public int rank() {
        return dims.length;
    }

    /** {@return the number of logical elements: the shape's count, checked when the shape was built} */
    public long elementCount() {
        // From the dims, not the shape's list of boxed longs: copies ask on every call. The shape
        // checked that the product fits; a 0 anywhere zeroes it whatever came before.
        long n = 1;
        for (long d : dims) {
            n *= d;
        }
        return n;
    }

    /** {@return the element storage: width, packing and conversions} */
    public ElementAccess access() {
        return access;
    }

    /**
     * {@return the buffers the view reads: its one buffer, or each piece's of a padded or
     * concatenated view (a pad's fill among them)} A one-buffer view answers without building
     * its map.
     */
    public List<MemoryBuffer> buffers() {
        return buffer != null ? List.of(buffer) : map().pieces().stream().map(ViewMap.Single::buffer).toList();
    }

    /** {@return where each logical index reads} */
    public ViewMap map() {
        ViewMap m = map;
        if (m == null) {
            m = pending.build(this);
            map = m;
        }
        return m;
    }

    /**
     * {@return the buffer of a one-buffer view}
     *
     * @throws IllegalStateException for padded and concatenated views, which have several
     */
    public MemoryBuffer buffer() {
        if (buffer == null) {
            throw new IllegalStateException(this + " reads " + map().pieces().size() + " buffers; see map().pieces()");
        }
        return buffer;
    }

    /** {@return the simplified map from logical index to element offset; {@link IndexingMap#undefined()} for several pieces} */
    public IndexingMap indexingMap() {
        return derived().simplified();
    }

    /** {@return the form of the map: strided, tiled or general, with the reason when not strided} */
    public MapForm form() {
        return derived().form();
    }

    /** {@return whether the view is one buffer through an affine map; a view made by stride arithmetic answers from its strides} */
    public boolean isStrided() {
        return stridedLayout().isPresent();
    }

    /**
     * {@return the strided layout, when {@link #isStrided()}; {@link #form()} says why not
     * otherwise}. A view made by stride arithmetic reads it off its strides, no map simplified.
     */
    public Optional<StridedLayout> stridedLayout() {
        Optional<StridedLayout> known = layout;
        if (known == null) {
            StridedLayout byArithmetic = strides != null && pending != null && derived == null
                    ? ViewRemaps.simplifiedLayout(dims, strides, base) : null;
            known = byArithmetic != null ? Optional.of(byArithmetic)
                    : form() instanceof MapForm.Strided s ? Optional.of(s.layout()) : Optional.empty();
            layout = known; // a copy asks each call; a view reused for many copies answers once
        }
        return known;
    }

    /** {@return whether every buffer is host-accessible, so elements can be read and written here} */
    public boolean isHostAccessible() {
        return host;
    }

    /** {@return whether the map has been built: tests check that views defer it} */
    boolean mapBuilt() {
        return map != null;
    }

    DerivedMap derived() {
        DerivedMap d = derived;
        if (d == null) {
            d = DerivedMap.of(map(), strides == null ? null : ViewRemaps.simplifiedLayout(dims, strides, base));
            derived = d;
        }
        return d;
    }

    /** {@return the simplified map compiled, for element access of a one-buffer view without strides} */
    IndexingMap.Compiled compiled() {
        IndexingMap.Compiled c = compiled;
        if (c == null) {
            c = derived().simplified().compile();
            compiled = c;
        }
        return c;
    }

    long[] dimsArray() {
        return dims;
    }

    /** {@return the buffer of a one-buffer view, null for padded and concatenated views} */
    MemoryBuffer bufferOrNull() {
        return buffer;
    }

    /** {@return the strides of an affine one-buffer view, else null} */
    long[] stridesArray() {
        return strides;
    }

    long base() {
        return base;
    }

    /**
     * {@return the view whose whole layout this one-buffer view reads, every slot once
     * ({@link ViewMap.Single#wholeLayout()}), or null}: itself when made from an XLA shape or from
     * a map so marked, the view its strides were derived from by a transpose or reverse; known
     * without building a map
     */
    TensorView wholeLayoutOf() {
        // instanceof, not a pattern switch: this runs for every transpose, and the switch's
        // bootstrap adds its type test to each call until it is compiled.
        if (pending instanceof PendingMap.Strided s) {
            return s.whole();
        }
        if (pending instanceof PendingMap.Layout) {
            return this;
        }
        return pending == null && map instanceof ViewMap.Single s && s.wholeLayout() ? this : null;
    }

    /** {@return the bytes of the whole layout of a view that {@link #wholeLayoutOf()} names itself} */
    long wholeLayoutBytes() {
        return pending instanceof PendingMap.Layout ? ViewFactory.layoutBytes(shape, buffer)
                : ((ViewMap.Single) map()).layoutBytes();
    }

    /**
     * {@return the shape text: XLA's canonical text for a view made from an XLA shape, else type
     * and dims; then the strides when the view has them or its map reads as affine, else the
     * simplified map}
     */
    @Override
    public String toString() {
        return ViewText.of(this);
    }
}
