package dev.tensorbuf.ops.hlo.internal;

import dev.tensorbuf.ops.hlo.HloSyntaxException;

/** Builds the syntax error for a problem at a position of the module text. */
@FunctionalInterface
interface ErrorAt {
    HloSyntaxException at(String problem, int position);
}
