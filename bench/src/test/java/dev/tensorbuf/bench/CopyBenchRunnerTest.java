package dev.tensorbuf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CopyBenchRunnerTest {
    /** Records which side ran, in order, and sleeps so every block ends after its minimum repetitions. */
    private static Runnable recording(List<Character> log, char side, long sleepMillis) {
        return () -> {
            log.add(side);
            try {
                Thread.sleep(sleepMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }

    /** The runs of equal letters: "WWWBBB" -> ["WWW", "BBB"]. */
    private static List<String> blocks(List<Character> log) {
        List<String> out = new ArrayList<>();
        StringBuilder run = new StringBuilder();
        for (char c : log) {
            if (!run.isEmpty() && run.charAt(0) != c) {
                out.add(run.toString());
                run.setLength(0);
            }
            run.append(c);
        }
        out.add(run.toString());
        return out;
    }

    @Test
    void eitherSideCanGoFirstBlocksAlternateAndTheirFirstRepetitionIsNotCounted() {
        for (boolean workFirst : new boolean[] {true, false}) {
            List<Character> log = new ArrayList<>();
            CopyBenchRunner.Medians m = CopyBenchRunner.inTurns(recording(log, 'W', 7), recording(log, 'B', 7),
                    workFirst, 3, 0);
            List<String> blocks = blocks(log);
            assertEquals(workFirst ? 'W' : 'B', blocks.getFirst().charAt(0), blocks.toString());
            // 7 ms repetitions: a block of 20 ms takes 3, two of them counted. Three blocks of each
            // side at least, so the median and the baseline's spread meet more than two moments.
            assertEquals(6, blocks.size(), blocks.toString());
            for (String b : blocks) {
                assertEquals(3, b.length(), blocks.toString());
            }
            assertTrue(m.work() >= 0.007 && m.baseline() >= 0.007, m.toString());
            assertTrue(m.baselineSlowestBlock() >= m.baselineFastestBlock() && m.baselineFastestBlock() >= 0.007,
                    m.toString());
        }
    }

    @Test
    void aBaselineThatSwungOrARatioFarAboveOneIsCalledNoisy() {
        // The review's two runs of one case: ratio 5.16 with copy at 12.1 GB/s, then 0.18 at 180.8.
        assertEquals("noisy: copy baseline varied 9.9-180.8 GB/s, ratio far above 1", CopyBenchRunner.noise(5.16, 9.9, 180.8));
        assertEquals("noisy: copy baseline varied 9.9-180.8 GB/s", CopyBenchRunner.noise(0.18, 9.9, 180.8));
        assertEquals("noisy: copy baseline varied 12.1-13.0 GB/s, ratio far above 1", CopyBenchRunner.noise(5.16, 12.1, 13.0));
        assertEquals("", CopyBenchRunner.noise(0.55, 30.1, 33.0));
        // The broadcast reads little and measures 1.2-1.5 on a quiet host: not noise.
        assertEquals("", CopyBenchRunner.noise(1.5, 35, 40));
        CopyBenchRunner.Result r = new CopyBenchRunner.Result("c", 100, 1, 5, 1, 2, 0.5, 1.5);
        assertEquals(true, r.json().get("noisy"));
        assertEquals(0.5, r.json().get("copy_gbps_min"));
        assertEquals(1.5, r.json().get("copy_gbps_max"));
    }
}
