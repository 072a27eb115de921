package dev.tensorbuf.ops.indexing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tensorbuf.ops.hlo.HloModule;
import org.junit.jupiter.api.Test;

/**
 * {@code use_physical_layout} in both directions: physical index {@code (a, b)} of a
 * {@code {0,1}} array of {@code [2,3]} is its logical {@code (b, a)}, so a layout that undoes a
 * transpose makes the physical map the identity, and one side in another layout makes it a swap.
 * Each operand and each output is wrapped in its own layout.
 */
class PhysicalIndexingTest {

    private static final String ADD = """
            HloModule m
            ENTRY e {
              p0 = f32[2,3]{0,1} parameter(0)
              p1 = f32[2,3]{1,0} parameter(1)
              ROOT a = f32[2,3]{0,1} add(p0, p1)
            }""";

    /** Two outputs in other layouts, one a transpose: physically both are x's own order. */
    private static final String FUSION = """
            HloModule m
            f {
              p0 = f32[2,3]{1,0} parameter(0)
              n = f32[2,3]{1,0} negate(p0)
              t = f32[3,2]{1,0} transpose(p0), dimensions={1,0}
              ROOT r = (f32[2,3]{1,0}, f32[3,2]{1,0}) tuple(n, t)
            }
            ENTRY e {
              x = f32[2,3]{0,1} parameter(0)
              ROOT fu = (f32[2,3]{0,1}, f32[3,2]{1,0}) fusion(x), kind=kLoop, calls=f
            }""";

    @Test
    void eachOperandOfAnAddIsReadInItsOwnLayout() {
        HloModule m = HloModule.parse(ADD);
        assertEquals("operand id = 0 (d0, d1) -> (d0, d1), domain: d0 in [0, 2], d1 in [0, 1]\n"
                + "operand id = 1 (d0, d1) -> (d1, d0), domain: d0 in [0, 2], d1 in [0, 1]\n",
                RootMaps.outputToInput(m, 0, true));
        assertEquals("operand id = 0 (d0, d1) -> (d0, d1), domain: d0 in [0, 2], d1 in [0, 1]\n",
                RootMaps.inputToOutput(m, 0, true));
        assertEquals("operand id = 0 (d0, d1) -> (d1, d0), domain: d0 in [0, 1], d1 in [0, 2]\n",
                RootMaps.inputToOutput(m, 1, true));
        // Logically an add is the identity for both.
        assertEquals("operand id = 0 (d0, d1) -> (d0, d1), domain: d0 in [0, 1], d1 in [0, 2]\n",
                RootMaps.inputToOutput(m, 1, false));
    }

    @Test
    void aTransposeIntoTheOperandsLayoutIsAPhysicalIdentityForEveryOutput() {
        HloModule m = HloModule.parse(FUSION);
        String identity = "operand id = 0 (d0, d1) -> (d0, d1), domain: d0 in [0, 2], d1 in [0, 1]\n";
        assertEquals(identity, RootMaps.outputToInput(m, 0, true));
        assertEquals(identity, RootMaps.outputToInput(m, 1, true));
        assertEquals(identity + identity.replace("operand id = 0", "operand id = 1"),
                RootMaps.inputToOutput(m, 0, true));
        assertEquals("operand id = 0 (d0, d1) -> (d0, d1), domain: d0 in [0, 1], d1 in [0, 2]\n"
                + "operand id = 1 (d0, d1) -> (d1, d0), domain: d0 in [0, 1], d1 in [0, 2]\n",
                RootMaps.inputToOutput(m, 0, false));
    }
}
