package dev.tensorbuf.ops.copy;

import java.util.List;

/**
 * A per-channel {@code value * scale[c] + bias[c]} applied while converting, with {@code c} the
 * index along {@code channelDim}: image staging, e.g. u8 NHWC pixels to normalised f32 NCHW.
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
}
