package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.text.TextFormatException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads a {@link Pointwise} expression in the text its {@code toString} prints (what an
 * explanation's epilogue shows), so a printed epilogue can be written back: ops as
 * {@code name(arg, ...)}, a convert as {@code convert<f32>(x)}, a compare's direction and type
 * after its operands ({@code compare(%0, %1, LT FLOAT)}), operands as {@code %k}. Besides, a
 * number ({@code 0.5}, {@code -3}, {@code inf}, {@code -nan}) or {@code true}/{@code false} is a
 * constant of its sibling operands' type, numbered after the given operands; a float one read
 * as an HLO constant is ({@link ScalarLiteral}: rounded once to the type, refused out of its range).
 * Bindings before the expression, {@code $0 = multiply(%0, %0); subtract($0, %0)}, name an op that
 * several read, as {@link Pointwise#print} writes one: each name is then one node.
 * {@snippet :
 * PointwiseSyntax.Parsed p = PointwiseSyntax.parse("fma(convert<f32>(%0), 0.5, 1)", List.of(DType.U8));
 * p.expr().toString();   // "fma(convert<f32>(%0), %1, %2)"
 * p.constants();         // [Constant[type=F32, value=0.5], Constant[type=F32, value=1.0]]
 * }
 * Every problem throws a {@link TextFormatException} naming it and its position.
 */
public final class PointwiseSyntax {
    /** The expression's own ops beside HLO's opcodes: what XLA's rewrites make, all of floats. */
    private static final List<String> OWN_OPS = List.of(Pointwise.Op.FMA, Pointwise.Op.RECIPROCAL, Pointwise.Op.FLUSHED_RECIPROCAL,
            Pointwise.Op.FLUSHED_SELECT, Pointwise.Op.FLUSHED_REMAINDER);
    private static final Set<String> DIRECTIONS = Set.of("EQ", "NE", "LT", "LE", "GT", "GE");
    private static final Set<String> COMPARE_TYPES = Set.of("FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED");

    private final String text;
    private final List<DType> operands;
    private final List<Constant> constants = new ArrayList<>();
    private final java.util.Map<String, Pointwise.Expr> bound = new java.util.HashMap<>();
    private int at;

    private PointwiseSyntax(String text, List<DType> operands) {
        this.text = text;
        this.operands = List.copyOf(operands);
    }

    /**
     * A constant written in the expression: a value of {@code type}, as the evaluator carries it.
     *
     * @param type its element type
     * @param value its value: a {@code Double} for a float type, else a {@code Long} (pred 0 or 1)
     */
    public record Constant(DType type, Number value) {
        /** {@return a view of {@code dims} whose every element is this value: a scalar broadcast} */
        public TensorView view(List<Long> dims, Allocator allocator) {
            TensorView scalar = PointwiseCopy.scratch(ArrayShape.of(type), allocator);
            ElementAccess a = ElementAccess.of(type);
            if (Pointwise.isFloat(type)) {
                a.setDouble(scalar.buffer().segment(), 0, value.doubleValue());
            } else {
                a.setBits(scalar.buffer().segment(), 0, value.longValue());
            }
            return Ops.broadcast(scalar, Extents.toArray(dims));
        }
    }

    /**
     * The expression read, and its constants: constant {@code i} is operand
     * {@code %(given + i)}.
     *
     * @param expr the expression
     * @param constants the constants, in the order written
     */
    public record Parsed(Pointwise.Expr expr, List<Constant> constants) {
        public Parsed {
            constants = List.copyOf(constants);
        }
    }

    /**
     * {@return {@code text} read as an expression over operands of the {@code operands}' types}
     *
     * @throws TextFormatException naming the problem and its position: a syntax error, an
     *     unknown op or type, an operand past the given ones, a wrong operand count, operands
     *     of different types, or a constant whose type nothing beside it tells
     */
    public static Parsed parse(String text, List<DType> operands) {
        PointwiseSyntax p = new PointwiseSyntax(text, operands);
        p.bindings();
        Node n = p.expr();
        p.spaces();
        if (p.at < text.length()) {
            throw p.error("expected the end of the expression, found '" + text.charAt(p.at) + "'", p.at);
        }
        if (n.expr == null) {
            throw p.error("a constant alone has no type: write it as an operand of an op", n.position);
        }
        return new Parsed(n.expr, p.constants);
    }

    /**
     * An expression read, or a constant waiting for its type: {@code expr} null, {@code literal}
     * its text, {@code constant} its place among the constants (they are numbered as written).
     */
    private record Node(Pointwise.Expr expr, String literal, int position, int constant) {
        Node(Pointwise.Expr expr, int position) {
            this(expr, null, position, -1);
        }
    }

    /** Reads the {@code $name = expr;} bindings before the expression: {@link Pointwise#print}'s ops read by several. */
    private void bindings() {
        while (true) {
            spaces();
            int start = at;
            if (at >= text.length() || text.charAt(at) != '$') {
                return;
            }
            String name = name();
            spaces();
            if (at >= text.length() || text.charAt(at) != '=') {
                at = start; // the expression itself is a name
                return;
            }
            at++;
            Node value = expr();
            if (value.expr == null) {
                throw error("a constant alone has no type: write it as an operand of an op", value.position);
            }
            spaces();
            expect(';');
            if (bound.putIfAbsent(name, value.expr) != null) {
                throw error(name + " is bound twice", start);
            }
        }
    }

    private String name() {
        int start = at++;
        while (at < text.length() && (Character.isLetterOrDigit(text.charAt(at)) || text.charAt(at) == '_')) {
            at++;
        }
        if (at == start + 1) {
            throw error("expected a name after '$'", at);
        }
        return text.substring(start, at);
    }

    private Node expr() {
        spaces();
        int start = at;
        if (at >= text.length()) {
            throw error("expected an operand (%k), a constant or an op, found the end", at);
        }
        char c = text.charAt(at);
        if (c == '$') {
            String name = name();
            Pointwise.Expr e = bound.get(name);
            if (e == null) {
                throw error(name + " is not bound before it is read: bind it first, as '" + name + " = expr;'", start);
            }
            return new Node(e, start);
        }
        if (c == '%') {
            at++;
            int digits = at;
            while (at < text.length() && Character.isDigit(text.charAt(at))) {
                at++;
            }
            if (digits == at) {
                throw error("expected an operand number after '%'", at);
            }
            int k;
            try {
                k = Integer.parseInt(text.substring(digits, at));
            } catch (NumberFormatException e) {
                throw error("operand number " + text.substring(digits, at) + " is too large", digits);
            }
            if (k >= operands.size()) {
                throw error("operand %" + k + " is not given: there " + (operands.size() == 1 ? "is %0 only"
                        : "are %0 to %" + (operands.size() - 1)), start);
            }
            return new Node(new Pointwise.Leaf(k, operands.get(k)), start);
        }
        String word = word();
        if (word.isEmpty()) {
            throw error("expected an operand (%k), a constant or an op, found '" + c + "'", at);
        }
        spaces();
        if (at >= text.length() || (text.charAt(at) != '(' && text.charAt(at) != '<')) {
            if (isLiteral(word)) {
                constants.add(null); // typed by its siblings, once its op is read
                return new Node(null, word, start, constants.size() - 1);
            }
            throw error("'" + word + "' is neither a constant nor an op followed by '('", start);
        }
        return op(word, start);
    }

    private Node op(String name, int start) {
        if (!Pointwise.OPCODES.contains(name) && !OWN_OPS.contains(name)) {
            throw error("unknown op '" + name + "': expected one of " + new java.util.TreeSet<>(Pointwise.OPCODES)
                    + ", " + String.join(", ", OWN_OPS), start);
        }
        DType to = null;
        if (text.charAt(at) == '<') {
            if (!name.equals("convert")) {
                throw error("only convert takes a type in <>", at);
            }
            at++;
            spaces();
            int typeAt = at;
            String type = word();
            to = type(type, typeAt);
            spaces();
            expect('>');
            spaces();
        } else if (name.equals("convert")) {
            throw error("convert needs its result type: convert<f32>(x)", at);
        }
        expect('(');
        List<Node> args = new ArrayList<>();
        String detail = "";
        int detailAt = -1;
        while (true) {
            spaces();
            if (name.equals("compare") && args.size() == 2) {
                detailAt = at;
                detail = compareDetail();
            } else if (name.equals("reduce-precision") && args.size() == 1) {
                detailAt = at;
                detail = word();
                try {
                    Pointwise.precision(detail);
                } catch (IllegalArgumentException e) {
                    throw error(e.getMessage(), detailAt);
                }
            } else {
                args.add(expr());
            }
            spaces();
            if (at < text.length() && text.charAt(at) == ',') {
                at++;
                continue;
            }
            expect(')');
            break;
        }
        int arity = Pointwise.arity(name);
        if (args.size() != arity) {
            throw error(name + " takes " + arity + " operand" + (arity == 1 ? "" : "s") + ", got " + args.size(), start);
        }
        if (name.equals("reduce-precision") && detailAt < 0) {
            throw error("reduce-precision needs its bits after its operand: reduce-precision(x, e8m7)", at - 1);
        }
        if (name.equals("compare") && detailAt < 0) {
            throw error("compare needs its direction and type after its operands: compare(a, b, LT FLOAT)", at - 1);
        }
        return new Node(typed(name, to, args, detail, start), start);
    }

    /** {@return the op with its operands' types checked and its constants typed by their siblings} */
    private Pointwise.Expr typed(String name, DType to, List<Node> args, String detail, int start) {
        List<Pointwise.Expr> a = new ArrayList<>();
        switch (name) {
            case String unary when Pointwise.arity(unary) == 1 -> {
                Node x = args.getFirst();
                if (x.expr == null) {
                    throw error("the constant " + x.literal + " has no type here: " + name
                            + "'s operand must be an operand or an op", x.position);
                }
                a.add(x.expr);
            }
            case "select", Pointwise.Op.FLUSHED_SELECT -> {
                a.add(typedAs(args.getFirst(), DType.PRED, name));
                DType t = common(args.subList(1, 3), name, start);
                a.add(typedAs(args.get(1), t, name));
                a.add(typedAs(args.get(2), t, name));
            }
            default -> {
                DType t = common(args, name, start);
                for (Node n : args) {
                    a.add(typedAs(n, t, name));
                }
            }
        }
        DType in = a.get(isSelect(name) ? 1 : 0).type();
        DType type = switch (name) {
            case "convert" -> to;
            case "compare", "is-finite" -> DType.PRED;
            default -> in;
        };
        check(name, in, a, detail, start);
        return new Pointwise.Op(name, type, a, detail);
    }

    private static boolean isSelect(String name) {
        return name.equals("select") || name.equals(Pointwise.Op.FLUSHED_SELECT);
    }

    private void check(String name, DType in, List<Pointwise.Expr> a, String detail, int start) {
        if (isSelect(name) && a.getFirst().type() != DType.PRED) {
            throw error("select's first operand must be pred, got " + a.getFirst().type().xlaName(), start);
        }
        boolean logic = Set.of("and", "or", "xor", "not").contains(name);
        if (logic && Pointwise.isFloat(in)) {
            throw error(name + " takes integers or pred, got " + in.xlaName(), start);
        }
        if (!logic && Pointwise.INTEGER_OPS.contains(name) && (Pointwise.isFloat(in) || in == DType.PRED)) {
            throw error(name + " takes integers, got " + in.xlaName(), start);
        }
        if (name.equals("sign") && (in == DType.PRED || in.kind() == DType.Kind.UNSIGNED)) {
            throw error("sign takes a float or signed integer, got " + in.xlaName(), start);
        }
        if ((OWN_OPS.contains(name) || Pointwise.FLOAT_OPS.contains(name)) && !Pointwise.isFloat(in)) {
            throw error(name + " takes a float type, got " + in.xlaName(), start);
        }
        if (name.equals("compare")) {
            String kind = detail.split(" ")[1];
            boolean floatKind = kind.equals("FLOAT") || kind.equals("TOTALORDER");
            if (floatKind != Pointwise.isFloat(in)) {
                throw error("compare of " + in.xlaName() + " cannot be " + kind, start);
            }
        }
    }

    /** {@return the type the operands share: the first typed one's} @throws TextFormatException if two differ or none is typed */
    private DType common(List<Node> args, String name, int start) {
        DType t = null;
        for (Node n : args) {
            if (n.expr == null) {
                continue;
            }
            if (t == null) {
                t = n.expr.type();
            } else if (n.expr.type() != t) {
                throw error(name + "'s operands must have one type, got " + t.xlaName() + " and " + n.expr.type().xlaName(),
                        n.position);
            }
        }
        if (t == null) {
            Node first = args.getFirst();
            throw error("the constant " + first.literal + " has no type here: an operand of " + name
                    + " beside it must be an operand or an op", first.position);
        }
        return t;
    }

    private Pointwise.Expr typedAs(Node n, DType t, String name) {
        if (n.expr != null) {
            return n.expr;
        }
        constants.set(n.constant, new Constant(t, value(n.literal, t, n.position)));
        return new Pointwise.Leaf(operands.size() + n.constant, t);
    }

    /** {@return {@code literal} as a value of {@code t}} @throws TextFormatException if it is not one */
    private Number value(String literal, DType t, int position) {
        String s = literal.toLowerCase(Locale.ROOT);
        if (t == DType.PRED) {
            return switch (s) {
                case "true", "1" -> 1L;
                case "false", "0" -> 0L;
                default -> throw error("a pred constant is true, false, 1 or 0, not " + literal, position);
            };
        }
        if (Pointwise.isFloat(t)) {
            try {
                return ScalarLiteral.parse(literal, t); // boxed as a Double
            } catch (NumberFormatException e) {
                throw error("'" + literal + "' is not a " + t.xlaName() + " constant", position);
            } catch (IllegalArgumentException e) {
                throw error(e.getMessage(), position);
            }
        }
        long v;
        try {
            v = Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw error("'" + literal + "' is not a " + t.xlaName() + " constant: expected an integer", position);
        }
        int bits = t.bitWidth();
        boolean signed = t.kind() == DType.Kind.SIGNED;
        long lo = signed ? -(1L << (bits - 1)) : 0;
        long hi = bits >= 64 ? Long.MAX_VALUE : signed ? (1L << (bits - 1)) - 1 : (1L << bits) - 1;
        if (v < lo || v > hi) {
            throw error("constant " + literal + " is outside " + t.xlaName() + "'s range [" + lo + ", " + hi + "]", position);
        }
        return (Long) v;
    }

    private static boolean isLiteral(String word) {
        String s = word.toLowerCase(Locale.ROOT);
        return s.equals("true") || s.equals("false") || !s.isEmpty() && (Character.isDigit(s.charAt(0))
                || s.charAt(0) == '-' || s.charAt(0) == '+' || s.charAt(0) == '.' || s.equals("inf") || s.equals("nan"));
    }

    private String compareDetail() {
        int dirAt = at;
        String dir = word();
        if (!DIRECTIONS.contains(dir)) {
            throw error("expected a compare direction (one of EQ, NE, LT, LE, GT, GE), found '" + dir + "'", dirAt);
        }
        spaces();
        int kindAt = at;
        String kind = word();
        if (!COMPARE_TYPES.contains(kind)) {
            throw error("expected a compare type (FLOAT, TOTALORDER, SIGNED or UNSIGNED) after " + dir + ", found '"
                    + kind + "'", kindAt);
        }
        return dir + " " + kind;
    }

    private DType type(String name, int position) {
        for (DType t : Pointwise.TYPES) {
            if (t.xlaName().equals(name)) {
                return t;
            }
        }
        throw error("'" + name + "' is not a type an expression computes in: expected one of "
                + Pointwise.TYPES.stream().map(DType::xlaName).sorted().toList(), position);
    }

    /**
     * Letters, digits, '_', '.', a sign or exponent sign, and '-' between the letters of a name
     * ({@code is-finite}): an op name, a type, a compare word or a number.
     */
    private String word() {
        int start = at;
        while (at < text.length()) {
            char c = text.charAt(at);
            boolean sign = (c == '-' || c == '+') && (at == start
                    || "eE".indexOf(text.charAt(at - 1)) >= 0 && isLiteral(text.substring(start, start + 1)));
            boolean hyphen = c == '-' && at > start && Character.isLetter(text.charAt(start))
                    && Character.isLetter(text.charAt(at - 1)) && at + 1 < text.length() && Character.isLetter(text.charAt(at + 1));
            if (Character.isLetterOrDigit(c) || c == '_' || c == '.' || sign || hyphen) {
                at++;
            } else {
                break;
            }
        }
        return text.substring(start, at);
    }

    private void expect(char c) {
        if (at >= text.length()) {
            throw error("expected '" + c + "', found the end", at);
        }
        if (text.charAt(at) != c) {
            throw error("expected '" + c + "', found '" + text.charAt(at) + "'", at);
        }
        at++;
    }

    private void spaces() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
    }

    private TextFormatException error(String problem, int position) {
        return new TextFormatException(problem, text, position);
    }
}
