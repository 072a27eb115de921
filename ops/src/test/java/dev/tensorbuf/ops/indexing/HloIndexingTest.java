package dev.tensorbuf.ops.indexing;

import static dev.tensorbuf.ops.indexing.RootMaps.single;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.ops.indexing.HloIndexing.InstructionIndexing;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import java.util.List;
import org.junit.jupiter.api.Test;

class HloIndexingTest {

    @Test
    void exampleFromJavadoc() {
        HloModule m = HloModule.parse("""
                HloModule m
                ENTRY e {
                  p0 = f32[10,20,50] parameter(0)
                  ROOT s = f32[5,3,25] slice(p0), slice={[5:10:1], [3:20:7], [0:50:2]}
                }""");
        assertEquals("(d0, d1, d2) -> (d0 + 5, d1 * 7 + 3, d2 * 2), domain: d0 in [0, 4], d1 in [0, 2], d2 in [0, 24]",
                single(HloIndexing.outputToInput(m, m.entry().root()), 0));
    }

    /** A dim of 0 empties a shape wherever it sits (Extents), as the view ops and `run` count it. */
    @Test
    void aReshapeToAnEmptyShapeWithHugeDimsBeforeItsZeroIsIndexed() {
        HloModule m = HloModule.parse("HloModule m\nENTRY e {\n p0 = f32[0] parameter(0)\n"
                + " ROOT r = f32[4294967296,4294967296,0] reshape(p0)\n}");
        assertTrue(RootMaps.outputToInput(m).startsWith("operand id = 0 "));
    }

    @Test
    void packageExampleReshapeCollapses() {
        HloModule m = HloModule.parse("HloModule m\nENTRY e {\n p0 = f32[4,8] parameter(0)\n ROOT r = f32[32] reshape(p0)\n}");
        assertEquals("operand id = 0 (d0) -> (d0 / 8, d0 mod 8), domain: d0 in [0, 31]\n",
                RootMaps.outputToInput(m));
    }

    @Test
    void broadcastExampleOfInstructionIndexing() {
        HloModule m = HloModule.parse("""
                HloModule m
                ENTRY e {
                  p0 = f32[20] parameter(0)
                  ROOT bc0 = f32[10,20,30] broadcast(p0), dimensions={1}
                }""");
        assertEquals("operand id = 0 (d0, d1, d2) -> (d1), domain: d0 in [0, 9], d1 in [0, 19], d2 in [0, 29]\n",
                RootMaps.outputToInput(m));
    }

    /**
     * A review found {@code (d0) -> (0)} here, checked against XLA: the pad's data is read only
     * when the offset is 1, and a constant 7 (clamped to 4) or 0 reads the fill. A range
     * narrowed to a point is a condition on the offset, not its value.
     */
    @Test
    void aConstantOffsetIsNotReplacedByTheOnePointThePadNarrowsItsRangeTo() {
        String text = """
                HloModule m
                fused {
                  q0 = f32[1] parameter(0)
                  c = f32[] constant(-1)
                  p = f32[5] pad(q0, c), padding=1_3
                  off = s32[] constant(OFFSET)
                  ROOT ds = f32[1] dynamic-slice(p, off), dynamic_slice_sizes={1}
                }
                ENTRY e {
                  p0 = f32[1] parameter(0)
                  ROOT f = f32[1] fusion(p0), kind=kLoop, calls=fused
                }""";
        HloModule readsData = HloModule.parse(text.replace("OFFSET", "1"));
        assertEquals("(d0) -> (0), domain: d0 in [0, 0]", single(HloIndexing.outputToInput(readsData, readsData.entry().root()), 0));
        HloModule readsFill = HloModule.parse(text.replace("OFFSET", "0"));
        assertEquals("KNOWN EMPTY", single(HloIndexing.outputToInput(readsFill, readsFill.entry().root()), 0));
        assertEquals("KNOWN EMPTY", single(HloIndexing.inputToOutput(readsFill, readsFill.entry().root(), 0, false), 0));
        HloModule clamped = HloModule.parse(text.replace("OFFSET", "7"));
        assertEquals("(d0){rt0} -> (rt0 - 1), domain: d0 in [0, 0], rt0 in [1, 1]",
                HloIndexing.outputToInput(clamped, clamped.entry().root()).operand(0).iterator().next().map().toString());
    }

