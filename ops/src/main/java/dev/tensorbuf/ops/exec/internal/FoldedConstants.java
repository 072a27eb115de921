package dev.tensorbuf.ops.exec.internal;

import dev.tensorbuf.ops.copy.internal.Pointwise;
import dev.tensorbuf.ops.copy.internal.ScalarLiteral;
import dev.tensorbuf.ops.hlo.HloComputation;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.hlo.internal.HloAttribute;
import dev.tensorbuf.ops.hlo.internal.HloInstructions;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.FloatCodec;
import dev.tensorbuf.views.internal.MiniFloat;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * XLA's constant folding, read off the module text: which instructions XLA folds with a constant
 * into a new constant before its simplifier's rewrites ({@link #isFoldedMove},
 * {@link #isFoldedConstant}, {@link #constantBehind}), that constant's values
 * ({@link #foldedValues}), and whether the simplifier then sees an iota ({@link #foldsIntoIota}).
 * One model for both of its readers: {@link Fusion} decides from it how XLA rewrites an
 * elementwise op with a constant operand (a divide by a folded constant is a multiply by its
 * reciprocals, one by an iota is not), and the {@link Interpreter} which evaluated values it
 * hands on as XLA's simplifier leaves them ({@link Literals#asSimplified}) and which it hands on
 * as written, to the moves XLA folds from the constant itself.
 */
final class FoldedConstants {
    private FoldedConstants() {
    }

    /** {@return whether {@code in} is a constant, or moves ({@link #isFoldedMove}) that XLA folds with one into a new constant} */
    static boolean isFoldedConstant(HloComputation comp, HloInstruction in) {
        HloInstruction d = in;
        while (isFoldedMove(d)) {
            d = comp.instruction(d.operands().getFirst());
        }
        return d.opcode().equals("constant");
    }

    /** {@return whether the broadcast {@code b} only adds dims of one, its operand's in order: a reshape, which XLA folds into a constant} */
    static boolean addsOnlyDimsOfOne(HloInstruction b) {
        List<Long> dims = b.arrayShape().dims();
        List<Long> along = b.intsOrEmpty("dimensions");
        for (int k = 1; k < along.size(); k++) {
            if (along.get(k) <= along.get(k - 1)) {
                return false;
            }
        }
        for (int d = 0; d < dims.size(); d++) {
            if (!along.contains((long) d) && dims.get(d) != 1) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@return whether {@code d} is a literal: a constant, or an iota along a dim of at most one
     * element, which XLA's simplifier makes a broadcast zero} Whether the simplifier sees it as a
     * constant along a reader's path: not where it or the constant XLA folds it into is an iota
     * ({@link #foldsIntoIota}).
     */
    static boolean isLiteral(HloInstruction d) {
        return d.opcode().equals("constant") || isZeroIota(d);
    }

    /**
     * {@return whether {@code name}, a constant or data movement of one, reaches XLA's simplifier's
     * rewrites as an iota} XLA's constant folding makes the constant and the moves above it that it
     * folds one new constant (the constant itself where {@code name} reads it directly, whatever
     * else moves it), which the simplifier makes an iota where it is a float of one dim of two or
     * more elements counting 0, 1, 2, ...: {-0, 1, 2, 3}, a slice {1:5} of {5, 0, 1, 2, 3}, a
     * reverse of {3, 2, 1, 0}, a copy of {0, 1, 2, 3} (jax 0.10: x divided by a broadcast of each
     * is a true quotient; by {-0, 1, 3, 7} or a slice of {5, 0, 1, 3, 7}, x times the reciprocals).
     * Only moves of one dim are followed; a slice of a concatenation is not. One folded into one
     * long dim and more dims of one is a constant to the rewrites: they run on the simplifier's
     * first pass, before its reshape mover may make a reader one of one dim (jax 0.10.2: x / c,
     * (x + c) + k and (x * c) * k for c = {-0, 1, ..., 63} as f32[64,1] or f32[1,64] are x times
     * c's reciprocals, x + (c + k) and x * (c * k); as f32[64] a true quotient, (x + c) + k and
     * (x * c) * k). Which value such a constant then has for each reader is
     * {@link Interpreter}'s {@code seesOneDim}.
     */
    static boolean foldsIntoIota(HloComputation comp, String name) {
        HloInstruction folded = iotaFolded(comp, name);
        return folded != null && folded.arrayShape().dims().size() == 1;
    }

    /** {@return the constant XLA folds {@code name} into where it counts 0, 1, 2, ... along one long dim, else null} */
    private static HloInstruction iotaFolded(HloComputation comp, String name) {
        List<HloInstruction> path = new ArrayList<>();
        HloInstruction d = comp.instruction(name);
        path.add(d);
        while (MOVES_OF_CONSTANTS.contains(d.opcode()) && d.operands().size() == 1) {
            HloInstruction under = comp.instruction(d.operands().getFirst());
            if (movedFrom(comp, d) != under) {
                return null;
            }
            d = under;
            path.add(d);
        }
        if (!d.opcode().equals("constant")) {
            return null;
        }
        int end = path.size() - 1;
        while (end > 0 && isFoldedMove(path.get(end - 1))) {
            end--;
        }
        HloInstruction folded = path.get(end);
        List<Long> dims = folded.arrayShape().dims();
        if (!Literals.oneLongDim(dims) || !Pointwise.isFloat(folded.arrayShape().dtype())) {
            return null;
        }
        double[] values = foldedValues(comp, folded);
        return values != null && Literals.countsFromZero(folded.arrayShape().dtype(), values.length, i -> values[(int) i])
                ? folded : null;
    }

    /**
     * {@return whether XLA's reshape mover makes {@code reader}, an elementwise op reading a
     * constant folded into one long dim and more dims of one ({@code beside}), an op of one dim,
     * where its simplifier sees that constant as one of one dim} The mover moves reshapes and
     * transposes below an elementwise op whose other operands are such moves of a value of one
     * dim, or ops of such moved already (at least one), or constants and scalar broadcasts, which
     * it reshapes for free (jax 0.10.2; {@code Interpreter.seesOneDim}). A value of one dim is
     * where a chain of reshapes begins ({@link #belowReshapes}).
     */
    static boolean movedToOneDim(HloComputation comp, HloInstruction reader, String beside) {
        return reshapedToOneDim(comp, reader, beside, new java.util.HashMap<>(), 0);
    }

    private static boolean reshapedToOneDim(HloComputation comp, HloInstruction d, String beside, java.util.Map<String, Boolean> known,
            int depth) {
        if (depth == 8) {
            return false;
        }
        if (isReshape(d) || d.opcode().equals("transpose")) {
            HloInstruction from = belowReshapes(comp, comp.instruction(d.operands().getFirst()));
            return from.arrayShape().dims().size() == 1 || reshapedToOneDim(comp, from, beside, known, depth + 1);
        }
        if (!Pointwise.OPCODES.contains(d.opcode())) {
            return false;
        }
        Boolean answer = known.get(d.name());
        if (answer != null) {
            return answer;
        }
        boolean reshaped = false;
        boolean all = true;
        for (String o : d.operands()) {
            HloInstruction x = comp.instruction(o);
            if (x.name().equals(beside) || isFoldedConstant(comp, x)
                    || x.opcode().equals("broadcast") && comp.instruction(x.operands().getFirst()).arrayShape().dims().isEmpty()) {
                continue;
            }
            if (reshapedToOneDim(comp, x, beside, known, depth + 1)) {
                reshaped = true;
            } else {
                all = false;
                break;
            }
        }
        known.put(d.name(), reshaped && all);
        return reshaped && all;
    }

    /**
     * {@return what a reshape of {@code x} reads once XLA has merged the reshapes above it} It
     * makes a reshape of a reshape (or of a broadcast that only adds dims of one) one reshape,
     * so an f32[4] reshape of an f32[2,2] reshaped into [4,1] reads the [2,2] (jax 0.10.2:
     * multiplied by a reversed {3, 2, 1, -0.0} as f32[4,1], its -0 stays, where a reshape of an
     * f32[4] parameter, or of a negate of the reshape, makes it the iota's +0). It reaches
     * through a convert into bf16, or from bf16 into f32, too, and no other convert (on its CPU
     * backend, for each of 20 pairs of types; data-movement seed 1195, module 1777: an s32[5,5,2]
     * reshaped to s32[50], converted to bf16 and reshaped to bf16[50,1,1]).
     */
    private static HloInstruction belowReshapes(HloComputation comp, HloInstruction x) {
        HloInstruction at = x;
        while (isReshape(at) || at.opcode().equals("convert") && passesReshapes(comp, at)) {
            at = comp.instruction(at.operands().getFirst());
        }
        return at;
    }

    /** {@return whether {@code d} is a reshape, or a broadcast that only adds dims of one (a reshape to XLA)} */
    private static boolean isReshape(HloInstruction d) {
        return d.opcode().equals("reshape") || d.opcode().equals("broadcast") && addsOnlyDimsOfOne(d);
    }

    private static boolean passesReshapes(HloComputation comp, HloInstruction convert) {
        DType to = convert.arrayShape().dtype();
        DType from = comp.instruction(convert.operands().getFirst()).arrayShape().dtype();
        return to == DType.BF16 || from == DType.BF16 && to == DType.F32;
    }

    /**
     * {@return the values of {@code d}, a constant or moves that XLA's constant folding folds
     * with one into a new constant, in row-major order; null for anything else or a move it
     * does not follow}
     */
    static double[] foldedValues(HloComputation comp, HloInstruction d) {
        if (d.opcode().equals("constant")) {
            return values(comp, d.name());
        }
        if (!isFoldedMove(d)) {
            return null;
        }
        double[] under = foldedValues(comp, comp.instruction(d.operands().getFirst()));
        return under == null ? null : movedValues(comp, d, under);
    }

    /**
     * {@return the values, in row-major order, of the folded move {@code m} applied to its
     * operand's {@code under}, or null for a move it does not follow} A reshape, copy, bitcast or
     * a broadcast adding dims of one keeps the order; a slice, reverse or transpose is followed
     * from one dim to one dim.
     */
    private static double[] movedValues(HloComputation comp, HloInstruction m, double[] under) {
        boolean oneDim = m.arrayShape().dims().size() == 1
                && comp.instruction(m.operands().getFirst()).arrayShape().dims().size() == 1;
        return switch (m.opcode()) {
            case "slice" -> {
                if (!oneDim || !(HloInstructions.attribute(m, "slice").orElse(null) instanceof HloAttribute.Slices s)) {
                    yield null;
                }
                HloAttribute.SliceDim along = s.dims().getFirst();
                if (along.stride() < 1 || along.start() < 0 || along.limit() > under.length) {
                    yield null;   // refused where the slice itself is evaluated
                }
                yield java.util.stream.LongStream.iterate(along.start(), i -> i < along.limit(), i -> i + along.stride())
                        .mapToDouble(i -> under[(int) i]).toArray();
            }
            case "reverse" -> oneDim
                    ? java.util.stream.IntStream.range(0, under.length).mapToDouble(i -> under[under.length - 1 - i]).toArray()
                    : null;
            case "transpose" -> oneDim ? under : null;
            default -> under;
        };
    }

    /** The data movement XLA's constant folding folds into a new constant: a broadcast only where it adds dims of one. */
    private static final Set<String> FOLDED_MOVES = Set.of("reshape", "bitcast", "transpose", "slice", "reverse", "copy", "broadcast");

    /** {@return whether XLA's constant folding folds {@code in}, applied to a constant, into a new constant} */
    static boolean isFoldedMove(HloInstruction in) {
        if (!FOLDED_MOVES.contains(in.opcode()) || in.operands().size() != 1) {
            return false;
        }
        return !in.opcode().equals("broadcast") || addsOnlyDimsOfOne(in);
    }

    static boolean isZeroIota(HloInstruction d) {
        return d.opcode().equals("iota") && d.arrayShape().dims().get((int) d.intValue("iota_dimension", 0)) <= 1;
    }

    /**
     * {@return the instruction under {@code name}'s data movement: a constant when XLA folds it
     * into one} XLA folds data movement and converts of a constant into a constant before its
     * simplifier's rewrites (jax 0.10: x / convert(3.7) is x times the reciprocal), and a slice
     * of a concatenation that reads one operand alone is a slice of that operand.
     */
    static HloInstruction constantBehind(HloComputation comp, String name) {
        HloInstruction d = comp.instruction(name);
        while (MOVES_OF_CONSTANTS.contains(d.opcode()) && d.operands().size() == 1 || padValueReadAlone(comp, d) != null) {
            d = movedFrom(comp, d);
        }
        return d;
    }

    /** What XLA folds with a constant into a constant before its simplifier's rewrites: data movement and converts. */
    private static final Set<String> MOVES_OF_CONSTANTS =
            Set.of("broadcast", "reshape", "transpose", "copy", "bitcast", "slice", "reverse", "convert");

    /**
     * {@return what data movement {@code d} reads: a slice of a concatenation the one operand it
     * reads alone, a pad reading nothing but its padding ({@link #padValueReadAlone}) its pad value}
     */
    static HloInstruction movedFrom(HloComputation comp, HloInstruction d) {
        HloInstruction padValue = padValueReadAlone(comp, d);
        if (padValue != null) {
            return padValue;
        }
        HloInstruction under = comp.instruction(d.operands().getFirst());
        return d.opcode().equals("slice") && under.opcode().equals("concatenate") ? slicedOperand(comp, d, under) : under;
    }

    /**
     * {@return the pad value of the pad {@code d} reads, where {@code d} reads nothing else, else
     * null} XLA's simplifier makes a slice of a pad that lies inside the pad's low or high edge
     * along some dim a broadcast of the pad value, and a pad with a negative edge a slice of a pad
     * with none, so also a pad whose negative edges leave none of its operand along some dim (jax
     * 0.10.2, f16: pad(x, c), padding=2_-1 of x[1], and slices {[0:2]} of a pad 3_0 or {[3:6:2]}
     * of a pad 0_4 of x[2], are broadcast(c): an op of them and constants is folded). The
     * slice's limit counts, not its last element (a slice {[0:5:3]} of a pad 4_0 stays), and
     * interior padding does not (a pad -1_-1_2 of x[2], padding alone, stays a pad), nor does a
     * pad of no elements.
     */
    static HloInstruction padValueReadAlone(HloComputation comp, HloInstruction d) {
        HloInstruction pad = d.opcode().equals("slice") ? comp.instruction(d.operands().getFirst()) : d;
        if (!pad.opcode().equals("pad") || pad.operands().size() != 2
                || !(HloInstructions.attribute(pad, "padding").orElse(null) instanceof HloAttribute.Padding padding)) {
            return null;
        }
        List<Long> from = comp.instruction(pad.operands().getFirst()).arrayShape().dims();
        List<Long> to = pad.arrayShape().dims();
        boolean negative = padding.dims().stream().anyMatch(p -> p.low() < 0 || p.high() < 0);
        List<HloAttribute.SliceDim> read;
        if (pad != d) {
            if (negative || !(HloInstructions.attribute(d, "slice").orElse(null) instanceof HloAttribute.Slices s)) {
                return null;   // a slice of a cut pad: slices XLA merges first, not followed
            }
            read = s.dims();
        } else if (negative) {
            read = new ArrayList<>();   // the slice XLA makes of the pad with no negative edge
            for (int k = 0; k < to.size(); k++) {
                long start = Math.max(-padding.dims().get(k).low(), 0);
                read.add(new HloAttribute.SliceDim(start, start + to.get(k), 1));
            }
        } else {
            return null;
        }
        if (from.contains(0L) || read.size() != from.size() || padding.dims().size() != from.size()) {
            return null;
        }
        for (int k = 0; k < from.size(); k++) {
            HloAttribute.PadDim p = padding.dims().get(k);
            long low = Math.max(p.low(), 0);
            long end;   // just past the operand's last element once the negative edges are gone
            try {
                end = Math.addExact(low + from.get(k), Math.multiplyExact(from.get(k) - 1, p.interior()));
            } catch (ArithmeticException past) {
                return null;   // an interior beyond any shape: refused where the pad runs
            }
            if (read.get(k).limit() <= low || read.get(k).start() >= end) {
                return comp.instruction(pad.operands().get(1));
            }
        }
        return null;
    }

    /** {@return the operand of {@code concatenation} that {@code slice} reads alone, or {@code concatenation} where it reads more} */
    private static HloInstruction slicedOperand(HloComputation comp, HloInstruction slice, HloInstruction concatenation) {
        if (!(HloInstructions.attribute(slice, "slice").orElse(null) instanceof HloAttribute.Slices s)) {
            return concatenation;
        }
        HloAttribute.SliceDim along = s.dims().get(concatenation.oneDimension("dimensions"));
        if (along.limit() <= along.start()) {
            return concatenation;
        }
        long last = along.start() + (along.limit() - 1 - along.start()) / along.stride() * along.stride();
        Piece piece = operandReadAlone(comp, concatenation, along.start(), last);
        return piece == null ? concatenation : comp.instruction(piece.operand());
    }

    /** An operand of a concatenation and where it starts along the concatenated dim. */
    record Piece(String operand, long offset) {
    }

    /**
     * {@return the operand of {@code concatenation} that holds every element from {@code first}
     * to {@code last} along its dim, or null where they span more than one}
     */
    static Piece operandReadAlone(HloComputation comp, HloInstruction concatenation, long first, long last) {
        int axis = concatenation.oneDimension("dimensions");
        long from = 0;
        for (String o : concatenation.operands()) {
            long to = from + comp.instruction(o).arrayShape().dims().get(axis);
            if (first >= from && last < to) {
                return new Piece(o, from);
            }
            from = to;
        }
        return null;
    }

    /**
     * {@return the values of the constant behind {@code name} that {@code name} reads, as
     * {@link #values} reads them: where {@code name} moves a slice of one dim of it ({@link
     * #foldedValues}: XLA folds the slice into a new constant), only the slice's} Broadcasts,
     * reshapes, transposes, copies, bitcasts and reverses above the slice read all its values
     * (data-movement seed 1197, module 795: {@code x - broadcast(slice({7.4375, -0.0}, [1:2]))}
     * is x to XLA's simplifier, its denormals kept, as {@code A - 0}).
     */
    static double[] valuesRead(HloComputation comp, String name) {
        HloInstruction d = comp.instruction(name);
        while (ALL_VALUES_READ.contains(d.opcode()) && d.operands().size() == 1) {
            d = comp.instruction(d.operands().getFirst());
        }
        double[] read = foldedValues(comp, d);
        return read != null ? read : values(comp, name);
    }

    /** Data movement whose result holds every value its operand holds, and no other. */
    private static final Set<String> ALL_VALUES_READ = Set.of("broadcast", "reshape", "transpose", "copy", "bitcast", "reverse");

    /**
     * {@return the values of the constant behind {@code name} as {@code name}'s type has them, as
     * doubles, or null where they are not all numbers a double holds exactly} Read as HLO constants
     * are, in the constant's own type (a bf16 constant(0.3) converted to f32 is 0.30078125, not
     * 0.3f), then through every convert on the way, each rounding as XLA's folding of it does (no
     * denormal flushed): f32 1.0001 through bf16 back to f32 is 1, and f64 1e-50 through f32 back to
     * f64 is 0, which XLA's simplifier then sees (jax 0.10: x * that 1 and x + that 0 are x).
     */
    static double[] values(HloComputation comp, String name) {
        HloInstruction c = constantBehind(comp, name);
        List<DType> converts = new ArrayList<>();   // the types converted to, the constant's first
        for (HloInstruction d = comp.instruction(name); d != c; d = movedFrom(comp, d)) {
            if (d.opcode().equals("convert")) {
                converts.addFirst(d.arrayShape().dtype());
            }
        }
        DType type = c.arrayShape().dtype();
        if (!Pointwise.TYPES.containsAll(converts) || type.kind() == DType.Kind.COMPLEX) {
            return null;   // into the narrow floats, or complex: not followed
        }
        List<String> tokens = literals(comp, name);
        int n = tokens.size();
        Object values;
        try {
            values = type.kind() == DType.Kind.FLOAT
                    ? tokens.stream().mapToDouble(t -> ScalarLiteral.parse(t, type)).toArray()
                    : tokens.stream().mapToLong(t -> Literals.integer(t, type)).toArray();
        } catch (IllegalArgumentException notANumber) {   // NumberFormatException too
            return null;
        }
        // A narrow float (f8, f6, f4) widens exactly into any type a convert here leads to.
        DType now = Pointwise.TYPES.contains(type) ? type : DType.F64;
        for (DType to : converts) {
            values = convert(values, now, to, n);
            now = to;
        }
        if (values instanceof double[] d) {
            return d;
        }
        long[] l = (long[]) values;
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            boolean unsignedHigh = now == DType.U64 && l[i] < 0;
            if (unsignedHigh || Math.abs(l[i]) > 1L << 53) {
                return null;   // past a double's whole numbers
            }
            out[i] = l[i];
        }
        return out;
    }

    /**
     * {@return {@code values}, {@code n} values of type {@code from} (doubles or longs, as {@link
     * Pointwise} carries them), converted to {@code to} as XLA's constant folding converts}
     * Nothing flushed, each value rounded once from its exact value: into bf16 too, which the code
     * XLA runs rounds through f32 (jax 0.10: f64 1 + 2^-8 + 2^-40 and s32 2^24 + 2^16 + 1 fold into
     * bf16 as 1.0078125 and 2^24 + 2^17, and run as 1 and 2^24).
     */
    static Object convert(Object values, DType from, DType to, int n) {
        if (to != DType.BF16) {
            return Pointwise.eval(new Pointwise.Op("convert", to, List.of(new Pointwise.Leaf(0, from)), ""),
                    new Object[] {values}, n, Pointwise.Mode.IEEE);
        }
        double[] out = new double[n];
        boolean unsigned = from.kind() == DType.Kind.UNSIGNED;
        for (int i = 0; i < n; i++) {
            float odd = values instanceof double[] d ? FloatCodec.roundToOdd(d[i])
                    : FloatCodec.roundToOdd(((long[]) values)[i], unsigned);
            out[i] = MiniFloat.BF16.decode(MiniFloat.BF16.encode(odd));
        }
        return out;
    }

    /** {@return the literal values of the instruction behind {@code name}'s data movement, as written} */
    static List<String> literals(HloComputation comp, String name) {
        HloInstruction c = constantBehind(comp, name);
        return isZeroIota(c) ? List.of(c.arrayShape().dtype() == DType.PRED ? "false" : "0")
                : java.util.Arrays.stream(c.payload().split("[\\s{},]+")).filter(t -> !t.isEmpty()).toList();
    }
}
