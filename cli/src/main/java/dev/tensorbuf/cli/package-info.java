/**
 * The {@code tensorbuf} command line. {@link dev.tensorbuf.cli.Main} picks a
 * {@link dev.tensorbuf.cli.Command} by name, parses its {@link dev.tensorbuf.cli.Option}s into an
 * {@link dev.tensorbuf.cli.Invocation}, and turns every failure into one stderr line and an exit
 * code: 0 ok, 2 bad input ({@link dev.tensorbuf.cli.UsageException} among others), 1 internal
 * error. {@code Main.run} takes the streams as arguments, so a program or a test can run a
 * command line in-process, as the launcher's JVM does.
 * {@snippet :
 * ByteArrayOutputStream out = new ByteArrayOutputStream();
 * int code = Main.run(new String[] {"layout", "f32[3,5]{1,0:T(2,2)}", "--index", "2,4", "--json"},
 *         new BufferedReader(new StringReader("")), new PrintStream(out, true), System.err);
 * // code == 0; out ends with "indices":[{"index":[2,4],"linear":20}],"offsets":[]}
 * }
 *
 * <p>Rules for every command here: human text by default, one JSON object with {@code --json}
 * ({@code {"error", "exit_code"}} on failure, beside the stderr line); the query commands also
 * take {@code --batch}, one JSON request and one JSON result per line; every
 * {@code tensorbuf <command> --help} ends with a real example.
 */
package dev.tensorbuf.cli;
