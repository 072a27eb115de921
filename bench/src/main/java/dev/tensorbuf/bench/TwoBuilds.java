package dev.tensorbuf.bench;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Two builds of the library in one JVM, timed in turns: the harness behind the {@code main}s that
 * compare a change with its base ({@link ViewOpBenchmark}, {@link ChannelAffineBenchmark}). One
 * JVM, so both sides see the same machine from moment to moment; which side goes first alternates
 * by round, so neither always runs just after the other's warm caches.
 */
final class TwoBuilds {
    /** One sample of a side: a time, in the unit its caller prints. */
    @FunctionalInterface
    interface Sample {
        double take() throws Throwable;
    }

    private TwoBuilds() {
    }

    /** {@return a loader of the memory, views and ops classes compiled in checkout {@code root}, with Agrona's jar} */
    static ClassLoader loader(String root, String agrona) throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String m : new String[] {"memory", "views", "ops"}) {
            urls.add(Path.of(root, m, "target", "classes").toUri().toURL());
        }
        urls.add(Path.of(agrona).toUri().toURL());
        return new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
    }

    /**
     * {@return each side's {@code rounds} samples, sorted (median at {@code rounds / 2})} after
     * {@code warmups} untimed pairs; round {@code r} takes side {@code r % 2} first.
     */
    static double[][] inTurns(int warmups, int rounds, Sample a, Sample b) throws Throwable {
        Sample[] sides = {a, b};
        for (int w = 0; w < warmups; w++) {
            a.take();
            b.take();
        }
        double[][] samples = new double[2][rounds];
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < 2; k++) {
                int side = (r + k) % 2;
                samples[side][r] = sides[side].take();
            }
        }
        Arrays.sort(samples[0]);
        Arrays.sort(samples[1]);
        return samples;
    }
}
