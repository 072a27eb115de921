package dev.tensorbuf.net.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * The Java side of {@code bench/peers/codec_speed.sh} (not a test): decodes each {@code CASE.frame}
 * of {@code DIR} into memory of its {@code CASE.raw}'s size, {@code RUNS} times after as many
 * untimed, with {@link Lz4Frames} (a case named {@code lz4...}) or {@link ZstdFrames}, checks the
 * bytes once, and prints per case the median and best MB/s of decoded bytes.
 *
 * <p>Usage: {@code CodecSpeed DIR RUNS CASE...}
 */
public final class CodecSpeed {
    private CodecSpeed() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int runs = Integer.parseInt(args[1]);
        for (String name : Arrays.copyOfRange(args, 2, args.length)) {
            byte[] raw = Files.readAllBytes(dir.resolve(name + ".raw"));
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment in = arena.allocate(Files.size(dir.resolve(name + ".frame")));
                in.copyFrom(MemorySegment.ofArray(Files.readAllBytes(dir.resolve(name + ".frame"))));
                MemorySegment out = arena.allocate(raw.length);
                double[] mbs = new double[runs];
                for (int r = -runs; r < runs; r++) {
                    long t = System.nanoTime();
                    if (name.startsWith("lz4")) {
                        Lz4Frames.decode(in, out);
                    } else {
                        ZstdFrames.decode(in, out);
                    }
                    if (r >= 0) {
                        mbs[r] = raw.length / ((System.nanoTime() - t) / 1e9) / 1e6;
                    }
                }
                if (out.mismatch(MemorySegment.ofArray(raw)) != -1) {
                    throw new AssertionError(name + " decoded other bytes");
                }
                Arrays.sort(mbs);
                System.out.printf(Locale.ROOT, "%s tensorbuf %.0f MB/s (best %.0f)%n", name, mbs[runs / 2], mbs[runs - 1]);
            }
        }
    }
}
