package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.ops.copy.CopyEngine;
import java.util.Objects;
import java.util.function.Function;

/**
 * An engine's threads for this module's loops that are not copies (a reduce's folds), so that a
 * process runs one set of copy threads and {@link CopyEngine}'s public API gains nothing: the
 * engine hands its executor over here as its class initializes, as the JDK's own packages share
 * internals.
 * {@snippet :
 * CopyExecutor threads = EngineThreads.of(CopyEngine.defaults());
 * if (threads.threadsFor(bytes) > 1) {
 *     threads.runPieces(pieces, i -> fold(i));   // on the caller and the engine's workers
 * }
 * }
 */
public final class EngineThreads {
    private static volatile Function<CopyEngine, CopyExecutor> executors;

    private EngineThreads() {
    }

    /** Called once, by {@link CopyEngine}'s static initializer. @throws IllegalStateException on a second call */
    public static synchronized void install(Function<CopyEngine, CopyExecutor> executorOf) {
        if (executors != null) {
            throw new IllegalStateException("the engines' executors are handed over once, by CopyEngine");
        }
        executors = Objects.requireNonNull(executorOf, "executorOf");
    }

    /** {@return the executor that runs {@code engine}'s copies} */
    public static CopyExecutor of(CopyEngine engine) {
        Objects.requireNonNull(engine, "engine");
        // The engine's class has initialized, having made it: the hand-over has happened.
        return executors.apply(engine);
    }
}
