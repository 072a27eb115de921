package dev.tensorbuf.ops.indexing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.ops.hlo.HloModule;
import java.util.List;
import org.junit.jupiter.api.Test;

class HloIndexingTest {

    private static String single(InstructionIndexing i, int operand) {
        assertEquals(1, i.operand(operand).size(), i.toString());
        return i.operand(operand).iterator().next().toString();
    }

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

    @Test
    void packageExampleReshapeCollapses() {
        HloModule m = HloModule.parse("HloModule m\nENTRY e {\n p0 = f32[4,8] parameter(0)\n ROOT r = f32[32] reshape(p0)\n}");
        assertEquals("operand id = 0 (d0) -> (d0 / 8, d0 mod 8), domain: d0 in [0, 31]\n",
                HloIndexing.outputToInput(m, m.entry().root()).toString());
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
                HloIndexing.outputToInput(m, m.entry().root()).toString());
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
                ENTRY e {
                  p0 = f32[8] parameter(0)
                  ROOT s = f32[8] sort(p0), dimensions={0}
                }""");
        assertEquals("operand id = 0 unknown indexing\n", HloIndexing.outputToInput(m, m.entry().root()).toString());
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
            for (var analysis : List.<org.junit.jupiter.api.function.Executable>of(
                    () -> HloIndexing.outputToInput(m, m.entry().root()),
                    () -> HloIndexing.inputToOutput(m, m.entry().root(), 1, false))) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, analysis, dims);
                assertTrue(e.getMessage().contains("concatenate c: dimensions=") && e.getMessage().contains(
                        "must name one dimension of its rank-2 output"), e.getMessage());
            }
        }
    }
}
