package dev.tensorbuf.ops.indexing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.ops.hlo.internal.HloSyntaxException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The edges of indexing through a fusion's computation that XLA's vectors do not reach: a fused
 * computation that does not return the fusion's shape, a fusion without one, and instructions
 * inside it whose attributes do not fit (only their paths become unknown, as in XLA).
 */
class FusionEdgesTest {

    /**
     * XLA's verifier ({@code CheckFusionInstruction}) wants the fused computation's root to have
     * the fusion's shape. Output j of the fusion is output j of the root; a root with fewer
     * outputs left the others without maps (input-to-output) or a tuple operand past its end
     * (output-to-input), one with other dimensions gave maps over the wrong domain.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            fewer outputs | f32[2,3] negate(p0) | (f32[2,3], f32[2,3]) | (f32[2,3]{1,0}) is not equal to the fusion shape ((f32[2,3]{1,0}, f32[2,3]{1,0}))
            more outputs | (f32[2,3], f32[2,3]) tuple(p0, p0) | f32[2,3] | ((f32[2,3]{1,0}, f32[2,3]{1,0})) is not equal to the fusion shape (f32[2,3]{1,0})
            other dimensions | f32[3,2] transpose(p0), dimensions={1,0} | f32[2,3] | (f32[3,2]{1,0}) is not equal to the fusion shape (f32[2,3]{1,0})
            a second output of other dimensions | (f32[2,3], f32[3,2]) tuple(p0, t) | (f32[2,3], f32[2,3]) | ((f32[2,3]{1,0}, f32[3,2]{1,0})) is not equal to the fusion shape ((f32[2,3]{1,0}, f32[2,3]{1,0}))
            """)
    void aFusedComputationMustReturnTheFusionsShape(String what, String root, String fusionShape, String message) {
        HloModule m = HloModule.parse("HloModule m\nf {\n p0 = f32[2,3] parameter(0)\n t = f32[3,2] transpose(p0),"
                + " dimensions={1,0}\n ROOT r = " + root + "\n}\nENTRY e {\n x = f32[2,3] parameter(0)\n ROOT fu = "
                + fusionShape + " fusion(x), kind=kLoop, calls=f\n}");
        for (String refusal : RootMaps.refusals(m, 0, what)) {
            assertEquals("fusion fu: Fused computation shape " + message, refusal, what);
        }
    }

    @Test
    void aFusionWithoutACalledComputationIsRefusedAsItIsRead() {
        // XLA's parser needs calls=, and so the analysis never sees a fusion without one.
        HloSyntaxException e = assertThrows(HloSyntaxException.class, () -> HloModule.parse(
                "HloModule m\nENTRY e {\n x = f32[4] parameter(0)\n ROOT fu = f32[4] fusion(x), kind=kLoop\n}"));
        assertTrue(e.getMessage().startsWith("4:19: fusion fu needs attribute 'calls'"), e.getMessage());
    }

    /**
     * A reduce inside declared {@code f32[8]} for {@code dimensions={1}} of {@code f32[4,8]}
     * (XLA's verifier wants {@code f32[4]}): the output it feeds is unknown, the other output
     * keeps its map, in both directions.
     */
    @Test
    void anInstructionThatDoesNotFitMakesOnlyItsOwnPathUnknown() {
        HloModule m = HloModule.parse("""
                HloModule m
                add {
                  a = f32[] parameter(0)
                  b = f32[] parameter(1)
                  ROOT s = f32[] add(a, b)
                }
                f {
                  p0 = f32[4,8] parameter(0)
                  c = f32[] constant(0)
                  r = f32[8] reduce(p0, c), dimensions={1}, to_apply=add
                  n = f32[4,8] negate(p0)
                  ROOT t = (f32[8], f32[4,8]) tuple(r, n)
                }
                ENTRY e {
                  x = f32[4,8] parameter(0)
                  ROOT fu = (f32[8], f32[4,8]) fusion(x), kind=kLoop, calls=f
                }""");
        assertEquals("operand id = 0 unknown indexing\n", RootMaps.outputToInput(m, 0, false));
        assertEquals("operand id = 0 (d0, d1) -> (d0, d1), domain: d0 in [0, 3], d1 in [0, 7]\n",
                RootMaps.outputToInput(m, 1, false));
        assertEquals("operand id = 0 unknown indexing\noperand id = 1 (d0, d1) -> (d0, d1), domain: d0 in [0, 3],"
                + " d1 in [0, 7]\n", RootMaps.inputToOutput(m, 0, false));
    }

