package dev.tensorbuf.ops.indexing.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.ops.indexing.HloIndexing;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import dev.tensorbuf.ops.indexing.HloIndexing.RuntimeVariable;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;
import dev.tensorbuf.views.indexing.Variable;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BinaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Runtime variables: which are replaced by what they are known to be, which offset chains fold,
 * and the expression walks that find and replace them in every kind of node.
 */
class RuntimeVarsTest {

    private static final AffineExpr D0 = AffineExpr.dim(0);
    private static final AffineExpr S0 = AffineExpr.sym(0);
    private static final AffineExpr RT1 = AffineExpr.rt(1);

    /** Every binary node, built as given (record constructors), in the order of AffineExpr's permits. */
    private static final List<BinaryOperator<AffineExpr>> NODES = List.of(AffineExpr.Add::new, AffineExpr.Mul::new,
            AffineExpr.FloorDiv::new, AffineExpr.CeilDiv::new, AffineExpr.Mod::new, AffineExpr.Min::new,
            AffineExpr.Max::new);

    /** {@code s32[10] dynamic-slice(s32[4096], offset)} with {@code ops} computing the offset from p1. */
    private static HloModule dynamicSlice(String ops, String offset, boolean fused) {
        String body = " p0 = s32[4096] parameter(0)\n p1 = s64[] parameter(1)\n c1 = s64[] constant(1)\n" + ops
                + "\n ROOT ds = s32[10] dynamic-slice(p0, " + offset + "), dynamic_slice_sizes={10}\n}";
        return HloModule.parse(fused
                ? "HloModule m\nf {\n" + body + "\nENTRY e {\n x = s32[4096] parameter(0)\n y = s64[] parameter(1)\n"
                        + " ROOT fu = s32[10] fusion(x, y), kind=kLoop, calls=f\n}"
                : "HloModule m\nENTRY e {\n" + body);
    }

    private static OperandIndexing operand0(HloModule m) {
        return HloIndexing.outputToInput(m, m.entry().root()).operand(0).iterator().next();
    }

    @Test
    void markRuntimeFindsAVariableOnEitherSideOfEveryNode() {
        for (int n = 0; n < NODES.size(); n++) {
            for (boolean left : new boolean[] {true, false}) {
                AffineExpr e = left ? NODES.get(n).apply(RT1, D0) : NODES.get(n).apply(S0, RT1);
                boolean[] used = new boolean[3];
                RuntimeVars.markRuntime(e, used);
                assertArrayEquals(new boolean[] {false, true, false}, used, e.toString());
            }
        }
        boolean[] none = new boolean[2];
        RuntimeVars.markRuntime(new AffineExpr.Add(D0, new AffineExpr.Const(3)), none);
        assertArrayEquals(new boolean[2], none);
    }

    @Test
    void substituteReplacesTheVariableInEveryNodeAndKeepsTheRest() {
        AffineExpr seven = AffineExpr.constant(7);
        for (int n = 0; n < NODES.size(); n++) {
            AffineExpr e = NODES.get(n).apply(RT1, NODES.get(n).apply(D0, S0));
            AffineExpr expected = NODES.get(n).apply(seven, NODES.get(n).apply(D0, S0)).canonical();
            assertEquals(expected, RuntimeVars.substitute(e, i -> i == 1 ? seven : AffineExpr.rt(i)).canonical(),
                    e.toString());
        }
        assertEquals(AffineExpr.constant(4), RuntimeVars.substitute(AffineExpr.constant(4), i -> seven));
    }

    /** A variable read only by a constraint is still used: optimize keeps it, and the map, as they are. */
    @Test
    void aVariableOnlyAConstraintReadsIsKept() {
        HloModule m = dynamicSlice("", "p1", false);
        IndexingMap map = IndexingMap.of(List.of(Variable.of(0, 9)), List.of(), List.of(Variable.of(0, 100)),
                List.of(D0), Map.of(D0.plus(AffineExpr.rt(0)), new Interval(0, 50)));
        OperandIndexing o = new OperandIndexing(map, List.of(new RuntimeVariable(m.entry().instruction("p1"),
                IndexingMap.of(List.of(Variable.of(0, 9)), List.of(), List.of()))), Optional.empty());
        assertSame(o, RuntimeVars.optimize(o));
    }

    /** The chain is followed 64 ops deep: a71-long chain of +1 folds to a6 with 64 added. */
    @Test
    void anOffsetChainIsFollowedSixtyFourOpsDeep() {
        StringBuilder chain = new StringBuilder(" a0 = s64[] add(p1, c1)\n");
        for (int i = 1; i <= 70; i++) {
            chain.append(" a").append(i).append(" = s64[] add(a").append(i - 1).append(", c1)\n");
        }
        OperandIndexing o = operand0(dynamicSlice(chain.toString(), "a70", false));
        assertEquals("(d0){rt0} -> (d0 + rt0 + 64), domain: d0 in [0, 9], rt0 in [-64, 4022]", o.map().toString());
        assertEquals("a6", o.runtimeVariables().getFirst().instruction().name());
    }

    /**
     * No fold: an add of two variables, an add of two constants (not a chain from one value),
     * and a product that overflows 64 bits (4 * 2^62); each offset stays bound to itself over
     * the slice's range.
     */
    @Test
    void anOffsetThatIsNoChainOfOneValueStaysBoundToItself() {
        String[][] cases = {
            {" a = s64[] add(p1, p1)", "a"},
            {" c2 = s64[] constant(2)\n a = s64[] add(c1, c2)", "a"},
            {" big = s64[] constant(4611686018427387904)\n m1 = s64[] multiply(p1, big)\n c4 = s64[] constant(4)\n"
                    + " m2 = s64[] multiply(m1, c4)", "m2"},
        };
        for (String[] c : cases) {
            for (boolean fused : new boolean[] {false, true}) {
                OperandIndexing o = operand0(dynamicSlice(c[0], c[1], fused));
                assertEquals("(d0){rt0} -> (d0 + rt0), domain: d0 in [0, 9], rt0 in [0, 4086]", o.map().toString(), c[0]);
                assertEquals(c[1], o.runtimeVariables().getFirst().instruction().name(), c[0]);
            }
        }
    }

    /**
     * Composed through a fusion, an integer constant inside the offset's range [0, 4086] is the
     * offset; one outside it (negative, or a u64 past 2^63 - 1) and a non-integer value stay
     * variables, as XLA's {@code OptimizeRTVar} keeps them.
     */
    @Test
    void aConstantOffsetIsSubstitutedOnlyInsideItsRange() {
        assertEquals("(d0) -> (d0 + 7), domain: d0 in [0, 9]",
                operand0(dynamicSlice(" h = s64[] constant(7)", "h", true)).map().toString());
        assertEquals("(d0) -> (d0 + 4086), domain: d0 in [0, 9]",
                operand0(dynamicSlice(" h = s64[] constant(4086)", "h", true)).map().toString());
        for (String constant : List.of("s64[] constant(-3)", "s64[] constant(4087)",
                "u64[] constant(18446744073709551615)")) {
            OperandIndexing o = operand0(dynamicSlice(" h = " + constant, "h", true));
            assertEquals("(d0){rt0} -> (d0 + rt0), domain: d0 in [0, 9], rt0 in [0, 4086]", o.map().toString(), constant);
            assertEquals("h", o.runtimeVariables().getFirst().instruction().name(), constant);
        }
    }
}
