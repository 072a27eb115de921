package dev.tensorbuf.ops.copy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.text.TextFormatException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The expression text an epilogue prints, read back: the same tree, constants typed by their siblings, problems placed. */
class PointwiseSyntaxTest {
    private static Pointwise.Expr leaf(int k, DType t) {
        return new Pointwise.Leaf(k, t);
    }

    private static Pointwise.Expr op(String name, DType t, String detail, Pointwise.Expr... args) {
        return new Pointwise.Op(name, t, List.of(args), detail);
    }

    @Test
    void whatAnEpiloguePrintsReadsBackAsTheSameTree() {
        Pointwise.Expr x = op("convert", DType.F32, "", leaf(0, DType.U8));
        Pointwise.Expr normalise = op("multiply", DType.F32, "", op("add", DType.F32, "", x, op("negate", DType.F32, "",
                leaf(1, DType.F32))), op(Pointwise.Op.RECIPROCAL, DType.F32, "", leaf(2, DType.F32)));
        Pointwise.Expr clampCast = op("convert", DType.BF16, "", op("clamp", DType.F32, "", leaf(1, DType.F32),
                op(Pointwise.Op.FMA, DType.F32, "", x, leaf(1, DType.F32), leaf(2, DType.F32)), leaf(2, DType.F32)));
        Pointwise.Expr f = leaf(0, DType.F32);
        Pointwise.Expr total = op("select", DType.F32, "", op("compare", DType.PRED, "LT TOTALORDER", f, leaf(1, DType.F32)),
                f, op("abs", DType.F32, "", leaf(1, DType.F32)));
        Pointwise.Expr max = op(Pointwise.Op.FLUSHED_SELECT, DType.F64, "", op("compare", DType.PRED, "GT FLOAT",
                leaf(0, DType.F64), leaf(1, DType.F64)), leaf(0, DType.F64), leaf(1, DType.F64));
        Pointwise.Expr i = leaf(0, DType.S32);
        Pointwise.Expr logic = op("and", DType.S32, "", op("not", DType.S32, "", i), op("xor", DType.S32, "", i, leaf(1, DType.S32)));
        Pointwise.Expr unsigned = op("convert", DType.F16, "", op("compare", DType.PRED, "GE UNSIGNED", leaf(0, DType.U32),
                leaf(1, DType.U32)));
        Pointwise.Expr g = leaf(0, DType.F32);
        Pointwise.Expr functions = op("select", DType.F32, "", op("is-finite", DType.PRED, "", g), op("round-nearest-afz",
                DType.F32, "", op("sqrt", DType.F32, "", g)), op("remainder", DType.F32, "", op("floor", DType.F32, "", g),
                op("sign", DType.F32, "", leaf(1, DType.F32))));
        Pointwise.Expr reduced = op("reduce-precision", DType.F32, "e5m10", op("sqrt", DType.F32, "", leaf(0, DType.F32)));
        Pointwise.Expr flushedRemainder = op(Pointwise.Op.FLUSHED_REMAINDER, DType.F64, "", leaf(0, DType.F64), leaf(1, DType.F64));
        Pointwise.Expr shifts = op("shift-right-arithmetic", DType.S8, "", op("shift-left", DType.S8, "", leaf(0, DType.S8),
                op("popcnt", DType.S8, "", leaf(1, DType.S8))), op("count-leading-zeros", DType.S8, "", leaf(1, DType.S8)));
        record Case(Pointwise.Expr e, List<DType> types) {
        }
        for (Case c : List.of(new Case(normalise, List.of(DType.U8, DType.F32, DType.F32)),
                new Case(clampCast, List.of(DType.U8, DType.F32, DType.F32)), new Case(total, List.of(DType.F32, DType.F32)),
                new Case(logic, List.of(DType.S32, DType.S32)), new Case(unsigned, List.of(DType.U32, DType.U32)),
                new Case(max, List.of(DType.F64, DType.F64)), new Case(functions, List.of(DType.F32, DType.F32)),
                new Case(shifts, List.of(DType.S8, DType.S8)), new Case(flushedRemainder, List.of(DType.F64, DType.F64)),
                new Case(reduced, List.of(DType.F32)))) {
            PointwiseSyntax.Parsed p = PointwiseSyntax.parse(c.e().toString(), c.types());
            assertEquals(c.e(), p.expr(), c.e().toString());
            assertEquals(List.of(), p.constants());
        }
        // Spaces anywhere between tokens.
        assertEquals(normalise, PointwiseSyntax.parse(" multiply ( add(convert< f32 >(%0),negate( %1 )) , reciprocal(%2))",
                List.of(DType.U8, DType.F32, DType.F32)).expr());
    }

