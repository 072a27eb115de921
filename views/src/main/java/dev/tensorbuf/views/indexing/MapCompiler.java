package dev.tensorbuf.views.indexing;

import dev.tensorbuf.views.indexing.AffineExpr.Add;
import dev.tensorbuf.views.indexing.AffineExpr.CeilDiv;
import dev.tensorbuf.views.indexing.AffineExpr.Const;
import dev.tensorbuf.views.indexing.AffineExpr.Dim;
import dev.tensorbuf.views.indexing.AffineExpr.FloorDiv;
import dev.tensorbuf.views.indexing.AffineExpr.Max;
import dev.tensorbuf.views.indexing.AffineExpr.Min;
import dev.tensorbuf.views.indexing.AffineExpr.Mod;
import dev.tensorbuf.views.indexing.AffineExpr.Mul;
import dev.tensorbuf.views.indexing.AffineExpr.Rt;
import dev.tensorbuf.views.indexing.AffineExpr.Sym;
import dev.tensorbuf.views.indexing.internal.BytecodeEval;
import dev.tensorbuf.views.indexing.internal.EvalNode;
import dev.tensorbuf.views.indexing.internal.EvalNode.Binary;
import dev.tensorbuf.views.indexing.internal.EvalNode.Op;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** Lowers expressions to {@link EvalNode} trees; sums of constant multiples of dims become one loop. */
final class MapCompiler {
    private MapCompiler() {}

    static IndexingMap.Compiled compile(IndexingMap m) {
        if (m.isUndefined()) {
            throw new IllegalArgumentException("the undefined map cannot be evaluated");
        }
        EvalNode[] nodes = new EvalNode[m.results().size()];
        for (int i = 0; i < nodes.length; i++) {
            nodes[i] = generated(m.results().get(i));
        }
        return new Tree(m, nodes);
    }

    private static final AtomicLong FALLBACKS = new AtomicLong();

    /**
     * Bytecode when it fits one method, else a tree. The size is counted before emitting
     * ({@link BytecodeEval#fits}), and a tree whose walk overflows the stack tries the tree
     * builder; nothing else falls back, so an emitter bug throws instead
     * of hiding behind the slower tree. The tree builder recurses too: an expression nested
     * thousands deep overflows both, and that {@link StackOverflowError} reaches the caller (the
     * CLI reports it as input nested too deeply).
     */
    static EvalNode generated(AffineExpr e) {
        BytecodeEval.Ex x;
        try {
            x = ex(e);
        } catch (StackOverflowError tooDeep) {
            FALLBACKS.incrementAndGet();
            return node(e);
        }
        if (!BytecodeEval.fits(x)) {
            FALLBACKS.incrementAndGet();
            return node(e);
        }
        EvalNode known;
        synchronized (EMITTED) {
            known = EMITTED.get(x);
        }
        if (known != null) {
            return known;
        }
        EvalNode made;
        try {
            made = BytecodeEval.compile(x);
        } catch (ReflectiveOperationException bug) {
            throw new IllegalStateException("emitting the evaluator of " + e + " failed", bug);
        }
        synchronized (EMITTED) {
            known = EMITTED.putIfAbsent(x, made);
        }
        return known != null ? known : made;
    }

    /** How many emitted evaluators {@link #EMITTED} keeps. */
    static final int EMITTED_KEPT = 512;

