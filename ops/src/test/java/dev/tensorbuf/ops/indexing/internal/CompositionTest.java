package dev.tensorbuf.ops.indexing.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tensorbuf.ops.hlo.HloModule;
import dev.tensorbuf.ops.indexing.HloIndexing.OperandIndexing;
import dev.tensorbuf.ops.indexing.HloIndexing.RuntimeVariable;
import dev.tensorbuf.views.indexing.IndexingMap;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The last step of composition: which runtime variables, and so which bindings, a map keeps. */
class CompositionTest {

    /**
     * {@code rt0} is only in a constraint on a range variable no result uses, so removing unused
     * symbols drops both and the constraint (XLA's {@code RemoveUnusedSymbols}); {@code rt1}, in
     * the result, stays and must keep its own binding ({@code q}), not the dropped one's ({@code p}).
     */
    @Test
    void aDroppedRuntimeVariableBeforeAKeptOneTakesOnlyItsOwnBinding() {
        HloModule m = HloModule.parse("HloModule m\nENTRY e {\n p = s32[] parameter(0)\n q = s32[] parameter(1)\n"
                + " ROOT t = (s32[], s32[]) tuple(p, q)\n}");
        IndexingMap empty = IndexingMap.parse("() -> ()");
        IndexingMap map = IndexingMap.parse(
                "()[s0]{rt0, rt1} -> (rt1), domain: s0 in [0, 1], rt0 in [0, 8], rt1 in [0, 4], s0 + rt0 in [3, 6]");
        OperandIndexing o = new OperandIndexing(map, List.of(new RuntimeVariable(m.entry().instruction("p"), empty),
                new RuntimeVariable(m.entry().instruction("q"), empty)), Optional.empty());
        OperandIndexing out = Composition.finish(o);
        assertEquals("(){rt0} -> (rt0), domain: rt0 in [0, 4]", out.map().toString());
        assertEquals(List.of(new RuntimeVariable(m.entry().instruction("q"), empty)), out.runtimeVariables());
    }
}
