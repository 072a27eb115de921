/** HLO ops: their indexing maps, and views remapped through them without moving bytes. */
package dev.tensorbuf.ops;
