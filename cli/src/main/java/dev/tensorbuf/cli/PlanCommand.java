package dev.tensorbuf.cli;

import dev.tensorbuf.interop.NativeMemory;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaShape;
import java.util.List;

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
                same as one object.

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
        ArrayShape src = arrayShape(in.positional(0, "SRC_SHAPE"), "SRC_SHAPE");
        ArrayShape dst = arrayShape(in.positional(1, "DST_SHAPE"), "DST_SHAPE");
        if (!src.dims().equals(dst.dims())) {
            throw new UsageException("SRC_SHAPE " + src + " and DST_SHAPE " + dst + " have different dims: "
                    + src.dims() + " and " + dst.dims());
        }
        CopyPlan.Explanation plan;
        // Mapped and never touched where Linux maps memory on first touch: a plan of a tensor
        // larger than this machine's memory still prints.
        try (Allocator memory = NativeMemory.hugePagesAvailable() ? NativeMemory.hugePageAllocator() : Allocators.shared()) {
            TensorView from = TensorView.of(memory.allocate(bytes(src)), src);
            TensorView to = TensorView.of(memory.allocate(bytes(dst)), dst);
            plan = CopyEngine.defaults().explain(from, to);
        }
        if (in.flag("json")) {
            in.out().println(plan.toJson());
        } else {
            in.out().print(plan);
        }
        return 0;
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
