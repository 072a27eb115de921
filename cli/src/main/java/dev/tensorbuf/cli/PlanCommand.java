package dev.tensorbuf.cli;

import dev.tensorbuf.interop.NativeMemory;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.ops.copy.internal.Pointwise;
import dev.tensorbuf.ops.quant.BlockTensor;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.BlockType;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaShape;
import dev.tensorbuf.views.text.TextFormatException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code tensorbuf plan}: what the copy engine does to copy a buffer laid out by one XLA shape into
 * a buffer laid out by another, without copying: its route, steps (kernel, loops), threads,
 * temporaries, staging and bytes, as a database's {@code EXPLAIN} shows a query's plan. With
 * {@code --epilogue}, the plan of one pass evaluating an elementwise expression on the way, as
 * {@code tensorbuf run} fuses pointwise HLO into its copies.
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
        return "tensorbuf plan SRC_SHAPE DST_SHAPE [OPERAND_SHAPE...] [--epilogue EXPR] [--json]";
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
                Nothing is copied: the buffers are reserved, never touched. A copy of more than
                32 parts counts them per form (route, kernels, loops) and shows the first 8; --json
                prints the same as one object. SRC_SHAPE may also be a GGUF block type and logical dims,
                row-major (q6_k[4096,4096]): the plan then shows the dequantize steps.

                --epilogue EXPR plans one pass that writes EXPR's value per element into
                DST_SHAPE, in the syntax a plan's epilogue line prints, so it can be pasted
                back: %0 is the source, %1, %2, ... the OPERAND_SHAPEs (DST_SHAPE's dims, or a
                scalar such as f32[] broadcast to them); ops convert<TYPE>(x), add, subtract,
                multiply, divide, remainder, maximum, minimum, clamp(lo, x, hi), negate, abs,
                sign, sqrt, floor, ceil, round-nearest-even, round-nearest-afz, is-finite,
                reduce-precision(x, e5m10),
                compare(a, b, LT FLOAT), select(p, a, b), and, or, not, xor, shift-left,
                shift-right-logical, shift-right-arithmetic, popcnt, count-leading-zeros,
                fma(a, b, c), reciprocal(x), select_flushed(p, a, b), remainder_flushed(a, b);
                a number (0.5, -3, inf, -nan) or true/false is a constant of its
                sibling operands' type. EXPR's type must be DST_SHAPE's.

                examples:
                  tensorbuf plan 'f32[2,3,4,5]{3,2,1,0}' 'f32[2,3,4,5]{1,3,2,0}'
                  planned copy f32[2,3,4,5]{3,2,1,0} strides [60, 20, 5, 1] -> f32[2,3,4,5]{1,3,2,0} strides [60, 1, 15, 3]: 120 elements, 960 bytes, 1 thread
                    run INTERLEAVE: 120 elements, src +0, dst +0, loops [2: 60/60, 20: 1/3, 3: 20/1]

                  tensorbuf plan 'u8[2,3,8,8]{1,3,2,0}' 'f32[2,3,8,8]{3,2,1,0}' --epilogue 'fma(convert<f32>(%0), 0.5, 1)'
                  elementwise copy in blocks %0 = u8[2,3,8,8]{1,3,2,0} strides [192, 1, 24, 3], %1 = f32[2,3,8,8] strides [0, 0, 0, 0], %2 = f32[2,3,8,8] strides [0, 0, 0, 0] -> f32[2,3,8,8]{3,2,1,0} strides [192, 64, 8, 1]: 384 elements, 2304 bytes, 1 thread
                    why: the 8-bit operand %0 copied into a dense block of 384 elements at a time, each value looked up in its channel's table, the results stored straight into the destination (the block is one run of its memory)
                    epilogue: fma(convert<f32>(%0), %1, %2) per element, lookup table 1x256 (no channel dim) of operand %0
                    temporary u8[2, 3, 8, 8], 384 bytes: operand %0's block, one per thread
                    pointwise TABLE: 384 elements, 3 operands, 1 block of [2,3,8,8], stored straight
                    planned copy u8[2,3,8,8]{1,3,2,0} strides [192, 1, 24, 3] -> u8[2,3,8,8]{3,2,1,0} strides [192, 64, 8, 1]: 384 elements, 768 bytes, 1 thread
                      run ELEMENT: 384 elements, src +0, dst +0, loops [2: 192/192, 3: 1/64, 64: 3/1]
                """;
    }

    @Override
    public List<Option> options() {
        return List.of(Option.value("epilogue", "EXPR", false,
                "an elementwise expression over %0 (the source) and the OPERAND_SHAPEs, applied on the way"), Option.JSON);
    }

    @Override
    public int run(Invocation in) {
        String epilogue = in.value("epilogue");
        if (epilogue == null) {
            in.expectAtMostPositionals(2);
        }
        String srcText = in.positional(0, "SRC_SHAPE");
        Matcher blocks = BLOCKS.matcher(srcText.strip());
        BlockType type = blocks.matches() ? blockType(blocks.group(1)) : null;
        if (type != null && epilogue != null) {
            throw new UsageException("--epilogue needs an XLA SRC_SHAPE; " + srcText.strip() + " is block-quantized");
        }
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
                TensorView from = TensorView.of(memory.allocate(bytes(src)), src);
                plan = epilogue == null ? CopyEngine.defaults().explain(from, to)
                        : explainEpilogue(epilogue, from, to, in.positionals().subList(2, in.positionals().size()), memory);
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

    /**
     * {@return the plan of {@code text}'s pass from {@code from} and the {@code operands} into {@code to}}
     *
     * @throws UsageException if an operand's dims are neither {@code to}'s nor none, a type is not
     *     one an expression computes in, the expression does not read or its type is not {@code to}'s
     */
    private static CopyPlan.Explanation explainEpilogue(String text, TensorView from, TensorView to, List<String> operands,
                                                        Allocator memory) {
        List<TensorView> leaves = new ArrayList<>(List.of(from));
        for (int k = 0; k < operands.size(); k++) {
            String what = "OPERAND_SHAPE %" + (k + 1);
            ArrayShape s = arrayShape(operands.get(k), what);
            if (s.rank() == 0) {
                TensorView scalar = TensorView.of(memory.allocate(bytes(s)), s);
                leaves.add(dev.tensorbuf.ops.Ops.broadcast(scalar, to.dims().stream().mapToLong(Long::longValue).toArray()));
            } else if (s.dims().equals(to.dims())) {
                leaves.add(TensorView.of(memory.allocate(bytes(s)), s));
            } else {
                throw new UsageException(what + " " + s + " has dims " + s.dims() + ": expected DST_SHAPE's " + to.dims()
                        + " or a scalar (dims [])");
            }
        }
        List<DType> types = new ArrayList<>();
        for (int k = 0; k < leaves.size(); k++) {
            types.add(computable(leaves.get(k).dtype(), k == 0 ? "SRC_SHAPE" : "OPERAND_SHAPE %" + k));
        }
        computable(to.dtype(), "DST_SHAPE");
        CopyEngine.Epilogue epilogue;
        try {
            epilogue = CopyEngine.Epilogue.parse(text, types.toArray(DType[]::new));
        } catch (TextFormatException e) {
            throw new UsageException("--epilogue: " + e.getMessage());
        }
        if (epilogue.type() != to.dtype()) {
            throw new UsageException("--epilogue " + epilogue + " computes " + epilogue.type().xlaName() + " but DST_SHAPE holds "
                    + to.dtype().xlaName() + ": end it with convert<" + to.dtype().xlaName() + ">(...)");
        }
        return CopyEngine.defaults().explain(leaves, to, epilogue);
    }

    private static DType computable(DType t, String what) {
        if (!Pointwise.TYPES.contains(t)) {
            throw new UsageException(what + "'s type " + t.xlaName() + " is not one an --epilogue computes in: "
                    + Pointwise.TYPES.stream().map(DType::xlaName).sorted().toList());
        }
        return t;
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
