package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * How a GPU-gated test gets its {@link CudaRuntime}. By default it skips, with the probe's reason,
 * where there is no usable CUDA. {@code -Dtensorbuf.gpu.required=true} (gpu/check.sh on a GPU
 * machine) turns that skip into a failure, so a check that meant to use the GPU cannot pass by
 * skipping. {@code -Dtensorbuf.gpu.fake=true} (gpu/check.sh --fake, in CI) runs the same tests
 * against {@link FakeCuda}, whose "device" memory is host memory: every Java path but the GPU.
 */
final class GpuTests {
    /** Fail instead of skipping when there is no usable CUDA. */
    static final String REQUIRED = "tensorbuf.gpu.required";
    /** Run against {@link FakeCuda}. */
    static final String FAKE = "tensorbuf.gpu.fake";

    private GpuTests() {
    }

    static boolean fake() {
        return Boolean.getBoolean(FAKE);
    }

    /** {@return the runtime GPU-gated tests use: the fake, the real one, or a skip (a failure when required)} */
    static CudaRuntime cuda() {
        if (fake()) {
            return new CudaRuntime(new FakeCuda());
        }
        CudaRuntime.Availability a = CudaRuntime.probe();
        if (a.runtime().isEmpty() && Boolean.getBoolean(REQUIRED)) {
            fail("-D" + REQUIRED + "=true, but there is no usable CUDA: " + a.reason());
        }
        assumeTrue(a.runtime().isPresent(), "no usable CUDA: " + a.reason());
        return a.runtime().get();
    }

    /** Skips (fails when required) a step that needs a real GPU, under the fake. */
    static void assumeRealGpu(String what) {
        if (fake() && Boolean.getBoolean(REQUIRED)) {
            fail("-D" + REQUIRED + "=true with -D" + FAKE + "=true: " + what + " needs a real GPU");
        }
        assumeTrue(!fake(), what + " needs a real GPU; -D" + FAKE + "=true runs the fake");
    }
}
