package dev.tensorbuf.views.indexing;

import dev.tensorbuf.memory.internal.AsciiDigits;
import dev.tensorbuf.views.text.TextFormatException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Reads indexing-map text: XLA's current spelling and the older MLIR one ({@code floordiv},
 * {@code floorDiv}, {@code ceilDiv}), with any whitespace. Unary minus binds tighter than
 * {@code *}, {@code /} and {@code mod}: {@code -a / b} is {@code (-a) / b}.
 */
final class MapParser {
    /**
     * Operators (binary, unary minus, parentheses, min/max) in one expression. Simplifying,
     * comparing and printing walk expression trees recursively, and a tree is at most as deep as
     * its operator count: 2000 overflowed the Java stack, and XLA's maps have a few dozen.
     */
    static final int MAX_OPERATORS = 512;

    private final String in;
    private int pos;
    private int operators;
    private List<String> dimNames = List.of();
    private List<String> rangeNames = List.of();
    private List<String> runtimeNames = List.of();
    private boolean defaultNames;

    private MapParser(String in) {
        this.in = in;
        // Map text has no strings or comments, so any number character outside ASCII is a digit
        // XLA would refuse: name it before Java's parsers read '３' as 3.
        AsciiDigits.require(in, 0, in.length(), (problem, at) -> new TextFormatException(problem, in, at));
    }

    static IndexingMap parseMap(String text) {
        MapParser p = new MapParser(text);
        IndexingMap m = p.map();
        p.skipSpace();
        if (p.pos != text.length()) {
            throw p.error("unexpected text after the map");
        }
        return m;
    }

    static AffineExpr parseExpr(String text, List<String> dims, List<String> ranges, List<String> runtimes) {
        MapParser p = new MapParser(text);
        p.dimNames = dims;
        p.rangeNames = ranges;
        p.runtimeNames = runtimes;
        p.defaultNames = dims.isEmpty() && ranges.isEmpty() && runtimes.isEmpty();
        AffineExpr e = p.expression();
        p.skipSpace();
        if (p.pos != text.length()) {
            throw p.error("unexpected text after the expression");
        }
        return e;
    }

    private TextFormatException error(String problem) {
        return new TextFormatException(problem, in, pos);
    }

    private void skipSpace() {
        while (pos < in.length() && Character.isWhitespace(in.charAt(pos))) {
            pos++;
        }
    }

    private boolean peek(String s) {
        skipSpace();
        return in.startsWith(s, pos);
    }

    private boolean accept(String s) {
        if (peek(s)) {
            pos += s.length();
            return true;
        }
        return false;
    }

    private void expect(String s) {
        if (!accept(s)) {
            throw error("expected '" + s + "'");
        }
    }

    /** Accepts a keyword only when no identifier character follows it. */
    private boolean acceptWord(String w) {
        skipSpace();
        if (in.startsWith(w, pos)) {
            int end = pos + w.length();
            if (end >= in.length() || !isIdentChar(in.charAt(end))) {
                pos = end;
                return true;
            }
        }
        return false;
    }

    private static boolean isIdentChar(char c) {
        return Character.isLetter(c) || AsciiDigits.isDigit(c) || c == '_';
    }

    private String identifier(String what) {
        skipSpace();
        int start = pos;
        if (pos < in.length() && (Character.isLetter(in.charAt(pos)) || in.charAt(pos) == '_')) {
            while (pos < in.length() && isIdentChar(in.charAt(pos))) {
                pos++;
            }
            return in.substring(start, pos);
        }
        throw error("expected " + what);
    }

