/** Buffers over {@link java.lang.foreign.MemorySegment}, memory spaces, allocators and accounting. */
module dev.tensorbuf.memory {
    requires org.agrona;

    exports dev.tensorbuf.memory;
}
