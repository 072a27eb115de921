/**
 * XLA's indexing analysis behind {@link dev.tensorbuf.ops.indexing.HloIndexing}, one class per op
 * family: {@code OpIndexing} dispatches by opcode after {@code ShapeChecks} has applied XLA's
 * verifier rules, and fusions compose through their computations.
 *
 * <p>Not exported. Rules: maps are built as XLA builds them (its variable order, its
 * constraints); an op with no model gets {@code unknown indexing}, never an exception; an
 * instruction XLA's verifier would refuse is an {@link java.lang.IllegalArgumentException} naming
 * it.
 */
package dev.tensorbuf.ops.indexing.internal;
