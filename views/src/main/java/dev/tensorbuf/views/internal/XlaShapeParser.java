package dev.tensorbuf.views.internal;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.XlaShape.BufferShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.XlaShape;
import dev.tensorbuf.views.XlaLayout.SplitConfig;
import dev.tensorbuf.views.text.TextFormatException;
import dev.tensorbuf.views.XlaLayout.Tile;
import dev.tensorbuf.views.XlaLayout;
import dev.tensorbuf.views.internal.XlaShapeLexer.Kind;
import dev.tensorbuf.views.internal.XlaShapeLexer.Token;

import java.text.ParsePosition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Reads XLA shape and layout text with the grammar of {@code reference/xla-formats.md}: layout
 * attributes are looked for once each, in XLA's fixed order D, T, L, #, *, E, S, SC, P, M;
 * {@code D(...)} is read and dropped; {@code P(...)} is rejected as XLA does for dense arrays.
 * Every problem is a {@link TextFormatException} at the offending token.
 */
public final class XlaShapeParser {
    /** Deeper nesting is refused rather than risking the thread's stack. */
    static final int MAX_DEPTH = 256;
    private static final String ATTRIBUTE_ORDER = "attributes go in the order D, T, L, #, *, E, S, SC, P, M";

    private final XlaShapeLexer lexer;
    private Token tok;
    private int lastEnd;
    private int depth;
    /** Where each minor_to_major entry of the last layout read starts, for errors the shape finds. */
    private final List<Integer> minorToMajorStarts = new ArrayList<>();

    private XlaShapeParser(String input, int start) {
        this.lexer = new XlaShapeLexer(input);
        this.tok = lexer.lex(start);
    }

    /** Reads the whole of {@code text} as one shape. */
    public static XlaShape parseShape(String text) {
        XlaShapeParser p = new XlaShapeParser(text, 0);
        XlaShape shape = p.shape();
        if (p.tok.kind() == Kind.LBRACE && p.lexer.lex(p.tok.end()).kind() == Kind.RBRACE) {
            // XLA reads "f32[]{}" as a shape and a stray '{' too; say why, since "{}" looks like a layout.
            throw p.error("expected end of input after the shape, found '{': a '{' after the dimensions starts a"
                    + " layout only when a number or ':' follows, so an empty layout is left out (f32[] for a scalar)"
                    + " and a scalar with layout attributes is written f32[]{:S(1)}", p.tok.start());
        }
        p.expectEnd("after the shape");
        return shape;
    }

    /**
     * Reads one shape starting at {@code pos.getIndex()} and moves {@code pos} to just after it;
     * what follows is not looked at beyond the token after the shape.
     */
    public static XlaShape parseShape(String text, ParsePosition pos) {
        XlaShapeParser p = new XlaShapeParser(text, pos.getIndex());
        XlaShape shape = p.shape();
        pos.setIndex(p.lastEnd);
        return shape;
    }

    /** Reads the whole of {@code text} as one layout, e.g. {@code "{1,0:T(2,2)}"}. */
    public static XlaLayout parseLayout(String text) {
        XlaShapeParser p = new XlaShapeParser(text, 0);
        XlaLayout layout = p.layout();
        p.expectEnd("after the layout");
        return layout;
    }

    private Token advance() {
        Token t = tok;
        lastEnd = t.end();
        tok = lexer.lex(t.end());
        return t;
    }

    private TextFormatException error(String problem, int position) {
        return new TextFormatException(problem, lexer.input(), position);
    }

    private TextFormatException expected(String what) {
        return error("expected " + what + ", found " + tok.describe(), tok.start());
    }

    private Token expect(Kind kind, String what) {
        if (tok.kind() != kind) {
            throw expected(what);
        }
        return advance();
    }

    private boolean isIdent(String name) {
        return tok.kind() == Kind.IDENT && tok.text().equals(name);
    }

    private void expectEnd(String context) {
        if (tok.kind() != Kind.EOF) {
            throw error("expected end of input " + context + ", found " + tok.describe(), tok.start());
        }
    }

    private XlaShape shape() {
        if (depth >= MAX_DEPTH) {
            throw error("shape nesting deeper than " + MAX_DEPTH + " levels", tok.start());
        }
        depth++;
        try {
            return shapeBody();
        } finally {
            depth--;
        }
    }

