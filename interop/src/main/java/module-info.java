/**
 * Tensors across borders: DLPack, .npy, safetensors, GGUF, DirectML, native pointers, CUDA, Agrona
 * ({@code dev.tensorbuf.interop.AgronaBuffers} is the only class whose work needs
 * {@code --add-opens java.base/jdk.internal.misc=ALL-UNNAMED}), and the staging pipeline.
 */
module dev.tensorbuf.interop {
    // Each module used is named, not only the nearest, so reading this file tells what interop uses.
    requires transitive dev.tensorbuf.memory;
    requires transitive dev.tensorbuf.views;
    requires transitive dev.tensorbuf.ops;
    // Transitive: AgronaBuffers' and StagingPipeline's public signatures take Agrona's buffers and idle strategies.
    requires transitive org.agrona;

    exports dev.tensorbuf.interop;
    exports dev.tensorbuf.interop.staging;

    // Not API: the command line shares the one JSON codec the file formats use.
    exports dev.tensorbuf.interop.json to dev.tensorbuf.net, dev.tensorbuf.cli;
    // Not API: Arrow's buffers are native memory, and restricted FFM calls stay in interop's one
    // file for them (RestrictedNative), so that --enable-native-access names interop alone; and
    // Arrow files and convert's outputs are written whole or not at all by the one FileReplacement.
    exports dev.tensorbuf.interop.internal to dev.tensorbuf.net, dev.tensorbuf.cli;
}
