/** HLO ops as view remaps, HLO indexing analysis and the layout-conversion copy engine. */
module dev.tensorbuf.ops {
    requires transitive dev.tensorbuf.memory;
    requires transitive dev.tensorbuf.views;
    // Only the Vector* copy kernels use it; without the module the scalar kernels run.
    requires static jdk.incubator.vector;

    exports dev.tensorbuf.ops;
    exports dev.tensorbuf.ops.copy;
    exports dev.tensorbuf.ops.exec;
    exports dev.tensorbuf.ops.hlo;
    exports dev.tensorbuf.ops.indexing;
}
