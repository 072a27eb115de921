/** Tensors across borders: DLPack, .npy, safetensors, DirectML, native pointers, CUDA, Agrona. */
module dev.tensorbuf.interop {
    requires transitive dev.tensorbuf.ops;
    requires org.agrona;
}
