package dev.tensorbuf.ops.hlo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.ops.hlo.HloAttribute.ConvolutionDims;
import dev.tensorbuf.ops.hlo.HloAttribute.PadDim;
import dev.tensorbuf.ops.hlo.HloAttribute.SliceDim;
import dev.tensorbuf.ops.hlo.HloAttribute.WindowDim;
import dev.tensorbuf.views.TupleShape;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HloModuleTest {

    @Test
    void exampleFromJavadoc() {
        HloModule m = HloModule.parse("""
                HloModule m, replica_count=4
                ENTRY e {
                  p0 = f32[10,20] parameter(0)
                  ROOT e0 = f32[10,20] exponential(f32[10,20] %p0)  // inline operand shape
                }""");
        assertEquals("m", m.name());
        assertEquals(Map.of("replica_count", "4"), m.attributes());
        assertEquals("exponential", m.entry().root().opcode());
        assertEquals(List.of("p0"), m.entry().root().operands());
    }

    @Test
    void readsSigilsCommentsSignaturesAndOpaqueAttributes() {
        HloModule m = HloModule.parse("""
                HloModule test, entry_computation_layout={(f32[4]{0})->f32[4]{0}}, is_scheduled=true

                /* a block
                   comment */
                %fused (param_0: f32[4]) -> f32[4] {
                  %param_0 = f32[4]{0} parameter(0)
                  ROOT %neg = f32[4]{0} negate(f32[4]{0} %param_0), metadata={op_name="a}b" source_line=3}
                }

                ENTRY %main (p: f32[4]) -> f32[4] {
                  %p = f32[4]{0} parameter(0), frontend_attributes={_xla="x,y"}
                  ROOT %f = f32[4]{0} fusion(%p), kind=kLoop, calls=%fused, backend_config="{\\"k\\":1}"
                }
                """);
        assertEquals(List.of("fused", "main"), m.computations().stream().map(HloComputation::name).toList());
        assertEquals("main", m.entry().name());
        assertEquals("%fused", m.entry().root().text("calls").orElseThrow());
        assertEquals("kLoop", m.entry().root().text("kind").orElseThrow());
        assertEquals("neg", m.computation("fused").root().name());
        assertEquals("true", m.attributes().get("is_scheduled"));
    }

    @Test
    void readsTupleShapesAndMultiLineInstructions() {
        HloModule m = HloModule.parse("""
                HloModule m
                min {
                  a = f32[] parameter(0)
                  b = f32[] parameter(1)
                  ROOT t = (f32[], f32[]) tuple(a, b)
                }
                ENTRY e {
                  p0 = f32[256,10] parameter(0)
                  c = f32[] constant(-inf)
                  ROOT r = (f32[10], f32[10]) reduce(p0, p0, c, c),
                    dimensions={0},
                    to_apply=min
                }""");
        HloInstruction r = m.entry().root();
        assertTrue(r.shape() instanceof TupleShape);
        assertEquals(2, r.outputCount());
        assertEquals(List.of(10L), r.outputShape(1).dims());
        assertEquals(List.of(0L), r.ints("dimensions"));
        assertEquals("-inf", m.entry().instruction("c").payload());
        assertThrows(IndexOutOfBoundsException.class, () -> r.outputShape(2));
    }

    @Test
    void typesSliceWindowPaddingAndConvolutionAttributes() {
        HloModule m = HloModule.parse("""
                HloModule m
                ENTRY e {
                  p0 = f32[1,12,10,4] parameter(0)
                  p1 = f32[4,3,5,8] parameter(1)
                  s = f32[1,6,5,4] slice(p0), slice={[0:1], [0:12:2], [0:10:2], [0:4]}
                  z = f32[] constant(0)
                  pd = f32[3,12,10,4] pad(p0, z), padding=1_1x0_0x0_0_0x0_0
                  ROOT conv = f32[1,6,5,8] convolution(p0, p1),
                    window={size=3x5 stride=2x2 pad=1_1x2_2 lhs_dilate=1x1 rhs_dilate=1x1},
                    dim_labels=b01f_i01o->b01f, feature_group_count=1, batch_group_count=1
                }""");
        HloComputation e = m.entry();
        assertEquals(new HloAttribute.Slices(List.of(new SliceDim(0, 1, 1), new SliceDim(0, 12, 2),
                new SliceDim(0, 10, 2), new SliceDim(0, 4, 1))), e.instruction("s").attribute("slice").orElseThrow());
        assertEquals(new HloAttribute.Padding(List.of(new PadDim(1, 1, 0), new PadDim(0, 0, 0), new PadDim(0, 0, 0),
                new PadDim(0, 0, 0))), e.instruction("pd").attribute("padding").orElseThrow());
        HloInstruction conv = e.root();
        assertEquals(new HloAttribute.Window(List.of(new WindowDim(3, 2, 1, 1, 1, 1, false),
                new WindowDim(5, 2, 2, 2, 1, 1, false))), conv.attribute("window").orElseThrow());
        assertEquals(new HloAttribute.DimLabels(new ConvolutionDims(0, 3, List.of(1, 2), 0, 3, List.of(1, 2),
                0, 3, List.of(1, 2))), conv.attribute("dim_labels").orElseThrow());
        assertEquals(1, conv.intValue("batch_group_count", 7));
    }

    @Test
    void rootDefaultsToLastInstruction() {
        HloModule m = HloModule.parse("HloModule m\nENTRY e {\n p = f32[2] parameter(0)\n n = f32[2] negate(p)\n}");
        assertEquals("n", m.entry().root().name());
    }

    @Test
    void lookupsNameWhatExists() {
        HloModule m = HloModule.parse("HloModule m\nENTRY e {\n ROOT p = f32[2] parameter(0)\n}");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> m.entry().instruction("q"));
        assertTrue(e.getMessage().contains("no instruction q in computation e; it has [p]"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> m.entry().root().ints("dimensions"));
    }
}
