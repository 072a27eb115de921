package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.Buffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.TensorView;
import org.junit.jupiter.api.Test;

/** The real CUDA runtime on a real GPU; skipped, with the probe's reason, where there is none. */
class CudaGpuTest {

    private static CudaRuntime cuda() {
        CudaRuntime.Availability a = CudaRuntime.probe();
        assumeTrue(a.runtime().isPresent(), "no usable CUDA: " + a.reason());
        return a.runtime().get();
    }

    @Test
    void roundTripsViewsOfEveryLayoutThroughDeviceMemory() {
        CudaRuntime cuda = cuda();
        assertTrue(cuda.deviceCount() >= 1);
        try (Allocator arena = Allocators.confined(); CudaStream stream = cuda.createStream()) {
            TensorView wide = TensorView.of(arena.allocate(4 * 4 * 6), "f32[4,6]{1,0}");
            float[] values = new float[24];
            for (int i = 0; i < 24; i++) {
                values[i] = i * 0.25f;
            }
            wide.copyFrom(values);
            TensorView window = Ops.slice(wide, new long[] {1, 1}, new long[] {4, 5}, new long[] {1, 1});
            TensorView transposed = Ops.transpose(wide, 1, 0);
            for (TensorView source : new TensorView[] {wide, window, transposed}) {
                TensorView onDevice = cuda.upload(source, 0);
                try (Buffer pinned = cuda.mallocHost(4 * source.elementCount())) {
                    TensorView back = TensorView.strided(pinned, source.access(), dev.tensorbuf.interop.internal.HostCopies.rowMajor(source));
                    cuda.download(onDevice, back);
                    stream.synchronize();
                    assertArrayEquals(source.toFloatArray(), back.toFloatArray());
                } finally {
                    onDevice.buffer().close();
                }
            }
        }
    }
}