    @Test
    void constantsTakeTheirSiblingsTypeAndAreNumberedAfterTheOperands() {
        PointwiseSyntax.Parsed p = PointwiseSyntax.parse("fma(convert<f32>(%0), 0.5, 1)", List.of(DType.U8));
        assertEquals("fma(convert<f32>(%0), %1, %2)", p.expr().toString());
        assertEquals(List.of(new PointwiseSyntax.Constant(DType.F32, 0.5), new PointwiseSyntax.Constant(DType.F32, 1.0)),
                p.constants());
        // A constant beside a later typed operand, in a select's branches, and a pred one.
        PointwiseSyntax.Parsed s = PointwiseSyntax.parse("select(true, -128, %0)", List.of(DType.S8));
        assertEquals(List.of(new PointwiseSyntax.Constant(DType.PRED, 1L), new PointwiseSyntax.Constant(DType.S8, -128L)),
                s.constants());
        assertEquals("select(%1, %2, %0)", s.expr().toString());
        // XLA's spellings of special values, exact: -0 and -nan keep their sign, 1e-45 is f32's
        // smallest denormal; numbered as written, though the outer clamp types its -0 last.
        PointwiseSyntax.Parsed special = PointwiseSyntax.parse("clamp(-0, maximum(%0, -nan), minimum(inf, fma(%0, %0, 1e-45)))",
                List.of(DType.F32));
        assertEquals("clamp(%1, maximum(%0, %2), minimum(%3, fma(%0, %0, %4)))", special.expr().toString());
        try (Allocator a = Allocators.shared()) {
            int[] want = {0x80000000, 0xffc00000, 0x7f800000, 0x00000001};
            for (int k = 0; k < want.length; k++) {
                TensorView v = special.constants().get(k).view(List.of(2L, 3L), a);
                assertEquals(List.of(2L, 3L), v.dims());
                long bits = ElementAccess.of(DType.F32).getBits(v.buffer().segment(), 0);
                assertEquals(want[k], (int) bits, "constant " + k + ": " + special.constants().get(k));
            }
            TensorView u64 = PointwiseSyntax.parse("add(%0, 9007199254740993)", List.of(DType.U64)).constants().getFirst()
                    .view(List.of(1L), a);
            assertEquals(9007199254740993L, ElementAccess.of(DType.U64).getBits(u64.buffer().segment(), 0),
                    "an integer past 2^53 stays exact");
        }
    }

