package dev.tensorbuf.ops.copy.internal;

import java.util.concurrent.atomic.AtomicBoolean;

/** Whether {@code jdk.incubator.vector} is in the boot layer; without it the scalar kernels run. */
public final class VectorSupport {
    /** Whether the module is in the boot layer; asking for scalar kernels is {@code CopyEngine.Config}'s. */
    static final boolean AVAILABLE = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
    /**
     * What the scalar kernels cost against the vector ones, both compiled: said in the notice, so
     * a user can weigh the flag. The u8 NHWC [8,224,224,3] staging to f32 NCHW took 0.74 ms in
     * scalar code against 0.15-0.18 ms with the Vector API (one thread; 0.52 against 0.18 on two).
     */
    static final String SLOWDOWN = "copies such as image staging run about 3-4x slower";
    private static final AtomicBoolean NOTICED = new AtomicBoolean();

    private VectorSupport() {
    }

    /**
     * {@return whether vector kernels may run here: the module is present and
     * {@code -Dtensorbuf.copy.vector} is not false} For callers outside this package that must
     * not load a class naming vector types when the module is absent ({@link VectorPointwise}).
     */
    public static boolean enabled() {
        return AVAILABLE && !"false".equals(System.getProperty("tensorbuf.copy.vector"));
    }

    /**
     * Says once per process, through {@link System.Logger}, that vector kernels were asked for
     * and the module is missing; a JVM started without the flag would otherwise run several
     * times slower and never know. Called only for an engine whose {@code Config} asks for vector
     * kernels: asking for scalar ones ({@code -Dtensorbuf.copy.vector=false}) is not missing them.
     */
    static void noticeMissing() {
        if (AVAILABLE || !NOTICED.compareAndSet(false, true)) {
            return;
        }
        System.getLogger("dev.tensorbuf.ops.copy").log(System.Logger.Level.WARNING, "tensorbuf: the JVM lacks"
                + " jdk.incubator.vector, so the copy engine runs its scalar kernels (" + SLOWDOWN + "); start java with"
                + " --add-modules jdk.incubator.vector for the Vector API kernels");
    }
}
