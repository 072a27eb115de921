/** JMH benchmarks and the in-process benchmark cases behind {@code tensorbuf bench}. */
module dev.tensorbuf.bench {
    requires transitive dev.tensorbuf.memory;
    requires transitive dev.tensorbuf.views;
    requires transitive dev.tensorbuf.ops;
    requires transitive dev.tensorbuf.interop;
    // Named directly: the module jars carry no module-info (see the root pom), so the chain of
    // `requires transitive` down to memory is lost when bench compiles against them.
    requires dev.tensorbuf.memory;
    requires jmh.core;

    exports dev.tensorbuf.bench;
}
