package dev.tensorbuf.views.indexing;

/**
 * The spelling of indexing-map text.
 *
 * {@snippet :
 * IndexingMap m = IndexingMap.parse("(d0) -> (d0 floordiv 4), domain: d0 in [0, 15]");
 * m.toText(TextStyle.XLA);  // "(d0) -> (d0 / 4), domain: d0 in [0, 15]"
 * m.toText(TextStyle.MLIR); // "(d0) -> (d0 floordiv 4), domain: d0 in [0, 15]"
 * }
 */
public enum TextStyle {
    /** XLA's current {@code SymbolicExpr} text: {@code /} for floor division, minimal parentheses. */
    XLA,
    /**
     * The older MLIR affine-map spelling (XLA before mid-2026, the seeds): {@code floordiv}, and
     * every non-sum operand of {@code *}, {@code floordiv}, {@code ceildiv}, {@code mod} in
     * parentheses.
     */
    MLIR
}
