package dev.tensorbuf.interop;

import dev.tensorbuf.views.BlockType;
import dev.tensorbuf.views.DType;
import java.util.Arrays;
import java.util.Optional;

/**
 * The element type of a GGUF tensor, by ggml's id: a plain type that is a {@link DType}, or a
 * block-quantized {@link BlockType}. Names are ggml's.
 * {@snippet :
 * GgmlType.fromId(30);              // BF16
 * GgmlType.BF16.dtype();            // Optional[bf16]
 * GgmlType.Q4_K.blockType();        // Optional[Q4_K]
 * GgmlType.Q4_K.byteSize(512);      // 288: two 256-value blocks of 144 bytes
 * GgmlType.fromId(99);              // IllegalArgumentException: "unknown ggml type id 99"
 * }
 */
public enum GgmlType {
    F32(0, DType.F32),
    F16(1, DType.F16),
    Q4_0(BlockType.Q4_0),
    Q4_1(BlockType.Q4_1),
    Q5_0(BlockType.Q5_0),
    Q5_1(BlockType.Q5_1),
    Q8_0(BlockType.Q8_0),
    Q8_1(BlockType.Q8_1),
    Q2_K(BlockType.Q2_K),
    Q3_K(BlockType.Q3_K),
    Q4_K(BlockType.Q4_K),
    Q5_K(BlockType.Q5_K),
    Q6_K(BlockType.Q6_K),
    Q8_K(BlockType.Q8_K),
    IQ2_XXS(BlockType.IQ2_XXS),
    IQ2_XS(BlockType.IQ2_XS),
    IQ3_XXS(BlockType.IQ3_XXS),
    IQ1_S(BlockType.IQ1_S),
    IQ4_NL(BlockType.IQ4_NL),
    IQ3_S(BlockType.IQ3_S),
    IQ2_S(BlockType.IQ2_S),
    IQ4_XS(BlockType.IQ4_XS),
    I8(24, DType.S8),
    I16(25, DType.S16),
    I32(26, DType.S32),
    I64(27, DType.S64),
    F64(28, DType.F64),
    IQ1_M(BlockType.IQ1_M),
    BF16(30, DType.BF16),
    TQ1_0(BlockType.TQ1_0),
    TQ2_0(BlockType.TQ2_0),
    MXFP4(BlockType.MXFP4),
    NVFP4(BlockType.NVFP4),
    Q1_0(BlockType.Q1_0);

    private final int id;
    private final DType dtype;
    private final BlockType block;

    GgmlType(int id, DType dtype) {
        this.id = id;
        this.dtype = dtype;
        this.block = null;
    }

    GgmlType(BlockType block) {
        this.id = block.ggmlId();
        this.dtype = null;
        this.block = block;
    }

    /** {@return ggml's id} */
    public int id() {
        return id;
    }

    /** {@return the plain element type, or empty for a block-quantized type} */
    public Optional<DType> dtype() {
        return Optional.ofNullable(dtype);
    }

    /** {@return the block-quantized type, or empty for a plain type} */
    public Optional<BlockType> blockType() {
        return Optional.ofNullable(block);
    }

    /** {@return the logical values of one block: 1 for a plain type} */
    public int blockValues() {
        return block == null ? 1 : block.blockValues();
    }

    /** {@return the bytes of one block: the element's bytes for a plain type} */
    public int blockBytes() {
        return block == null ? dtype.byteWidth() : block.blockBytes();
    }

    /**
     * {@return the bytes of {@code values} values}
     *
     * @throws IllegalArgumentException if {@code values} is not a whole number of blocks, or the
     *     size overflows a long
     */
    public long byteSize(long values) {
        if (block != null) {
            return block.byteSize(values);
        }
        try {
            return Math.multiplyExact(values, (long) dtype.byteWidth());
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(values + " values of " + this + " overflow a long byte size", e);
        }
    }

    /**
     * {@return the type of ggml id {@code id}}
     *
     * @throws IllegalArgumentException naming the id (and the type it was, for ids ggml removed)
     */
    public static GgmlType fromId(long id) {
        for (GgmlType t : values()) {
            if (t.id == id) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown ggml type id " + id + switch ((int) Math.max(-1, Math.min(id, 99))) {
            case 4 -> " (Q4_2, removed from ggml)";
            case 5 -> " (Q4_3, removed from ggml)";
            case 31, 32, 33 -> " (a Q4_0_4_4/Q4_0_4_8/Q4_0_8_8 repacked type, removed from GGUF files)";
            case 36, 37, 38 -> " (an IQ4_NL_4_4/4_8/8_8 repacked type, removed from GGUF files)";
            default -> "";
        });
    }

    /**
     * {@return the type of this name, any case}
     *
     * @throws IllegalArgumentException naming the input and the names there are
     */
    public static GgmlType fromName(String name) {
        for (GgmlType t : values()) {
            if (t.name().equalsIgnoreCase(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown ggml type '" + name + "'; expected one of " + Arrays.toString(values()));
    }

    /** {@return the ggml type of a plain element type, or empty when ggml has none (u8, f8, ...)} */
    public static Optional<GgmlType> of(DType dtype) {
        return Arrays.stream(values()).filter(t -> t.dtype == dtype).findFirst();
    }

    /** {@return the ggml type of a block type} */
    public static GgmlType of(BlockType block) {
        return Arrays.stream(values()).filter(t -> t.block == block).findFirst().orElseThrow();
    }
}
