package dev.tensorbuf.ops.hlo.internal;

import java.util.List;

/**
 * The value of one {@code name=value} attribute of an HLO instruction, read into the form its
 * name calls for: {@code dimensions={1,0}} is {@link Ints}, {@code slice={[0:10:2]}} is
 * {@link Slices}, {@code padding=0_0x1_2_1} is {@link Padding}, {@code window={size=3x2}} is
 * {@link Window}, {@code dim_labels=b01f_01io->b01f} is {@link DimLabels}, {@code sharding={...}}
 * is {@link Sharding}, single integers
 * ({@code index_vector_dim=1}) are {@link Int}; everything else keeps its text.
 *
 * {@snippet :
 * HloInstruction pad = HloModule.parse("""
 *     HloModule m
 *     ENTRY e {
 *       p0 = f32[4,4] parameter(0)
 *       p1 = f32[] parameter(1)
 *       ROOT pad = f32[12,16] pad(p0, p1), padding=1_4_1x4_8_0
 *     }""").entry().root();
 * HloInstructions.attribute(pad, "padding"); // Optional[Padding[dims=[PadDim[low=1, high=4, interior=1], PadDim[low=4, high=8, interior=0]]]]
 * }
 */
public sealed interface HloAttribute
        permits HloAttribute.Ints, HloAttribute.Int, HloAttribute.Slices, HloAttribute.Padding,
                HloAttribute.Window, HloAttribute.DimLabels, HloAttribute.Sharding, HloAttribute.Text {

    /** A list of integers, {@code {1, 0}}. @param values the integers in order */
    record Ints(List<Long> values) implements HloAttribute {
        public Ints {
            values = List.copyOf(values);
        }
    }

    /** One integer, {@code index_vector_dim=1}. @param value the integer */
    record Int(long value) implements HloAttribute {
    }

    /** A slice spec, {@code {[5:10:1], [3:20:7]}}. @param dims one range per dimension */
    record Slices(List<SliceDim> dims) implements HloAttribute {
        public Slices {
            dims = List.copyOf(dims);
        }
    }

    /** A padding config, {@code 1_4_1x4_8_0}. @param dims one entry per dimension */
    record Padding(List<PadDim> dims) implements HloAttribute {
        public Padding {
            dims = List.copyOf(dims);
        }
    }

    /** A window, {@code {size=3x2 stride=2x1 pad=1_1x0_1}}. @param dims one entry per dimension */
    record Window(List<WindowDim> dims) implements HloAttribute {
        public Window {
            dims = List.copyOf(dims);
        }

        /** {@return the window as HLO text writes it, {@code size=3x2 stride=2x1 pad=1_1x0_1}, fields at their defaults left out} */
        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("size=").append(join(d -> String.valueOf(d.size())));
            if (dims.stream().anyMatch(d -> d.stride() != 1)) {
                sb.append(" stride=").append(join(d -> String.valueOf(d.stride())));
            }
            if (dims.stream().anyMatch(d -> d.padLow() != 0 || d.padHigh() != 0)) {
                sb.append(" pad=").append(join(d -> d.padLow() + "_" + d.padHigh()));
            }
            if (dims.stream().anyMatch(d -> d.baseDilation() != 1)) {
                sb.append(" lhs_dilate=").append(join(d -> String.valueOf(d.baseDilation())));
            }
            if (dims.stream().anyMatch(d -> d.windowDilation() != 1)) {
                sb.append(" rhs_dilate=").append(join(d -> String.valueOf(d.windowDilation())));
            }
            if (dims.stream().anyMatch(WindowDim::reversal)) {
                sb.append(" rhs_reversal=").append(join(d -> d.reversal() ? "1" : "0"));
            }
            return sb.toString();
        }

        private String join(java.util.function.Function<WindowDim, String> field) {
            return String.join("x", dims.stream().map(field).toList());
        }
    }

    /** Convolution dimension labels, {@code b01f_01io->b01f}. @param labels the dimension numbers */
    record DimLabels(ConvolutionDims labels) implements HloAttribute {
    }

    /**
     * A sharding, {@code sharding={devices=[2,2]<=[4]}}, read by {@link dev.tensorbuf.ops.shard.HloSharding#parse}
     * and checked against the instruction's shape.
     *
     * @param sharding the sharding
     */
    record Sharding(dev.tensorbuf.ops.shard.HloSharding sharding) implements HloAttribute {
    }

    /** Any other value, kept as written. @param text the value's text */
    record Text(String text) implements HloAttribute {
    }

    /**
     * One dimension of a slice: {@code [start:limit:stride]}.
     *
     * @param start first index read, {@code >= 0}
     * @param limit one past the last index that may be read, {@code >= start}
     * @param stride step, {@code >= 1}
     */
    record SliceDim(long start, long limit, long stride) {
        public SliceDim {
            if (start < 0 || limit < start || stride < 1) {
                throw new IllegalArgumentException("invalid slice [" + start + ":" + limit + ":" + stride
                        + "]: need 0 <= start <= limit and stride >= 1");
            }
        }
    }

    /**
     * One dimension of a padding config: {@code low_high[_interior]}.
     *
     * @param low elements added before (negative removes)
     * @param high elements added after (negative removes)
     * @param interior elements added between neighbours, {@code >= 0}
     */
    record PadDim(long low, long high, long interior) {
        public PadDim {
            if (interior < 0) {
                throw new IllegalArgumentException("interior padding " + interior + " must be >= 0");
            }
        }
    }

    /**
     * One dimension of a window.
     *
     * @param size window size, {@code >= 1}
     * @param stride window stride, {@code >= 1}
     * @param padLow padding before the base
     * @param padHigh padding after the base
     * @param baseDilation {@code lhs_dilate}, {@code >= 1}
     * @param windowDilation {@code rhs_dilate}, {@code >= 1}
     * @param reversal {@code rhs_reversal}
     */
    record WindowDim(long size, long stride, long padLow, long padHigh, long baseDilation,
                     long windowDilation, boolean reversal) {
        public WindowDim {
            if (size < 1 || stride < 1 || baseDilation < 1 || windowDilation < 1) {
                throw new IllegalArgumentException("invalid window dimension: size " + size + ", stride "
                        + stride + ", lhs_dilate " + baseDilation + ", rhs_dilate " + windowDilation
                        + " must all be >= 1");
            }
        }
    }

    /**
     * The dimension numbers of a convolution, read from {@code dim_labels}: which dimension of
     * the input ({@code b}, {@code f}, spatial {@code 0 1 ...}), the kernel ({@code i}, {@code o},
     * spatial) and the output holds what.
     *
     * @param inputBatch input batch dimension
     * @param inputFeature input feature dimension
     * @param inputSpatial input spatial dimensions, spatial 0 first
     * @param kernelInputFeature kernel input-feature dimension
     * @param kernelOutputFeature kernel output-feature dimension
     * @param kernelSpatial kernel spatial dimensions
     * @param outputBatch output batch dimension
     * @param outputFeature output feature dimension
     * @param outputSpatial output spatial dimensions
     */
    record ConvolutionDims(int inputBatch, int inputFeature, List<Integer> inputSpatial,
                           int kernelInputFeature, int kernelOutputFeature, List<Integer> kernelSpatial,
                           int outputBatch, int outputFeature, List<Integer> outputSpatial) {
        public ConvolutionDims {
            inputSpatial = List.copyOf(inputSpatial);
            kernelSpatial = List.copyOf(kernelSpatial);
            outputSpatial = List.copyOf(outputSpatial);
        }
    }
}
