/** JMH benchmarks and the in-process benchmark cases behind {@code tensorbuf bench}. */
module dev.tensorbuf.bench {
    requires transitive dev.tensorbuf.memory;
    requires transitive dev.tensorbuf.views;
    requires transitive dev.tensorbuf.ops;
    requires transitive dev.tensorbuf.interop;
    requires jmh.core;

    exports dev.tensorbuf.bench;
}