    /** A get-tuple-element of element 2 of a pair reads nothing known: unknown both ways, not an error. */
    @Test
    void aTupleElementPastTheTupleIsUnknown() {
        HloModule m = HloModule.parse("""
                HloModule m
                f {
                  p0 = (f32[4], f32[4]) parameter(0)
                  g = f32[4] get-tuple-element(p0), index=2
                  ROOT n = f32[4] negate(g)
                }
                ENTRY e {
                  x = (f32[4], f32[4]) parameter(0)
                  ROOT fu = f32[4] fusion(x), kind=kLoop, calls=f
                }""");
        assertEquals("operand id = 0 unknown indexing\n", RootMaps.outputToInput(m));
        assertEquals("operand id = 0 unknown indexing\n",
                RootMaps.inputToOutput(m, 0, false));
    }

    /** XLA's reduce of a broadcast along the reduced dimension: the reduction's symbol reads nothing and is dropped. */
    @Test
    void aReductionOverABroadcastDimensionReadsTheOperandOnce() {
        HloModule m = HloModule.parse("""
                HloModule m
                add {
                  a = f32[] parameter(0)
                  b = f32[] parameter(1)
                  ROOT s = f32[] add(a, b)
                }
                f {
                  p0 = f32[4] parameter(0)
                  c = f32[] constant(0)
                  bc = f32[4,8] broadcast(p0), dimensions={0}
                  ROOT r = f32[4] reduce(bc, c), dimensions={1}, to_apply=add
                }
                ENTRY e {
                  x = f32[4] parameter(0)
                  ROOT fu = f32[4] fusion(x), kind=kLoop, calls=f
                }""");
        assertEquals("operand id = 0 (d0) -> (d0), domain: d0 in [0, 3]\n",
                RootMaps.outputToInput(m));
    }

    /**
     * A dynamic-slice's offset seen through a reduce in an inner fusion and a broadcast in the
     * outer one: the offset variable's own map keeps the reduce's symbol (it is read for every
     * element the reduce sums), composed once more without new constraints.
     */
    @Test
    void anOffsetComposedThroughANestedFusionKeepsItsRangeVariable() {
        HloModule m = HloModule.parse("""
                HloModule m
                add {
                  a = s32[] parameter(0)
                  b = s32[] parameter(1)
                  ROOT s = s32[] add(a, b)
                }
                g {
                  p0 = s32[4096] parameter(0)
                  p1 = s64[] parameter(1)
                  c = s32[] constant(0)
                  ds = s32[10] dynamic-slice(p0, p1), dynamic_slice_sizes={10}
                  ROOT r = s32[] reduce(ds, c), dimensions={0}, to_apply=add
                }
                f {
                  q0 = s32[4096] parameter(0)
                  q1 = s64[] parameter(1)
                  inner = s32[] fusion(q0, q1), kind=kLoop, calls=g
                  ROOT b = s32[3] broadcast(inner), dimensions={}
                }
                ENTRY e {
                  x = s32[4096] parameter(0)
                  y = s64[] parameter(1)
                  ROOT fu = s32[3] fusion(x, y), kind=kLoop, calls=f
                }""");
        assertEquals("""
                operand id = 0 (d0)[s0]{rt0} -> (s0 + rt0), domain: d0 in [0, 2], s0 in [0, 9], rt0 in [0, 4086]
                runtime variables:
                rt0: parameter(1); (d0)[s0] -> (), domain: d0 in [0, 2], s0 in [0, 9]
                operand id = 1 (d0) -> (), domain: d0 in [0, 2]
                """, RootMaps.outputToInput(m));
    }

