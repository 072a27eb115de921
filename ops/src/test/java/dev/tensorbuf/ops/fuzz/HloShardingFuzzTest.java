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
 * Fuzzes XLA sharding text: what parses prints canonically and reads back to the same value,
 * and a sharding that places elements gives every device a box of a small tensor of its rank.
 * Seeds and findings: {@code src/test/resources/dev/tensorbuf/ops/fuzz/HloShardingFuzzTestInputs/}.
 */
class HloShardingFuzzTest {
    @FuzzTest
    void shardingTextParsesOrFailsCleanlyAndRoundTrips(byte[] data) {
        String text = FuzzChecks.text(data);
        expectOnlyDocumentedExceptions(text, () -> {
            HloSharding sharding = HloSharding.parse(text);
            String printed = sharding.toString();
            assertRoundTrip(sharding, printed, HloSharding.parse(printed));
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
