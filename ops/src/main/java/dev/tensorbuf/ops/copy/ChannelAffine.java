package dev.tensorbuf.ops.copy;

import dev.tensorbuf.views.DType;
import java.util.List;

/**
 * A per-channel {@code value * scale[c] + bias[c]} applied while converting, with {@code c} the
 * index along {@code channelDim}: image staging, e.g. u8 NHWC pixels to normalised f32 NCHW.
 *
 * <p>Each value is {@code fma(x, scale[c], bias[c])}, one rounding, then stored in the
 * destination type. Into an f64 destination it is computed in doubles: {@code x} is the source
 * value read as a double (exact for every type but u64 and s64 past 2^53, which round once) and
 * the float scale and bias widened exactly, so f64 0.1 with scale 1 and bias 0 stays 0.1. Into
 * every other floating-point destination (f32, f16, bf16, the f8 family, ...) it is computed in
 * floats: {@code x} is first rounded to a float, and a destination narrower than f32 rounds the
 * float result once more. The destination must be one of these floating-point types
 * ({@code AccessCopies.plan(Access, Access, ChannelAffine)}).
 *
 * <p>The fused multiply-add is the exact product and sum rounded once, so it is never further from
 * the true value than NumPy's {@code x.astype(np.float32) * scale + bias}, which rounds the product
 * and then the sum, and often 1 ulp nearer: about half the elements of a u8 image normalised with
 * ImageNet's constants differ from that expression by 1 ulp. Compare with {@code np.float32} of
 * the sum computed in float64, which equals the fused result wherever the double sum is exact.
 * {@snippet :
 * ChannelAffine a = new ChannelAffine(1, List.of(1 / 58.4f, 1 / 57.1f, 1 / 57.4f),
 *         List.of(-123.7f / 58.4f, -116.3f / 57.1f, -103.5f / 57.4f));
 * a.channels();   // 3
 * }
 *
 * @param channelDim the logical dimension that indexes the channel
 * @param scale one factor per channel
 * @param bias one offset per channel
 */
public record ChannelAffine(int channelDim, List<Float> scale, List<Float> bias) {
    /** @throws IllegalArgumentException if {@code channelDim < 0} or the lists differ in length */
    public ChannelAffine {
        scale = List.copyOf(scale);
        bias = List.copyOf(bias);
        if (channelDim < 0) {
            throw new IllegalArgumentException("channel dimension must be >= 0, got " + channelDim);
        }
        if (scale.size() != bias.size()) {
            throw new IllegalArgumentException(scale.size() + " scales but " + bias.size() + " biases");
        }
    }

    /** {@return the number of channels} */
    public int channels() {
        return scale.size();
    }

    /**
     * Checks that this scale and bias apply to a tensor of {@code dims} written as
     * {@code destination}: the copy checks it when planned, a staging target when made.
     * {@snippet :
     * new ChannelAffine(1, List.of(1f, 2f), List.of(0f, 0f)).checkFits(List.of(8L, 3L), DType.F32);
     * // IllegalArgumentException: "2 channel scales for dimension 1 of size 3 in [8, 3]"
     * }
     *
     * @throws IllegalArgumentException if the channel dimension is not one of {@code dims}, the
     *     scales are not one per element along it, or {@code destination} is not floating point
     */
    public void checkFits(List<Long> dims, DType destination) {
        if (channelDim >= dims.size()) {
            throw new IllegalArgumentException("channel dimension " + channelDim + " out of bounds [0, " + dims.size()
                    + ") for " + dims);
        }
        if (channels() != dims.get(channelDim)) {
            throw new IllegalArgumentException(channels() + " channel scales for dimension " + channelDim + " of size "
                    + dims.get(channelDim) + " in " + dims);
        }
        if (destination.kind() != DType.Kind.FLOAT) {
            throw new IllegalArgumentException("a per-channel scale and bias needs a floating-point destination, got "
                    + destination);
        }
    }
}
