package dev.tensorbuf.ops.shard;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.StringJoiner;

/** Random sharding texts for a rank: uneven tile grids, replication, listed, iota and transposed iota devices. */
final class RandomShardings {
    private RandomShardings() {
    }

    static String text(int rank, Random r) {
        int kind = r.nextInt(10);
        if (kind == 0) {
            return "{replicated}";
        }
        if (kind == 1) {
            return "{maximal device=" + r.nextInt(4) + "}";
        }
        List<Long> grid = new ArrayList<>();
        long n = 1;
        for (int i = 0; i < rank; i++) {
            long t = 1 + r.nextInt(n >= 8 ? 1 : 4);
            grid.add(t);
            n *= t;
        }
        boolean replicate = r.nextInt(3) == 0;
        if (replicate) {
            long g = 1 + r.nextInt(3);
            grid.add(g);
            n *= g;
        }
        if (rank == 0 && !replicate) {
            return "{replicated}";
        }
        if (n == 1 && !replicate) {
            // A grid of one tile must be an iota: XLA refuses a listed one ("more than one device").
            return "{devices=" + join(grid) + "<=[1]}";
        }
        String devices = devices(grid, n, r);
        return "{devices=" + devices + (replicate ? " last_tile_dim_replicate}" : "}");
    }

    /** A device list for the grid: listed in random order, iota, or a random reshape and transpose of an iota. */
    static String devices(List<Long> grid, long n, Random r) {
        String devices;
        switch (r.nextInt(3)) {
            case 0 -> {
                List<Long> ids = new ArrayList<>();
                for (long i = 0; i < n; i++) {
                    ids.add(i);
                }
                Collections.shuffle(ids, r);
                StringJoiner j = new StringJoiner(",");
                ids.forEach(i -> j.add(Long.toString(i)));
                devices = join(grid) + j;
                if (n == 1) {
                    devices = join(grid) + "<=[1]";
                }
            }
            case 1 -> devices = join(grid) + "<=[" + n + "]";
            default -> {
                List<Long> reshape = new ArrayList<>();
                long left = n;
                while (left > 1) {
                    long f = 2;
                    while (left % f != 0) {
                        f++;
                    }
                    if (r.nextBoolean() && left / f > 1) {
                        long g = f;
                        while (left % (g * f) == 0 && r.nextBoolean()) {
                            g *= f;
                        }
                        f = g;
                    }
                    reshape.add(f);
                    left /= f;
                }
                if (reshape.isEmpty()) {
                    reshape.add(1L);
                }
                Collections.shuffle(reshape, r);
                List<Integer> perm = new ArrayList<>();
                for (int i = 0; i < reshape.size(); i++) {
                    perm.add(i);
                }
                Collections.shuffle(perm, r);
                devices = join(grid) + "<=" + join(reshape);
                if (reshape.size() > 1) {
                    StringJoiner j = new StringJoiner(",", "T(", ")");
                    perm.forEach(p -> j.add(Integer.toString(p)));
                    devices += j;
                }
            }
        }
        return devices;
    }

    private static final String[] TYPES = {"manual", "replicated", "unreduced", "maximal"};

    /** A tiled sharding with last_tile_dims: subgroup dimensions of size 1 to 3 (ones included) of random types. */
    static String subgroupText(int rank, Random r) {
        List<Long> grid = new ArrayList<>();
        long n = 1;
        for (int i = 0; i < rank; i++) {
            long t = 1 + r.nextInt(3);
            grid.add(t);
            n *= t;
        }
        int k = 1 + r.nextInt(3);
        StringJoiner types = new StringJoiner(", ", " last_tile_dims={", "}");
        for (int i = 0; i < k; i++) {
            long g = 1 + r.nextInt(3);
            grid.add(g);
            n *= g;
            types.add(TYPES[r.nextInt(r.nextInt(8) == 0 ? 4 : 3)]);
        }
        String devices = n == 1 ? join(grid) + "<=[1]" : devices(grid, n, r);
        return "{devices=" + devices + types + (r.nextInt(6) == 0 ? " shard_like " + r.nextInt(3) : "") + "}";
    }

    private static String join(List<Long> values) {
        StringJoiner j = new StringJoiner(",", "[", "]");
        values.forEach(v -> j.add(Long.toString(v)));
        return j.toString();
    }
}
