package dev.tensorbuf.ops.indexing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.ops.indexing.HloIndexing.InstructionIndexing;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Hand-checked input-to-output maps, one or more per op, written as XLA text and compared
 * semantically ({@link MapSemantics}); and output-to-input through multi-output producers.
 */
class InputToOutputExamplesTest {
    private static final long SEED = Long.getLong("tensorbuf.seed", 7L);

    private static void assertMaps(Set<OperandIndexing> actual, String... expected) {
        String d = MapSemantics.sameSet(actual.stream().map(OperandIndexing::map).toList(), List.of(expected), false, SEED);
        assertNull(d, () -> d + "\nactual: " + actual);
    }

    private static InstructionIndexing forward(HloModule m, int operand) {
        return HloIndexing.inputToOutput(m, m.entry().root(), operand, false);
    }

    @Test
    void dynamicSliceSourceElementLandsAtItsIndexMinusTheOffset() {
        HloModule m = HloModule.parse("""
                HloModule m
                ENTRY e {
                  src = s32[20,30] parameter(0)
                  of1 = s32[] parameter(1)
                  of2 = s32[] parameter(2)
                  ROOT ds = s32[5,10] dynamic-slice(src, of1, of2), dynamic_slice_sizes={5,10}
                }""");
        assertMaps(forward(m, 0).operand(0), """
                (d0, d1){rt0, rt1} -> (d0 - rt0, d1 - rt1), domain: d0 in [0, 19], d1 in [0, 29],
                rt0 in [0, 15], rt1 in [0, 20], d0 - rt0 in [0, 4], d1 - rt1 in [0, 9]""");
        OperandIndexing src = forward(m, 0).operand(0).iterator().next();
        assertEquals("parameter(1); (d0, d1) -> (), domain: d0 in [0, 19], d1 in [0, 29]",
                src.runtimeVariables().getFirst().toString());
        assertMaps(forward(m, 2).operand(0), "()[s0, s1] -> (s0, s1), domain: s0 in [0, 4], s1 in [0, 9]");
    }

    @Test
    void dynamicUpdateSliceUpdateElementLandsAtItsIndexPlusTheOffset() {
        HloModule m = HloModule.parse("""
                HloModule m
                ENTRY e {
                  src = s32[20,30] parameter(0)
                  upd = s32[5,10] parameter(1)
                  of1 = s32[] parameter(2)
                  of2 = s32[] parameter(3)
                  ROOT dus = s32[20,30] dynamic-update-slice(src, upd, of1, of2)
                }""");
        assertMaps(forward(m, 0).operand(0), "(d0, d1) -> (d0, d1), domain: d0 in [0, 19], d1 in [0, 29]");
        assertMaps(forward(m, 1).operand(0), """
                (d0, d1){rt0, rt1} -> (d0 + rt0, d1 + rt1), domain: d0 in [0, 4], d1 in [0, 9],
                rt0 in [0, 15], rt1 in [0, 20]""");
        assertMaps(forward(m, 3).operand(0), "()[s0, s1] -> (s0, s1), domain: s0 in [0, 19], s1 in [0, 29]");
    }

    @Test
    void shuffledGatherBindsEachOffsetToTheIndexColumnStartIndexMapGivesIt() {
        // start_index_map={1,0}: column 0 of the indices offsets operand dimension 1, column 1 dimension 0.
        HloModule m = HloModule.parse("""
                HloModule m
                ENTRY e {
                  operand = f32[5,6,3] parameter(0)
                  indices = s32[4,2] parameter(1)
                  ROOT g = f32[4,2,3,2] gather(operand, indices), offset_dims={1,2,3}, collapsed_slice_dims={},
                      start_index_map={1,0}, index_vector_dim=1, slice_sizes={2,3,2}
                }""");
        OperandIndexing back = HloIndexing.outputToInput(m, m.entry().root(), 0, false).operand(0).iterator().next();
        assertEquals("parameter(1); (d0, d1, d2, d3) -> (d0, 1), domain: d0 in [0, 3], d1 in [0, 1], d2 in [0, 2],"
                + " d3 in [0, 1]", back.runtimeVariables().get(0).toString());
        assertEquals("parameter(1); (d0, d1, d2, d3) -> (d0, 0), domain: d0 in [0, 3], d1 in [0, 1], d2 in [0, 2],"
                + " d3 in [0, 1]", back.runtimeVariables().get(1).toString());
        OperandIndexing fwd = forward(m, 0).operand(0).iterator().next();
        assertEquals("parameter(1); (d0, d1, d2)[s0] -> (s0, 1), domain: d0 in [0, 4], d1 in [0, 5], d2 in [0, 2], s0 in [0, 3]",
                fwd.runtimeVariables().get(0).toString());
        assertEquals("parameter(1); (d0, d1, d2)[s0] -> (s0, 0), domain: d0 in [0, 4], d1 in [0, 5], d2 in [0, 2], s0 in [0, 3]",
                fwd.runtimeVariables().get(1).toString());
    }

