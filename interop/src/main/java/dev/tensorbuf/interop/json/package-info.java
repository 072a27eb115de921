/**
 * The one JSON reader and writer of tensorbuf, {@link dev.tensorbuf.interop.json.Json}: the
 * safetensors reader parses headers with it, the command line its {@code --json} output and
 * {@code --batch} requests, and the net module Arrow's tensor-type metadata. Not public API: the
 * module exports this package to {@code dev.tensorbuf.net} and {@code dev.tensorbuf.cli} only, so
 * that all share one codec and one set of error messages.
 * {@snippet :
 * Map<String, Object> request = Json.parseObject("{\"shape\": \"f32[3,5]\", \"indices\": [[2, 4]]}");
 * request.get("indices");                     // [[2, 4]]: Lists of Longs
 * Json.write(Map.of("linear", 20L));          // {"linear":20}
 * Json.parseObject("[1, 2]");                 // throws TextFormatException:
 * // "expected a JSON object, found an array at position 0 of '[1, 2]'"
 * }
 *
 * <p>Rules: reading is strict (duplicate keys, trailing text and nesting past
 * {@value dev.tensorbuf.interop.json.Json#MAX_DEPTH} levels are errors naming the position);
 * objects keep their key order.
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>Json.java</code></dt>
 * <dd>the one JSON reader/writer (safetensors headers, CLI <code>--json</code> and
 *     <code>--batch</code>): depth-limited, linear, duplicate keys rejected; exported to
 *     <code>cli</code> only</dd>
 * </dl>
 */
package dev.tensorbuf.interop.json;
