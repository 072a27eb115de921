package dev.tensorbuf.ops.fuzz;

import dev.tensorbuf.testing.FuzzChecks;
import static dev.tensorbuf.testing.FuzzChecks.assertRoundTrip;
import static dev.tensorbuf.testing.FuzzChecks.expectOnlyDocumentedExceptions;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tensorbuf.ops.hlo.HloComputation;
import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.ops.indexing.HloIndexing;
import dev.tensorbuf.views.XlaShape;

/**
 * Fuzzes HLO module text and the indexing analysis behind it: a module that parses is analysed
 * instruction by instruction (output to input, then input to output for every operand), and every
 * instruction's shape prints and reads back. HLO has no printer of its own, so the round trip is
 * checked on the shapes, the part of HLO text the library gives meaning to. Seeds and findings:
 * {@code src/test/resources/dev/tensorbuf/ops/fuzz/HloModuleFuzzTestInputs/}.
 */
class HloModuleFuzzTest {
    @FuzzTest
    void moduleTextParsesOrFailsCleanly(byte[] data) {
        String text = FuzzChecks.text(data);
        HloModule[] parsed = new HloModule[1];
        expectOnlyDocumentedExceptions(text, () -> parsed[0] = HloModule.parse(text));
        if (parsed[0] == null) {
            return;
        }
        HloModule module = parsed[0];
        for (HloComputation computation : module.computations()) {
            for (HloInstruction instruction : computation.instructions()) {
                XlaShape shape = instruction.shape();
                assertRoundTrip(shape, shape.toString(), XlaShape.parse(shape.toString()));
                expectOnlyDocumentedExceptions(text, () -> HloIndexing.outputToInput(module, instruction));
                for (int operand = 0; operand < instruction.operands().size(); operand++) {
                    int o = operand;
                    expectOnlyDocumentedExceptions(text, () -> HloIndexing.inputToOutput(module, instruction, o, false));
                }
            }
        }
    }
}