    private long integer() {
        skipSpace();
        int start = pos;
        boolean negative = accept("-");
        skipSpace();
        int digits = pos;
        while (pos < in.length() && AsciiDigits.isDigit(in.charAt(pos))) {
            pos++;
        }
        if (digits == pos) {
            pos = start;
            throw error("expected an integer");
        }
        String text = (negative ? "-" : "") + in.substring(digits, pos);
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            pos = start;
            throw error("integer " + text + " does not fit in 64 bits");
        }
    }

    private IndexingMap map() {
        if (acceptWord("KNOWN")) {
            if (!acceptWord("EMPTY")) {
                throw error("expected 'EMPTY'");
            }
            return IndexingMap.make(List.of(), List.of(), List.of(), List.of(), Map.of(), true);
        }
        if (acceptWord("UNDEFINED")) {
            return IndexingMap.undefined();
        }
        Set<String> seen = new HashSet<>();
        expect("(");
        dimNames = names(")", seen, "a dimension name");
        rangeNames = List.of();
        runtimeNames = List.of();
        if (accept("[")) {
            rangeNames = names("]", seen, "a range variable name");
        }
        if (accept("{")) {
            runtimeNames = names("}", seen, "a runtime variable name");
        }
        expect("->");
        expect("(");
        List<AffineExpr> results = new ArrayList<>();
        if (!accept(")")) {
            do {
                results.add(expression());
            } while (accept(","));
            expect(")");
        }
        int varCount = dimNames.size() + rangeNames.size() + runtimeNames.size();
        List<Variable> dims = new ArrayList<>();
        List<Variable> ranges = new ArrayList<>();
        List<Variable> runtimes = new ArrayList<>();
        Map<AffineExpr, Interval> constraints = new LinkedHashMap<>();
        if (accept(",")) {
            if (!acceptWord("domain")) {
                throw error("expected 'domain'");
            }
            expect(":");
            int[] entries = {0};
            domainVars(dimNames, "d", dims, entries);
            domainVars(rangeNames, "s", ranges, entries);
            domainVars(runtimeNames, "rt", runtimes, entries);
            while (entries[0]++ == 0 || accept(",")) {
                AffineExpr e = expression();
                Interval bounds = in();
                // Constraints are keyed by their canonical form, so d0 + d0 and d0 * 2 are one:
                // both must hold, as IndexingMap.of, withConstraint and XLA's AddConstraint take them.
                // Constants (d0 - d0) meet here too; IndexingMap.of then tests the intersection.
                constraints.merge(e, bounds, Interval::intersect);
            }
        } else if (varCount > 0) {
            throw error("expected ', domain:' with the bounds of " + varCount + " variable(s)");
        }
        return IndexingMap.of(dims, ranges, runtimes, results, constraints);
    }

    private List<String> names(String close, Set<String> seen, String what) {
        List<String> names = new ArrayList<>();
        if (accept(close)) {
            return names;
        }
        do {
            skipSpace();
            int at = pos;
            String name = identifier(what);
            if (isKeyword(name)) {
                pos = at;
                throw error("'" + name + "' is a keyword, not a variable name");
            }
            if (!seen.add(name)) {
                pos = at;
                throw error("duplicate variable name '" + name + "'");
            }
            names.add(name);
        } while (accept(","));
        expect(close);
        return names;
    }

    private static boolean isKeyword(String name) {
        return switch (name) {
            case "floordiv", "floorDiv", "ceildiv", "ceilDiv", "mod", "min", "max", "in", "domain" -> true;
            default -> false;
        };
    }

    private void domainVars(List<String> names, String prefix, List<Variable> out, int[] entries) {
        for (int i = 0; i < names.size(); i++) {
            if (entries[0]++ > 0) {
                expect(",");
            }
            skipSpace();
            int at = pos;
            String name = identifier("the domain of '" + names.get(i) + "'");
            if (!name.equals(names.get(i))) {
                pos = at;
                throw error("expected the domain of '" + names.get(i) + "', got '" + name + "'");
            }
            Interval bounds = in();
            out.add(new Variable(name.equals(prefix + i) ? "" : name, bounds));
        }
    }

    private Interval in() {
        if (!acceptWord("in")) {
            throw error("expected 'in'");
        }
        expect("[");
        long lo = integer();
        expect(",");
        long hi = integer();
        expect("]");
        return new Interval(lo, hi);
    }

    /** One whole expression (a result, a constraint): its operators are counted from zero. */
    private AffineExpr expression() {
        operators = 0;
        return sum();
    }

    /** Counts the operator just read; refuses the expression past {@link #MAX_OPERATORS}. */
    private void operator() {
        if (++operators > MAX_OPERATORS) {
            throw error("expression with more than " + MAX_OPERATORS + " operators, too large to simplify");
        }
    }

    AffineExpr sum() {
        AffineExpr e = term();
        while (true) {
            skipSpace();
            if (peek("->")) {
                return e;
            }
            int at = pos;
            if (accept("+")) {
                operator();
                AffineExpr lhs = e;
                AffineExpr rhs = term();
                e = exact(at, () -> Exprs.add(lhs, rhs));
            } else if (accept("-")) {
                operator();
                AffineExpr lhs = e;
                AffineExpr rhs = term();
                e = exact(at, () -> Exprs.add(lhs, Exprs.mul(rhs, new AffineExpr.Const(-1))));
            } else {
                return e;
            }
        }
    }

    /**
     * {@return {@code fold()}, the parser's folding of like terms and constants} Its overflow
     * (e.g. {@code d0 * 2^62 + d0 * 2^62}) is refused at the operator that caused it.
     */
    private AffineExpr exact(int operatorAt, Supplier<AffineExpr> fold) {
        try {
            return fold.get();
        } catch (IllegalArgumentException e) {
            int end = pos;
            pos = operatorAt;
            TextFormatException positioned = error(e.getMessage());
            pos = end;
            positioned.initCause(e);
            throw positioned;
        }
    }

    private AffineExpr term() {
        AffineExpr e = unary();
        while (true) {
            skipSpace();
            int at = pos;
            if (accept("*")) {
                operator();
                AffineExpr lhs = e;
                AffineExpr rhs = unary();
                e = exact(at, () -> Exprs.mul(lhs, rhs));
            } else if (accept("/") || acceptWord("floordiv") || acceptWord("floorDiv")) {
                operator();
                e = Exprs.floorDiv(e, divisor());
            } else if (acceptWord("ceildiv") || acceptWord("ceilDiv")) {
                operator();
                e = Exprs.ceilDiv(e, divisor());
            } else if (acceptWord("mod")) {
                operator();
                e = Exprs.mod(e, divisor());
            } else {
                return e;
            }
        }
    }

    /** A zero divisor has no value anywhere; refused here, where the text can still be pointed at. */
    private AffineExpr divisor() {
        skipSpace();
        int at = pos;
        AffineExpr d = unary();
        if (d instanceof AffineExpr.Const c && c.value() == 0) {
            pos = at;
            throw error("division by zero");
        }
        return d;
    }

    private AffineExpr unary() {
        skipSpace();
        if (peek("-") && !peek("->")) {
            int at = pos;
            pos++;
            skipSpace();
            if (pos < in.length() && AsciiDigits.isDigit(in.charAt(pos))) {
                pos = at;
                return new AffineExpr.Const(integer());
            }
            operator();
            AffineExpr negated = unary();
            return exact(at, () -> Exprs.mul(negated, new AffineExpr.Const(-1)));
        }
        return primary();
    }

    private AffineExpr primary() {
        skipSpace();
        if (pos >= in.length()) {
            throw error("expected an expression, got the end of the text");
        }
        char c = in.charAt(pos);
        if (AsciiDigits.isDigit(c)) {
            return new AffineExpr.Const(integer());
        }
        if (accept("(")) {
            operator();
            AffineExpr e = sum();
            expect(")");
            return e;
        }
        if (Character.isLetter(c) || c == '_') {
            int at = pos;
            String name = identifier("a variable");
            if ((name.equals("min") || name.equals("max")) && accept("(")) {
                operator();
                AffineExpr a = sum();
                expect(",");
                AffineExpr b = sum();
                expect(")");
                return name.equals("min") ? Exprs.min(a, b) : Exprs.max(a, b);
            }
            AffineExpr v = variable(name);
            if (v == null) {
                pos = at;
                throw error("unknown variable '" + name + "'");
            }
            return v;
        }
        throw error("expected an expression, got '" + c + "'");
    }

    private AffineExpr variable(String name) {
        int i = dimNames.indexOf(name);
        if (i >= 0) {
            return new AffineExpr.Dim(i);
        }
        i = rangeNames.indexOf(name);
        if (i >= 0) {
            return new AffineExpr.Sym(i);
        }
        i = runtimeNames.indexOf(name);
        if (i >= 0) {
            return new AffineExpr.Rt(i);
        }
        if (defaultNames) {
            if (name.matches("d\\d{1,6}")) {
                return new AffineExpr.Dim(Integer.parseInt(name.substring(1)));
            }
            if (name.matches("s\\d{1,6}")) {
                return new AffineExpr.Sym(Integer.parseInt(name.substring(1)));
            }
            if (name.matches("rt\\d{1,6}")) {
                return new AffineExpr.Rt(Integer.parseInt(name.substring(2)));
            }
        }
        return null;
    }
}
