package dev.tensorbuf.views.indexing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * XLA's indexing map: a function from dimension variables {@code d_i} (with inclusive bounds),
 * range variables {@code s_i} (every value in their bounds is taken) and runtime variables
 * {@code rt_i} (known only when the program runs) to result expressions, restricted to the
 * points that satisfy every constraint {@code expr in [lo, hi]}.
 *
 * <p>Values are immutable. Every transformation ({@link #simplify()}, {@link #compose},
 * {@link #removeUnusedSymbols()}, ...) returns a new map. A constraint on a single variable is
 * folded into the variable's bounds when the map is made; an empty bound or a constant
 * constraint that cannot hold makes the map <em>known empty</em> (printed {@code KNOWN EMPTY}).
 * The <em>undefined</em> map (printed {@code UNDEFINED}) stands for indexing that cannot be
 * expressed.
 *
 * {@snippet :
 * IndexingMap m = IndexingMap.parse(
 *         "(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 7], d1 in [0, 15]");
 * m.simplify().toString();             // "(d0, d1) -> (d0, d1), domain: d0 in [0, 7], d1 in [0, 15]"
 * m.evaluate(new long[] {2, 5})[1];   // 5
 * IndexingMap.identity(2, 3).toString(); // "(d0, d1) -> (d0, d1), domain: d0 in [0, 1], d1 in [0, 2]"
 * }
 */
public final class IndexingMap {
    private static final IndexingMap UNDEFINED = new IndexingMap(List.of(), List.of(), List.of(),
            List.of(), Map.of(), false, true);

    private final List<Variable> dims;
    private final List<Variable> rangeVars;
    private final List<Variable> runtimeVars;
    private final List<AffineExpr> results;
    private final Map<AffineExpr, Interval> constraints;
    private final boolean knownEmpty;
    private final boolean undefined;

    private IndexingMap(List<Variable> dims, List<Variable> rangeVars, List<Variable> runtimeVars,
                        List<AffineExpr> results, Map<AffineExpr, Interval> constraints,
                        boolean knownEmpty, boolean undefined) {
        this.dims = dims;
        this.rangeVars = rangeVars;
        this.runtimeVars = runtimeVars;
        this.results = results;
        this.constraints = constraints;
        this.knownEmpty = knownEmpty;
        this.undefined = undefined;
    }

    /**
     * Makes a map, checking that every variable used exists and folding single-variable and
     * constant constraints as described in the class comment.
     *
     * @param dims the dimension variables
     * @param rangeVars the range variables
     * @param runtimeVars the runtime variables
     * @param results the result expressions
     * @param constraints constraint expressions and the intervals they must lie in
     * @return the map
     * @throws IllegalArgumentException when an expression uses a variable the map lacks
     */
    public static IndexingMap of(List<Variable> dims, List<Variable> rangeVars, List<Variable> runtimeVars,
                                 List<AffineExpr> results, Map<AffineExpr, Interval> constraints) {
        List<Variable> d = new ArrayList<>(dims);
        List<Variable> s = new ArrayList<>(rangeVars);
        List<Variable> r = new ArrayList<>(runtimeVars);
        List<AffineExpr> res = List.copyOf(results);
        for (AffineExpr e : res) {
            checkVariables(e, d.size(), s.size(), r.size(), "result");
        }
        Map<AffineExpr, Interval> cons = new LinkedHashMap<>();
        boolean empty = false;
        for (Map.Entry<AffineExpr, Interval> c : constraints.entrySet()) {
            checkVariables(c.getKey(), d.size(), s.size(), r.size(), "constraint");
            empty |= addConstraint(c.getKey(), c.getValue(), d, s, r, cons);
        }
        empty |= anyEmpty(d) || anyEmpty(s) || anyEmpty(r);
        return make(d, s, r, res, cons, empty);
    }

    /** {@return a map without constraints} @param dims dims @param rangeVars range vars @param results results */
    public static IndexingMap of(List<Variable> dims, List<Variable> rangeVars, List<AffineExpr> results) {
        return of(dims, rangeVars, List.of(), results, Map.of());
    }

    static IndexingMap make(List<Variable> d, List<Variable> s, List<Variable> r, List<AffineExpr> res,
                            Map<AffineExpr, Interval> cons, boolean empty) {
        if (empty) {
            // A known-empty map keeps its variables and result count; its results and
            // constraints carry no information.
            List<AffineExpr> zeros = Collections.nCopies(res.size(), AffineExpr.constant(0));
            return new IndexingMap(List.copyOf(d), List.copyOf(s), List.copyOf(r), List.copyOf(zeros),
                    Map.of(), true, false);
        }
        return new IndexingMap(List.copyOf(d), List.copyOf(s), List.copyOf(r), List.copyOf(res),
                Collections.unmodifiableMap(new LinkedHashMap<>(cons)), false, false);
    }

    private static boolean anyEmpty(List<Variable> vars) {
        for (Variable v : vars) {
            if (v.bounds().isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** Adds one constraint; returns true when the map became known empty. */
    static boolean addConstraint(AffineExpr e, Interval in, List<Variable> d, List<Variable> s, List<Variable> r,
                                 Map<AffineExpr, Interval> cons) {
        if (in.isEmpty()) {
            return true;
        }
        switch (e) {
            case AffineExpr.Const(long v) -> {
                return !in.contains(v);
            }
            case AffineExpr.Dim(int i) -> {
                d.set(i, d.get(i).withBounds(d.get(i).bounds().intersect(in)));
                return d.get(i).bounds().isEmpty();
            }
            case AffineExpr.Sym(int i) -> {
                s.set(i, s.get(i).withBounds(s.get(i).bounds().intersect(in)));
                return s.get(i).bounds().isEmpty();
            }
            case AffineExpr.Rt(int i) -> {
                r.set(i, r.get(i).withBounds(r.get(i).bounds().intersect(in)));
                return r.get(i).bounds().isEmpty();
            }
            default -> {
                Interval merged = cons.merge(e, in, Interval::intersect);
                return merged.isEmpty();
            }
        }
    }

    private static void checkVariables(AffineExpr e, int nd, int ns, int nr, String where) {
        Exprs.forEachVar(e, (kind, i) -> {
            int n = kind == 0 ? nd : kind == 1 ? ns : nr;
            if (i >= n) {
                String name = (kind == 0 ? "d" : kind == 1 ? "s" : "rt") + i;
                String what = kind == 0 ? "dimension" : kind == 1 ? "range variable" : "runtime variable";
                throw new IllegalArgumentException(where + " " + e.toText() + " uses " + name + " but the map has "
                        + n + " " + what + "(s)");
            }
        });
    }

    IndexingMap withKnownEmpty(boolean empty) {
        return empty && !knownEmpty ? make(dims, rangeVars, runtimeVars, results, constraints, true) : this;
    }

    /** {@return the undefined map, printed {@code UNDEFINED}} */
    public static IndexingMap undefined() {
        return UNDEFINED;
    }

    /**
     * {@return the identity map on a box: {@code (d0, ..., dn) -> (d0, ..., dn)} with
     * {@code d_i in [0, sizes[i] - 1]}}
     *
     * @param sizes the size of each dimension
     */
    public static IndexingMap identity(long... sizes) {
        List<Variable> d = new ArrayList<>();
        List<AffineExpr> res = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            if (sizes[i] < 0) {
                throw new IllegalArgumentException("size " + sizes[i] + " of dimension " + i + " is negative");
            }
            d.add(Variable.of(0, sizes[i] - 1));
            res.add(AffineExpr.dim(i));
        }
        return of(d, List.of(), List.of(), res, Map.of());
    }

    /** {@return a builder for maps with many parts} */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Parses XLA's indexing-map text, current ({@code /}) or legacy MLIR ({@code floordiv})
     * spelling, on one line or many; also {@code KNOWN EMPTY} and {@code UNDEFINED}.
     *
     * @param text the map text
     * @return the map
     * @throws dev.tensorbuf.views.text.TextFormatException when the text is malformed, with the position
     */
    public static IndexingMap parse(String text) {
        return MapParser.parseMap(text);
    }

    /** {@return the dimension variables} */
    public List<Variable> dims() {
        return dims;
    }

    /** {@return the range variables} */
    public List<Variable> rangeVars() {
        return rangeVars;
    }

    /** {@return the runtime variables} */
    public List<Variable> runtimeVars() {
        return runtimeVars;
    }

    /** {@return the result expressions} */
    public List<AffineExpr> results() {
        return results;
    }

    /** {@return the constraints: expression to the interval it must lie in (insertion order)} */
    public Map<AffineExpr, Interval> constraints() {
        return constraints;
    }

    /** {@return true when the domain is known to hold no point} */
    public boolean isKnownEmpty() {
        return knownEmpty;
    }

    /** {@return true for the undefined map} */
    public boolean isUndefined() {
        return undefined;
    }

    /** {@return the bounds of every dimension} */
    public List<Interval> dimBounds() {
        return dims.stream().map(Variable::bounds).toList();
    }

    /** {@return the bounds of every range variable} */
    public List<Interval> rangeVarBounds() {
        return rangeVars.stream().map(Variable::bounds).toList();
    }

    /** {@return the bounds of every runtime variable} */
    public List<Interval> runtimeVarBounds() {
        return runtimeVars.stream().map(Variable::bounds).toList();
    }

    Names names() {
        return new Names(dims.stream().map(Variable::name).toList(),
                rangeVars.stream().map(Variable::name).toList(),
                runtimeVars.stream().map(Variable::name).toList());
    }

    /**
     * {@return the results at a point, ignoring the domain (as XLA's {@code Evaluate})}
     *
     * @param dimValues values of the dimensions
     * @param rangeValues values of the range variables
     * @param runtimeValues values of the runtime variables
     * @throws IllegalArgumentException on overflow or division by zero, or a wrong value count
     */
    public long[] evaluate(long[] dimValues, long[] rangeValues, long[] runtimeValues) {
        checkCounts(dimValues, rangeValues, runtimeValues);
        long[] out = new long[results.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = results.get(i).evaluate(dimValues, rangeValues, runtimeValues);
        }
        return out;
    }

    /** {@return the results at a point of a map without range or runtime variables} @param dimValues the point */
    public long[] evaluate(long... dimValues) {
        return evaluate(dimValues, new long[0], new long[0]);
    }

    /**
     * {@return true when the point lies in every variable's bounds and satisfies every constraint}
     *
     * @param dimValues values of the dimensions
     * @param rangeValues values of the range variables
     * @param runtimeValues values of the runtime variables
     */
    public boolean contains(long[] dimValues, long[] rangeValues, long[] runtimeValues) {
        checkCounts(dimValues, rangeValues, runtimeValues);
        if (knownEmpty || undefined) {
            return false;
        }
        for (int i = 0; i < dims.size(); i++) {
            if (!dims.get(i).bounds().contains(dimValues[i])) {
                return false;
            }
        }
        for (int i = 0; i < rangeVars.size(); i++) {
            if (!rangeVars.get(i).bounds().contains(rangeValues[i])) {
                return false;
            }
        }
        for (int i = 0; i < runtimeVars.size(); i++) {
            if (!runtimeVars.get(i).bounds().contains(runtimeValues[i])) {
                return false;
            }
        }
        return constraintsSatisfied(dimValues, rangeValues, runtimeValues);
    }

    /**
     * {@return true when the point satisfies every constraint (bounds are not checked)}
     *
     * @param dimValues values of the dimensions
     * @param rangeValues values of the range variables
     * @param runtimeValues values of the runtime variables
     */
    public boolean constraintsSatisfied(long[] dimValues, long[] rangeValues, long[] runtimeValues) {
        if (knownEmpty) {
            return false;
        }
        for (Map.Entry<AffineExpr, Interval> c : constraints.entrySet()) {
            if (!c.getValue().contains(c.getKey().evaluate(dimValues, rangeValues, runtimeValues))) {
                return false;
            }
        }
        return true;
    }

    private void checkCounts(long[] d, long[] s, long[] r) {
        if (d.length != dims.size() || s.length != rangeVars.size() || r.length != runtimeVars.size()) {
            throw new IllegalArgumentException("map " + this + " takes " + dims.size() + " dimension, "
                    + rangeVars.size() + " range and " + runtimeVars.size() + " runtime value(s), got "
                    + d.length + ", " + s.length + " and " + r.length);
        }
    }

    /**
     * {@return the interval that holds every value of {@code e} over the variables' bounds
     * (constraints are not used)}
     *
     * @param e an expression over this map's variables
     */
    public Interval range(AffineExpr e) {
        return new RangeEvaluator(dimBounds(), rangeVarBounds(), runtimeVarBounds()).range(e);
    }

    /**
     * {@return whether a result or a constraint reads dimension {@code dim}} One that neither
     * reads maps every value of it in its bounds to the same point: along it the map repeats.
     * For {@code (d0, d1) -> (d1)} it is false for 0 and true for 1.
     *
     * @param dim a dimension of this map
     */
    public boolean readsDim(int dim) {
        java.util.Objects.checkIndex(dim, dims.size());
        boolean[] reads = {false};
        Exprs.VarVisitor v = (kind, i) -> reads[0] |= kind == 0 && i == dim;
        results.forEach(e -> Exprs.forEachVar(e, v));
        constraints.keySet().forEach(e -> Exprs.forEachVar(e, v));
        return reads[0];
    }

    /**
     * {@return a new map with one more constraint, folded as in {@link #of}}
     *
     * @param e the constraint expression
     * @param in the interval it must lie in
     */
    public IndexingMap withConstraint(AffineExpr e, Interval in) {
        Map<AffineExpr, Interval> cons = new LinkedHashMap<>(constraints);
        List<Variable> d = new ArrayList<>(dims);
        List<Variable> s = new ArrayList<>(rangeVars);
        List<Variable> r = new ArrayList<>(runtimeVars);
        checkVariables(e, d.size(), s.size(), r.size(), "constraint");
        boolean empty = knownEmpty | addConstraint(e, in, d, s, r, cons);
        return make(d, s, r, results, cons, empty);
    }

    /** {@return this map printed in XLA's current text} */
    @Override
    public String toString() {
        return MapPrinter.print(this, Notation.XLA);
    }

    /** {@return this map printed in the given spelling} @param style current XLA or legacy MLIR */
    public String toText(Notation style) {
        return MapPrinter.print(this, style);
    }

    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof IndexingMap m && hashCode() == m.hashCode() && knownEmpty == m.knownEmpty && undefined == m.undefined
                && dims.equals(m.dims) && rangeVars.equals(m.rangeVars) && runtimeVars.equals(m.runtimeVars)
                && results.equals(m.results) && constraints.equals(m.constraints);
    }

    @Override
    public int hashCode() {
        // Kept: the copy engine keys its plans and splits by map, once per copy.
        int h = hash;
        if (h == 0) {
            h = Objects.hash(dims, rangeVars, runtimeVars, results, constraints, knownEmpty, undefined);
            hash = h;
        }
        return h;
    }

    /** The hash, worked out on first need; 0 until then (a race only works it out twice). */
    private int hash;

    /** How {@link #simplify(PointDims)} treats dimensions whose bounds hold one value. */
    public enum PointDims {
        /** Replace {@code d_i} with its value when {@code d_i in [v, v]} (XLA's default). */
        SUBSTITUTE,
        /** Leave such dimensions in the expressions. */
        PRESERVE
    }

    /**
     * {@return the simplified map, substituting point dimensions (XLA's default {@code Simplify()})}
     * Same values on the same feasible set; bounds may tighten and constraints may go.
     */
    public IndexingMap simplify() {
        return simplify(PointDims.SUBSTITUTE);
    }

    /** {@return the simplified map} @param pointDims whether to substitute point dimensions */
    public IndexingMap simplify(PointDims pointDims) {
        return MapSimplifier.simplify(this, pointDims == PointDims.SUBSTITUTE);
    }

    /**
     * Composes two maps: the result maps {@code a} to {@code c} by applying {@code aToB} first.
     * The dimensions of {@code bToC} are replaced by the results of {@code aToB}; the result has
     * {@code aToB}'s dimensions, then {@code bToC}'s range (and runtime) variables followed by
     * {@code aToB}'s, as XLA orders them. Constraints of both maps carry over, and where a
     * result of {@code aToB} may leave the bounds of the matching dimension of {@code bToC},
     * that bound becomes a constraint.
     *
     * {@snippet :
     * IndexingMap transpose = IndexingMap.parse("(d0, d1) -> (d1, d0), domain: d0 in [0, 2], d1 in [0, 1]");
     * IndexingMap strided = IndexingMap.parse("(d0, d1) -> (d0 * 3 + d1), domain: d0 in [0, 1], d1 in [0, 2]");
     * IndexingMap.compose(strided, transpose).toString();
     * // "(d0, d1) -> (d1 * 3 + d0), domain: d0 in [0, 2], d1 in [0, 1]"
     * }
     *
     * @param bToC applied second
     * @param aToB applied first; its result count must equal bToC's dimension count
     * @return the composed map, not simplified
     * @throws IllegalArgumentException when the counts do not match
     */
    public static IndexingMap compose(IndexingMap bToC, IndexingMap aToB) {
        return Composer.compose(bToC, aToB);
    }

    /** {@return the map without range and runtime variables that no result or constraint uses} */
    public IndexingMap removeUnusedSymbols() {
        return MapOps.removeUnused(this, false);
    }

    /**
     * {@return the map without dimensions, range and runtime variables that no result uses;
     * constraints that only use removed variables are dropped}
     */
    public IndexingMap removeUnusedVars() {
        return MapOps.removeUnused(this, true);
    }

    /** {@return the map with every range and runtime variable turned into a trailing dimension} */
    public IndexingMap convertSymbolsToDimensions() {
        return MapOps.convertSymbolsToDimensions(this);
    }

    /**
     * {@return the map with the given range variables turned into dimensions, appended in order}
     * @param rangeVarIndices indices of the range variables to convert
     */
    public IndexingMap convertRangeVariablesToDimensions(int... rangeVarIndices) {
        return MapOps.convertRangeVariablesToDimensions(this, Arrays.stream(rangeVarIndices).boxed().toList());
    }

    /**
     * {@return the map where each range variable {@code s} with a constraint {@code s mod m in [r, r]}
     * is replaced by {@code s * m + r}, rescaling its bounds and dropping the constraint}
     */
    public IndexingMap rescaleSymbols() {
        return MapOps.rescaleSymbols(this);
    }

    /**
     * {@return an evaluator of this map specialised to its expressions, for hot loops}
     * It ignores the domain, like {@link #evaluate(long[], long[], long[])}.
     */
    public Compiled compile() {
        return MapCompiler.compile(this);
    }

    /**
     * Collects the parts of an {@link IndexingMap}; {@link #build()} checks them once.
     *
     * {@snippet :
     * IndexingMap m = IndexingMap.builder()
     *         .dim(0, 1).dim(0, 2)
     *         .result(AffineExpr.dim(0).times(3).plus(AffineExpr.dim(1)))
     *         .build();
     * m.toString(); // "(d0, d1) -> (d0 * 3 + d1), domain: d0 in [0, 1], d1 in [0, 2]"
     * }
     */
    public static final class Builder {
        private final List<Variable> dims = new ArrayList<>();
        private final List<Variable> rangeVars = new ArrayList<>();
        private final List<Variable> runtimeVars = new ArrayList<>();
        private final List<AffineExpr> results = new ArrayList<>();
        private final Map<AffineExpr, Interval> constraints = new LinkedHashMap<>();

        Builder() {}

        /** Adds dimension {@code d<i>} in {@code [lo, hi]}. @param lo lower bound @param hi upper bound @return this */
        public Builder dim(long lo, long hi) {
            dims.add(Variable.of(lo, hi));
            return this;
        }

        /** Adds a named dimension. @param name its name @param lo lower bound @param hi upper bound @return this */
        public Builder dim(String name, long lo, long hi) {
            dims.add(new Variable(name, new Interval(lo, hi)));
            return this;
        }

        /** Adds range variable {@code s<i>}. @param lo lower bound @param hi upper bound @return this */
        public Builder rangeVar(long lo, long hi) {
            rangeVars.add(Variable.of(lo, hi));
            return this;
        }

        /** Adds a named range variable. @param name its name @param lo lower bound @param hi upper bound @return this */
        public Builder rangeVar(String name, long lo, long hi) {
            rangeVars.add(new Variable(name, new Interval(lo, hi)));
            return this;
        }

        /** Adds runtime variable {@code rt<i>}. @param lo lower bound @param hi upper bound @return this */
        public Builder runtimeVar(long lo, long hi) {
            runtimeVars.add(Variable.of(lo, hi));
            return this;
        }

        /** Adds a named runtime variable. @param name its name @param lo lower bound @param hi upper bound @return this */
        public Builder runtimeVar(String name, long lo, long hi) {
            runtimeVars.add(new Variable(name, new Interval(lo, hi)));
            return this;
        }

        /** Adds result expressions. @param exprs the results, in order @return this */
        public Builder result(AffineExpr... exprs) {
            results.addAll(List.of(exprs));
            return this;
        }

        /** Adds a constraint. @param e the expression @param lo lower bound @param hi upper bound @return this */
        public Builder constraint(AffineExpr e, long lo, long hi) {
            constraints.merge(e, new Interval(lo, hi), Interval::intersect);
            return this;
        }

        /** {@return the map} @throws IllegalArgumentException when an expression uses a missing variable */
        public IndexingMap build() {
            return IndexingMap.of(dims, rangeVars, runtimeVars, results, constraints);
        }
    }

    /**
     * The spelling of indexing-map text.
     *
     * {@snippet :
     * IndexingMap m = IndexingMap.parse("(d0) -> (d0 floordiv 4), domain: d0 in [0, 15]");
     * m.toText(Notation.XLA);  // "(d0) -> (d0 / 4), domain: d0 in [0, 15]"
     * m.toText(Notation.MLIR); // "(d0) -> (d0 floordiv 4), domain: d0 in [0, 15]"
     * }
     */
    public enum Notation {
        /** XLA's current {@code SymbolicExpr} text: {@code /} for floor division, minimal parentheses. */
        XLA,
        /**
         * The older MLIR affine-map spelling (XLA before mid-2026, the seeds): {@code floordiv}, and
         * every non-sum operand of {@code *}, {@code floordiv}, {@code ceildiv}, {@code mod} in
         * parentheses.
         */
        MLIR
    }

    /**
     * An indexing map specialised into a tree of small final evaluators, for element access in
     * hot loops. It evaluates like {@link IndexingMap#evaluate(long[], long[], long[])}: the domain
     * is not checked, arithmetic overflow and division by zero throw.
     *
     * {@snippet :
     * Compiled f = IndexingMap.parse(
     *         "(d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7]").compile();
     * f.evaluate(0, new long[] {2, 5}); // 21
     * f.toString(); // "compiled (d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7]"
     * }
     */
    public interface Compiled {
        /** {@return the number of results} */
        int resultCount();

        /**
         * {@return result {@code result} of a map without range or runtime variables}
         *
         * @param result the result index
         * @param dims the dimension values
         */
        long evaluate(int result, long[] dims);

        /**
         * {@return result {@code result} at a point}
         *
         * @param result the result index
         * @param dims the dimension values
         * @param rangeVars the range variable values
         * @param runtimeVars the runtime variable values
         */
        long evaluate(int result, long[] dims, long[] rangeVars, long[] runtimeVars);

        /**
         * Writes every result at a point into {@code out}.
         *
         * @param dims the dimension values
         * @param rangeVars the range variable values
         * @param runtimeVars the runtime variable values
         * @param out receives {@link #resultCount()} values
         */
        void evaluateAll(long[] dims, long[] rangeVars, long[] runtimeVars, long[] out);
    }
}
