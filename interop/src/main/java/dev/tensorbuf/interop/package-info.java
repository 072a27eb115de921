/** Exchange formats and foreign memory: files, DLPack, DirectML descriptors, native buffers. */
package dev.tensorbuf.interop;
