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
    // Friends only. interop's Npy unpacks packed tiles and bench's copy cases and cli's demo time
    // copies through the copy engine's Access (a view without a MemoryBuffer, over a bare segment).
    exports dev.tensorbuf.ops.copy.internal to dev.tensorbuf.interop, dev.tensorbuf.bench, dev.tensorbuf.cli;
    // cli's run command prints the executed steps and words the refusal of an unsupported op.
    exports dev.tensorbuf.ops.exec.internal to dev.tensorbuf.cli;
    // cli's failure messages point at an HLO syntax error's line and column.
    exports dev.tensorbuf.ops.hlo.internal to dev.tensorbuf.cli;
    // bench's dequantize benchmark and cli's gguf commands run the block kernels directly.
    exports dev.tensorbuf.ops.quant.internal to dev.tensorbuf.bench, dev.tensorbuf.cli;
}