    @Test
    void problemsAreNamedAtTheirPosition() {
        record Bad(String text, List<DType> types, String problem, int position) {
        }
        List<DType> u8 = List.of(DType.U8);
        for (Bad b : List.of(
                new Bad("", u8, "expected an operand (%k), a constant or an op, found the end", 0),
                new Bad("%", u8, "expected an operand number after '%'", 1),
                new Bad("%99999999999", u8, "operand number 99999999999 is too large", 1),
                new Bad("add(%0, %1)", List.of(DType.U8, DType.U8, DType.U8), null, -1),
                new Bad("add(%0, %2)", List.of(DType.U8, DType.U8), "operand %2 is not given: there are %0 to %1", 8),
                new Bad("add(%0)", u8, "add takes 2 operands, got 1", 0),
                new Bad("negate(%0, %0)", u8, "negate takes 1 operand, got 2", 0),
                new Bad("add<f32>(%0, %0)", u8, "only convert takes a type in <>", 3),
                new Bad("convert(%0)", u8, "convert needs its result type: convert<f32>(x)", 7),
                new Bad("x", u8, "'x' is neither a constant nor an op followed by '('", 0),
                new Bad("1", u8, "a constant alone has no type: write it as an operand of an op", 0),
                new Bad("add(1, 2)", u8, "the constant 1 has no type here: an operand of add beside it must be an operand"
                        + " or an op", 4),
                new Bad("add(%0, 1.5)", u8, "'1.5' is not a u8 constant: expected an integer", 8),
                new Bad("add(%0, -1)", u8, "constant -1 is outside u8's range [0, 255]", 8),
                new Bad("add(convert<f32>(%0), 1x)", u8, "'1x' is not a f32 constant", 22),
                new Bad("select(%0, %0, %0)", u8, "select's first operand must be pred, got u8", 0),
                new Bad("select(2, %0, %0)", u8, "a pred constant is true, false, 1 or 0, not 2", 7),
                new Bad("fma(%0, %0, %0)", u8, "fma takes a float type, got u8", 0),
                new Bad("and(convert<f32>(%0), 1)", u8, "and takes integers or pred, got f32", 0),
                new Bad("sqrt(%0)", u8, "sqrt takes a float type, got u8", 0),
                new Bad("is-finite(%0)", u8, "is-finite takes a float type, got u8", 0),
                new Bad("popcnt(convert<f32>(%0))", u8, "popcnt takes integers, got f32", 0),
                new Bad("shift-left(convert<pred>(%0), true)", u8, "shift-left takes integers, got pred", 0),
                new Bad("sign(%0)", u8, "sign takes a float or signed integer, got u8", 0),
                new Bad("reduce-precision(convert<f32>(%0))", u8, "reduce-precision needs its bits after its operand:"
                        + " reduce-precision(x, e8m7)", 33),
                new Bad("reduce-precision(convert<f32>(%0), e0m7)", u8, "reduce-precision needs its bits as e<exponent bits>m"
                        + "<mantissa bits> (e8m7), exponent bits from 1, got 'e0m7'", 35),
                new Bad("compare(%0, %0, LQ SIGNED)", u8, "expected a compare direction (one of EQ, NE, LT, LE, GT, GE),"
                        + " found 'LQ'", 16),
                new Bad("compare(%0, %0, LT)", u8, "expected a compare type (FLOAT, TOTALORDER, SIGNED or UNSIGNED) after"
                        + " LT, found ''", 18),
                new Bad("add(%0, %0", u8, "expected ')', found the end", 10),
                new Bad("add(%0; %0)", u8, "expected ')', found ';'", 6),
                new Bad("add(%0, %0))", u8, "expected the end of the expression, found ')'", 11),
                new Bad("$0 = convert<f32>(%0); $0", u8, null, -1),
                new Bad("add(%0, $1)", u8, "$1 is not bound before it is read: bind it first, as '$1 = expr;'", 8),
                new Bad("$0 = add(%0, $0); $0", u8, "$0 is not bound before it is read: bind it first, as '$0 = expr;'", 13),
                new Bad("$0 = add(%0, %0); $0 = %0; $0", u8, "$0 is bound twice", 18),
                new Bad("$0 = 1; add(%0, $0)", u8, "a constant alone has no type: write it as an operand of an op", 5),
                new Bad("$0 = add(%0, %0) add($0, $0)", u8, "expected ';', found 'a'", 17),
                new Bad("$ = add(%0, %0); %0", u8, "expected a name after '$'", 1))) {
            if (b.problem() == null) {
                PointwiseSyntax.parse(b.text(), b.types()); // reads
                continue;
            }
            TextFormatException e = assertThrows(TextFormatException.class, () -> PointwiseSyntax.parse(b.text(), b.types()),
                    b.text());
            assertEquals(b.problem(), e.problem(), b.text());
            assertEquals(b.position(), e.position(), b.text());
            assertEquals(b.text(), e.input());
        }
    }

