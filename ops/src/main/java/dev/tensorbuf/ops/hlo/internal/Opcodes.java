package dev.tensorbuf.ops.hlo.internal;

import dev.tensorbuf.views.internal.Suggestions;
import java.util.Set;

/** XLA's HLO opcode names (xla/hlo/ir/hlo_opcode.h), to reject misspelt opcodes with a position. */
final class Opcodes {
    private Opcodes() {
    }

    private static final Set<String> KNOWN = Set.of(
            "abs", "add", "add-dependency", "after-all", "all-gather", "all-gather-done", "all-gather-start",
            "all-reduce", "all-reduce-done", "all-reduce-start", "all-to-all", "and", "async-done",
            "async-start", "async-update", "atan2", "batch-norm-grad", "batch-norm-inference",
            "batch-norm-training", "bitcast", "bitcast-convert", "broadcast", "call", "cbrt", "ceil",
            "cholesky", "clamp", "collective-broadcast", "collective-permute",
            "collective-permute-done", "collective-permute-start", "compare", "complex", "concatenate",
            "conditional", "constant", "convert", "convolution", "copy", "copy-done", "copy-start",
            "cosine", "count-leading-zeros", "custom-call", "divide", "domain", "dot", "dynamic-reshape", "dynamic-slice",
            "dynamic-update-slice", "erf", "exponential", "exponential-minus-one", "fft", "floor",
            "fusion", "gather", "get-dimension-size", "get-tuple-element", "imag", "infeed", "iota",
            "is-finite", "log", "log-plus-one", "logistic", "map", "maximum", "minimum", "multiply",
            "negate", "not", "opt-barrier", "or", "outfeed", "pad", "parameter",
            "partition-id", "popcnt", "power", "raggeddot", "ragged-dot", "ragged-all-to-all", "real",
            "recv", "recv-done", "reduce", "reduce-precision", "reduce-scatter", "reduce-window",
            "remainder", "replica-id", "reshape", "reverse", "rng", "rng-bit-generator",
            "rng-get-and-update-state", "round-nearest-afz", "round-nearest-even", "rsqrt", "scaled-dot", "scan",
            "scatter", "select", "select-and-scatter", "send", "send-done", "set-dimension-size",
            "shift-left", "shift-right-arithmetic", "shift-right-logical", "sign", "sine", "slice",
            "sort", "sqrt", "stochastic-convert", "subtract", "tan", "tanh", "topk", "transpose",
            "triangular-solve", "tuple", "while", "xor");

    static boolean isKnown(String opcode) {
        return KNOWN.contains(opcode);
    }

    /** {@return " (did you mean transpose?)" for a misspelt opcode near a known one, else ""} */
    static String didYouMean(String opcode) {
        return Suggestions.didYouMean(opcode, KNOWN, "");
    }
}
