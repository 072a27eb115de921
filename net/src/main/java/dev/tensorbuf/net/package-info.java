/**
 * Tensors that leave the process, in Arrow's forms: IPC files and streams whose columns are the
 * canonical {@code arrow.fixed_shape_tensor} extension type ({@link dev.tensorbuf.net.ArrowTensorFiles},
 * {@link dev.tensorbuf.net.ArrowTensors}), and tensors served and fetched over Arrow Flight
 * ({@code TensorServer}, {@code TensorClient}), so that a
 * pyarrow client needs nothing of tensorbuf's.
 *
 * <p>Rules for every method here: a tensor of dims {@code [N, ...rest]} is {@code N} rows of
 * tensors of dims {@code rest}; sizes are in elements unless named {@code ...Bytes}; memory is
 * shared with Arrow where the layouts allow and copied by the copy engine where they do not.
 * Arrow's memory needs {@code --add-opens=java.base/java.nio=ALL-UNNAMED} on the class path
 * ({@code org.apache.arrow.memory.core} on the module path).
 * {@snippet :
 * ArrowTensorFiles.write(Path.of("x.arrow"), Map.of("x", view));   // view: f32[4,2,3], 4 rows of f32[2,3]
 * try (ArrowTensorFiles.Tensors t = ArrowTensorFiles.read(Path.of("x.arrow"))) {
 *     t.view("x").dims();   // [4, 2, 3]
 * }
 * }
 */
package dev.tensorbuf.net;
