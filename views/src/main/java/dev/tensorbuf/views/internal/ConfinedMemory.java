package dev.tensorbuf.views.internal;

/**
 * What a thread is told when it reaches memory of a confined arena that is not its own. FFM's
 * own exception ("Attempted access outside owning thread") names neither what was being done nor
 * the cure; the bulk transfers, the copy engine and the staging pipeline all say it this way.
 */
public final class ConfinedMemory {
    private ConfinedMemory() {
    }

    /**
     * {@return {@code what}, the thread, and why and what to do instead}
     *
     * @param what what could not be done, e.g. {@code "cannot use f32[4] strides [1]"}
     * @param thread the thread that cannot reach the memory
     */
    public static String explain(String what, Thread thread) {
        return what + " from thread \"" + thread.getName() + "\": its memory belongs to a confined arena, which is for"
                + " the thread that made it (use Allocators.shared() or a pool to share buffers between threads)";
    }

    /** {@return FFM's {@code cause} renamed by {@link #explain} for the calling thread} */
    public static WrongThreadException wrongThread(String what, WrongThreadException cause) {
        return new WrongThreadException(explain(what, Thread.currentThread()), cause);
    }
}
