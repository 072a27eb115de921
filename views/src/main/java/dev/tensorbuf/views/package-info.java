/**
 * Logical tensors over buffers: element types, shapes, layouts and typed views.
 *
 * <p>Rules for every method here: sizes, strides and offsets are in elements unless the name ends
 * in {@code Bytes}; {@code null} arguments throw {@link NullPointerException}.
 */
package dev.tensorbuf.views;
