/**
 * Tensors that leave the process, in Arrow's forms: IPC files and streams whose columns are the
 * canonical {@code arrow.fixed_shape_tensor} extension type ({@link dev.tensorbuf.net.ArrowTensors},
 * with the type itself as {@link dev.tensorbuf.net.FixedShapeTensorType}), and tensors served and
 * fetched over Arrow Flight ({@link dev.tensorbuf.net.TensorServer}, {@link dev.tensorbuf.net.TensorClient},
 * which names what it fetches by {@link dev.tensorbuf.net.TensorTicket}), so that a pyarrow client
 * needs nothing of tensorbuf's. Those five are the package's public top-level types; what belongs
 * to one of them is nested in it ({@code ArrowTensors.Tensors}, {@code ArrowTensors.Column},
 * {@code ArrowTensors.Header} with its {@code ColumnHeader}s,
 * {@code TensorServer.Options}, {@code TensorClient.Options}, {@code TensorClient.FetchException}).
 *
 * <p>Rules for every method here: a tensor of dims {@code [N, ...rest]} is {@code N} rows of
 * tensors of dims {@code rest}; sizes are in elements unless named {@code ...Bytes}; memory is
 * shared with Arrow where the layouts allow and copied by the copy engine where they do not.
 * Arrow's memory needs {@code --add-opens=java.base/java.nio=ALL-UNNAMED} on the class path
 * ({@code org.apache.arrow.memory.core} on the module path).
 * {@snippet :
 * ArrowTensors.write(Path.of("x.arrow"), Map.of("x", view));   // view: f32[4,2,3], 4 rows of f32[2,3]
 * try (ArrowTensors.Tensors t = ArrowTensors.read(Path.of("x.arrow"))) {
 *     t.view("x").dims();   // [4, 2, 3]
 * }
 * }
 */
package dev.tensorbuf.net;
