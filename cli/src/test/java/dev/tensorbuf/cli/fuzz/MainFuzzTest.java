package dev.tensorbuf.cli.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tensorbuf.cli.Main;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuzzes the command line: {@code Main.run} with random argv and stdin must exit 0 or 2, never 1
 * (an internal error) and never throw, within a time bound. Input format, so that seeds stay
 * readable: the arguments separated by NUL bytes, then optionally a 0x01 byte and the text for
 * stdin. Seeds and findings: {@code src/test/resources/dev/tensorbuf/cli/fuzz/MainFuzzTestInputs/}.
 * Jazzer's path-traversal detector is off for this target (cli/pom.xml): reading the files a user
 * names, wherever they are, is what {@code inspect}, {@code convert} and {@code indexing FILE} are
 * for (it stopped a 10-minute run at {@code indexing ../jazzer-traversal}).
 */
class MainFuzzTest {
    private static final long HANG_MILLIS = 5_000;

    @FuzzTest
    void commandLineExitsZeroOrTwo(byte[] data) {
        String all = new String(data, StandardCharsets.UTF_8);
        int split = all.indexOf('\u0001');
        String stdin = split < 0 ? "" : all.substring(split + 1);
        String argText = split < 0 ? all : all.substring(0, split);
        List<String> args = new ArrayList<>();
        for (String a : argText.split("\0", -1)) {
            // Paths reach the file system through 'inspect' and 'indexing FILE': keep the fuzzer
            // away from device and proc files, which can block or never end.
            args.add(a.contains("/dev/") || a.contains("/proc/") || a.contains("/sys/") ? "x" : a);
        }
        if (argText.isEmpty()) {
            args.clear();
        }
        // demo and bench run real workloads for seconds, by design (their own tests cover them);
        // serve runs until stopped and fetch connects to the host it is given (fuzzed hosts must get
        // no traffic; NetCommandsTest covers both on loopback): fuzzing their options goes through
        // --help instead, which parses nothing heavy.
        if (!args.isEmpty() && List.of("demo", "bench", "serve", "fetch").contains(args.getFirst())) {
            args.add(1, "--help");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        long start = System.nanoTime();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = Main.run(args.toArray(String[]::new), new BufferedReader(new StringReader(stdin)), o, e);
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        String errText = err.toString(StandardCharsets.UTF_8);
        if (code != 0 && code != 2) {
            throw new AssertionError("exit " + code + " for argv " + args + " stdin " + stdin.length() + " chars: "
                    + errText);
        }
        if (code == 2 && errText.isBlank()) {
            throw new AssertionError("exit 2 without a message for argv " + args);
        }
        if (millis > HANG_MILLIS) {
            throw new AssertionError("took " + millis + " ms for argv " + args);
        }
    }
}
