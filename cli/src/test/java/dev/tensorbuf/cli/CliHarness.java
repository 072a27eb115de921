package dev.tensorbuf.cli;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;

/** Runs {@link Main} in-process with captured streams. */
record CliHarness(int code, String out, String err) {
    static CliHarness run(String... args) {
        return runWithInput("", args);
    }

    static CliHarness runWithInput(String stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = Main.run(args, new BufferedReader(new StringReader(stdin)), o, e);
        }
        return new CliHarness(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
