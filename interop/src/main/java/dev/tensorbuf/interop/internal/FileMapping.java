package dev.tensorbuf.interop.internal;

import dev.tensorbuf.memory.Buffer;
import dev.tensorbuf.memory.Buffers;
import dev.tensorbuf.memory.MemorySpace;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;

/** Maps part of a file into a shared arena and hands it out as a buffer whose close unmaps it. */
public final class FileMapping {
    private FileMapping() {
    }

    /**
     * {@return a root buffer over {@code size} bytes of the file from {@code offset}; closing it
     * closes the arena, which unmaps the file}
     *
     * @param mode {@code READ_ONLY}, or {@code PRIVATE} for a copy-on-write mapping the caller may
     *     change without touching the file
     */
    public static Buffer map(FileChannel channel, FileChannel.MapMode mode, long offset, long size, String owner)
            throws IOException {
        Arena arena = Arena.ofShared();
        try {
            // A zero-length mapping is legal but some platforms refuse it; an empty native segment
            // serves the same purpose.
            MemorySegment segment = size == 0 ? arena.allocate(0) : channel.map(mode, offset, size, arena);
            return Buffers.foreign(segment, MemorySpace.HOST, owner, arena::close);
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }
}
