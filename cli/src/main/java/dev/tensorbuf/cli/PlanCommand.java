package dev.tensorbuf.cli;

import dev.tensorbuf.interop.NativeMemory;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.ops.quant.BlockTensor;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.BlockType;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaShape;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code tensorbuf plan}: what the copy engine does to copy a buffer laid out by one XLA shape into
 * a buffer laid out by another, without copying: its route, steps (kernel, loops), threads,
 * temporaries, staging and bytes, as a database's {@code EXPLAIN} shows a query's plan.
 */
final class PlanCommand implements Command {
    @Override
    public String name() {
        return "plan";
    }

    @Override
    public String summary() {
        return "explain a copy between two layouts without running it: kernels, loops, threads, bytes";
    }

    @Override
    public String synopsis() {
        return "tensorbuf plan SRC_SHAPE DST_SHAPE [--json]";
    }

    @Override
    public String description() {
        return """
                Plans the copy of a buffer laid out by SRC_SHAPE into one laid out by DST_SHAPE
                (XLA shape text; the dims must agree, the types may differ and convert) and prints
                the plan: the route (one planned copy, parts, packed sub-byte staging, element by
                element), each step's kernel and loops (count: source stride/destination stride,
                in elements, outermost first), the threads of this machine's engine
                (-Dtensorbuf.copy.* settings apply), temporaries and the bytes read plus written.
                Nothing is copied: the buffers are reserved, never touched. --json prints the
                same as one object. SRC_SHAPE may also be a GGUF block type and logical dims,
                row-major (q6_k[4096,4096]): the plan then shows the dequantize steps.

                example:
                  tensorbuf plan 'f32[2,3,4,5]{3,2,1,0}' 'f32[2,3,4,5]{1,3,2,0}'
                  planned copy f32[2,3,4,5]{3,2,1,0} strides [60, 20, 5, 1] -> f32[2,3,4,5]{1,3,2,0} strides [60, 1, 15, 3]: 120 elements, 960 bytes, 1 thread
                    run INTERLEAVE: 120 elements, src +0, dst +0, loops [2: 60/60, 20: 1/3, 3: 20/1]
                """;
    }

    @Override
    public List<Option> options() {
        return List.of(Option.JSON);
    }

    @Override
    public int run(Invocation in) {
        in.expectAtMostPositionals(2);
        String srcText = in.positional(0, "SRC_SHAPE");
        Matcher blocks = BLOCKS.matcher(srcText.strip());
        BlockType type = blocks.matches() ? blockType(blocks.group(1)) : null;
        ArrayShape src = type == null ? arrayShape(srcText, "SRC_SHAPE") : null;
        ArrayShape dst = arrayShape(in.positional(1, "DST_SHAPE"), "DST_SHAPE");
        List<Long> srcDims = type == null ? src.dims() : blockDims(blocks.group(2), type);
        if (!srcDims.equals(dst.dims())) {
            throw new UsageException("SRC_SHAPE " + (type == null ? src : srcText.strip()) + " and DST_SHAPE " + dst
                    + " have different dims: " + srcDims + " and " + dst.dims());
        }
        CopyPlan.Explanation plan;
        // Mapped and never touched where Linux maps memory on first touch: a plan of a tensor
        // larger than this machine's memory still prints.
        try (Allocator memory = NativeMemory.hugePagesAvailable() ? NativeMemory.hugePageAllocator() : Allocators.shared()) {
            TensorView to = TensorView.of(memory.allocate(bytes(dst)), dst);
            if (type == null) {
                plan = CopyEngine.defaults().explain(TensorView.of(memory.allocate(bytes(src)), src), to);
            } else {
                long[] dims = srcDims.stream().mapToLong(Long::longValue).toArray();
                try {
                    // Whole blocks, so that the tensor itself names a dim that is not.
                    long count = java.util.Arrays.stream(dims).reduce(1, Math::multiplyExact);
                    long bytes = type.byteSize(Math.multiplyExact(Math.ceilDiv(count, type.blockValues()), type.blockValues()));
                    plan = BlockTensor.of(memory.allocate(Math.max(1, bytes)), type, dims).explain(to);
                } catch (IllegalArgumentException | ArithmeticException e) {
                    throw new UsageException("SRC_SHAPE " + srcText.strip() + ": " + e.getMessage());
                }
            }
        }
        if (in.flag("json")) {
            in.out().println(plan.toJson());
        } else {
            in.out().print(plan);
        }
        return 0;
    }

    /** A block-quantized source: a GGUF block type's name and logical dims, row-major, e.g. {@code q6_k[4096,4096]}. */
    private static final Pattern BLOCKS = Pattern.compile("([A-Za-z][A-Za-z0-9_]*)\\[([0-9,\\s]*)]");

    /** {@return the block type of that name, or null for an XLA element type (s4, f8e4m3fn, ...)} */
    private static BlockType blockType(String name) {
        try {
            return BlockType.fromName(name);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static List<Long> blockDims(String text, BlockType type) {
        List<Long> dims = new java.util.ArrayList<>();
        for (String d : text.split(",")) {
            try {
                dims.add(Long.parseLong(d.strip()));
            } catch (NumberFormatException e) {
                throw new UsageException("SRC_SHAPE " + type + "[" + text + "]: dim '" + d.strip() + "' is not a number");
            }
        }
        return dims;
    }

    private static ArrayShape arrayShape(String text, String what) {
        XlaShape shape;
        try {
            shape = XlaShape.parse(text);
        } catch (IllegalArgumentException e) {
            throw new UsageException(what + ": " + e.getMessage());
        }
        if (!(shape instanceof ArrayShape a)) {
            throw Errors.notAnArray(what, shape);
        }
        if (!a.isStatic()) {
            throw new UsageException(what + ": " + a + " has a dynamic dimension; a plan needs static dims");
        }
        return a;
    }

    /** Every slot the tiles address, or XLA's ArraySize when larger, at least 1: as the engine's materialize allocates. */
    private static long bytes(ArrayShape shape) {
        return Math.max(1, Math.max(shape.physicalByteSize(), shape.arraySize()));
    }
}
