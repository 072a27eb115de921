package dev.tensorbuf.ops.copy.internal;

import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Under PIT only ({@code -Pmutation} turns on JUnit's extension autodetection, which finds this
 * through {@code META-INF/services}): forgets the copy engine's plans, splits and cuts before each
 * test. PIT swaps one mutant for the next inside one JVM, so a plan a mutant made and cached would
 * otherwise answer the next mutant's tests (a false kill), and a test whose plan an earlier test
 * cached would never reach the planner (coverage and kills given to the wrong tests).
 */
public final class FreshCopyCaches implements BeforeEachCallback {
    @Override
    public void beforeEach(ExtensionContext context) {
        PlanCache.clear();
        SplitDims.clear();
        PiecePairs.clear();
    }
}
