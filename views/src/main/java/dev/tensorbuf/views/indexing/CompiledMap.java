package dev.tensorbuf.views.indexing;

/**
 * An indexing map specialised into a tree of small final evaluators, for element access in
 * hot loops. It evaluates like {@link IndexingMap#evaluate(long[], long[], long[])}: the domain
 * is not checked, arithmetic overflow and division by zero throw.
 *
 * {@snippet :
 * CompiledMap f = IndexingMap.parse(
 *         "(d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7]").compile();
 * f.evaluate(0, new long[] {2, 5}); // 21
 * f.toString(); // "compiled (d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7]"
 * }
 */
public interface CompiledMap {
    /** {@return the number of results} */
    int resultCount();

    /**
     * {@return result {@code result} of a map without range or runtime variables}
     *
     * @param result the result index
     * @param dims the dimension values
     */
    long evaluate(int result, long[] dims);

    /**
     * {@return result {@code result} at a point}
     *
     * @param result the result index
     * @param dims the dimension values
     * @param rangeVars the range variable values
     * @param runtimeVars the runtime variable values
     */
    long evaluate(int result, long[] dims, long[] rangeVars, long[] runtimeVars);

    /**
     * Writes every result at a point into {@code out}.
     *
     * @param dims the dimension values
     * @param rangeVars the range variable values
     * @param runtimeVars the runtime variable values
     * @param out receives {@link #resultCount()} values
     */
    void evaluateAll(long[] dims, long[] rangeVars, long[] runtimeVars, long[] out);
}
