/** The sharding text reader and XLA's normal forms of shardings and iota tile assignments. Not API. */
package dev.tensorbuf.ops.shard.internal;
