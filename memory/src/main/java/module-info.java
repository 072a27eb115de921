/** Buffers over {@link java.lang.foreign.MemorySegment}, memory spaces, allocators and accounting. */
module dev.tensorbuf.memory {
    requires org.agrona;

    exports dev.tensorbuf.memory;

    // Not API: the huge-page allocator (interop) makes buffers whose lifetime and loans its own
    // close must see, as an arena allocator's do. AsciiDigits is the one rule for digits in the
    // text every module's parsers read.
    exports dev.tensorbuf.memory.internal to dev.tensorbuf.views, dev.tensorbuf.ops, dev.tensorbuf.interop, dev.tensorbuf.cli;
}
