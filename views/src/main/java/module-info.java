/** Element types, XLA shapes and layouts, strided layouts, indexing maps and tensor views. */
module dev.tensorbuf.views {
    requires transitive dev.tensorbuf.memory;

    exports dev.tensorbuf.views;
    exports dev.tensorbuf.views.indexing;
    exports dev.tensorbuf.views.text;
    // For ops: the narrow-float codecs (MiniFloat, FloatCodec) for the copy engine's conversion
    // loops and run's convert; ViewBounds for CopyPlan's bounds checks; DistinctSlots for the copy
    // engine's refusal of a destination that overlaps itself; DomainBoxes for its copies of views over
    // several pieces, box by box. For ops and interop: ConfinedMemory,
    // so the copy engine and the staging pipeline word a confined arena's refusal as the views do. For
    // ops and cli: Suggestions, one "did you mean" for the HLO parser's opcodes and the CLI's words. Errors is public for views' own packages only: ops and interop have their own.
    exports dev.tensorbuf.views.internal to dev.tensorbuf.ops, dev.tensorbuf.interop, dev.tensorbuf.cli;
}
