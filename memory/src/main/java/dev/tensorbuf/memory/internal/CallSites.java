package dev.tensorbuf.memory.internal;

import java.lang.StackWalker.StackFrame;
import java.util.List;

/** The caller's frames, outside this module's own allocation code; walked only when asked. */
final class CallSites {
    private static final StackWalker WALKER = StackWalker.getInstance();
    private static final String INTERNAL = "dev.tensorbuf.memory.internal.";
    private static final String API = "dev.tensorbuf.memory.";
    // The buffer implementations live in the API package (MemoryBuffer is sealed), so they are named here too.
    private static final List<String> API_TYPES = List.of("Allocator", "PooledAllocator", "MemoryBuffer",
            "AbstractBuffer", "HostBuffer", "DeviceBuffer");

    private CallSites() {}

    /** {@return up to {@code depth} frames of the caller, innermost first} */
    static List<StackTraceElement> capture(int depth) {
        return WALKER.walk(frames -> frames.dropWhile(CallSites::isOurs)
                .limit(depth)
                .map(StackFrame::toStackTraceElement)
                .toList());
    }

    /** {@return the innermost caller frame as text, e.g. {@code "a.B.c(B.java:12)"}} */
    static String caller() {
        List<StackTraceElement> site = capture(1);
        return site.isEmpty() ? "an unknown site" : site.getFirst().toString();
    }

    private static boolean isOurs(StackFrame frame) {
        String name = frame.getClassName();
        return name.startsWith(INTERNAL)
                || (name.startsWith(API) && API_TYPES.contains(name.substring(API.length())));
    }
}
