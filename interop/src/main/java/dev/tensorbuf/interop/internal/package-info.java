/**
 * The codecs and native glue behind {@code dev.tensorbuf.interop}: the {@code .npy} and
 * safetensors codecs, DLPack import and export, file and anonymous mappings, the CUDA bindings,
 * host copies for device transfers, byte swapping and exact size arithmetic; {@code Errors}, the
 * messages the module builds in more than one place.
 *
 * <p>Not exported. Rules that hold for every class: whatever comes from a file or a foreign struct
 * is untrusted and checked before use; a bad value is an {@link java.lang.IllegalArgumentException}
 * naming the file or struct and the value; sizes are exact ({@code Sizes}, element counts by
 * {@link dev.tensorbuf.views.Extents}) and an overflow is reported, never wrapped. Restricted FFM
 * calls are made by {@code RestrictedNative} alone.
 */
package dev.tensorbuf.interop.internal;
