package dev.tensorbuf.ops.hlo;

import dev.tensorbuf.ops.hlo.internal.HloInstructions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.ops.hlo.internal.HloAttribute.ConvolutionDims;
import dev.tensorbuf.ops.hlo.internal.HloAttribute.PadDim;
import dev.tensorbuf.ops.hlo.internal.HloAttribute.SliceDim;
import dev.tensorbuf.ops.hlo.internal.HloAttribute.WindowDim;
import dev.tensorbuf.ops.hlo.internal.HloAttribute;
import dev.tensorbuf.ops.hlo.internal.HloSyntaxException;
import dev.tensorbuf.views.XlaShape;
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
        assertTrue(r.shape() instanceof XlaShape.Tuple);
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
                new SliceDim(0, 10, 2), new SliceDim(0, 4, 1))), HloInstructions.attribute(e.instruction("s"), "slice").orElseThrow());
        assertEquals(new HloAttribute.Padding(List.of(new PadDim(1, 1, 0), new PadDim(0, 0, 0), new PadDim(0, 0, 0),
                new PadDim(0, 0, 0))), HloInstructions.attribute(e.instruction("pd"), "padding").orElseThrow());
        HloInstruction conv = e.root();
        assertEquals(new HloAttribute.Window(List.of(new WindowDim(3, 2, 1, 1, 1, 1, false),
                new WindowDim(5, 2, 2, 2, 1, 1, false))), HloInstructions.attribute(conv, "window").orElseThrow());
        assertEquals(new HloAttribute.DimLabels(new ConvolutionDims(0, 3, List.of(1, 2), 0, 3, List.of(1, 2),
                0, 3, List.of(1, 2))), HloInstructions.attribute(conv, "dim_labels").orElseThrow());
        assertEquals(1, conv.intValue("batch_group_count", 7));
    }

    @Test
    void readsComputationsWithoutTheHeaderLineAsXlaDoes() {
        // XLA's indexing tests are written this way (FusionOpWithSoftmax): the ENTRY computation
        // is the entry wherever it stands, and the module is named after it.
        HloModule marked = HloModule.parse("""
                add_computation {
                  p0 = f32[] parameter(0)
                  p1 = f32[] parameter(1)
                  ROOT add = f32[] add(p0, p1)
                }
                ENTRY e {
                  p0 = f32[8] parameter(0)
                  c = f32[] constant(0)
                  ROOT r = f32[] reduce(p0, c), dimensions={0}, to_apply=add_computation
                }
                max_computation {
                  p0 = f32[] parameter(0)
                  p1 = f32[] parameter(1)
                  ROOT max = f32[] maximum(p0, p1)
                }""");
        assertEquals("module_e", marked.name());
        assertEquals(Map.of(), marked.attributes());
        assertEquals("e", marked.entry().name());
        assertEquals("reduce", marked.entry().root().opcode());
        assertEquals(3, marked.computations().size());

        // Without ENTRY, the last computation is the entry; a % sigil on the first name is fine.
        HloModule last = HloModule.parse("""
                  // leading comment
                  %f {
                    p0 = f32[4] parameter(0)
                    ROOT n = f32[4] negate(p0)
                  }
                  main {
                    p0 = f32[4] parameter(0)
                    ROOT fusion = f32[4] fusion(p0), kind=kLoop, calls=f
                  }""");
        assertEquals("module_main", last.name());
        assertEquals("main", last.entry().name());
        assertEquals("fusion", last.entry().root().opcode());
    }

    @Test
    void textThatStartsNeitherAModuleNorABareComputationNamesBoth() {
        // XLA reads these as a single instruction and fails: a signature, or no body at all.
        for (String text : List.of("f (p: f32[4]) -> f32[4] {\n  ROOT p = f32[4] parameter(0)\n}",
                "ROOT p = f32[2] parameter(0)", "HloModul m\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}")) {
            HloSyntaxException e = assertThrows(HloSyntaxException.class, () -> HloModule.parse(text));
            assertTrue(e.getMessage().startsWith("1:1"), e.getMessage());
            assertTrue(e.getMessage().contains("expected 'HloModule' at the start of the module, or a computation"),
                    e.getMessage());
        }
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
        IllegalArgumentException module = assertThrows(IllegalArgumentException.class, () -> m.computation("f"));
        assertEquals("no computation f in module m; it has [e]", module.getMessage());
        // Worded as every other number past the end of its list in ops (operands, outputs).
        IndexOutOfBoundsException parameter = assertThrows(IndexOutOfBoundsException.class, () -> m.entry().parameter(1));
        assertEquals("parameter 1 out of bounds [0, 1) for computation e", parameter.getMessage());
        IndexOutOfBoundsException output = assertThrows(IndexOutOfBoundsException.class,
                () -> m.entry().root().outputShape(1));
        assertEquals("output 1 out of bounds [0, 1) for p of shape f32[2]{0}", output.getMessage());
    }

    /**
     * XLA prints a compiled module with source-location sections after its header
     * ({@code jax.jit(f).lower(x).compile().as_text()}, jax 0.4 and later); this is such a print.
     */
    @Test
    void readsTheStackFrameSectionsXlaPrintsForCompiledModules() {
        HloModule m = HloModule.parse("""
                HloModule jit_f, is_scheduled=true, entry_computation_layout={(f32[4,6]{1,0})->f32[3,4]{1,0}}

                FileNames
                1 "<string>"

                FunctionNames
                1 "<module>"
                2 "f"

                FileLocations
                1 {file_name_id=1 function_name_id=1 line=5 end_line=5 column=6 end_column=25}
                2 {file_name_id=1 function_name_id=2 line=3 end_line=3 column=17 end_column=40}

                StackFrames
                1 {file_location_id=1 parent_frame_id=1}
                2 {file_location_id=2 parent_frame_id=2}


                %fused_computation (param_0.2: f32[4,6]) -> f32[3,4] {
                  %param_0.2 = f32[4,6]{1,0} parameter(0)
                  %transpose.0 = f32[6,4]{0,1} transpose(%param_0.2), dimensions={1,0}, metadata={op_name="jit(f)/transpose" stack_frame_id=2}
                  %copy.1 = f32[6,4]{1,0} copy(%transpose.0), metadata={op_name="jit(f)/transpose" stack_frame_id=2}
                  ROOT %slice.0 = f32[3,4]{1,0} slice(%copy.1), slice={[0:6:2], [0:4:1]}, metadata={op_name="jit(f)/slice" stack_frame_id=2}
                }

                ENTRY %main.1 (x.1: f32[4,6]) -> f32[3,4] {
                  %x.1 = f32[4,6]{1,0} parameter(0), metadata={op_name="x"}
                  ROOT %copy_slice_fusion = f32[3,4]{1,0} fusion(%x.1), kind=kLoop, calls=%fused_computation, metadata={op_name="jit(f)/slice" stack_frame_id=2}
                }
                """);
        assertEquals(List.of("fused_computation", "main.1"), m.computations().stream().map(HloComputation::name).toList());
        assertEquals("fusion", m.entry().root().opcode());
        // A computation may still be called FileNames.
        HloModule named = HloModule.parse("HloModule m\nFileNames {\n ROOT c = f32[] constant(1)\n}\n"
                + "ENTRY e {\n ROOT r = f32[] call(), to_apply=FileNames\n}");
        assertEquals("FileNames", named.computations().getFirst().name());
    }
}
