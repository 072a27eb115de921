package dev.tensorbuf.ops.fuzz;

import static dev.tensorbuf.testing.FuzzChecks.assertRoundTrip;
import static dev.tensorbuf.testing.FuzzChecks.expectOnlyDocumentedExceptions;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tensorbuf.ops.shard.HloSharding;
import dev.tensorbuf.ops.shard.ShardedTensor;
import dev.tensorbuf.testing.FuzzChecks;
import dev.tensorbuf.views.DType;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuzzes XLA sharding text: what parses prints canonically and, read once more, reaches a value that
 * reads back to itself,
 * and a sharding that places elements gives every device a box of a small tensor of its rank.
 * Seeds and findings: {@code src/test/resources/dev/tensorbuf/ops/fuzz/HloShardingFuzzTestInputs/}.
 */
class HloShardingFuzzTest {
    @FuzzTest
    void shardingTextParsesOrFailsCleanlyAndRoundTrips(byte[] data) {
        String text = FuzzChecks.text(data);
        expectOnlyDocumentedExceptions(text, () -> {
            HloSharding sharding = HloSharding.parse(text);
            // XLA's printer is not always a fixed point of its parser: {devices=[1,3]<=[3]
            // last_tile_dims={maximal, unreduced}} prints {devices=[3]<=[3] last_tile_dims={unreduced}},
            // which reads back as {unreduced} (so in XLA too). One more reading reaches the fixed point.
            HloSharding again = HloSharding.parse(sharding.toString());
            String printed = again.toString();
            assertRoundTrip(again, printed, HloSharding.parse(printed));
            if (sharding instanceof HloSharding.Tiled t && t.tiles().deviceCount() <= 4096) {
                List<Long> dims = new ArrayList<>();
                for (int i = 0; i < t.dataRank(); i++) {
                    dims.add((long) (i + 3));
                }
                ShardedTensor.of(DType.F32, dims, sharding).shards();
            }
        });
    }
}
