package dev.tensorbuf.ops.indexing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import dev.tensorbuf.views.indexing.Interval;
import org.junit.jupiter.api.Test;

/**
 * A dynamic-slice offset computed as {@code a * x + b} from one value x (XLA 2025-04's
 * {@code FusionWithRTVarsSimplification_ChainedOps}) is rebound to x where that is exact under
 * the clamp dynamic-slice applies to its offset, and left bound to the offset otherwise.
 */
class RuntimeVariableFoldTest {

    private static HloModule fused(String offsetOps, String offset) {
        return HloModule.parse("""
                HloModule m
                fused_computation {
                  p0 = s32[4096] parameter(0)
                  p1 = s64[] parameter(1)
                  c42 = s64[] constant(42)
                  c2 = s64[] constant(2)
                  %s
                  ROOT ds = s32[10] dynamic-slice(p0, %s), dynamic_slice_sizes={10}
                }
                ENTRY main {
                  p0 = s32[4096] parameter(0)
                  p1 = s64[] parameter(1)
                  ROOT fusion = s32[10] fusion(p0, p1), kind=kInput, calls=fused_computation
                }""".formatted(offsetOps, offset));
    }

    private static OperandIndexing operand0(HloModule m) {
        return HloIndexing.outputToInput(m, m.entry().root(), 0, false).operand(0).iterator().next();
    }

    private static long clamp(long v, long lo, long hi) {
        return Math.max(lo, Math.min(hi, v));
    }

    @Test
    void chainedAddAndMultiplyFoldOntoTheParameterWithTheRangeThatKeepsTheClamp() {
        OperandIndexing o = operand0(fused("add = s64[] add(c42, p1)\n  multiply = s64[] multiply(c2, add)", "multiply"));
        assertEquals("parameter(1)", o.runtimeVariables().getFirst().toString().split(";")[0]);
        assertEquals(new Interval(-42, 2001), o.map().runtimeVars().getFirst().bounds());
        // For every parameter value, the element the folded map reads (its variable clamped to its
        // range, as the op clamps its offset) is the element dynamic-slice reads.
        for (long p1 = -3000; p1 <= 3000; p1++) {
            for (long d0 = 0; d0 < 10; d0 += 9) {
                long read = d0 + clamp(2 * (42 + p1), 0, 4086);
                long rt = clamp(p1, -42, 2001);
                assertEquals(read, o.map().evaluate(new long[] {d0}, new long[0], new long[] {rt})[0], "p1 = " + p1);
            }
        }
    }

    @Test
    void subtractFromAConstantNegatesTheVariable() {
        OperandIndexing o = operand0(fused("add = s64[] add(c42, p1)\n  sub = s64[] subtract(c42, add)", "sub"));
        assertEquals(new Interval(-4086, 0), o.map().runtimeVars().getFirst().bounds());
        for (long p1 = -5000; p1 <= 1000; p1 += 7) {
            long read = 3 + clamp(42 - (42 + p1), 0, 4086);
            long rt = clamp(p1, -4086, 0);
            assertEquals(read, o.map().evaluate(new long[] {3}, new long[0], new long[] {rt})[0], "p1 = " + p1);
        }
    }

    @Test
    void aMultiplyWhoseStepDoesNotDivideTheRangeStaysBoundToTheOffset() {
        // 42 * (p1 + 42) clamped to [0, 4086] reaches 4086, which no multiple of 42 is.
        OperandIndexing o = operand0(fused("add = s64[] add(c42, p1)\n  multiply = s64[] multiply(add, c42)", "multiply"));
        assertEquals("multiply", o.runtimeVariables().getFirst().toString().split(";")[0]);
        assertEquals(new Interval(0, 4086), o.map().runtimeVars().getFirst().bounds());
    }

    @Test
    void theInverseMapFoldsAlike() {
        HloModule m = fused("add = s64[] add(c42, p1)\n  multiply = s64[] multiply(c2, add)", "multiply");
        HloModule top = HloModule.parse("""
                HloModule m
                ENTRY e {
                  p0 = s32[4096] parameter(0)
                  p1 = s64[] parameter(1)
                  c42 = s64[] constant(42)
                  c2 = s64[] constant(2)
                  add = s64[] add(c42, p1)
                  multiply = s64[] multiply(c2, add)
                  ROOT ds = s32[10] dynamic-slice(p0, multiply), dynamic_slice_sizes={10}
                }""");
        OperandIndexing fwd = HloIndexing.inputToOutput(top, top.entry().root(), 0, false).operand(0).iterator().next();
        assertEquals(new Interval(-42, 2001), fwd.map().runtimeVars().getFirst().bounds());
        assertEquals("parameter(1)", fwd.runtimeVariables().getFirst().toString().split(";")[0]);
        // Source element 100 is output element 100 - (2 * 5 + 84) = 6 when p1 = 5.
        assertEquals(6, fwd.map().evaluate(new long[] {100}, new long[0], new long[] {5})[0]);
        assertEquals("parameter(1)", operand0(m).runtimeVariables().getFirst().toString().split(";")[0]);
    }
}
