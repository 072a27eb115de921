package dev.tensorbuf.ops.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.ops.shard.HloSharding.TileAssignment;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * XLA's sharding text against XLA's own tests and printer: {@code conformance/xla/shardings.tsv}
 * holds inputs and XLA's {@code ToString()} of them, transcribed from XLA's parser, sharding and
 * tile-assignment tests, and a block printed by XLA itself (jaxlib).
 */
class HloShardingConformanceTest {
    static Stream<Arguments> vectors() throws IOException {
        List<Arguments> out = new ArrayList<>();
        try (InputStream in = HloShardingConformanceTest.class.getResourceAsStream("/conformance/xla/shardings.tsv")) {
            String section = "";
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.startsWith("#")) {
                    section = line;
                    continue;
                }
                String[] parts = line.split("\t");
                out.add(Arguments.of(parts[0], parts[1], section));
            }
        }
        assertTrue(out.size() >= 60, "vectors read: " + out.size());
        return out.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void printsAsXla(String input, String expected, String source) {
        HloSharding parsed = HloSharding.parse(input);
        assertEquals(expected, parsed.toString(), source);
        HloSharding again = HloSharding.parse(expected);
        assertEquals(expected, again.toString(), "canonical text reads back to itself");
        assertEquals(parsed, again);
    }

    /** hlo_sharding_test.cc V1V2TileEquality: a listed grid and an iota XLA calls equal assign the same devices. */
    @Test
    void listedAndIotaFormsAssignTheSameDevices() {
        assertSame("{devices=[2,2]0,1,2,3}", "{devices=[2,2]<=[4]}");
        assertSame("{devices=[2,2]0,2,1,3}", "{devices=[2,2]<=[2,2]T(1,0)}");
        assertSame("{devices=[2,2,2]0,2,4,6,1,3,5,7}", "{devices=[2,2,2]<=[2,2,2]T(2,0,1)}");
        // V1V2PartialTileEquality
        assertSame("{devices=[2,2]0,2,1,3 last_tile_dim_replicate}", "{devices=[2,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
        // V1V2SubgroupEquality
        assertSame("{devices=[2,2,2]0,2,4,6,1,3,5,7 last_tile_dims={manual, replicated}}",
                "{devices=[2,2,2]<=[2,2,2]T(2,0,1) last_tile_dims={manual, replicated}}");
    }

    private static void assertSame(String listed, String iota) {
        HloSharding.Tiled a = assertInstanceOf(HloSharding.Tiled.class, HloSharding.parse(listed));
        HloSharding.Tiled b = assertInstanceOf(HloSharding.Tiled.class, HloSharding.parse(iota));
        assertTrue(a.tiles().sameDevices(b.tiles()), a + " vs " + b);
        assertFalse(a.equals(b), "different forms are different values: they print differently");
    }

    /** tile_assignment_test.cc ValueAt and ToArray. */
    @Test
    void iotaDevicesAsXlaTests() {
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L), TileAssignment.iota(List.of(2L, 3L)).devices());
        TileAssignment t = TileAssignment.iota(List.of(3L, 2L), List.of(2L, 3L), List.of(1, 0));
        assertEquals(List.of(0L, 3L, 1L, 4L, 2L, 5L), t.devices());
        assertEquals(3, t.deviceAt(0, 1));
        assertEquals(1, t.deviceAt(1, 0));
        assertEquals(5, t.deviceAt(2, 1));
    }

    /**
     * Canonical forms keep the devices (XLA's ValueAtAndIndexForExhaustive idea): for random
     * reshapes and transposes of 24 and 36 devices, the ids of the canonical iota equal a
     * transpose of the plain iota array computed here index by index.
     */
    @Test
    void canonicalIotaKeepsTheDevices() {
        Random r = new Random(40);
        for (int trial = 0; trial < 2000; trial++) {
            int n = trial % 2 == 0 ? 24 : 36;
            List<Long> reshape = factors(n, r);
            List<Integer> perm = new ArrayList<>();
            for (int i = 0; i < reshape.size(); i++) {
                perm.add(i);
            }
            java.util.Collections.shuffle(perm, r);
            List<Long> grid = factors(n, r);
            TileAssignment.Iota iota = (TileAssignment.Iota) TileAssignment.iota(grid, reshape, perm);
            assertEquals(transposedIota(reshape, perm), iota.devices(), iota + " from " + reshape + perm);
        }
    }

    private static List<Long> factors(int n, Random r) {
        List<Long> out = new ArrayList<>();
        while (n > 1) {
            int f = 1 + r.nextInt(n);
            if (n % f == 0 && (f > 1 || r.nextInt(4) == 0)) {
                out.add((long) f);
                n /= f;
            } else if (r.nextInt(8) == 0) {
                out.add(1L);
            }
        }
        if (out.isEmpty()) {
            out.add(1L);
        }
        java.util.Collections.shuffle(out, r);
        return out;
    }

    /** NumPy's {@code np.arange(n).reshape(dims).transpose(perm).ravel()}, index by index. */
    private static List<Long> transposedIota(List<Long> dims, List<Integer> perm) {
        int rank = dims.size();
        long[] stride = new long[rank];
        long s = 1;
        for (int i = rank - 1; i >= 0; i--) {
            stride[i] = s;
            s *= dims.get(i);
        }
        List<Long> out = new ArrayList<>();
        long[] idx = new long[rank];
        for (long k = 0; k < s; k++) {
            long v = 0;
            for (int i = 0; i < rank; i++) {
                v += idx[i] * stride[perm.get(i)];
            }
            out.add(v);
            for (int i = rank - 1; i >= 0; i--) {
                if (++idx[i] < dims.get(perm.get(i))) {
                    break;
                }
                idx[i] = 0;
            }
        }
        return out;
    }
}
