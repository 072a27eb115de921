/** JMH benchmarks and the in-process benchmark cases behind {@code tensorbuf bench}. */
module dev.tensorbuf.bench {
    requires transitive dev.tensorbuf.memory;
    requires transitive dev.tensorbuf.views;
    requires transitive dev.tensorbuf.ops;
    requires transitive dev.tensorbuf.interop;
    requires jmh.core;
    // GgufSideBySide times its thread's CPU, steadier than wall time on a shared machine.
    requires java.management;
    requires jdk.management;
    // FillWriteBenchmark writes with vector stores of a chosen width, as the engine's fill does.
    requires jdk.incubator.vector;

    // Not API: the command line's `bench` runs these cases in-process. JMH runs the benchmarks
    // from the class path (the shaded benchmarks.jar), where exports do not apply.
    exports dev.tensorbuf.bench to dev.tensorbuf.cli;
}
