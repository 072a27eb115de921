package dev.tensorbuf.ops.indexing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tensorbuf.ops.hlo.HloModule;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The edges of indexing through a fusion's computation that XLA's vectors do not reach: a fused
 * computation that does not return the fusion's shape.
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
        IllegalArgumentException out = assertThrows(IllegalArgumentException.class,
                () -> HloIndexing.outputToInput(m, m.entry().root()), what);
        assertEquals("fusion fu: Fused computation shape " + message, out.getMessage(), what);
        IllegalArgumentException in = assertThrows(IllegalArgumentException.class,
                () -> HloIndexing.inputToOutput(m, m.entry().root(), 0, false), what);
        assertEquals(out.getMessage(), in.getMessage(), what);
    }
}
