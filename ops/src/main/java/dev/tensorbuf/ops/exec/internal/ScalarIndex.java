package dev.tensorbuf.ops.exec.internal;

import dev.tensorbuf.ops.copy.internal.Pointwise;
import dev.tensorbuf.ops.hlo.HloComputation;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaShape;
import java.util.List;
import java.util.Set;

/**
 * Integer arithmetic on scalars, folded while the views are made. jax computes the start of
 * {@code lax.dynamic_slice} and {@code x[i]} with a traced {@code i} as
 * {@code select(compare(i, 0, LT), add(i, dim), i)}: scalar work on {@code s32[]} operands whose
 * values (constants, or parameters bound at run time) are known before any element moves, so the
 * slice stays a view. Each op computes as XLA does: in the result type's width with two's
 * complement wraparound, unsigned types compared unsigned.
 */
public final class ScalarIndex {
    private ScalarIndex() {
    }

    /** The opcodes folded here when every operand and the result are integer or {@code pred} scalars. */
    public static final Set<String> OPCODES = Set.of("compare", "select", "add", "subtract", "multiply", "clamp",
            "convert", "maximum", "minimum", "and", "or", "xor", "not");

    /** Those that need integer (not {@code pred}) operands. */
    private static final Set<String> ARITHMETIC = Set.of("add", "subtract", "multiply", "clamp", "maximum", "minimum");

    /**
     * {@return whether {@code in} is scalar index arithmetic that folds: an opcode of {@link #OPCODES},
     * a rank-0 integer or {@code pred} result, and rank-0 integer or {@code pred} operands}
     * Anything else with these opcodes is elementwise work on arrays (or floats), left to the
     * pointwise path.
     */
    public static boolean folds(HloComputation comp, HloInstruction in) {
        if (!OPCODES.contains(in.opcode()) || !isIndexScalar(in.shape())) {
            return false;
        }
        for (String o : in.operands()) {
            var operand = comp.find(o);
            if (operand.isEmpty() || !isIndexScalar(operand.get().shape())) {
                return false;
            }
            if (ARITHMETIC.contains(in.opcode()) && ((ArrayShape) operand.get().shape()).dtype() == DType.PRED) {
                return false;
            }
        }
        return true;
    }

    private static boolean isIndexScalar(XlaShape shape) {
        if (!(shape instanceof ArrayShape a) || a.rank() != 0) {
            return false;
        }
        DType.Kind k = a.dtype().kind();
        return k == DType.Kind.SIGNED || k == DType.Kind.UNSIGNED || k == DType.Kind.BOOLEAN;
    }

    /**
     * {@return the value of {@code in} (one that {@link #folds}) as a new scalar}
     *
     * @throws IllegalArgumentException for a wrong operand count, a compare without a valid
     *     direction, or operands whose types differ where XLA requires them equal
     */
    public static TensorView fold(HloInstruction in, List<TensorView> ops) {
        DType out = in.arrayShape().dtype();
        int want = switch (in.opcode()) {
            case "convert", "not" -> 1;
            case "select", "clamp" -> 3;
            default -> 2;
        };
        if (ops.size() != want) {
            throw new IllegalArgumentException(in.opcode() + " takes " + want + " operand" + (want == 1 ? "" : "s")
                    + ", got " + ops.size() + ": " + in.operands());
        }
        long value = switch (in.opcode()) {
            case "convert" -> TensorElements.of(ops.getFirst()).getLong();
            case "not" -> out == DType.PRED ? 1 - TensorElements.of(ops.getFirst()).getLong() : ~TensorElements.of(ops.getFirst()).getLong();
            case "select" -> {
                requireType(in, ops.get(0), DType.PRED, "the predicate");
                requireSame(in, ops, 1, 2);
                yield TensorElements.of(ops.get(0)).getLong() != 0 ? TensorElements.of(ops.get(1)).getLong() : TensorElements.of(ops.get(2)).getLong();
            }
            case "clamp" -> {
                // XLA's operand order: clamp(min, operand, max), min(max(operand, lo), hi).
                requireSame(in, ops, 0, 1);
                requireSame(in, ops, 1, 2);
                DType t = ops.get(1).dtype();
                long x = TensorElements.of(ops.get(1)).getLong();
                long lo = TensorElements.of(ops.get(0)).getLong();
                long hi = TensorElements.of(ops.get(2)).getLong();
                long raised = compare(t, x, lo) < 0 ? lo : x;
                yield compare(t, raised, hi) > 0 ? hi : raised;
            }
            case "compare" -> {
                requireSame(in, ops, 0, 1);
                int c = compare(ops.get(0).dtype(), TensorElements.of(ops.get(0)).getLong(), TensorElements.of(ops.get(1)).getLong());
                String direction = in.text("direction").orElseThrow(() -> new IllegalArgumentException(
                        "compare needs a direction=EQ|NE|LT|LE|GT|GE attribute"));
                yield Pointwise.holds(direction.strip(), c) ? 1 : 0;
            }
            default -> {
                requireSame(in, ops, 0, 1);
                DType t = ops.get(0).dtype();
                long a = TensorElements.of(ops.get(0)).getLong();
                long b = TensorElements.of(ops.get(1)).getLong();
                yield switch (in.opcode()) {
                    case "add" -> a + b;
                    case "subtract" -> a - b;
                    case "multiply" -> a * b;
                    case "maximum" -> compare(t, a, b) >= 0 ? a : b;
                    case "minimum" -> compare(t, a, b) <= 0 ? a : b;
                    case "and" -> a & b;
                    case "or" -> a | b;
                    case "xor" -> a ^ b;
                    default -> throw new AssertionError(in.opcode());
                };
            }
        };
        return TensorView.scalar(out, wrap(value, out));
    }

    /** {@return {@code value} as {@code t} holds it: two's complement wraparound to its width, pred as {@code != 0}} */
    static long wrap(long value, DType t) {
        int bits = t.bitWidth();
        return switch (t.kind()) {
            case BOOLEAN -> value != 0 ? 1 : 0;
            case SIGNED -> bits == 64 ? value : value << (64 - bits) >> (64 - bits);
            case UNSIGNED -> bits == 64 ? value : value & ((1L << bits) - 1);
            default -> throw new IllegalArgumentException(t + " is not an integer type");
        };
    }

    private static int compare(DType t, long a, long b) {
        return t.kind() == DType.Kind.UNSIGNED ? Long.compareUnsigned(a, b) : Long.compare(a, b);
    }

    private static void requireType(HloInstruction in, TensorView v, DType t, String what) {
        if (v.dtype() != t) {
            throw new IllegalArgumentException(what + " of " + in.opcode() + " must be " + t.xlaName() + "[], got "
                    + v.dtype().xlaName() + "[]");
        }
    }

    private static void requireSame(HloInstruction in, List<TensorView> ops, int a, int b) {
        if (ops.get(a).dtype() != ops.get(b).dtype()) {
            throw new IllegalArgumentException("operands " + in.operands().get(a) + " (" + ops.get(a).dtype().xlaName()
                    + "[]) and " + in.operands().get(b) + " (" + ops.get(b).dtype().xlaName() + "[]) of " + in.opcode()
                    + " must have the same type, as XLA requires");
        }
    }
}
