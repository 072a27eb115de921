/**
 * The block kernels behind {@link dev.tensorbuf.ops.quant.BlockTensor}: ggml's block-quantized
 * types to f32 and back, bit for bit as gguf-py's {@code gguf.quants}.
 *
 * <p>Exported only to {@code dev.tensorbuf.bench} (the dequantize benchmark) and
 * {@code dev.tensorbuf.cli} (the gguf commands). Rules: sizes are in values unless named
 * {@code ...Bytes}; offsets into segments are in bytes.
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>BlockKernels.java</code></dt>
 * <dd>the entry: <code>dequantize</code> and <code>quantize</code> of whole blocks, vector or
 *     scalar</dd>
 * <dt><code>ScalarBlocks.java</code></dt>
 * <dd>every block type in scalar code</dd>
 * <dt><code>VectorBlocks.java</code></dt>
 * <dd>the Vector API dequantization of the types most GGUF weights use (Q8_0, Q4_0, Q4_K, Q6_K), giving the same bits as <code>ScalarBlocks</code></dd>
 * </dl>
 */
package dev.tensorbuf.ops.quant.internal;
