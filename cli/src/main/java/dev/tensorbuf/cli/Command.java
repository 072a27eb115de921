package dev.tensorbuf.cli;

import java.util.List;

/**
 * One {@code tensorbuf} sub-command. {@link Main} parses the arguments against {@link #options()},
 * handles {@code --help}, and maps exceptions to exit codes through {@link Failure}: 0 ok, 2 bad
 * input (a {@link UsageException}, any {@link IllegalArgumentException} or
 * {@link IndexOutOfBoundsException} from the library, a path the system refuses, not enough
 * memory), 1 internal error.
 *
 * {@snippet :
 * // tensorbuf layout 'f32[3,5]{1,0:T(2,2)}' --index 2,4 --json
 * }
 */
public interface Command {
    /** {@return the word that selects the command, e.g. {@code "layout"}} */
    String name();

    /** {@return one line for the command list} */
    String summary();

    /** {@return the synopsis, e.g. {@code "tensorbuf layout SHAPE [--index I0,I1,..]... [--json]"}} */
    String synopsis();

    /** {@return a few lines: what the command does, then at least one real example with its output} */
    String description();

    /** {@return the options besides {@code --help}} */
    List<Option> options();

    /**
     * Runs the command.
     *
     * @return the exit code (0 on success)
     * @throws UsageException for arguments that do not fit the command
     * @throws Exception any other failure, reported as {@link Failure#of} says
     */
    int run(Invocation in) throws Exception;
}
