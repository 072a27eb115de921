/**
 * ggml's block-quantized element types as bytes to values: {@link dev.tensorbuf.ops.quant.BlockTensor} is a block-quantized tensor (a
 * buffer, a {@link dev.tensorbuf.views.BlockType} and logical dims) whose outer dims slice, permute
 * and concatenate without copying, and which dequantizes into any view the copy engine writes.
 * Sizes are in values unless named {@code ...Bytes}; offsets into segments are in bytes.
 * The block kernels behind it ({@code internal/BlockKernels}: blocks to f32, and f32 to Q8_0 and
 * Q4_0, bit for bit as gguf-py's {@code gguf.quants}) are internal.
 * {@snippet :
 * BlockTensor w = BlockTensor.of(buffer, BlockType.Q4_K, 16, 256);  // 16 rows of one block each
 * w.slice(0, 4, 8).dequantize(floats);                              // rows 4..7 into an f32[4,256] view
 * }
 */
package dev.tensorbuf.ops.quant;
