package dev.tensorbuf.views.indexing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.views.indexing.AffineExpr.Add;
import dev.tensorbuf.views.indexing.AffineExpr.Dim;
import dev.tensorbuf.views.indexing.AffineExpr.Mul;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A review found the bytecode evaluator's fallback catching every IllegalArgumentException, so an
 * emitter bug would have gone unseen behind the tree evaluator; only a too-big tree falls back now.
 */
class MapCompilerTest {
    @Test
    void smallMapsCompileToBytecodeWithoutFallingBack() {
        long before = MapCompiler.fallbacks();
        for (String text : new String[] {"(d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7]",
                "(d0, d1) -> (d1 mod 2 + (d0 mod 2) * 2 + (d1 / 2) * 4 + (d0 / 2) * 12), domain: d0 in [0, 2], d1 in [0, 4]",
                "(d0)[s0] -> (d0 + s0 * 4), domain: d0 in [0, 9], s0 in [0, 4]"}) {
            IndexingMap.parse(text).compile();
        }
        assertEquals(before, MapCompiler.fallbacks(), "a small map fell back to the tree evaluator");
    }

    /**
     * A view made per call has a new map each time; each used to emit and load a hidden class
     * (20,000 classes for 20,000 copies of a reshaped transpose, in a review).
     */
    @Test
    void anExpressionEmittedOnceServesEveryEqualMap() {
        String text = "(d0, d1) -> ((d0 * 4 + d1) mod 3 * 4 + (d0 * 4 + d1) / 3), domain: d0 in [0, 2], d1 in [0, 3]";
        AffineExpr first = IndexingMap.parse(text).results().getFirst();
        AffineExpr again = IndexingMap.parse(text).results().getFirst();
        assertNotSame(first, again);
        assertSame(MapCompiler.generated(first), MapCompiler.generated(again));
        IndexingMap.Compiled compiled = IndexingMap.parse(text).compile();
        assertEquals(2, compiled.evaluate(0, new long[] {1, 2})); // 6 mod 3 * 4 + 6 / 3
        assertEquals(11, compiled.evaluate(0, new long[] {2, 3})); // 11 mod 3 * 4 + 11 / 3
    }

    @Test
    void theEmittedEvaluatorsKeptAreBounded() {
        for (int i = 0; i < MapCompiler.EMITTED_KEPT + 20; i++) {
            MapCompiler.generated(new Add(new Mul(new Dim(0), new AffineExpr.Const(1000 + i)), new Dim(1)));
        }
        assertEquals(MapCompiler.EMITTED_KEPT, MapCompiler.emittedKept());
    }

    @Test
    void aTreeTooBigForOneMethodFallsBackAndStillEvaluates() {
        List<AffineExpr> level = new ArrayList<>();
        for (int i = 0; i < 8192; i++) {
            level.add(new Mul(new Dim(0), new Dim(1))); // 13 bytes each: 8192 of them pass 64 KiB
        }
        while (level.size() > 1) {
            List<AffineExpr> next = new ArrayList<>();
            for (int i = 0; i < level.size(); i += 2) {
                next.add(new Add(level.get(i), level.get(i + 1)));
            }
            level = next;
        }
        long before = MapCompiler.fallbacks();
        var node = MapCompiler.generated(level.getFirst());
        assertTrue(MapCompiler.fallbacks() > before, "the tree did not fall back");
        assertEquals(8192L * 2 * 3, node.eval(new long[] {2, 3}, new long[0], new long[0]));
    }
}
