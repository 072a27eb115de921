/** HLO ops as view remaps, HLO indexing analysis and the layout-conversion copy engine. */
module dev.tensorbuf.ops {
    requires transitive dev.tensorbuf.memory;
    requires transitive dev.tensorbuf.views;
    // Only the Vector* copy kernels and the block dequantizers (quant.internal.VectorBlocks) use it.
    // Not `static`: on the module path this resolves the
    // module, so users get the kernels without --add-modules (and the JVM's one incubator warning
    // line). On the class path this file is not read: there --add-modules jdk.incubator.vector is
    // still needed, and without it the scalar kernels run (VectorSupport).
    requires jdk.incubator.vector;

    exports dev.tensorbuf.ops;
    exports dev.tensorbuf.ops.copy;
    exports dev.tensorbuf.ops.exec;
    exports dev.tensorbuf.ops.hlo;
    exports dev.tensorbuf.ops.indexing;
    exports dev.tensorbuf.ops.quant;
    exports dev.tensorbuf.ops.shard;
}