    @Test
    void thePrinterNamesEachLeafAsItsCallerAsks() {
        Pointwise.Expr x = new Pointwise.Op("convert", DType.F32, List.of(new Pointwise.Leaf(0, DType.U8)), "");
        Pointwise.Expr lt = new Pointwise.Op("compare", DType.PRED, List.of(x, new Pointwise.Leaf(1, DType.F32)), "LT FLOAT");
        Pointwise.Expr e = new Pointwise.Op("select", DType.F32, List.of(lt, x, new Pointwise.Leaf(12, DType.F32)), "");
        // The convert both read is one node: bound once, before the expression.
        assertEquals("$0 = convert<f32>(%0); select(compare($0, %1, LT FLOAT), $0, %12)", e.toString());
        // Leaves 1 and 12 as literals (an epilogue's constants), %12 not read as %1 followed by a 2.
        assertEquals("$0 = convert<f32>(%0); select(compare($0, -0, LT FLOAT), $0, 2.5)",
                Pointwise.print(e, k -> k == 0 ? "%0" : k == 1 ? "-0" : "2.5"));
        Pointwise.Expr tree = new Pointwise.Op("select", DType.F32, List.of(lt, new Pointwise.Op("convert", DType.F32,
                List.of(new Pointwise.Leaf(0, DType.U8)), ""), new Pointwise.Leaf(12, DType.F32)), "");
        assertEquals("select(compare(convert<f32>(%0), %1, LT FLOAT), convert<f32>(%0), %12)", tree.toString(),
                "two equal nodes are written out each");
    }

    @Test
    void aNodeReadBySeveralIsWrittenOnceAndReadBackAsOne() {
        // x = x * x - x, five times: written out in full the text would double at every step.
        Pointwise.Expr x = leaf(0, DType.F32);
        for (int i = 0; i < 5; i++) {
            x = op("subtract", DType.F32, "", op("multiply", DType.F32, "", x, x), x);
        }
        String text = x.toString();
        assertEquals("$0 = subtract(multiply(%0, %0), %0); $1 = subtract(multiply($0, $0), $0); "
                + "$2 = subtract(multiply($1, $1), $1); $3 = subtract(multiply($2, $2), $2); "
                + "subtract(multiply($3, $3), $3)", text);
        Pointwise.Expr read = PointwiseSyntax.parse(text, List.of(DType.F32)).expr();
        assertEquals(x, read);
        assertEquals(10, Pointwise.postOrder(read).stream().filter(n -> n instanceof Pointwise.Op).count(),
                "one op node per binding");
        assertEquals(text, read.toString());
        // Its values: the evaluator computes each node once, by the same rules as a tree.
        double[] in = {0.5, -2, 3};
        double[] got = (double[]) Pointwise.eval(x, new Object[] {in}, 3);
        for (int i = 0; i < in.length; i++) {
            float v = (float) in[i];
            for (int k = 0; k < 5; k++) {
                v = v * v - v;   // f32 here: LLVM would contract it, the expression has no fma
            }
            assertEquals(v, (float) got[i], "element " + i);
        }
        // A deep chain: no recursion on the calling thread's stack.
        Pointwise.Expr chain = leaf(0, DType.F32);
        for (int i = 0; i < 100_000; i++) {
            chain = op("add", DType.F32, "", chain, leaf(1, DType.F32));
        }
        double[] sum = (double[]) Pointwise.eval(chain, new Object[] {new double[] {1}, new double[] {2}}, 1);
        assertEquals(200_001, sum[0]);
        assertEquals(200_001, Pointwise.postOrder(chain).size(), "100,000 adds and their leaves");
        assertEquals(100_000 * "add(, %1)".length() + 2, chain.toString().length());
    }
}
