package dev.tensorbuf.interop;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.quant.BlockTensor;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.TensorView;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * One tensor of an open {@link GgufFile}: name, ggml type, logical dims, where its bytes are, and
 * those bytes as a read-only slice of the file's mapping (valid until the file closes).
 *
 * <p>{@link #dims()} are <b>logical, row-major</b> (outermost first, as NumPy, safetensors and
 * {@link TensorView} have them): the reverse of the GGUF file's order, which lists
 * {@code ne[0]}, the innermost dim, first. A llama token embedding stored as GGUF dims
 * {@code [4096, 32000]} is {@code dims() == [32000, 4096]}: 32000 rows of 4096 values, each row
 * a run of whole blocks for a block-quantized type.
 * {@snippet :
 * try (GgufFile f = GgufFile.open(Path.of("model.gguf"))) {
 *     GgufTensor t = f.tensor("token_embd.weight");
 *     t.type();        // Q8_0
 *     t.dims();        // [32000, 4096]
 *     t.ggufDims();    // [4096, 32000]
 *     t.byteSize();    // 139264000: 32000 rows of 128 blocks of 34 bytes
 * }
 * }
 *
 * @param name the tensor's name
 * @param type its ggml type
 * @param dims logical dims, outermost first
 * @param offset where its bytes start, from the start of the data section
 * @param fileOffset where its bytes start in the file
 * @param byteSize the number of bytes
 * @param data the bytes, a read-only buffer of their own that the file closes
 * @param file the file, for messages
 */
public record GgufTensor(String name, GgmlType type, List<Long> dims, long offset, long fileOffset, long byteSize,
        MemoryBuffer data, Path file) {
    /** Copies the dims and checks for nulls. */
    public GgufTensor {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(file, "file");
        dims = List.copyOf(dims);
    }

    /** {@return the dims in the GGUF file's order: innermost first} */
    public List<Long> ggufDims() {
        return dims.reversed();
    }

    /** {@return the number of logical values} */
    public long elementCount() {
        return Extents.elementCount("shape", dims);
    }

    private void requireOpen() {
        if (!data.isAlive()) {
            throw new IllegalStateException("tensor '" + name + "' of " + file + " (" + type + dims + ", " + byteSize
                    + " bytes) cannot be read: its file was closed, which unmaps every tensor");
        }
    }

    /**
     * {@return the tensor as a row-major view of {@link #data()}, for a plain (not block-quantized) type}
     *
     * @throws IllegalArgumentException for a block-quantized type, which has no element view this
     *     round: dequantize it ({@link #blocks()})
     * @throws IllegalStateException if the file is closed
     */
    public TensorView view() {
        requireOpen();
        if (type.dtype().isEmpty()) {
            throw new IllegalArgumentException("tensor '" + name + "' is " + type + ", block-quantized: it has no element"
                    + " view; dequantize it (GgufTensor.blocks().dequantize)");
        }
        return TensorView.of(data, ArrayShape.of(type.dtype().get(), Extents.toArray(dims)));
    }

    /**
     * {@return the tensor as a block-quantized value over {@link #data()}, for a block-quantized type}
     * {@snippet :
     * GgufTensor t = f.tensor("blk.0.ffn_down_exps.weight");     // Q4_K[8, 4096, 14336]
     * t.blocks().select(0, 3).dequantize(TensorView.of(out, "bf16[4096,14336]"));   // expert 3 as bf16
     * }
     *
     * @throws IllegalArgumentException for a plain type: read it with {@link #view()}
     * @throws IllegalStateException if the file is closed
     */
    public BlockTensor blocks() {
        requireOpen();
        if (type.blockType().isEmpty()) {
            throw new IllegalArgumentException("tensor '" + name + "' is " + type + ", not block-quantized: read it with view()");
        }
        long[] d = dims.isEmpty() ? new long[] {1} : Extents.toArray(dims);
        return BlockTensor.of(data, type.blockType().get(), d);
    }
}
