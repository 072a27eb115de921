/** Buffers over {@link java.lang.foreign.MemorySegment}, memory spaces, allocators and accounting. */
module dev.tensorbuf.memory {
    requires org.agrona;

    exports dev.tensorbuf.memory;

    // Not API: the huge-page allocator (interop) makes buffers whose lifetime and loans its own
    // close must see, as an arena allocator's do.
    exports dev.tensorbuf.memory.internal to dev.tensorbuf.interop;
}
