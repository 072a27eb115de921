/**
 * The {@code tensorbuf} command. Exports nothing: it is an application, run by the launcher as
 * {@code java -jar} (the class path), not a library to compile against.
 */
module dev.tensorbuf.cli {
    requires dev.tensorbuf.memory;
    requires dev.tensorbuf.views;
    requires dev.tensorbuf.ops;
    requires dev.tensorbuf.interop;
    requires dev.tensorbuf.net;
    requires dev.tensorbuf.bench;
}
