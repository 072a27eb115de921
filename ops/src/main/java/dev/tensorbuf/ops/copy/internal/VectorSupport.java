package dev.tensorbuf.ops.copy.internal;

/** Whether {@code jdk.incubator.vector} is in the boot layer; without it the scalar kernels run. */
final class VectorSupport {
    static final boolean AVAILABLE = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();

    private VectorSupport() {
    }
}
