/** Element types, XLA shapes and layouts, strided layouts, indexing maps and tensor views. */
module dev.tensorbuf.views {
    requires transitive dev.tensorbuf.memory;

    exports dev.tensorbuf.views;
    exports dev.tensorbuf.views.indexing;
    exports dev.tensorbuf.views.text;
    // The copy engine's conversion loops call the narrow-float codecs directly; the copy engine
    // and the staging pipeline word a confined arena's refusal as the views do (ConfinedMemory).
    exports dev.tensorbuf.views.internal to dev.tensorbuf.ops, dev.tensorbuf.interop;
}
