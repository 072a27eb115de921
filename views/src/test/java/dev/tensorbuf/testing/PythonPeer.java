package dev.tensorbuf.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the Python interpreter of system property {@code tensorbuf.python} for oracle tests. */
public final class PythonPeer {
    private PythonPeer() {
    }

    /** {@return the interpreter to run} */
    public static String python() {
        return System.getProperty("tensorbuf.python", "python3");
    }

    /** Skips the calling test, with the reason, unless every module imports. */
    public static void assumeModules(String... modules) {
        String problem = importProblem(modules);
        assumeTrue(problem == null, problem);
    }

    /** {@return why the modules cannot be imported, or null when they can} */
    public static String importProblem(String... modules) {
        String code = "import " + String.join(", ", modules);
        try {
            Result r = run(List.of("-c", code));
            return r.exit == 0 ? null
                    : python() + " cannot import " + String.join(", ", modules) + ": " + r.output.strip()
                            + " (pip install " + String.join(" ", modules).replace("ml_dtypes", "ml-dtypes") + ")";
        } catch (IOException e) {
            return "no Python interpreter '" + python() + "' (-Dtensorbuf.python=...): " + e.getMessage();
        }
    }

    /** Copies a test resource script to {@code dir} and runs it with the arguments; fails the test on a non-zero exit. */
    public static String runScript(String resource, Path dir, String... args) throws IOException {
        Path script = dir.resolve(Path.of(resource).getFileName().toString());
        try (InputStream in = PythonPeer.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("missing test resource " + resource);
            }
            Files.copy(in, script);
        }
        List<String> argv = new ArrayList<>();
        argv.add(script.toString());
        argv.addAll(List.of(args));
        Result r = run(argv);
        if (r.exit != 0) {
            throw new AssertionError(resource + " exited " + r.exit + ":\n" + r.output);
        }
        return r.output;
    }

    private record Result(int exit, String output) {
    }

    private static Result run(List<String> args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(python());
        command.addAll(args);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(5, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IOException("timed out: " + command);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        return new Result(p.exitValue(), out);
    }
}
