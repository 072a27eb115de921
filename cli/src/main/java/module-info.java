/** The {@code tensorbuf} command. */
module dev.tensorbuf.cli {
    requires dev.tensorbuf.interop;
    requires dev.tensorbuf.bench;
}
