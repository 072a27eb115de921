package dev.tensorbuf.ops.copy.internal;

/**
 * The scratch memory the copy engines of this process hold, outside any {@link
 * dev.tensorbuf.memory.Allocator}: large transposes that write their destination in strided
 * passes (NCHW -> NHWC) write through a 6 MiB scratch buffer per copying thread and flush it with
 * streaming stores. Buffers are kept for reuse, at most one per core, until
 * {@link CopyEngine#releaseScratch()} frees them. Read while copies run, the four counts may come
 * from slightly different moments.
 *
 * {@snippet :
 * CopyEngine.of(1).copy(nchw, nhwc);                // f32[2,64,112,112]: two staged chunks, one buffer
 * ScratchMemory held = CopyExecutor.scratchMemory();
 * held.heldBytes();                                 // 6291456: the buffer, kept for reuse
 * held.toString();
 * // "copy scratch: 6291456 bytes held (0 in use, peak 6291456), 1 buffer allocated"
 * CopyEngine.releaseScratch();                      // 6291456 bytes freed
 * }
 *
 * @param heldBytes bytes allocated and not yet freed: in use plus kept for reuse
 * @param inUseBytes bytes running copies are writing through now
 * @param peakHeldBytes the most {@code heldBytes} has been
 * @param allocations scratch buffers ever allocated
 */
public record ScratchMemory(long heldBytes, long inUseBytes, long peakHeldBytes, long allocations) {

    /** {@return one line for people, e.g. {@code "copy scratch: 6291456 bytes held (0 in use, ..."}} */
    @Override
    public String toString() {
        return "copy scratch: " + heldBytes + " bytes held (" + inUseBytes + " in use, peak " + peakHeldBytes + "), "
                + allocations + " buffer" + (allocations == 1 ? "" : "s") + " allocated";
    }
}
