package dev.tensorbuf.ops.hlo.internal;


/** Builds the syntax error for a problem at a position of the module text. */
@FunctionalInterface
interface ErrorAt {
    HloSyntaxException at(String problem, int position);
}
