/** Element types, XLA shapes and layouts, strided layouts, indexing maps and tensor views. */
module dev.tensorbuf.views {
    requires transitive dev.tensorbuf.memory;

    exports dev.tensorbuf.views;
    exports dev.tensorbuf.views.indexing;
    exports dev.tensorbuf.views.text;
    // For ops alone: the narrow-float codecs (MiniFloat, FloatCodec) for the copy engine's
    // conversion loops and run's convert; ViewBounds for CopyPlan's bounds check of mapped sides;
    // ViewReader for the copy engine's element-wise walk of padded and concatenated views.
    exports dev.tensorbuf.views.internal to dev.tensorbuf.ops;
}
