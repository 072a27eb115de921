/**
 * What every text reader in tensorbuf throws: {@link dev.tensorbuf.views.text.TextFormatException},
 * with the input and the position where reading stopped. It sits below both
 * {@code dev.tensorbuf.views} (shape text) and {@code dev.tensorbuf.views.indexing} (map text), so
 * neither package depends on the other for it.
 * {@snippet :
 * try {
 *     IndexingMap.parse("(d0) -> (d0 floordiv 0)");
 * } catch (TextFormatException e) {
 *     e.position();   // where the map text stopped making sense
 * }
 * }
 */
package dev.tensorbuf.views.text;
