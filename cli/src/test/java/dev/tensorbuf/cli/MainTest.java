package dev.tensorbuf.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class MainTest {
    @Test
    void noArgumentsListsEveryCommand() {
        CliHarness r = CliHarness.run();
        assertEquals(0, r.code());
        for (String name : Main.commands().keySet()) {
            assertTrue(r.out().contains("  " + name + " "), "overview lists " + name + ":\n" + r.out());
        }
    }

    @Test
    void overviewListsEveryWayToAskForHelpAndTheVersionAndEachWorks() {
        String overview = CliHarness.run("--help").out();
        for (String way : List.of("--help | -h | help [<command>]", "<command> --help | -h", "tensorbuf --version")) {
            assertTrue(overview.contains(way), "overview lists " + way + ":\n" + overview);
        }
        assertEquals(overview, CliHarness.run("-h").out());
        assertEquals(overview, CliHarness.run("help").out());
        String layoutHelp = CliHarness.run("layout", "--help").out();
        assertEquals(layoutHelp, CliHarness.run("layout", "-h").out());
        assertEquals(layoutHelp, CliHarness.run("help", "layout").out());
        assertTrue(layoutHelp.contains("--help") && layoutHelp.contains("-h)"), layoutHelp);
        CliHarness version = CliHarness.run("--version");
        assertEquals(0, version.code());
        assertTrue(version.out().matches("tensorbuf \\d+\\.\\d+\\.\\d+\n"), version.out());
    }

    @Test
    void unknownCommandSuggestsTheClosestAndExitsTwo() {
        CliHarness r = CliHarness.run("dmeo");
        assertEquals(2, r.code());
        assertEquals("tensorbuf: unknown command 'dmeo' (did you mean demo?); run 'tensorbuf --help' for the list\n", r.err());
    }

    @Test
    void wordsForWhatACommandDoesAndAnOptionInPlaceOfACommandGetAHint() {
        assertEquals("tensorbuf: unknown command 'draw' (did you mean render?); run 'tensorbuf --help' for the list\n",
                CliHarness.run("draw", "f32[3,5]{1,0:T(2,2)}").err());
        assertEquals("tensorbuf: unknown command 'maps' (did you mean indexing?); run 'tensorbuf --help' for the list\n",
                CliHarness.run("maps").err());
        CliHarness option = CliHarness.run("--jsn");
        assertEquals(2, option.code());
        assertEquals("tensorbuf: unknown command '--jsn' (options follow a command: tensorbuf COMMAND [OPTIONS]); run"
                + " 'tensorbuf --help' for the list\n", option.err());
    }

    @Test
    void unknownOptionSuggestsTheClosestAndExitsTwo() {
        CliHarness r = CliHarness.run("demo", "--jsn");
        assertEquals(2, r.code());
        assertEquals("tensorbuf demo: unknown option --jsn (did you mean --json?)\n", r.err());
        // An option's value written as an option names the option. Was: no hint at all.
        r = CliHarness.run("indexing", "-", "--input-to-output");
        assertEquals(2, r.code());
        assertEquals("tensorbuf indexing: unknown option --input-to-output (did you mean --direction input-to-output?)\n",
                r.err());
    }

    @Test
    void unrelatedWordGetsNoSuggestion() {
        CliHarness r = CliHarness.run("frobnicate");
        assertEquals(2, r.code());
        assertTrue(!r.err().contains("did you mean"), r.err());
    }

    @Test
    void jsonFailureIsTheOneObjectOnStdoutBesidesTheStderrLine() {
        CliHarness r = CliHarness.run("layout", "f32[2,3]{0}", "--json");
        assertEquals(2, r.code());
        String message = "Dimensions size is 2, but minor to major size is 1. at position 8 of 'f32[2,3]{0}'";
        assertEquals("{\"error\":\"" + message + "\",\"exit_code\":2}\n", r.out());
        assertEquals("tensorbuf layout: " + message + "\n", r.err());
    }

    @Test
    void jsonFailureForAMissingFileAndForBadOptions() {
        CliHarness missing = CliHarness.run("inspect", "nope.npy", "--json");
        assertEquals(2, missing.code());
        assertEquals("{\"error\":\"no such file: nope.npy\",\"exit_code\":2}\n", missing.out());
        CliHarness option = CliHarness.run("strides", "--json", "--dtyp", "f32");
        assertEquals(2, option.code());
        assertEquals("{\"error\":\"unknown option --dtyp (did you mean --dtype?)\",\"exit_code\":2}\n", option.out());
        CliHarness plain = CliHarness.run("inspect", "nope.npy");
        assertEquals("", plain.out(), "without --json, stdout stays empty");
    }

    @Test
    void messageWithLineBreaksStaysOnOneLine() {
        CliHarness r = CliHarness.run("layout", "f32[2,3]\n{1,0}x", "--json");
        assertEquals(2, r.code());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains("of 'f32[2,3]\\n{1,0}x'"), r.err());
        assertEquals(1, r.out().lines().count(), r.out());
    }

    @Test
    void everyCommandHasHelpWithARealExample() {
        for (Command c : Main.commands().values()) {
            CliHarness r = CliHarness.run(c.name(), "--help");
            assertEquals(0, r.code(), c.name());
            assertTrue(r.out().startsWith("usage: tensorbuf " + c.name()), r.out());
            assertTrue(r.out().contains("example"), c.name() + " help has an example:\n" + r.out());
            assertTrue(r.out().contains("--help"), r.out());
        }
    }

    @Test
    void optionValuesParseInBothSpellings() {
        Command c = new OptionsOnly(List.of(Option.value("index", "I", true, "an index"), Option.JSON));
        Invocation in = Invocation.parse(c, List.of("a", "--index", "1,2", "--index=3", "--json", "--", "--b"), null, null, null);
        assertEquals(List.of("1,2", "3"), in.values("index"));
        assertEquals(List.of("a", "--b"), in.positionals());
        assertTrue(in.flag("json"));
    }

    @Test
    void nonRepeatableOptionGivenTwiceIsAnError() {
        UsageException e = org.junit.jupiter.api.Assertions.assertThrows(UsageException.class,
                () -> Invocation.parse(new DemoCommand(), List.of("--json", "--json"), null, null, null));
        assertEquals("option --json given twice", e.getMessage());
    }

    @Test
    void badIntegerListNamesTheEntry() {
        UsageException e = org.junit.jupiter.api.Assertions.assertThrows(UsageException.class,
                () -> Invocation.parseLongs("1, x,3", "--sizes"));
        assertEquals("--sizes: 'x' is not an integer (in '1, x,3')", e.getMessage());
        assertEquals(List.of(1L, 2L), java.util.Arrays.stream(Invocation.parseLongs("[1, 2]", "--i")).boxed().toList());
    }

    /** A command that only declares options, for parsing tests. */
    private record OptionsOnly(List<Option> options) implements Command {
        @Override public String name() { return "t"; }
        @Override public String summary() { return "t"; }
        @Override public String synopsis() { return "tensorbuf t"; }
        @Override public String description() { return "t"; }
        @Override public int run(Invocation in) { return 0; }
    }

    @Test
    void nothingElseRunningSeesAThreadThatWouldKeepTheJvmAlive() throws Exception {
        assertTrue(Main.nothingElseRunning());
        var release = new java.util.concurrent.CountDownLatch(1);
        Thread worker = new Thread(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        worker.start();
        try {
            org.junit.jupiter.api.Assertions.assertFalse(Main.nothingElseRunning());
        } finally {
            release.countDown();
            worker.join();
        }
        assertTrue(Main.nothingElseRunning());
        Thread daemon = new Thread(() -> {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        daemon.setDaemon(true);
        daemon.start();
        try {
            assertTrue(Main.nothingElseRunning());
        } finally {
            daemon.interrupt();
            daemon.join();
        }
    }
}
