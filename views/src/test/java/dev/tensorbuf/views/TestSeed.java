package dev.tensorbuf.views;

/** The seed of a property test: {@code -Dtensorbuf.seed=N} or a fresh one, printed either way. */
public final class TestSeed {
    private TestSeed() {
    }

    /** {@return the seed to use, after printing it with the test's name} */
    public static long of(String test) {
        String fixed = System.getProperty("tensorbuf.seed");
        long seed = fixed != null ? Long.parseLong(fixed) : System.nanoTime();
        System.out.println(test + ": seed " + seed + " (rerun with -Dtensorbuf.seed=" + seed + ")");
        return seed;
    }
}
