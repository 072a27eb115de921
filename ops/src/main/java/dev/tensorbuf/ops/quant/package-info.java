/**
 * ggml's block-quantized element types as bytes to values: {@link dev.tensorbuf.ops.quant.BlockKernels}
 * dequantizes blocks to f32 and quantizes f32 to Q8_0 and Q4_0, bit for bit as gguf-py's
 * {@code gguf.quants}; {@link dev.tensorbuf.ops.quant.BlockTensor} is a block-quantized tensor (a
 * buffer, a {@link dev.tensorbuf.views.BlockType} and logical dims) whose outer dims slice, permute
 * and concatenate without copying, and which dequantizes into any view the copy engine writes.
 * Sizes are in values unless named {@code ...Bytes}; offsets into segments are in bytes.
 * {@snippet :
 * BlockKernels.defaults().dequantize(BlockType.Q4_K, weights, 0, floats, 0, 16); // 16 blocks: 4096 values
 * }
 */
package dev.tensorbuf.ops.quant;
