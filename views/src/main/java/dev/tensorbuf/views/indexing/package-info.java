/**
 * XLA's symbolic indexing maps: affine expressions with floor division and modulo, variable
 * domains and constraints, a range-aware simplifier and composition.
 */
package dev.tensorbuf.views.indexing;
