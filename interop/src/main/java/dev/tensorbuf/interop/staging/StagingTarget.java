package dev.tensorbuf.interop.staging;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaShape;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The layout and element type a staged tensor is converted into: an XLA shape with its layout
 * (tiles and padding; padding written as zero) or a strided layout with a type, optionally with
 * a per-channel scale and bias applied on the way ({@link #normalised(ChannelAffine)}).
 *
 * {@snippet :
 * StagingTarget tiled = StagingTarget.of("f32[3,5]{1,0:T(2,2)}");
 * tiled.byteSize();      // 96: 6 tiles of 2x2 f32, padding included
 * StagingTarget nhwc = StagingTarget.strided(DType.BF16, StridedLayout.of(TensorFormat.NHWC, 1, 3, 4, 4));
 * nhwc.byteSize();       // 96: 48 bf16 elements
 * nhwc.dims();           // [1, 3, 4, 4]
 * // u8 NHWC pixels in, (x - mean) / std as f32 NCHW out
 * StagingTarget input = StagingTarget.strided(DType.F32, StridedLayout.of(TensorFormat.NCHW, 8, 3, 224, 224))
 *         .normalised(new ChannelAffine(1, List.of(1 / 58.395f, 1 / 57.12f, 1 / 57.375f),
 *                 List.of(-123.675f / 58.395f, -116.28f / 57.12f, -103.53f / 57.375f)));
 * }
 */
public sealed interface StagingTarget permits StagingTarget.Xla, StagingTarget.Strided, StagingTarget.Normalised {
    /** {@return a target laid out by an XLA shape, which must carry its layout} */
    static StagingTarget of(ArrayShape shapeWithLayout) {
        return new Xla(shapeWithLayout);
    }

    /**
     * {@return a target laid out by XLA shape text, e.g. {@code "f32[3,5]{1,0:T(2,2)}"}} Text
     * without a layout takes XLA's default, as the parser reads it: {@code "f32[3,4]"} is
     * {@code f32[3,4]{1,0}}.
     *
     * @throws IllegalArgumentException if the text is not a static array shape
     */
    static StagingTarget of(String xlaShapeText) {
        XlaShape parsed = XlaShape.parse(xlaShapeText);
        if (!(parsed instanceof ArrayShape array)) {
            throw new IllegalArgumentException("staging target must be an array shape, not " + parsed);
        }
        return new Xla(array);
    }

    /**
     * {@return a target laid out by a strided layout, converted to {@code dtype}}
     *
     * @throws IllegalArgumentException for a type without elements, or a layout that writes two
     *     indices to one slot (a zero stride, overlapping strides)
     */
    static StagingTarget strided(DType dtype, StridedLayout layout) {
        return new Strided(dtype, layout);
    }

    /**
     * {@return this target, with each value computed as {@code x * scale[c] + bias[c]} on the way
     * in} The arithmetic is {@link ChannelAffine}'s, as {@code CopyEngine.copy(src, dst, affine)}
     * does it; a source of complex numbers is refused at submit.
     *
     * @throws IllegalArgumentException if this target's type is not floating point, its channel
     *     dimension is not one of this target's, the scale and bias do not have one entry per
     *     element along it, or this target is normalised already
     */
    default StagingTarget normalised(ChannelAffine affine) {
        return new Normalised(this, affine);
    }

    /** {@return the per-channel scale and bias applied while staging, if any} */
    default Optional<ChannelAffine> affine() {
        return Optional.empty();
    }

    /** {@return the element type of the staged tensor} */
    DType dtype();

    /** {@return the logical dims a source must have} */
    List<Long> dims();

    /** {@return the bytes a staged buffer holds, at least 1} */
    long byteSize();

    /**
     * {@return whether the layout leaves bits no element covers, which are zeroed: tile padding,
     * gaps between elements, or the rest of the last byte after packed sub-byte elements (the
     * high 4 bits of the second byte of {@code s4[3]{0:E(4)}})}
     */
    boolean hasGaps();

    /** {@return the target's view over {@code buffer} of at least {@link #byteSize()} bytes} */
    TensorView view(MemoryBuffer buffer);

    /**
     * An XLA shape with its layout.
     *
     * @param shape static dims, with a layout
     */
    record Xla(ArrayShape shape) implements StagingTarget {
        /** @throws IllegalArgumentException for a shape without a layout or with dynamic dims */
        public Xla {
            Objects.requireNonNull(shape, "shape");
            if (shape.layout().isEmpty()) {
                throw new IllegalArgumentException("staging target " + shape + " has no layout; write one, e.g. "
                        + shape + "{" + descending(shape.rank()) + "}");
            }
            if (!shape.isStatic()) {
                throw new IllegalArgumentException("staging target " + shape + " has dynamic dims");
            }
        }

        private static String descending(int rank) {
            StringBuilder s = new StringBuilder();
            for (int d = rank - 1; d >= 0; d--) {
                s.append(d).append(d > 0 ? "," : "");
            }
            return s.toString();
        }

        @Override
        public DType dtype() {
            return shape.dtype();
        }

        @Override
        public List<Long> dims() {
            return shape.dims();
        }

        @Override
        public long byteSize() {
            return Math.max(1, shape.arraySize());
        }

        @Override
        public boolean hasGaps() {
            long bits = shape.requireLayout().elementSizeInBits();
            long perElement = bits == 0 ? 8L * shape.dtype().byteWidth() : bits;
            // In bits, not whole bytes: three packed s4 take 12 of the 16 bits of their two bytes.
            return Math.multiplyExact(shape.arraySize(), 8L) != Math.multiplyExact(shape.elementCount(), perElement);
        }

        @Override
        public TensorView view(MemoryBuffer buffer) {
            return TensorView.of(buffer, shape);
        }

        @Override
        public String toString() {
            return shape.toString();
        }
    }

    /**
     * A strided layout and an element type (one element per whole byte count, as
     * {@link TensorView#strided(MemoryBuffer, DType, StridedLayout)}).
     *
     * @param dtype the element type
     * @param layout the sizes, strides and offset
     */
    record Strided(DType dtype, StridedLayout layout) implements StagingTarget {
        /** @throws IllegalArgumentException for a type without elements, or a layout that writes two indices to one slot */
        public Strided {
            Objects.requireNonNull(dtype, "dtype");
            Objects.requireNonNull(layout, "layout");
            ElementAccess.of(dtype);
            // Refused here, not on the worker for every tensor: whichever value landed last would win.
            if (layout.isOverlapping()) {
                throw new IllegalArgumentException("staging target " + dtype + " " + layout + " writes several indices"
                        + " to one slot (a zero stride, or overlapping strides); a staged tensor needs a slot per element");
            }
        }

        @Override
        public List<Long> dims() {
            return layout.sizes();
        }

        @Override
        public long byteSize() {
            long slots = layout.elementCount() == 0 ? 0 : Math.addExact(layout.maxOffset(), 1);
            return Math.max(1, ElementAccess.of(dtype).byteSize(slots));
        }

        @Override
        public boolean hasGaps() {
            return byteSize() != ElementAccess.of(dtype).byteSize(layout.elementCount());
        }

        @Override
        public TensorView view(MemoryBuffer buffer) {
            return TensorView.strided(buffer, dtype, layout);
        }

        @Override
        public String toString() {
            return dtype + " " + layout;
        }
    }

    /**
     * A target whose values are scaled and offset per channel while staging.
     *
     * @param target the layout and type written
     * @param channelAffine the scale and bias, by index along {@code channelAffine.channelDim()}
     */
    record Normalised(StagingTarget target, ChannelAffine channelAffine) implements StagingTarget {
        /** @throws IllegalArgumentException as {@link StagingTarget#normalised(ChannelAffine)} */
        public Normalised {
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(channelAffine, "channelAffine");
            if (target instanceof Normalised) {
                throw new IllegalArgumentException("staging target " + target + " is normalised already; give one"
                        + " ChannelAffine with the scales and biases combined");
            }
            try {
                channelAffine.checkFits(target.dims(), target.dtype());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("staging target " + target + ": " + e.getMessage(), e);
            }
        }

        @Override
        public Optional<ChannelAffine> affine() {
            return Optional.of(channelAffine);
        }

        @Override
        public DType dtype() {
            return target.dtype();
        }

        @Override
        public List<Long> dims() {
            return target.dims();
        }

        @Override
        public long byteSize() {
            return target.byteSize();
        }

        @Override
        public boolean hasGaps() {
            return target.hasGaps();
        }

        @Override
        public TensorView view(MemoryBuffer buffer) {
            return target.view(buffer);
        }

        @Override
        public String toString() {
            return target + " scaled and offset along dimension " + channelAffine.channelDim();
        }
    }
}
