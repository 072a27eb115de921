/**
 * Logical tensors over buffers: element types, shapes, layouts and typed views.
 *
 * <p>Key types: {@link dev.tensorbuf.views.TensorView} (a buffer plus a
 * {@link dev.tensorbuf.views.ViewMap} from logical index to element offset),
 * {@link dev.tensorbuf.views.TensorElements} (typed get and set, bulk transfer, iteration),
 * {@link dev.tensorbuf.views.MapForm} (strided, tiled or general, with the reason),
 * {@link dev.tensorbuf.views.ArrayShape} and {@link dev.tensorbuf.views.XlaLayout} (XLA shapes),
 * {@link dev.tensorbuf.views.StridedLayout}, {@link dev.tensorbuf.views.DType},
 * {@link dev.tensorbuf.views.ElementAccess}; the op descriptions views compose on first need:
 * {@link dev.tensorbuf.views.Remap.Affine}, {@link dev.tensorbuf.views.Remap.Reshape},
 * {@link dev.tensorbuf.views.Remap.Pad}. The closed sets are sealed ({@code XlaShape}, {@code Remap},
 * {@code ViewMap}, {@code MapForm}); their kinds are nested in them, as are a layout's tiles and
 * split configs ({@code XlaLayout.Tile}), DLPack's type ({@code DType.DlpackType}) and DirectML's
 * named layouts ({@code StridedLayout.TensorFormat}). Dimension arithmetic ({@code Extents}) is
 * in {@code views.internal}.
 * {@snippet :
 * TensorView v = TensorView.of(buffer, "f32[2,4]{1,0}");
 * TensorElements.of(v).getFloat(1, 7); // IndexOutOfBoundsException: "index 7 out of bounds [0, 4) for dim 1 of f32[2,4]{1,0}"
 * }
 *
 * <p>Rules for every method here: sizes, strides and offsets are in elements unless the name ends
 * in {@code Bytes}; {@code null} arguments throw {@link NullPointerException}.
 *
 * <p>Element types, XLA shapes and layouts, strided layouts. Sizes, strides and offsets are in
 * elements unless a name ends in <code>Bytes</code>.
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>DType.java</code></dt>
 * <dd>every XLA primitive type: bit/byte width, kind, and its DLPack, NumPy/ml_dtypes, safetensors
 *     and DirectML names (reverse lookups throw naming the input)</dd>
 * <dt><code>DType.DlpackType</code> (nested in <code>DType.java</code>)</dt>
 * <dd>a DLPack <code>(code, bits)</code> pair and the code constants</dd>
 * <dt><code>ElementAccess.java</code></dt>
 * <dd>typed reads and writes of one element in a <code>MemorySegment</code> (little-endian),
 *     byte-per-element or packed (1/2/4-bit, first element in the low bits);
 *     <code>of(ArrayShape)</code> is the one rule for which <code>E(n)</code> a type may take, for
 *     views and the copy engine</dd>
 * <dt><code>XlaShape.java</code></dt>
 * <dd>sealed shape family (<code>ArrayShape</code>, <code>XlaShape.Tuple</code>,
 *     <code>BufferShape</code>, <code>XlaShape.Token</code>, <code>XlaShape.Opaque</code>): parse and print
 *     XLA shape text</dd>
 * <dt><code>ArrayShape.java</code></dt>
 * <dd>dtype, dims (dynamic <code>&lt;=N</code>/<code>?</code>), optional layout; element counts,
 *     <code>ArraySize</code> and the bytes the slots take (<code>physicalByteSize</code>), linear
 *     index and its inverse, byte strides, <code>toIndexingMap()</code></dd>
 * <dt><code>XlaShape.Tuple</code>, <code>XlaShape.BufferShape</code>, <code>XlaShape.Token</code>,
 *     <code>XlaShape.Opaque</code> (nested in <code>XlaShape.java</code>)</dt>
 * <dd>the other shape kinds</dd>
 * <dt><code>XlaLayout.java</code></dt>
 * <dd>minor_to_major and the
 *     <code>T</code>/<code>L</code>/<code>#</code>/<code>*</code>/<code>E</code>/<code>S</code>/<code>SC</code>/<code>M</code>
 *     attributes; XLA's equality (ignores <code>M</code>); <code>packedDescending</code>, the
 *     row-major layout files hold (sub-byte types packed), used by <code>Execution.rowMajor</code>
 *     and the CLI's file commands</dd>
 * <dt><code>XlaLayout.Tile</code> (nested in <code>XlaLayout.java</code>)</dt>
 * <dd>one tiling level; <code>*</code> (combine with the next minor dimension) is
 *     <code>Tile.COMBINE</code></dd>
 * <dt><code>XlaLayout.SplitConfig</code> (nested in <code>XlaLayout.java</code>)</dt>
 * <dd><code>SC(d:i,...)</code> split configs</dd>
 * <dt><code>internal/Extents.java</code></dt>
 * <dd>the one rule for a shape's element count, used by every module: a dim of 0 empties the shape
 *     wherever it sits (XLA's rule); otherwise the product must fit in a long. <code>.npy</code>
 *     headers add NumPy's own check (the product of the non-zero dims must fit, for its strides);
 *     <code>toArray</code>, the one <code>List&lt;Long&gt;</code> to <code>long[]</code>
 *     conversion</dd>
 * <dt><code>StridedLayout.java</code></dt>
 * <dd>sizes, strides (zero = broadcast, negative allowed), offset:
 *     packed/broadcast/padded/overlapping, <code>DMLCalcBufferTensorSize</code>, lowering to an
 *     affine <code>IndexingMap</code></dd>
 * <dt><code>StridedLayout.TensorFormat</code> (nested in <code>StridedLayout.java</code>)</dt>
 * <dd>NCHW, NHWC, NCDHW, NDHWC, CHW, HWC, HW, WH, DHW, WHD: strides from a name and names from
 *     strides</dd>
 * <dt><code>TensorView.java</code></dt>
 * <dd>the public view: a buffer plus a map; factories from XLA shapes and strided layouts, ops as
 *     maps (<code>remap</code>, <code>padded</code>, <code>concatenated</code>), facts
 *     (<code>isStrided</code>, <code>stridedLayout</code>, <code>form</code>); typed access is
 *     <code>TensorElements</code>'s. It holds the API, its Javadoc, the view's fields and the maps
 *     it builds on first need; the bodies are in <code>ViewFactory</code>, <code>OpViews</code>,
 *     <code>ViewRemaps</code> and <code>ViewText</code></dd>
 * <dt><code>ViewMap.java</code></dt>
 * <dd>sealed <code>Single(buffer, map)</code>, <code>Padded(data, fill)</code>,
 *     <code>Concatenated(parts)</code>: how a view reaches its bytes</dd>
 * <dt><code>PendingMap.java</code></dt>
 * <dd>how a view's <code>ViewMap</code> is built on first need (from strides, an XLA layout, a
 *     remap, pad windows, parts side by side) and cached: an op makes its view in O(rank) from a
 *     description of itself, and composing later gives the same map as composing at once</dd>
 * <dt><code>Remap.java</code>: <code>Remap.Affine</code>, <code>Remap.Reshape</code></dt>
 * <dd>an op's output-to-input map in a form a strided view composes by stride arithmetic (affine
 *     with constant coefficients; row-major reshape with NumPy's no-copy rule); the
 *     <code>IndexingMap</code> is built lazily</dd>
 * <dt><code>Remap.Pad</code> (nested in <code>Remap.java</code>, not a <code>Remap</code>: its map is partial)</dt>
 * <dd>pad (and each concatenation part) as per-dimension low/high/interior windows (read back by
 *     <code>low()</code>, <code>high()</code>, <code>interior()</code>); its partial map built
 *     once, on demand</dd>
 * <dt><code>ViewFactory.java</code></dt>
 * <dd>the bodies of <code>TensorView</code>'s factories (<code>of</code>, <code>strided</code>,
 *     <code>over</code>, <code>scalar</code>: a rank-0 scalar in its own read-only memory, freed
 *     when unreachable); the checks when a view is made (a closed buffer, the map's reach against
 *     each buffer, <code>E(n)</code> storage) and the fields element access reads; untiled XLA
 *     layouts get their strides by arithmetic (a size of 0 counted as 1, as NumPy strides an empty
 *     array), tiled ones a reach check from their physical size; both build their map on first
 *     need</dd>
 * <dt><code>OpViews.java</code></dt>
 * <dd>the views <code>remap</code> and <code>padded</code> return: from a <code>Remap</code> or
 *     <code>Remap.Pad</code> in O(rank), by new strides or with the op kept as a
 *     <code>PendingMap</code>; from an <code>IndexingMap</code> by composing it at once</dd>
 * <dt><code>ViewRemaps.java</code></dt>
 * <dd>the arithmetic behind making views: range checks of a remap, stride composition,
 *     untiled-layout strides, the strided layout read off the strides, concatenated dimensions,
 *     fill checks</dd>
 * <dt><code>ElementLocator.java</code></dt>
 * <dd>an element's offset and segment for an index (strides, compiled map, or piece reader)</dd>
 * <dt><code>DerivedMap.java</code></dt>
 * <dd>the simplified map, its form (a tiled layout recovered from the map alone, never from the
 *     op or shape that made the view), and the piece reader, computed on first need and kept for
 *     the most recent maps (views made per call ask for one map again); an empty view's
 *     known-empty map keeps no strides, so its strided form takes the view's own. The compiled map
 *     (a hidden class, ~100 us) is one step further, <code>TensorView.compiled()</code>, made only
 *     when an element of a view without strides is read</dd>
 * <dt><code>MapForm.java</code></dt>
 * <dd>sealed <code>Strided</code>, <code>Tiled</code>, <code>General</code>: the simplified map's
 *     form, with the reason a map is not strided; <code>Tiled.Layout</code>, the XLA layout a tiled
 *     map is (order, tiles, the box it reads and its offset), recovered by
 *     <code>internal/TiledRecovery</code></dd>
 * <dt><code>TensorElements.java</code></dt>
 * <dd>typed element access of a view (get/set by index, bulk arrays, <code>forEachIndex</code>,
 *     <code>doubles</code>), moved out of <code>TensorView</code>; it locates through
 *     <code>ElementLocator</code> and transfers through <code>ViewTransfer</code></dd>
 * <dt><code>ViewTransfer.java</code></dt>
 * <dd>bulk copies to and from Java arrays (refusing writes into a view that reads several indices
 *     from one slot: by its strides, or by visiting it with <code>internal/DistinctSlots</code>),
 *     iteration in logical order</dd>
 * <dt><code>ViewText.java</code></dt>
 * <dd><code>TensorView.toString()</code>: XLA shape text, then strides or the simplified map; made
 *     without building a map where the view has strides or a tiled XLA shape, and a map that cannot
 *     be simplified printed as made, since error messages print views</dd>
 * </dl>
 */
package dev.tensorbuf.views;