    private XlaShape shapeBody() {
        int start = tok.start();
        if (isIdent("b") && lexer.lex(tok.end()).kind() == Kind.LPAREN) {
            advance();
            advance();
            int innerStart = tok.start();
            XlaShape inner = shape();
            if (!(inner instanceof ArrayShape array)) {
                throw error("a buffer shape b(...) must hold an array, found " + inner, innerStart);
            }
            expect(Kind.RPAREN, "')' to end the buffer shape");
            return new BufferShape(array);
        }
        if (tok.kind() == Kind.LPAREN) {
            advance();
            List<XlaShape> elements = new ArrayList<>();
            if (tok.kind() != Kind.RPAREN) {
                do {
                    elements.add(shape());
                } while (eat(Kind.COMMA));
            }
            expect(Kind.RPAREN, "',' or ')' in the tuple");
            return new XlaShape.Tuple(elements);
        }
        if (tok.kind() != Kind.IDENT) {
            throw expected("a shape (an element type such as f32, '(' or 'b(')");
        }
        DType dtype = DType.forXlaNameOrNull(tok.text());
        if (dtype == null) {
            String hint = DType.forXlaNameOrNull(tok.text().toLowerCase(java.util.Locale.ROOT)) != null
                    ? " (element type names are lowercase)" : "";
            throw error(Errors.unknownText("element type", tok.text()) + hint, tok.start());
        }
        advance();
        List<Long> dims = new ArrayList<>();
        List<Boolean> dynamic = new ArrayList<>();
        dimensions(dims, dynamic);
        boolean layoutFollows = tok.kind() == Kind.LBRACE
                && switch (lexer.lex(tok.end()).kind()) {
                    case INT, COLON -> true;
                    default -> false;
                };
        if (!dtype.isArrayType()) {
            if (!dims.isEmpty()) {
                throw error(dtype + " shape has no dimensions, write " + dtype + "[]", start);
            }
            if (layoutFollows) {
                throw error(dtype + " shape has no layout", tok.start());
            }
            return dtype == DType.TOKEN ? new XlaShape.Token() : new XlaShape.Opaque();
        }
        XlaLayout layout;
        if (layoutFollows) {
            int layoutStart = tok.start();
            layout = layout();
            if (layout.rank() != dims.size()) {
                throw error("Dimensions size is " + dims.size() + ", but minor to major size is "
                        + layout.rank() + ".", layoutStart);
            }
            // Checked here, where each entry's place in the text is known; the shape's own check
            // would point at the start of the shape.
            for (int k = 0; k < layout.rank(); k++) {
                int d = layout.minorToMajor().get(k);
                if (d >= dims.size()) {
                    // XLA's words, at the entry that is out of bounds.
                    throw error(Errors.minorToMajorOutOfBounds(layout.minorToMajor(),
                            XlaShapePrinter.arrayWithoutLayout(dtype, dims, dynamic) + layout), minorToMajorStarts.get(k));
                }
            }
        } else {
            layout = XlaLayout.descending(dims.size());
        }
        XlaLayout finalLayout = layout;
        return build(start, () -> new ArrayShape(dtype, dims, dynamic, Optional.of(finalLayout)));
    }

    private void dimensions(List<Long> dims, List<Boolean> dynamic) {
        expect(Kind.LBRACKET, "'[' to start the dimensions");
        if (tok.kind() == Kind.RBRACKET) {
            advance();
            return;
        }
        do {
            if (tok.kind() == Kind.QUESTION) {
                advance();
                dims.add(ArrayShape.UNBOUNDED);
                dynamic.add(true);
                continue;
            }
            boolean bounded = eat(Kind.LEQ);
            Token size = expect(Kind.INT, bounded ? "a bound after '<='" : "a dimension size, '<=' or '?'");
            if (size.value() < 0) {
                throw error("dimension size " + size.value() + " is negative", size.start());
            }
            dims.add(size.value());
            dynamic.add(bounded);
        } while (eat(Kind.COMMA));
        expect(Kind.RBRACKET, "',' or ']' after a dimension size");
    }