    @Test
    void scaledDotScaleElementReachesTheOutputsItsBlockOfOperandElementsDo() {
        // XLA's ScaledDotOp: each scale element covers 5 contracting elements of its operand.
        HloModule m = HloModule.parse("""
                HloModule m
                ENTRY e {
                  a = f32[2,10] parameter(0)
                  b = f32[10,3] parameter(1)
                  a_scale = f32[2,2] parameter(2)
                  b_scale = f32[2,3] parameter(3)
                  ROOT dot = f32[2,3] scaled-dot(a, b, a_scale, b_scale), lhs_contracting_dims={1}, rhs_contracting_dims={0}
                }""");
        assertMaps(forward(m, 0).operand(0), "(d0, d1)[s0] -> (d0, s0), domain: d0 in [0, 1], d1 in [0, 9], s0 in [0, 2]");
        assertMaps(forward(m, 1).operand(0), "(d0, d1)[s0] -> (s0, d1), domain: d0 in [0, 9], d1 in [0, 2], s0 in [0, 1]");
        assertMaps(forward(m, 2).operand(0), "(d0, d1)[s0] -> (d0, s0), domain: d0 in [0, 1], d1 in [0, 1], s0 in [0, 2]");
        assertMaps(forward(m, 3).operand(0), "(d0, d1)[s0] -> (s0, d1), domain: d0 in [0, 1], d1 in [0, 2], s0 in [0, 1]");
        assertMaps(HloIndexing.outputToInput(m, m.entry().root(), 0, false).operand(3),
                "(d0, d1)[s0] -> (s0 / 5, d1), domain: d0 in [0, 1], d1 in [0, 2], s0 in [0, 9]");
    }

    @Test
    void gatherOperandElementReachesEveryBatchRowWhoseSliceCoversIt() {
        HloModule m = HloModule.parse("""
                HloModule m
                ENTRY e {
                  operand = f32[5,6,3] parameter(0)
                  indices = s32[4,2] parameter(1)
                  ROOT g = f32[4,2,3,2] gather(operand, indices), offset_dims={1,2,3}, collapsed_slice_dims={},
                      start_index_map={0,1}, index_vector_dim=1, slice_sizes={2,3,2}
                }""");
        assertMaps(forward(m, 0).operand(0), """
                (d0, d1, d2)[s0]{rt0, rt1} -> (s0, d0 - rt0, d1 - rt1, d2), domain: d0 in [0, 4], d1 in [0, 5],
                d2 in [0, 1], s0 in [0, 3], rt0 in [0, 3], rt1 in [0, 3], d0 - rt0 in [0, 1], d1 - rt1 in [0, 2]""");
        assertEquals("parameter(1); (d0, d1, d2)[s0] -> (s0, 1), domain: d0 in [0, 4], d1 in [0, 5], d2 in [0, 2], s0 in [0, 3]",
                forward(m, 0).operand(0).iterator().next().runtimeVariables().get(1).toString());
        assertMaps(forward(m, 1).operand(0), """
                (d0, d1)[s0, s1, s2] -> (d0, s0, s1, s2), domain: d0 in [0, 3], d1 in [0, 1], s0 in [0, 1],
                s1 in [0, 2], s2 in [0, 1]""");
    }

    @Test
    void gatherOutsideTheSimplifiedFormIsUnknownAsInXla() {
        HloModule m = HloModule.parse("""
                HloModule m
                ENTRY e {
                  operand = f32[5,6] parameter(0)
                  indices = s32[4] parameter(1)
                  ROOT g = f32[4,6] gather(operand, indices), offset_dims={1}, collapsed_slice_dims={0},
                      start_index_map={0}, index_vector_dim=1, slice_sizes={1,6}
                }""");
        assertEquals("operand id = 0 unknown indexing\n", forward(m, 0).toString());
    }

    @Test
    void reduceWindowInputReachesEachWindowCoveringIt() {
        HloModule m = HloModule.parse("""
                HloModule m
                max {
                  a = f32[] parameter(0)
                  b = f32[] parameter(1)
                  ROOT r = f32[] maximum(a, b)
                }
                ENTRY e {
                  p0 = f32[4,10] parameter(0)
                  c = f32[] constant(-inf)
                  ROOT rw = f32[4,3] reduce-window(p0, c), window={size=1x8 pad=0_0x0_0}, to_apply=max
                }""");
        assertMaps(forward(m, 0).operand(0), """
                (d0, d1)[s0] -> (d0, d1 - s0), domain: d0 in [0, 3], d1 in [0, 9], s0 in [0, 7], d1 - s0 in [0, 2]""");
        assertMaps(forward(m, 1).operand(0), "()[s0, s1] -> (s0, s1), domain: s0 in [0, 3], s1 in [0, 2]");
    }

