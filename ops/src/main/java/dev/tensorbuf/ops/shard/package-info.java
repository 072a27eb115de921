/**
 * Shardings and sharded tensors: XLA's {@link dev.tensorbuf.ops.shard.HloSharding} text read and
 * printed as XLA does (its tile assignment, subgroup types and shard group nested in it), the box
 * ({@link dev.tensorbuf.ops.shard.IndexBox}) of the global tensor each device holds
 * ({@link dev.tensorbuf.ops.shard.ShardedTensor}), and resharding, every overlap copied by the
 * copy engine.
 *
 * {@snippet :
 * HloSharding s = HloSharding.parse("{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
 * ShardedTensor t = ShardedTensor.of(DType.F32, List.of(5L, 3L), s);
 * t.shards(); // [Shard[device=0, box=[0:3, 0:3]], Shard[device=1, box=[0:3, 0:3]],
 *             //  Shard[device=2, box=[3:5, 0:3]], Shard[device=3, box=[3:5, 0:3]]]
 * }
 *
 * <p>Rules for every type here: values are immutable records; device ids are {@code long} and
 * {@code >= 0}; boxes are in global element indices, start inclusive and limit exclusive, as
 * NumPy slices; bad text throws {@link dev.tensorbuf.views.text.TextFormatException} with the
 * position, other bad input {@link java.lang.IllegalArgumentException} naming it.
 */
package dev.tensorbuf.ops.shard;