    @Test
    void fusionDeduplicatesEqualMapsFromDifferentPaths() {
        HloModule m = HloModule.parse("""
                HloModule m
                f {
                  p0 = f32[4] parameter(0)
                  a = f32[3] slice(p0), slice={[0:3]}
                  b = f32[3] slice(p0), slice={[1:4]}
                  s = f32[3] add(a, b)
                  c = f32[2] slice(s), slice={[0:2]}
                  d = f32[2] slice(s), slice={[1:3]}
                  ROOT r = f32[2] add(c, d)
                }
                ENTRY e {
                  p0 = f32[4] parameter(0)
                  ROOT fusion = f32[2] fusion(p0), kind=kLoop, calls=f
                }""");
        List<String> maps = HloIndexing.outputToInput(m, m.entry().root()).operand(0).stream()
                .map(OperandIndexing::toString).sorted().toList();
        assertEquals(List.of("(d0) -> (d0 + 1), domain: d0 in [0, 1]", "(d0) -> (d0 + 2), domain: d0 in [0, 1]",
                "(d0) -> (d0), domain: d0 in [0, 1]"), maps);
    }

    @Test
    void dynamicSliceBindsRuntimeVariablesToOffsets() {
        HloModule m = HloModule.parse("""
                HloModule m
                ENTRY e {
                  src = s32[20] parameter(0)
                  of = s32[] parameter(1)
                  ROOT ds = s32[5] dynamic-slice(src, of), dynamic_slice_sizes={5}
                }""");
        assertEquals("(d0){rt0} -> (d0 + rt0), domain: d0 in [0, 4], rt0 in [0, 15]\nruntime variables:\n"
                + "rt0: parameter(1); (d0) -> (), domain: d0 in [0, 4]",
                single(HloIndexing.outputToInput(m, m.entry().root()), 0));
    }

    @Test
    void unsupportedOpIsUnknownNotAnException() {
        HloModule m = HloModule.parse("""
                HloModule m
                lt {
                  a = f32[] parameter(0)
                  b = f32[] parameter(1)
                  ROOT c = pred[] compare(a, b), direction=LT
                }
                ENTRY e {
                  p0 = f32[8] parameter(0)
                  ROOT s = f32[8] sort(p0), dimensions={0}, to_apply=lt
                }""");
        assertEquals("operand id = 0 unknown indexing\n", RootMaps.outputToInput(m));
        assertTrue(HloIndexing.inputToOutput(m, m.entry().root(), 0, false).operand(0).iterator().next().isUndefined());
    }