    @Test
    void stridedPaddedReduceWindowKeepsOnlyAlignedWindows() {
        HloModule m = HloModule.parse("""
                HloModule m
                max {
                  a = f32[] parameter(0)
                  b = f32[] parameter(1)
                  ROOT r = f32[] maximum(a, b)
                }
                ENTRY e {
                  p0 = f32[5] parameter(0)
                  c = f32[] constant(-inf)
                  ROOT rw = f32[3] reduce-window(p0, c), window={size=3 stride=2 pad=1_1}, to_apply=max
                }""");
        // Input i sits at padded position i + 1 and window o covers positions 2o..2o+2: input i
        // reaches the windows with 2o - i in [-1, 1] (input 1 reaches windows 0 and 1, input 2 window 1).
        assertMaps(forward(m, 0).operand(0), """
                (d0)[s0] -> ((d0 - s0 + 1) / 2), domain: d0 in [0, 4], s0 in [0, 2], d0 - s0 + 1 in [0, 4],
                (d0 - s0 + 1) mod 2 in [0, 0]""");
        assertMaps(forward(m, 0).operand(0), "(d0)[s0] -> (s0), domain: d0 in [0, 4], s0 in [0, 2], "
                + "s0 * 2 - d0 in [-1, 1]");
    }

    @Test
    void convolutionInputReachesEveryOutputFeatureAndCoveringWindow() {
        HloModule m = HloModule.parse("""
                HloModule m
                ENTRY e {
                  p0 = f32[1,4,3,2] parameter(0)
                  p1 = f32[2,2,2,5] parameter(1)
                  ROOT conv = f32[1,3,2,5] convolution(p0, p1), window={size=2x2 pad=0_0x0_0}, dim_labels=b01f_i01o->b01f
                }""");
        assertMaps(forward(m, 0).operand(0), """
                (d0, d1, d2, d3)[s0, s1, s2] -> (d0, d1 - s1, d2 - s2, s0), domain: d0 in [0, 0], d1 in [0, 3],
                d2 in [0, 2], d3 in [0, 1], s0 in [0, 4], s1 in [0, 1], s2 in [0, 1], d1 - s1 in [0, 2], d2 - s2 in [0, 1]""");
        assertMaps(forward(m, 1).operand(0), """
                (d0, d1, d2, d3)[s0, s1, s2] -> (s0, s1, s2, d3), domain: d0 in [0, 1], d1 in [0, 1], d2 in [0, 1],
                d3 in [0, 4], s0 in [0, 0], s1 in [0, 2], s2 in [0, 1]""");
    }

    /**
     * Negative padding cuts elements off: padding=-1_-1 of f32[5] keeps elements 1..3 at 0..2,
     * and elements 0 and 4 land nowhere. The fill value reaches every output element.
     */
    @Test
    void negativePaddingDropsTheElementsItCutsOff() {
        HloModule m = HloModule.parse("""
                HloModule m
                ENTRY e {
                  p0 = f32[5] parameter(0)
                  c = f32[] constant(0)
                  ROOT r = f32[3] pad(p0, c), padding=-1_-1
                }""");
        assertMaps(forward(m, 0).operand(0), "(d0) -> (d0 - 1), domain: d0 in [0, 4], d0 - 1 in [0, 2]");
        assertMaps(forward(m, 1).operand(0), "()[s0] -> (s0), domain: s0 in [0, 2]");
        // Interior padding 1 and a cut of 2 at the high end: element k lands at 2k + 1 when that is below 6.
        HloModule interior = HloModule.parse("""
                HloModule m
                ENTRY e {
                  p0 = f32[4] parameter(0)
                  c = f32[] constant(0)
                  ROOT r = f32[6] pad(p0, c), padding=1_-2_1
                }""");
        assertMaps(forward(interior, 0).operand(0), "(d0) -> (d0 * 2 + 1), domain: d0 in [0, 2]");
    }

    @Test
    void tupleOperandIsItsOwnOutputAndNoOther() {
        HloModule m = HloModule.parse("""
                HloModule m
                ENTRY e {
                  a = f32[2,3] parameter(0)
                  b = f32[4] parameter(1)
                  ROOT t = (f32[2,3], f32[4]) tuple(a, b)
                }""");
        assertMaps(forward(m, 1).operand(1), "(d0) -> (d0), domain: d0 in [0, 3]");
        assertMaps(forward(m, 1).operand(0), MapSemantics.KNOWN_EMPTY);
    }