    private XlaLayout layout() {
        int start = expect(Kind.LBRACE, "'{' to start the layout").start();
        List<Integer> m2m = new ArrayList<>();
        List<Tile> tiles = new ArrayList<>();
        long tail = 1;
        Optional<DType> indexType = Optional.empty();
        Optional<DType> pointerType = Optional.empty();
        long elementBits = 0;
        long memorySpace = 0;
        List<SplitConfig> splits = new ArrayList<>();
        long metadataBytes = 0;
        minorToMajorStarts.clear();
        if (tok.kind() == Kind.INT) {
            do {
                Token d = expect(Kind.INT, "a dimension number in minor_to_major");
                if (d.value() < 0 || d.value() > Integer.MAX_VALUE) {
                    throw error("layout minor_to_major field has out-of-bounds value " + d.value(), d.start());
                }
                m2m.add((int) d.value());
                minorToMajorStarts.add(d.start());
            } while (eat(Kind.COMMA));
        }
        if (eat(Kind.COLON)) {
            if (isIdent("D")) {
                advance();
                dimLevelTypes();
            }
            if (isIdent("T")) {
                advance();
                do {
                    tiles.add(tile());
                } while (tok.kind() == Kind.LPAREN);
            }
            if (isIdent("L")) {
                advance();
                tail = intAttribute("tail padding alignment L");
            }
            if (eat(Kind.HASH)) {
                indexType = Optional.of(unsignedType("index primitive type #"));
            }
            if (eat(Kind.STAR)) {
                pointerType = Optional.of(unsignedType("pointer primitive type *"));
            }
            if (isIdent("E")) {
                advance();
                elementBits = intAttribute("element size in bits E");
            }
            if (isIdent("S")) {
                advance();
                expect(Kind.LPAREN, "'(' after memory space S");
                Token id = expect(Kind.INT, "an integer in memory space S(...)");
                if (id.value() < 0) {
                    throw error("memory space id " + id.value() + " is negative: S(n) takes n >= 0", id.start());
                }
                memorySpace = id.value();
                expect(Kind.RPAREN, "')' to end memory space S(...)");
            }
            if (isIdent("SC")) {
                advance();
                do {
                    splits.add(splitConfig());
                } while (tok.kind() == Kind.LPAREN);
            }
            if (isIdent("P")) {
                throw error("Layout has physical shape, but is not for a sparse array", tok.start());
            }
            if (isIdent("M")) {
                advance();
                metadataBytes = intAttribute("dynamic shape metadata prefix bytes M");
            }
        }
        if (tok.kind() != Kind.RBRACE) {
            throw error("expected '}' to end the layout (" + ATTRIBUTE_ORDER + "), found " + tok.describe(),
                    tok.start());
        }
        advance();
        long l = tail;
        Optional<DType> it = indexType;
        Optional<DType> pt = pointerType;
        long e = elementBits;
        long s = memorySpace;
        long m = metadataBytes;
        return build(start, () -> new XlaLayout(m2m, tiles, l, it, pt, e, s, splits, m));
    }

    private void dimLevelTypes() {
        expect(Kind.LPAREN, "'(' after D");
        if (tok.kind() != Kind.RPAREN) {
            do {
                if (!(isIdent("D") || isIdent("C") || isIdent("S") || isIdent("H"))) {
                    throw expected("a dimension level type (D, C, S or H)");
                }
                advance();
                eat(Kind.PLUS);
                eat(Kind.TILDE);
            } while (eat(Kind.COMMA));
        }
        expect(Kind.RPAREN, "',' or ')' in D(...)");
    }

    private Tile tile() {
        int start = expect(Kind.LPAREN, "'(' to start a tile").start();
        List<Long> dims = new ArrayList<>();
        if (tok.kind() != Kind.RPAREN) {
            do {
                if (eat(Kind.STAR)) {
                    dims.add(Tile.COMBINE);
                } else {
                    dims.add(expect(Kind.INT, "a tile size or '*'").value());
                }
            } while (eat(Kind.COMMA));
        }
        expect(Kind.RPAREN, "',' or ')' in the tile");
        return build(start, () -> new Tile(dims));
    }

    private SplitConfig splitConfig() {
        int start = expect(Kind.LPAREN, "'(' to start a split config").start();
        long dimension = expect(Kind.INT, "a physical dimension in the split config").value();
        expect(Kind.COLON, "':' after the split config dimension");
        List<Long> indices = new ArrayList<>();
        if (tok.kind() != Kind.RPAREN) {
            do {
                indices.add(expect(Kind.INT, "a split index").value());
            } while (eat(Kind.COMMA));
        }
        expect(Kind.RPAREN, "',' or ')' in the split config");
        return build(start, () -> new SplitConfig(dimension, indices));
    }

    private long intAttribute(String what) {
        expect(Kind.LPAREN, "'(' after " + what);
        long v = expect(Kind.INT, "an integer in " + what + "(...)").value();
        expect(Kind.RPAREN, "')' to end " + what + "(...)");
        return v;
    }

    private DType unsignedType(String what) {
        expect(Kind.LPAREN, "'(' after " + what);
        Token t = expect(Kind.IDENT, "an unsigned integer type in " + what + "(...)");
        DType type = DType.forXlaNameOrNull(t.text());
        if (type == null || type.kind() != DType.Kind.UNSIGNED) {
            throw error("expecting an unsigned integer type for " + what + ", found '" + t.text() + "'", t.start());
        }
        expect(Kind.RPAREN, "')' to end " + what + "(...)");
        return type;
    }

    private boolean eat(Kind kind) {
        if (tok.kind() == kind) {
            advance();
            return true;
        }
        return false;
    }

    /** Turns a value's own validation failure into a text error at the construct that caused it. */
    private <T> T build(int position, Supplier<T> constructor) {
        try {
            return constructor.get();
        } catch (TextFormatException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new TextFormatException(e.getMessage(), lexer.input(), position);
        }
    }
}
