/**
 * Buffers: byte ranges in one memory space, with allocators that own their lifetimes.
 *
 * <p>Rules for every method here: sizes and offsets are in bytes; {@code null} arguments throw
 * {@link NullPointerException} and are not documented one by one.
 */
package dev.tensorbuf.memory;