    @Test
    void fusionComposesForwardAndKeepsEachDistinctPath() {
        HloModule m = HloModule.parse("""
                HloModule m
                f {
                  p0 = f32[3,3] parameter(0)
                  t = f32[3,3] transpose(p0), dimensions={1,0}
                  e = f32[3,3] exponential(p0)
                  ROOT a = f32[3,3] add(e, t)
                }
                ENTRY e {
                  p0 = f32[3,3] parameter(0)
                  ROOT fusion = f32[3,3] fusion(p0), kind=kLoop, calls=f
                }""");
        assertMaps(forward(m, 0).operand(0), "(d0, d1) -> (d0, d1), domain: d0 in [0, 2], d1 in [0, 2]",
                "(d0, d1) -> (d1, d0), domain: d0 in [0, 2], d1 in [0, 2]");
    }

    @Test
    void fusionOfDynamicSlicesSubtractsBothOffsets() {
        HloModule m = HloModule.parse(DYN_SLICE_OF_DYN_SLICE);
        assertMaps(forward(m, 0).operand(0), """
                (d0, d1){rt0, rt1, rt2, rt3} -> (d0 - rt0 - rt2, d1 - rt1 - rt3), domain: d0 in [0, 149], d1 in [0, 63],
                rt0 in [0, 100], rt1 in [0, 32], rt2 in [0, 25], rt3 in [0, 16],
                d0 - rt0 in [0, 49], d1 - rt1 in [0, 31], d0 - rt0 - rt2 in [0, 24], d1 - rt1 - rt3 in [0, 15]""");
    }

    @Test
    void composedRuntimeVariableMapsCarryTheProducersBoundsAsXlaPrintsThem() {
        HloModule m = HloModule.parse(DYN_SLICE_OF_DYN_SLICE);
        OperandIndexing src = HloIndexing.outputToInput(m, m.entry().root()).operand(0).iterator().next();
        String text = src.toString();
        assertTrue(text.contains("rt0: parameter(1); (d0, d1){rt0, rt1} -> (), domain: d0 in [0, 24], d1 in [0, 15], "
                + "rt0 in [0, 25], rt1 in [0, 16], d0 + rt0 in [0, 49], d1 + rt1 in [0, 31]"), text);
        assertTrue(text.contains("rt2: parameter(3); (d0, d1) -> (), domain: d0 in [0, 24], d1 in [0, 15]"), text);
    }

    @Test
    void multiOutputProducerReadThroughGetTupleElementUsesThatOutput() {
        HloModule m = HloModule.parse("""
                HloModule m
                inner {
                  q0 = f32[4,6] parameter(0)
                  t = f32[6,4] transpose(q0), dimensions={1,0}
                  s = f32[2,6] slice(q0), slice={[1:3], [0:6]}
                  ROOT tup = (f32[6,4], f32[2,6]) tuple(t, s)
                }
                f {
                  p0 = f32[4,6] parameter(0)
                  mf = (f32[6,4], f32[2,6]) fusion(p0), kind=kLoop, calls=inner
                  g1 = f32[2,6] get-tuple-element(mf), index=1
                  g0 = f32[6,4] get-tuple-element(mf), index=0
                  r = f32[6,2] transpose(g1), dimensions={1,0}
                  ROOT c = f32[6,6] concatenate(g0, r), dimensions={1}
                }
                ENTRY e {
                  p0 = f32[4,6] parameter(0)
                  ROOT fusion = f32[6,6] fusion(p0), kind=kLoop, calls=f
                }""");
        assertMaps(HloIndexing.outputToInput(m, m.entry().root()).operand(0),
                "(d0, d1) -> (d1, d0), domain: d0 in [0, 5], d1 in [0, 3]",
                "(d0, d1) -> (d1 - 3, d0), domain: d0 in [0, 5], d1 in [4, 5]");
        assertMaps(forward(m, 0).operand(0),
                "(d0, d1) -> (d1, d0), domain: d0 in [0, 3], d1 in [0, 5]",
                "(d0, d1) -> (d1, d0 + 3), domain: d0 in [1, 2], d1 in [0, 5]");
    }

    private static final String DYN_SLICE_OF_DYN_SLICE = """
            HloModule m
            f {
              src = s32[150,64] parameter(0)
              of11 = s32[] parameter(1)
              of12 = s32[] parameter(2)
              of21 = s32[] parameter(3)
              of22 = s32[] parameter(4)
              ds1 = s32[50,32] dynamic-slice(src, of11, of12), dynamic_slice_sizes={50,32}
              ROOT ds2 = s32[25,16] dynamic-slice(ds1, of21, of22), dynamic_slice_sizes={25,16}
            }
            ENTRY e {
              p0 = s32[150,64] parameter(0)
              p1 = s32[] parameter(1)
              p2 = s32[] parameter(2)
              p3 = s32[] parameter(3)
              p4 = s32[] parameter(4)
              ROOT fusion = s32[25,16] fusion(p0, p1, p2, p3, p4), kind=kLoop, calls=f
            }""";
}
