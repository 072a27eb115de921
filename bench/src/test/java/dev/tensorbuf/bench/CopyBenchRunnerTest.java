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
            // 7 ms repetitions: a block of 20 ms takes 3. Two of them count, so 3 counted repetitions
            // take a second block of each side; counting all three would stop after one.
            assertEquals(4, blocks.size(), blocks.toString());
            for (String b : blocks) {
                assertEquals(3, b.length(), blocks.toString());
            }
            assertTrue(m.work() >= 0.007 && m.baseline() >= 0.007, m.toString());
        }
    }
}
