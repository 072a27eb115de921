/** JMH benchmarks and the in-process benchmark cases behind {@code tensorbuf bench}. */
module dev.tensorbuf.bench {
    requires transitive dev.tensorbuf.interop;
    requires jmh.core;
}