    /**
     * Evaluators already emitted, by expression, least recently used first. A view made per call
     * (a reshape of a transpose) has a new map object each time but the same expression, and
     * emitting and loading a hidden class took 40-360 us a copy, against a fraction of a
     * microsecond for the strided path; a review counted 20,000 classes loaded by 20,000 copies.
     * Evaluators hold no state, so one serves every map and thread.
     */
    private static final Map<BytecodeEval.Ex, EvalNode> EMITTED = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<BytecodeEval.Ex, EvalNode> eldest) {
            return size() > EMITTED_KEPT;
        }
    };

    /** {@return how many emitted evaluators are kept now, for tests} */
    static int emittedKept() {
        synchronized (EMITTED) {
            return EMITTED.size();
        }
    }

    /** {@return how many expressions fell back to the tree evaluator so far, for tests} */
    static long fallbacks() {
        return FALLBACKS.get();
    }

    private static BytecodeEval.Ex ex(AffineExpr e) {
        return switch (e) {
            case Dim(int i) -> new BytecodeEval.Ex.Var(0, i);
            case Sym(int i) -> new BytecodeEval.Ex.Var(1, i);
            case Rt(int i) -> new BytecodeEval.Ex.Var(2, i);
            case Const(long v) -> new BytecodeEval.Ex.Lit(v);
            case Add(AffineExpr l, AffineExpr r) -> new BytecodeEval.Ex.Bin(Op.ADD, ex(l), ex(r));
            case Mul(AffineExpr l, AffineExpr r) -> new BytecodeEval.Ex.Bin(Op.MUL, ex(l), ex(r));
            case FloorDiv(AffineExpr l, AffineExpr r) -> new BytecodeEval.Ex.Bin(Op.FLOOR_DIV, ex(l), ex(r));
            case CeilDiv(AffineExpr l, AffineExpr r) -> new BytecodeEval.Ex.Bin(Op.CEIL_DIV, ex(l), ex(r));
            case Mod(AffineExpr l, AffineExpr r) -> new BytecodeEval.Ex.Bin(Op.MOD, ex(l), ex(r));
            case Min(AffineExpr l, AffineExpr r) -> new BytecodeEval.Ex.Bin(Op.MIN, ex(l), ex(r));
            case Max(AffineExpr l, AffineExpr r) -> new BytecodeEval.Ex.Bin(Op.MAX, ex(l), ex(r));
        };
    }

    static EvalNode node(AffineExpr e) {
        EvalNode linear = linearOverDims(e);
        if (linear != null) {
            return linear;
        }
        return switch (e) {
            case Dim(int i) -> new EvalNode.Var(0, i);
            case Sym(int i) -> new EvalNode.Var(1, i);
            case Rt(int i) -> new EvalNode.Var(2, i);
            case Const(long v) -> new EvalNode.Constant(v);
            case Add(AffineExpr l, AffineExpr r) -> new Binary(Op.ADD, node(l), node(r));
            case Mul(AffineExpr l, AffineExpr r) -> new Binary(Op.MUL, node(l), node(r));
            case FloorDiv(AffineExpr l, Const(long c)) when c > 0 -> new EvalNode.DivModConst(node(l), c, false);
            case FloorDiv(AffineExpr l, AffineExpr r) -> new Binary(Op.FLOOR_DIV, node(l), node(r));
            case CeilDiv(AffineExpr l, AffineExpr r) -> new Binary(Op.CEIL_DIV, node(l), node(r));
            case Mod(AffineExpr l, Const(long c)) when c > 0 -> new EvalNode.DivModConst(node(l), c, true);
            case Mod(AffineExpr l, AffineExpr r) -> new Binary(Op.MOD, node(l), node(r));
            case Min(AffineExpr l, AffineExpr r) -> new Binary(Op.MIN, node(l), node(r));
            case Max(AffineExpr l, AffineExpr r) -> new Binary(Op.MAX, node(l), node(r));
        };
    }

    /** {@return a LinearDims node when e is a constant plus constant multiples of dims, else null} */
    private static EvalNode linearOverDims(AffineExpr e) {
        if (!(e instanceof Add) && !(e instanceof Mul)) {
            return null;
        }
        Exprs.Sum s = Exprs.sum(e);
        List<Integer> idx = new ArrayList<>();
        List<Long> coeff = new ArrayList<>();
        for (Exprs.Term t : s.terms()) {
            if (!(t.base() instanceof Dim(int i))) {
                return null;
            }
            idx.add(i);
            coeff.add(t.coeff());
        }
        return new EvalNode.LinearDims(idx.stream().mapToInt(Integer::intValue).toArray(),
                coeff.stream().mapToLong(Long::longValue).toArray(), s.constant());
    }

    /** The evaluators of a map's results; printed as the map it was compiled from. */
    private static final class Tree implements IndexingMap.Compiled {
        private static final long[] NONE = new long[0];
        private final IndexingMap source;
        private final EvalNode[] nodes;

        Tree(IndexingMap source, EvalNode[] nodes) {
            this.source = source;
            this.nodes = nodes;
        }

        /** {@return {@code "compiled "} and the map's text} */
        @Override
        public String toString() {
            return "compiled " + source;
        }

        @Override
        public int resultCount() {
            return nodes.length;
        }

        @Override
        public long evaluate(int result, long[] d) {
            try {
                return nodes[result].eval(d, NONE, NONE);
            } catch (ArithmeticException e) {
                throw EvalNode.overflow(e);
            }
        }

        @Override
        public long evaluate(int result, long[] d, long[] s, long[] r) {
            try {
                return nodes[result].eval(d, s, r);
            } catch (ArithmeticException e) {
                throw EvalNode.overflow(e);
            }
        }

        @Override
        public void evaluateAll(long[] d, long[] s, long[] r, long[] out) {
            try {
                for (int i = 0; i < nodes.length; i++) {
                    out[i] = nodes[i].eval(d, s, r);
                }
            } catch (ArithmeticException e) {
                throw EvalNode.overflow(e);
            }
        }
    }
}
