package dev.tensorbuf.interop.internal;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/** Maps part of a file into a shared arena and hands it out as a buffer whose close unmaps it. */
public final class FileMapping {
    private FileMapping() {
    }

    /**
     * {@return a read-only root buffer over {@code size} bytes of the file from {@code offset};
     * closing it closes the arena, which unmaps the file}
     */
    public static MemoryBuffer map(FileChannel channel, long offset, long size, String owner) throws IOException {
        return map(channel, FileChannel.MapMode.READ_ONLY, offset, size, owner);
    }

    /**
     * {@return a writable root buffer over the file's first {@code size} bytes, growing the file to
     * that size; closing it closes the arena, which unmaps the file (unflushed: force it first)}
     */
    public static MemoryBuffer mapForWriting(FileChannel channel, long size, String owner) throws IOException {
        return map(channel, FileChannel.MapMode.READ_WRITE, 0, size, owner);
    }

    private static MemoryBuffer map(FileChannel channel, FileChannel.MapMode mode, long offset, long size, String owner)
            throws IOException {
        Arena arena = Arena.ofShared();
        try {
            // A zero-length mapping is legal but some platforms refuse it; an empty native segment
            // serves the same purpose.
            MemorySegment segment = size == 0 ? arena.allocate(0) : channel.map(mode, offset, size, arena);
            return MemoryBuffer.foreign(segment, MemorySpace.HOST, owner, arena::close);
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * {@return a root buffer holding a copy of {@code size} bytes of the file from
     * {@code offset}, 64-byte aligned in its own shared arena; closing it frees the memory}
     */
    public static MemoryBuffer copy(FileChannel channel, long offset, long size, String owner) throws IOException {
        Arena arena = Arena.ofShared();
        try {
            MemorySegment segment = arena.allocate(size, 64);
            readFully(channel, offset, segment, owner);
            return MemoryBuffer.foreign(segment, MemorySpace.HOST, owner, arena::close);
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    // ByteBuffer views of a segment hold at most 2^31-1 bytes, so big data go in chunks.
    private static final long CHUNK = 1 << 30;

    /** Fills the segment from the file at {@code position}. */
    public static void readFully(FileChannel channel, long position, MemorySegment target, String file) throws IOException {
        for (long done = 0; done < target.byteSize(); ) {
            ByteBuffer chunk = target.asSlice(done, Math.min(CHUNK, target.byteSize() - done)).asByteBuffer();
            while (chunk.hasRemaining()) {
                if (channel.read(chunk, position + done + chunk.position()) < 0) {
                    throw new IOException(file + ": file ended while reading data at " + (position + done + chunk.position()));
                }
            }
            done += chunk.capacity();
        }
    }
}
