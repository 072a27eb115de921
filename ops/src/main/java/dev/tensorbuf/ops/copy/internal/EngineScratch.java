package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import java.lang.foreign.Arena;

/**
 * The memory the copy engine takes for itself where a caller gives none: an epilogue's block
 * scratches and its constants ({@code CopyEngine.copy(operands, dst, epilogue)}). Each buffer is
 * its own automatic arena's, freed by the garbage collector once no view holds it, so a plan
 * kept (an explanation's, say) stays runnable and nothing is closed under a thread using it.
 * {@snippet :
 * TensorView scratch = PointwiseCopy.scratch(ArrayShape.of(DType.F32, 16, 1024), EngineScratch.ALLOCATOR);
 * }
 */
public final class EngineScratch implements Allocator {
    /** The one instance: it has no state. */
    public static final EngineScratch ALLOCATOR = new EngineScratch();

    private EngineScratch() {
    }

    @Override
    public MemorySpace memorySpace() {
        return MemorySpace.HOST;
    }

    @Override
    public long defaultAlignment() {
        return DEFAULT_ALIGNMENT;
    }

    @Override
    public MemoryBuffer allocate(long byteSize, long alignment) {
        return MemoryBuffer.foreign(Arena.ofAuto().allocate(byteSize, alignment), MemorySpace.HOST,
                "the copy engine's scratch", () -> { });
    }

    @Override
    public boolean isOpen() {
        return true;
    }

    /** Nothing to close: each buffer is freed when unreachable. */
    @Override
    public void close() {
    }
}
