package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import java.util.List;

/**
 * One piece of a copy plan. A copy between strided layouts is one {@link Run}; a tiled side
 * splits the logical space into boxes (full tiles, partial tiles) with one {@link Run} each and,
 * for a padded tiled destination, {@link Zero} steps for the padding. An elementwise expression
 * over several operand views into the destination is one {@link Epilogue}.
 * {@snippet :
 * // f32[1000,1000] -> {1,0:T(8,128)}: full column tiles, the partial last column tile, its padding
 * AccessCopies.steps(AccessCopies.plan(src, dst)).size();   // 3
 * }
 */
public sealed interface Step permits Step.Run, Step.Zero, Step.Gather, Step.Dequantize, Step.Epilogue {

    /**
     * A strided loop nest, loops outermost first, run by one kernel.
     *
     * @param kernel the kernel
     * @param srcOffset source element offset of the first element
     * @param dstOffset destination element offset of the first element
     * @param loops the loops, outermost first, in the destination's physical order
     * @param channelLoop index in {@code loops} of the per-channel scale and bias dimension, or -1
     */
    record Run(Kernel kernel, long srcOffset, long dstOffset, List<Loop> loops, int channelLoop) implements Step {
        /** @throws IllegalArgumentException if there are no loops or {@code channelLoop} is not one of them */
        public Run {
            loops = List.copyOf(loops);
            if (loops.isEmpty()) {
                throw new IllegalArgumentException("a run needs at least one loop");
            }
            if (channelLoop < -1 || channelLoop >= loops.size()) {
                throw new IllegalArgumentException("channel loop " + channelLoop + " out of bounds [-1, " + loops.size() + ")");
            }
        }

        /** {@return the number of elements copied} */
        public long elementCount() {
            return Extents.elementCount("loop counts", loops.stream().map(Loop::count).toList());
        }
    }

    /**
     * Padding of a tiled destination, written as zero.
     *
     * @param dstOffset destination element offset of the first slot
     * @param loops the loops, outermost first ({@link Loop#srcStride()} is zero)
     */
    record Zero(long dstOffset, List<Loop> loops) implements Step {
        /** @throws IllegalArgumentException if there are no loops */
        public Zero {
            loops = List.copyOf(loops);
            if (loops.isEmpty()) {
                throw new IllegalArgumentException("a zero step needs at least one loop");
            }
        }
    }

    /**
     * Every logical index, row-major, through both sides' maps.
     *
     * @param reason why no strided form was found
     */
    record Gather(String reason) implements Step {
    }

    /**
     * A run whose source is block-quantized ({@link BlockSource}): {@code run} is planned over the
     * source's f32 rows ({@link BlockSource#virtual()}), and each part of it reads the whole blocks
     * of the rows it touches. Direct: the run's innermost loop is unit stride on both sides into
     * f32, bf16 or f16, and the blocks are dequantized straight into the destination (into bf16 or
     * f16 through a few blocks' worth of floats in cache); else a part's rows go into a per-thread
     * tile of f32 rows, which {@code run}'s kernel then copies into the destination.
     *
     * @param source the blocks
     * @param run the loop nest over the source's f32 rows, and its kernel
     * @param into the destination's element type
     * @param direct whether the values go straight into the destination
     */
    record Dequantize(BlockSource source, Run run, DType into, boolean direct) implements Step {
    }

    /**
     * An elementwise expression over operand views, evaluated into the destination in one pass of
     * cache-sized blocks ({@link PointwiseCopy}): the plan {@code tensorbuf run} makes for a value
     * that pointwise HLO computes from views. The executor gives each of its threads a contiguous
     * share of the blocks.
     *
     * @param pass the blocks, the operands and the evaluator chosen for them
     */
    record Epilogue(PointwiseCopy pass) implements Step {
        /** @throws NullPointerException if {@code pass} is null */
        public Epilogue {
            java.util.Objects.requireNonNull(pass, "pass");
        }
    }
}