    /**
     * An operand map known empty before the fusion's last simplification (a slice of only the
     * padding around a dynamic-slice: the slice and pad compose to an empty map before the
     * dynamic-slice's runtime variable joins) and one that becomes empty in it (a slice of only
     * the padding of a dynamic-slice whose offset can only be 0) both bind no runtime variable.
     * XLA's {@code ResetToKnownEmpty} keeps the map's variables but clears its results and
     * constraints, so {@code OperandIndexing::RemoveUnusedSymbols} then drops every runtime
     * variable with its binding. Before, the first kept {@code parameter(1); KNOWN EMPTY}.
     */
    @Test
    void aKnownEmptyOperandMapBindsNoRuntimeVariable() {
        HloModule emptyBefore = HloModule.parse("""
                HloModule m
                f {
                  p0 = f32[8] parameter(0)
                  p1 = s32[] parameter(1)
                  ds = f32[2] dynamic-slice(p0, p1), dynamic_slice_sizes={2}
                  c = f32[] constant(0)
                  pd = f32[8] pad(ds, c), padding=3_3
                  ROOT s = f32[2] slice(pd), slice={[0:2]}
                }
                ENTRY e {
                  x = f32[8] parameter(0)
                  y = s32[] parameter(1)
                  ROOT fu = f32[2] fusion(x, y), kind=kLoop, calls=f
                }""");
        HloModule emptiedInFinish = HloModule.parse("""
                HloModule m
                f {
                  p0 = f32[2] parameter(0)
                  p1 = s32[] parameter(1)
                  c = f32[] constant(0)
                  pd = f32[12] pad(p0, c), padding=10_0
                  ds = f32[12] dynamic-slice(pd, p1), dynamic_slice_sizes={12}
                  ROOT s = f32[2] slice(ds), slice={[0:2]}
                }
                ENTRY e {
                  x = f32[2] parameter(0)
                  y = s32[] parameter(1)
                  ROOT fu = f32[2] fusion(x, y), kind=kLoop, calls=f
                }""");
        // The dynamic-slice reads its offset whatever it returns, so the second reads parameter 1.
        for (String what : List.of("empty before", "emptied in finish")) {
            boolean before = what.equals("empty before");
            HloModule m = before ? emptyBefore : emptiedInFinish;
            HloIndexing.InstructionIndexing out = HloIndexing.outputToInput(m, m.entry().root());
            assertEquals("operand id = 0 KNOWN EMPTY\noperand id = 1 "
                    + (before ? "KNOWN EMPTY" : "(d0) -> (), domain: d0 in [0, 1]") + "\n", out.toString(), what);
            HloIndexing.OperandIndexing o = out.operand(0).iterator().next();
            assertEquals(List.of(), o.runtimeVariables(), what);
            assertEquals(List.of(), o.map().runtimeVars(), what);
        }
    }

    /**
     * The inner dynamic-slice reads its offset (parameter 1) whatever the outer offset (parameter
     * 2, {@code rt0}) is, but the pad between them leaves a constraint {@code s0 + rt0 in [3, 6]}
     * on variables no result uses. XLA's {@code RemoveUnusedSymbols} drops such a constraint and
     * its variables, and {@code OperandIndexing::RemoveUnusedSymbols} the binding of {@code rt0}:
     * {@code () -> ()}. Before, the map kept them all (the trimmed map had fewer runtime variables
     * than bindings, and the untrimmed one was returned).
     */
    @Test
    void aRuntimeVariableOnlyInADroppedConstraintLosesItsBinding() {
        HloModule m = HloModule.parse("""
                HloModule m
                add {
                  a = f32[] parameter(0)
                  b = f32[] parameter(1)
                  ROOT s = f32[] add(a, b)
                }
                f {
                  p0 = f32[10] parameter(0)
                  p1 = s32[] parameter(1)
                  q = s32[] parameter(2)
                  inner = f32[4] dynamic-slice(p0, p1), dynamic_slice_sizes={4}
                  c = f32[] constant(0)
                  pd = f32[10] pad(inner, c), padding=3_3
                  outer = f32[2] dynamic-slice(pd, q), dynamic_slice_sizes={2}
                  ROOT r = f32[] reduce(outer, c), dimensions={0}, to_apply=add
                }
                ENTRY e {
                  x = f32[10] parameter(0)
                  y = s32[] parameter(1)
                  z = s32[] parameter(2)
                  ROOT fu = f32[] fusion(x, y, z), kind=kLoop, calls=f
                }""");
        assertEquals("""
                operand id = 0 ()[s0]{rt0, rt1} -> (s0 + rt1 + rt0 - 3), domain: s0 in [0, 1], rt0 in [0, 6], \
                rt1 in [0, 8], s0 + rt1 in [3, 6]
                runtime variables:
                rt0: parameter(1); ()[s0]{rt0} -> (), domain: s0 in [0, 1], rt0 in [0, 8], s0 + rt0 - 3 in [0, 3], \
                s0 + rt0 in [3, 6]
                rt1: parameter(2); ()[s0] -> (), domain: s0 in [0, 1]
                operand id = 1 () -> ()
                operand id = 2 () -> ()
                """, RootMaps.outputToInput(m));
        HloIndexing.OperandIndexing offset = HloIndexing.outputToInput(m, m.entry().root()).operand(1).iterator().next();
        assertEquals(List.of(), offset.runtimeVariables());
    }
}
