package dev.tensorbuf.testing;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

/**
 * Damaged copies of a good file, for tests that a reader either reads a file or refuses it by
 * name: cut short, or with bits and whole ints changed (lengths and offsets are what a damaged
 * file gets wrong). Seeded by {@code -Dtensorbuf.seed}, else a fresh seed that is printed.
 */
public final class DamagedFiles {
    private DamagedFiles() {
    }

    /** A check of one damaged file. */
    @FunctionalInterface
    public interface Check {
        void run(Path damaged, int trial) throws Exception;
    }

    /** {@return a generator seeded by {@code -Dtensorbuf.seed} or afresh; the seed is printed, named by {@code test}} */
    public static Random random(String test) {
        long seed = Long.getLong("tensorbuf.seed", System.nanoTime());
        System.out.println(test + " seed=" + seed + " (rerun with -Dtensorbuf.seed=" + seed + ")");
        return new Random(seed);
    }

    /** {@return the bytes cut short (every third trial, keeping at least 6) or with one to four bits or whole ints changed} */
    public static byte[] damaged(byte[] bytes, int trial, Random random) {
        byte[] bad = trial % 3 == 0 ? Arrays.copyOf(bytes, 6 + random.nextInt(bytes.length - 6)) : bytes.clone();
        for (int k = trial % 3 == 0 ? 0 : 1 + random.nextInt(4); k > 0; k--) {
            int at = random.nextInt(bad.length - 3);
            if (random.nextBoolean()) {
                bad[at] ^= (byte) (1 << random.nextInt(8));
            } else {
                ByteBuffer.wrap(bad, at, 4).order(ByteOrder.LITTLE_ENDIAN).putInt(random.nextInt());
            }
        }
        return bad;
    }

    /**
     * Writes {@code trials} damaged copies of {@code good}, one at a time, to {@code damaged-NAME}
     * beside it, and runs {@code check} on each.
     */
    public static void each(Path good, int trials, Random random, Check check) throws Exception {
        byte[] bytes = Files.readAllBytes(good);
        Path damaged = good.resolveSibling("damaged-" + good.getFileName());
        for (int trial = 0; trial < trials; trial++) {
            Files.write(damaged, damaged(bytes, trial, random));
            check.run(damaged, trial);
        }
    }
}