    @Test
    void missingOutputOrOperandIsOutOfBounds() {
        HloModule m = HloModule.parse("HloModule m\nENTRY e {\n p0 = f32[8] parameter(0)\n ROOT n = f32[8] negate(p0)\n}");
        assertThrows(IndexOutOfBoundsException.class, () -> HloIndexing.outputToInput(m, m.entry().root(), 1, false));
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class,
                () -> HloIndexing.inputToOutput(m, m.entry().root(), 3, false));
        assertTrue(e.getMessage().contains("operand 3 out of bounds [0, 1) for negate n"), e.getMessage());
    }

    @Test
    void concatenateMustNameOneDimension() {
        // 10-minute fuzz finding: dimensions={} read the first element of an empty list.
        for (String dims : new String[] {"{}", "{0,1}", "{2}", "{-1}"}) {
            HloModule m = HloModule.parse("HloModule m\nENTRY e {\n p0 = f32[2,5] parameter(0)\n p1 = f32[2,3] parameter(1)\n"
                    + " ROOT c = f32[2,8] concatenate(p0, p1), dimensions=" + dims + "\n}");
            for (String refusal : RootMaps.refusals(m, 1, dims)) {
                assertTrue(refusal.contains("concatenate c: dimensions=") && refusal.contains(
                        "must name one dimension of its rank-2 output"), refusal);
            }
        }
    }

    /**
     * Modules XLA's verifier refuses, one per rule of ShapeChecks: before it, each analysed into
     * maps of the wrong rank or range (a reduce over the wrong dimension, a reverse of a dimension
     * the operand lacks, a broadcast onto a dimension of another size) or failed with a message
     * about map internals instead of the instruction.
     */
    @Test
    void shapesThatDoNotFitTheirAttributesAreRefusedByName() {
        String[][] cases = {
            {"p0 = f32[4] parameter(0)\n ROOT r = f32[4,8] broadcast(p0), dimensions={5}",
                "broadcast r: dimensions [5] must be distinct dimensions of its rank-2 output"},
            {"p0 = f32[4] parameter(0)\n ROOT r = f32[4,8] broadcast(p0), dimensions={0,1}",
                "broadcast r: dimensions [0, 1] must name one output dimension for each of the 1 dimensions"},
            {"p0 = f32[4] parameter(0)\n ROOT r = f32[3,8] broadcast(p0), dimensions={0}",
                "broadcast r: operand dimension 0 of f32[4]{0} has size 4 but output dimension 0"},
            {"p0 = f32[4,8] parameter(0)\n ROOT r = f32[4,8] reverse(p0), dimensions={2}",
                "reverse r: dimensions [2] must be distinct dimensions of its rank-2 operand"},
            {"p0 = f32[4,8] parameter(0)\n c = f32[] constant(0)\n ROOT r = f32[8] reduce(p0, c), dimensions={1}, to_apply=add",
                "reduce r: output f32[8]{0} does not match its input f32[4,8]{1,0} without dimensions [1]: expected [4]"},
            {"p0 = f32[4,8] parameter(0)\n c = f32[] constant(0)\n ROOT r = f32[4] reduce(p0, c), dimensions={5}, to_apply=add",
                "reduce r: dimensions [5] must be distinct dimensions"},
            {"p0 = f32[4,8] parameter(0)\n c = f32[2] parameter(1)\n ROOT r = f32[4] reduce(p0, c), dimensions={1}, to_apply=add",
                "reduce r: init value 0 f32[2]{0} must be a scalar"},
            {"p0 = f32[4,8] parameter(0)\n p1 = f32[5,8] parameter(1)\n ROOT r = f32[4,16] concatenate(p0, p1), dimensions={1}",
                "concatenate r: operand 1 f32[5,8]{1,0} must match its output f32[4,16]{1,0} in every dimension but 1"},
            {"p0 = f32[4,8] parameter(0)\n p1 = f32[4,8] parameter(1)\n ROOT r = f32[4,17] concatenate(p0, p1), dimensions={1}",
                "concatenate r: its operands' sizes along dimension 1 add up to 16, not to its output's 17"},
            {"p0 = f32[4,8] parameter(0)\n i = s32[] parameter(1)\n ROOT r = f32[6,8] dynamic-slice(p0, i, i), dynamic_slice_sizes={6,8}",
                "dynamic-slice r: dynamic_slice_sizes [6, 8] must lie within its operand f32[4,8]{1,0}"},
            {"p0 = f32[4,8] parameter(0)\n i = s32[] parameter(1)\n ROOT r = f32[2,8] dynamic-slice(p0, i), dynamic_slice_sizes={2,8}",
                "dynamic-slice r: has 1 start index operand(s) for its rank-2 operand"},
            {"p0 = f32[4,8] parameter(0)\n i = s32[] parameter(1)\n ROOT r = f32[2,4] dynamic-slice(p0, i, i), dynamic_slice_sizes={2,8}",
                "dynamic-slice r: output f32[2,4]{1,0} must have the dimensions dynamic_slice_sizes [2, 8]"},
            {"p0 = f32[4,8] parameter(0)\n u = f32[6,8] parameter(1)\n i = s32[] parameter(2)\n"
                + " ROOT r = f32[4,8] dynamic-update-slice(p0, u, i, i)",
                "dynamic-update-slice r: update f32[6,8]{1,0} must fit inside its operand f32[4,8]{1,0}"},
            {"p0 = f32[4,8] parameter(0)\n p1 = f32[4,9] parameter(1)\n ROOT r = f32[4,8] add(p0, p1)",
                "add r: operand 1 f32[4,9]{1,0} does not have the dimensions of its output f32[4,8]{1,0}"},
            {"p0 = (f32[4], f32[8]) parameter(0)\n ROOT r = f32[4] get-tuple-element(p0), index=5",
                "get-tuple-element r: index 5 is outside its operand's 2 element(s)"},
            {"p0 = (f32[4], f32[8]) parameter(0)\n ROOT r = f32[4] get-tuple-element(p0), index=1",
                "get-tuple-element r: output f32[4]{0} is not element 1 of (f32[4]{0}, f32[8]{0})"},
            {"p0 = f32[4] parameter(0)\n ROOT r = s32[5] bitcast-convert(p0)",
                "bitcast-convert r: output s32[5]{0} must have the dimensions of its operand f32[4]{0}"},
            {"p0 = f32[10,20] parameter(0)\n ROOT r = f32[30,40] transpose(p0), dimensions={1,0}",
                "transpose r: output f32[30,40]{1,0} does not match f32[10,20]{1,0} with dimensions [1, 0]: expected [20, 10]"},
            {"p0 = f32[10,20] parameter(0)\n ROOT r = f32[20,10] transpose(p0), dimensions={0}",
                "transpose r: dimensions [0] are not a permutation of [0, 2)"},
            {"p0 = f32[4] parameter(0)\n c = f32[] constant(0)\n ROOT r = f32[4] reduce-window(p0, c), to_apply=add",
                "reduce-window r has no window attribute"},
            {"p0 = f32[10,20] parameter(0)\n ROOT r = f32[10] bitcast(p0)",
                "bitcast r: changes the element count: f32[10,20]{1,0} has 200 elements, f32[10]{0} 10"},
            {"p0 = s4[5]{0:E(4)} parameter(0)\n ROOT r = s4[5]{0} bitcast(p0)",
                "bitcast r: changes the byte size: s4[5]{0:E(4)} is 3 bytes, s4[5]{0} 5"},
            {"p0 = f32[3,4]{1,0:T(2,2)} parameter(0)\n ROOT r = f32[2,6]{1,0} bitcast(p0)",
                "bitcast r: changes the byte size: f32[3,4]{1,0:T(2,2)} is 64 bytes, f32[2,6]{1,0} 48"},
            {"p0 = f32[10,20] parameter(0)\n ROOT r = f32[10,21] reshape(p0)",
                "reshape r of [10, 20] (200 elements) to [10, 21] (210 elements): element counts differ"},
            {"p0 = f32[4] parameter(0)\n ROOT r = u8[4,3] bitcast-convert(p0)",
                "bitcast-convert r: the u8 side u8[4,3]{1,0} must be the f32 side f32[4]{0} with one more dimension of 4"},
            // [2:9:2] reads 2, 4, 6, 8: four elements, not three.
            {"p0 = f32[10] parameter(0)\n ROOT r = f32[3] slice(p0), slice={[2:9:2]}",
                "slice r of f32[10]{0} to f32[3]{0}: dim 0 [2:9:2] does not select 3 of 10 elements"},
            {"p0 = f32[10] parameter(0)\n ROOT r = f32[11] slice(p0), slice={[0:11]}",
                "slice r of f32[10]{0} to f32[11]{0}: dim 0 [0:11:1] does not select 11 of 10 elements"},
            // 1 + 8 + 1 = 10, not 9.
            {"p0 = f32[8] parameter(0)\n c = f32[] constant(0)\n ROOT r = f32[9] pad(p0, c), padding=1_1",
                "pad r of f32[8]{0} to f32[9]{0}: dim 0 of size 8 padded by 1_1_0 gives 10, not 9"},
        };
        for (String[] c : cases) {
            HloModule m = HloModule.parse("HloModule m\nadd {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
                    + " ROOT s = f32[] add(a, b)\n}\nENTRY e {\n " + c[0] + "\n}");
            for (String refusal : RootMaps.refusals(m, 0, c[0])) {
                assertTrue(refusal.contains(c[1]), refusal);
            }
        }
    }

    /**
     * One set of maps per operand and no more: dynamic-update-slice's offsets each read as a
     * scalar, and each output of a tuple reads its own operand (the others known empty).
     */
    @Test
    void dynamicUpdateSliceAndTupleHaveOneSetPerOperand() {
        HloModule dus = HloModule.parse("""
                HloModule m
                ENTRY e {
                  src = s32[20,30] parameter(0)
                  upd = s32[5,10] parameter(1)
                  of1 = s32[] parameter(2)
                  of2 = s32[] parameter(3)
                  ROOT dus = s32[20,30] dynamic-update-slice(src, upd, of1, of2)
                }""");
        InstructionIndexing back = HloIndexing.outputToInput(dus, dus.entry().root());
        assertEquals(4, back.indexing().size(), back.toString());
        assertEquals("(d0, d1) -> (), domain: d0 in [0, 19], d1 in [0, 29]", single(back, 3));
        HloModule tuple = HloModule.parse("""
                HloModule m
                ENTRY e {
                  a = f32[2,3] parameter(0)
                  b = f32[4] parameter(1)
                  ROOT t = (f32[2,3], f32[4]) tuple(a, b)
                }""");
        InstructionIndexing second = HloIndexing.outputToInput(tuple, tuple.entry().root(), 1, false);
        assertEquals(2, second.indexing().size(), second.toString());
        assertEquals("(d0) -> (d0), domain: d0 in [0, 3]", single(second, 1));
        assertTrue(second.operand(0).iterator().next().map().isKnownEmpty(), second.toString());
        InstructionIndexing forward = HloIndexing.inputToOutput(tuple, tuple.entry().root(), 0, false);
        assertEquals(2, forward.indexing().size(), forward.toString());
        assertEquals("(d0, d1) -> (d0, d1), domain: d0 in [0, 1], d1 in [0, 2]", single(forward, 0));
    }

    /** A slice may start at its limit (XLA's verifier allows start == limit): it selects nothing. */
    @Test
    void anEmptySliceAtItsLimitStillAnalyses() {
        HloModule m = HloModule.parse("HloModule m\nENTRY e {\n p0 = f32[10] parameter(0)\n"
                + " ROOT r = f32[0] slice(p0), slice={[5:5]}\n}");
        assertEquals(1, HloIndexing.outputToInput(m, m.entry().root()).indexing().size());
        assertEquals(1, HloIndexing.inputToOutput(m, m.entry().root(), 0, false).indexing().size());
    }

    /** XLA runs a broadcast whose dimensions are out of order: it transposes as it broadcasts. */
    @Test
    void aBroadcastWithDimensionsOutOfOrderTransposes() {
        HloModule m = HloModule.parse("""
                HloModule m
                ENTRY e {
                  p0 = f32[4,5] parameter(0)
                  ROOT r = f32[5,3,4] broadcast(p0), dimensions={2,0}
                }""");
        assertEquals("(d0, d1, d2) -> (d2, d0), domain: d0 in [0, 4], d1 in [0, 2], d2 in [0, 3]",
                single(HloIndexing.outputToInput(m, m.entry().root()), 0));
        assertEquals("(d0, d1)[s0] -> (d1, s0, d0), domain: d0 in [0, 3], d1 in [0, 4], s0 in [0, 2]",
                single(HloIndexing.inputToOutput(m, m.entry().root(), 0, false), 0));
        HloModule twice = HloModule.parse("HloModule m\nENTRY e {\n p0 = f32[4,4] parameter(0)\n"
                + " ROOT r = f32[4,4] broadcast(p0), dimensions={1,1}\n}");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HloIndexing.outputToInput(twice, twice.entry().root()));
        assertTrue(e.getMessage().contains("dimensions [1, 1] must be distinct dimensions"), e.getMessage());
    }

    /** A scaled-dot whose scales do not tile their operands is refused, naming the scale and the dimension. */
    @Test
    void scaledDotScalesMustTileTheirOperands() {
        String hlo = "HloModule m\nENTRY e {\n a = f32[2,10] parameter(0)\n b = f32[10,2] parameter(1)\n"
                + " sa = f32[%s] parameter(2)\n sb = f32[2,2] parameter(3)\n"
                + " ROOT d = f32[2,2] scaled-dot(a, b, sa, sb), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}";
        String[][] cases = {
            {"2,3", "lhs scale f32[2,3]{1,0} dimension 1 (3) must divide lhs f32[2,10]{1,0} dimension 1 (10)"},
            {"2", "lhs scale f32[2]{0} must have the rank of lhs f32[2,10]{1,0}"},
        };
        for (String[] c : cases) {
            HloModule m = HloModule.parse(hlo.formatted(c[0]));
            for (int operand : new int[] {0, 2}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> HloIndexing.inputToOutput(m, m.entry().root(), operand, false));
                assertTrue(e.getMessage().contains(c[1]), e.getMessage());
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> HloIndexing.outputToInput(m, m.entry().root()));
            assertTrue(e.getMessage().contains(c[1]), e.getMessage());
        }
    }

    /** The forms the rules must keep: scalar operands of element-wise ops, a variadic reduce, a slice of a whole dimension. */
    @Test
    void shapesThatFitStillAnalyse() {
        HloModule m = HloModule.parse("""
                HloModule m
                add2 {
                  a = f32[] parameter(0)
                  b = s32[] parameter(1)
                  c = f32[] parameter(2)
                  d = s32[] parameter(3)
                  x = f32[] add(a, c)
                  y = s32[] add(b, d)
                  ROOT t = (f32[], s32[]) tuple(x, y)
                }
                ENTRY e {
                  p0 = f32[4,8] parameter(0)
                  lo = f32[] constant(0)
                  hi = f32[] constant(1)
                  cl = f32[4,8] clamp(lo, p0, hi)
                  q = s32[4,8] parameter(1)
                  z = s32[] constant(0)
                  r = (f32[8], s32[8]) reduce(cl, q, lo, z), dimensions={0}, to_apply=add2
                  i = s32[] parameter(2)
                  ROOT ds = f32[4,8] dynamic-slice(p0, i, i), dynamic_slice_sizes={4,8}
                }""");
        var clamp = m.entry().instruction("cl");
        assertEquals("(d0, d1) -> (), domain: d0 in [0, 3], d1 in [0, 7]",
                single(HloIndexing.outputToInput(m, clamp), 0));
        var reduce = m.entry().instruction("r");
        assertEquals("(d0)[s0] -> (s0, d0), domain: d0 in [0, 7], s0 in [0, 3]",
                single(HloIndexing.outputToInput(m, reduce, 1, false), 1));
        assertEquals(3, HloIndexing.outputToInput(m, m.entry().root()).indexing().size());
    }

    /**
     * A bitcast-convert between widths: the narrow type's minor dimension counts the pieces of a
     * wide element. It was analysed as the identity, a map of the wrong rank.
     */
    @Test
    void bitcastConvertBetweenWidthsAddsOrDropsTheMinorDimension() {
        HloModule split = HloModule.parse("HloModule m\nENTRY e {\n p0 = f32[4] parameter(0)\n"
                + " ROOT r = u8[4,4] bitcast-convert(p0)\n}");
        assertEquals("(d0, d1) -> (d0), domain: d0 in [0, 3], d1 in [0, 3]",
                single(HloIndexing.outputToInput(split, split.entry().root()), 0));
        assertEquals("(d0)[s0] -> (d0, s0), domain: d0 in [0, 3], s0 in [0, 3]",
                single(HloIndexing.inputToOutput(split, split.entry().root(), 0, false), 0));
        HloModule join = HloModule.parse("HloModule m\nENTRY e {\n p0 = u8[4,2] parameter(0)\n"
                + " ROOT r = s16[4] bitcast-convert(p0)\n}");
        assertEquals("(d0)[s0] -> (d0, s0), domain: d0 in [0, 3], s0 in [0, 1]",
                single(HloIndexing.outputToInput(join, join.entry().root()), 0));
        assertEquals("(d0, d1) -> (d0), domain: d0 in [0, 3], d1 in [0, 1]",
                single(HloIndexing.inputToOutput(join, join.entry().root(), 0, false), 0));
    }

    /**
     * Output sizes that XLA's shape inference gives windowed ops and gather, each module run
     * through XLA first: it inferred {@code 3x3}, {@code [1, 4, 4]} and {@code 4x2x5} for the
     * declared {@code 3x4}, {@code 1x9x4} and {@code 4x3x5}. Only the rank was checked, so each was
     * analysed into maps reading past its operand ({@code d1 in [0, 3]} over a window with 3
     * positions, row 6 of a 6-row gather operand).
     */
    @Test
    void windowedOpsAndGatherMustDeclareTheOutputSizeXlaInfers() {
        String rw = "add {\n a = s32[] parameter(0)\n b = s32[] parameter(1)\n ROOT s = s32[] add(a, b)\n}\n"
                + "ENTRY e {\n p0 = s32[7,6] parameter(0)\n c = s32[] constant(0)\n ROOT r = s32[%s] reduce-window(p0, c),"
                + " window={size=3x2 stride=2x2 pad=0_1x1_1 rhs_dilate=1x2}, to_apply=add\n}";
        String conv = "ENTRY e {\n p0 = f32[1,8,2] parameter(0)\n k = f32[3,2,4] parameter(1)\n"
                + " ROOT r = f32[%s] convolution(p0, k), window={size=3 stride=2 pad=1_1}, dim_labels=b0f_0io->b0f\n}";
        String gather = "ENTRY e {\n p0 = f32[6,5] parameter(0)\n i = s32[4,1] parameter(1)\n"
                + " ROOT r = f32[%s] gather(p0, i), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0},"
                + " index_vector_dim=1, slice_sizes={2,5}\n}";
        String[][] cases = {
            {rw, "3,4", "3,3", "reduce-window r: output s32[3,4]{1,0} dimension 1 has size 4, but its window over"
                + " input s32[7,6]{1,0} dimension 1 gives 3"},
            {rw, "4,3", "3,3", "reduce-window r: output s32[4,3]{1,0} dimension 0 has size 4, but its window over"
                + " input s32[7,6]{1,0} dimension 0 gives 3"},
            {conv, "1,9,4", "1,4,4", "convolution r: output f32[1,9,4]{2,1,0} dimension 1 has size 9, but its input"
                + " f32[1,8,2]{2,1,0} and kernel f32[3,2,4]{2,1,0} give 4: expected [1, 4, 4]"},
            {conv, "1,4,5", "1,4,4", "dimension 2 has size 5, but its input f32[1,8,2]{2,1,0} and kernel"
                + " f32[3,2,4]{2,1,0} give 4"},
            {gather, "4,3,5", "4,2,5", "gather r: output f32[4,3,5]{2,1,0} dimension 1 has size 3, but its operand"
                + " f32[6,5]{1,0}, indices s32[4,1]{1,0} and slice_sizes [2, 5] give 2: expected [4, 2, 5]"},
            {gather, "5,2,5", "4,2,5", "gather r: output f32[5,2,5]{2,1,0} dimension 0 has size 5"},
        };
        for (String[] c : cases) {
            HloModule bad = HloModule.parse("HloModule m\n" + c[0].formatted(c[1]));
            for (String refusal : RootMaps.refusals(bad, 0, c[1])) {
                assertTrue(refusal.contains(c[3]), refusal);
            }
            HloModule good = HloModule.parse("HloModule m\n" + c[0].formatted(c[2]));
            HloIndexing.outputToInput(good, good.entry().root());
            HloIndexing.inputToOutput(good, good.entry().root(), 0, false);
        }
        HloModule good = HloModule.parse("HloModule m\n" + rw.formatted("3,3"));
        assertEquals("(d0, d1)[s0, s1] -> (d0 * 2 + s0, d1 * 2 + s1 * 2 - 1), domain: d0 in [0, 2], d1 in [0, 2],"
                + " s0 in [0, 2], s1 in [0, 1], d1 + s1 in [1, 3]",
                single(HloIndexing.outputToInput(good, good.entry().root()), 0));
    }
}
