package dev.tensorbuf.views;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * A ggml block-quantized element type: the innermost dim of a tensor is cut into blocks of
 * {@link #blockValues()} logical values, each stored as {@link #blockBytes()} bytes of scales and
 * packed codes. Names and ids are ggml's ({@code ggml_type}, gguf-py's
 * {@code GGMLQuantizationType}); sizes are gguf-py's {@code GGML_QUANT_SIZES}.
 * {@snippet :
 * BlockType q = BlockType.fromGgmlId(8);   // Q8_0
 * q.blockValues();                          // 32
 * q.blockBytes();                           // 34: an f16 scale, then 32 int8 codes
 * q.byteSize(4096);                         // 4352: a row of 4096 values, 128 blocks
 * BlockType.fromName("q4_k");               // Q4_K
 * BlockType.fromGgmlId(4);
 * // IllegalArgumentException: "ggml type id 4 is not a block-quantized type tensorbuf knows"
 * }
 *
 * <p>Every type here can be read and written as bytes (GGUF files, byte-exact copies); whether
 * its values can be dequantized is {@link #hasReference()}: true where gguf-py's
 * {@code gguf.quants} has a reference dequantizer that tensorbuf follows.
 */
public enum BlockType {
    Q4_0(2, 32, 18, true),
    Q4_1(3, 32, 20, true),
    Q5_0(6, 32, 22, true),
    Q5_1(7, 32, 24, true),
    Q8_0(8, 32, 34, true),
    Q8_1(9, 32, 40, false),
    Q2_K(10, 256, 84, true),
    Q3_K(11, 256, 110, true),
    Q4_K(12, 256, 144, true),
    Q5_K(13, 256, 176, true),
    Q6_K(14, 256, 210, true),
    Q8_K(15, 256, 292, false),
    IQ2_XXS(16, 256, 66, true),
    IQ2_XS(17, 256, 74, true),
    IQ3_XXS(18, 256, 98, true),
    IQ1_S(19, 256, 50, true),
    IQ4_NL(20, 32, 18, true),
    IQ3_S(21, 256, 110, true),
    IQ2_S(22, 256, 82, true),
    IQ4_XS(23, 256, 136, true),
    IQ1_M(29, 256, 56, true),
    TQ1_0(34, 256, 54, true),
    TQ2_0(35, 256, 66, true),
    MXFP4(39, 32, 17, true),
    NVFP4(40, 64, 36, true),
    Q1_0(41, 128, 18, false);

    private final int ggmlId;
    private final int blockValues;
    private final int blockBytes;
    private final boolean reference;

    BlockType(int ggmlId, int blockValues, int blockBytes, boolean reference) {
        this.ggmlId = ggmlId;
        this.blockValues = blockValues;
        this.blockBytes = blockBytes;
        this.reference = reference;
    }

    /** {@return ggml's id of this type, as GGUF tensor infos store it} */
    public int ggmlId() {
        return ggmlId;
    }

    /** {@return the logical values in one block: 32, 64, 128 or 256} */
    public int blockValues() {
        return blockValues;
    }

    /** {@return the bytes of one block} */
    public int blockBytes() {
        return blockBytes;
    }

    /**
     * {@return whether tensorbuf dequantizes this type} True for the types whose dequantization
     * gguf-py implements and tensorbuf follows bit for bit (all but three); the others (Q8_1, Q8_K:
     * ggml's activation types; Q1_0) are carried as bytes only.
     */
    public boolean hasReference() {
        return reference;
    }

    /**
     * {@return the bytes of {@code values} logical values, a whole number of blocks}
     *
     * @throws IllegalArgumentException if {@code values} is negative or not a multiple of
     *     {@link #blockValues()}, or the size overflows a long
     */
    public long byteSize(long values) {
        if (values < 0 || values % blockValues != 0) {
            throw new IllegalArgumentException(values + " values of " + this + " are not a whole number of "
                    + blockValues + "-value blocks");
        }
        try {
            return Math.multiplyExact(values / blockValues, (long) blockBytes);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(values + " values of " + this + " (" + blockBytes + " bytes per "
                    + blockValues + ") overflow a long byte size", e);
        }
    }

    /**
     * {@return the type of this ggml id}
     *
     * @throws IllegalArgumentException naming the id
     */
    public static BlockType fromGgmlId(int id) {
        return forGgmlId(id).orElseThrow(() -> new IllegalArgumentException("ggml type id " + id
                + " is not a block-quantized type tensorbuf knows"));
    }

    /** {@return the type of this ggml id, or empty when there is none} */
    public static Optional<BlockType> forGgmlId(int id) {
        return Arrays.stream(values()).filter(t -> t.ggmlId == id).findFirst();
    }

    /**
     * {@return the type of this name, any case ({@code q4_k}, {@code Q4_K})}
     *
     * @throws IllegalArgumentException naming the input and the names there are
     */
    public static BlockType fromName(String name) {
        try {
            return valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown block type '" + name + "'; expected one of "
                    + Arrays.toString(values()), e);
        }
    }
}
