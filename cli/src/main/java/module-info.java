/** The {@code tensorbuf} command. */
module dev.tensorbuf.cli {
    requires dev.tensorbuf.memory;
    requires dev.tensorbuf.views;
    requires dev.tensorbuf.ops;
    requires dev.tensorbuf.interop;
    requires dev.tensorbuf.net;
    requires dev.tensorbuf.bench;

    exports dev.tensorbuf.cli;
}
