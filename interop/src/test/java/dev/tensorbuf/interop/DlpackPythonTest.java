package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemorySpace.DLDeviceType;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * DLPack between tensorbuf and Python consumers and producers in one process, through
 * {@link EmbeddedPython} and {@link PythonProducer}: NumPy with kDLCPU here, PyTorch and CuPy with
 * kDLCUDA on a GPU machine (gpu/check.sh).
 */
class DlpackPythonTest {
    private EmbeddedPython py;
    private int pending;

    private void requireModules(String... modules) {
        String problem = py.run("import importlib\nresult = ''\nfor m in " + EmbeddedPython.literal(String.join(",", modules))
                + ".split(','):\n    try:\n        importlib.import_module(m)\n    except Exception as e:\n"
                + "        result += '%s: %s; ' % (m, e)");
        if (!problem.isEmpty() && Boolean.getBoolean(GpuTests.REQUIRED)) {
            fail("-D" + GpuTests.REQUIRED + "=true, but the embedded interpreter cannot import: " + problem);
        }
        assumeTrue(problem.isEmpty(), "the embedded interpreter cannot import: " + problem);
    }

    @BeforeEach
    void setUp() {
        PythonProducer.reset();
        pending = Dlpack.pendingExports();
    }

    @AfterEach
    void noExportFailed() {
        PythonProducer.assertNoExportFailed();
    }

    private static float[] quarters(int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = i * 0.25f - 1;
        }
        return v;
    }

    /**
     * NumPy takes a transposed (strided, not contiguous) view in place: np.from_dlpack sees the
     * values of the transpose, asks with no stream, and the deleter runs once when the array dies.
     */
    @Test
    void numpyConsumesATransposedViewInPlace() {
        py = PythonProducer.python();
        requireModules("numpy");
        try (Allocator arena = Allocators.shared()) {
            TensorView v = TensorView.of(arena.allocate(4 * 12), "f32[3,4]{1,0}");
            TensorElements.of(v).copyFrom(quarters(12));
            PythonProducer.exporting = Ops.transpose(v, 1, 0);
            String out = py.run(String.join("\n",
                    "import numpy as np",
                    "src = TbTensor(_produce, (1, 0))",
                    "a = np.from_dlpack(src)",
                    "expected = (np.arange(12, dtype=np.float32) * 0.25 - 1).reshape(3, 4).T",
                    "assert a.shape == (4, 3) and a.dtype == np.float32, (a.shape, a.dtype)",
                    "assert a.strides == (4, 16), a.strides",
                    "assert np.array_equal(a, expected), a",
                    "result = '%s %s %s' % (src.streams, src.versions, a[3, 2])"));
            assertTrue(out.startsWith("[None] "), out);
            assertTrue(out.endsWith(" 1.75"), out);
            assertEquals(0, PythonProducer.released.get(), "released while NumPy still holds the array");
            py.run("del a\ngc.collect()");
            assertEquals(1, PythonProducer.released.get());
            assertEquals(pending, Dlpack.pendingExports());
        }
    }

    /** NumPy writes through its array into tensorbuf's buffer: the memory is shared, not copied. */
    @Test
    void numpyWritesReachTheBuffer() {
        py = PythonProducer.python();
        requireModules("numpy");
        try (Allocator arena = Allocators.shared()) {
            TensorView v = TensorView.of(arena.allocate(6), "u8[2,3]{1,0}");
            TensorElements.of(v).copyFrom(new int[] {1, 2, 3, 4, 5, 6});
            PythonProducer.exporting = Ops.slice(v, new long[] {0, 1}, new long[] {2, 3}, new long[] {1, 1});
            py.run("import numpy as np\na = np.from_dlpack(TbTensor(_produce, (1, 0)))\na += 100\ndel a\ngc.collect()");
            assertArrayEquals(new int[] {1, 102, 103, 4, 105, 106}, TensorElements.of(v).toIntArray());
            assertEquals(1, PythonProducer.released.get());
        }
    }

    /**
     * A NumPy array with negative and non-unit strides comes in through its own capsule: tensorbuf
     * reads its values in place, and closing the import runs NumPy's deleter, which drops the
     * reference it held on the array (the reference count goes back).
     */
    @Test
    void numpyArrayImportsIntoTensorbuf() {
        py = PythonProducer.python();
        requireModules("numpy");
        String taken = py.run(String.join("\n",
                "import numpy as np",
                "base = np.arange(24, dtype=np.float32).reshape(4, 6) * 0.5",
                "arr = base[::-1, 1::2]",
                "refs_before = sys.getrefcount(arr)",
                "result = take(arr.__dlpack__())",
                "refs_held = sys.getrefcount(arr)"));
        String[] parts = taken.split(" ");
        long address = Long.parseLong(parts[0]);
        boolean versioned = parts[1].equals("True");
        try (Dlpack.Tensor t = versioned ? Dlpack.importVersioned(MemorySegment.ofAddress(address))
                : Dlpack.importLegacy(MemorySegment.ofAddress(address))) {
            assertEquals(java.util.List.of(4L, 3L), t.view().dims());
            assertEquals(DLDeviceType.CPU, t.view().buffer().memorySpace().dlpackDevice().orElseThrow());
            for (int r = 0; r < 4; r++) {
                for (int c = 0; c < 3; c++) {
                    assertEquals(((3 - r) * 6 + 1 + 2 * c) * 0.5f, TensorElements.of(t.view()).getFloat(r, c), "[" + r + "," + c + "]");
                }
            }
            assertEquals("True", py.run("result = refs_held > refs_before"), "NumPy's capsule holds no reference to the array");
        }
        assertEquals("True", py.run("gc.collect()\nresult = sys.getrefcount(arr) == refs_before"));
    }

    /**
     * On the GPU: a transposed device view, exported as kDLCUDA, consumed by PyTorch and by CuPy in
     * this process; they compare it on the GPU with values they compute there. Each consumer asks
     * under a non-blocking stream of its own, which must be the stream given to {@code __dlpack__};
     * the producer honours it by making that stream wait for the legacy default stream, where
     * tensorbuf's copies ran (the harness does this: tensorbuf's export takes no stream). The
     * deleter runs once per consumer, when its tensor dies.
     */
    @Test
    void torchAndCupyConsumeADeviceViewInPlace() {
        CudaRuntime cuda = GpuTests.cuda();
        GpuTests.assumeRealGpu("PyTorch and CuPy reading kDLCUDA memory");
        py = PythonProducer.python();
        requireModules("torch", "cupy");
        try (Allocator arena = Allocators.shared()) {
            TensorView host = TensorView.of(arena.allocate(4 * 12), "f32[3,4]{1,0}");
            TensorElements.of(host).copyFrom(quarters(12));
            TensorView onDevice = cuda.upload(host, 0);
            try {
                PythonProducer.exporting = Ops.transpose(onDevice, 1, 0);
                String out = py.run(String.join("\n",
                        "import torch, cupy",
                        // tensorbuf's copies run on the legacy default stream; PyTorch's and
                        // CuPy's own streams are non-blocking, so the consumer's stream must wait for it.
                        "def honour(ptr):",
                        "    torch.cuda.ExternalStream(ptr).wait_stream(torch.cuda.default_stream())",
                        "src = TbTensor(_produce, (2, 0))",
                        "src.honour = honour",
                        "s = torch.cuda.Stream()",
                        "with torch.cuda.stream(s):",
                        "    t = torch.from_dlpack(src)",
                        "    expected = (torch.arange(12, dtype=torch.float32, device='cuda') * 0.25 - 1).reshape(3, 4).T",
                        "    assert t.is_cuda and t.shape == (4, 3) and t.stride() == (1, 4), (t.device, t.shape, t.stride())",
                        "    assert torch.equal(t, expected), t",
                        "    ptr = t.data_ptr()",
                        "assert src.streams == [s.cuda_stream], (src.streams, s.cuda_stream)",
                        "torch_seen = float(t[3, 2])",
                        "del t",
                        "gc.collect()",
                        "c_src = TbTensor(_produce, (2, 0))",
                        "c_src.honour = honour",
                        "cs = cupy.cuda.Stream(non_blocking=True)",
                        "with cs:",
                        "    c = cupy.from_dlpack(c_src)",
                        "    ce = (cupy.arange(12, dtype=cupy.float32) * 0.25 - 1).reshape(3, 4).T",
                        "    assert c.shape == (4, 3) and c.strides == (4, 16), (c.shape, c.strides)",
                        "    assert bool((c == ce).all()), c",
                        "    assert c.data.ptr == ptr, (c.data.ptr, ptr)",
                        "assert c_src.streams == [cs.ptr], (c_src.streams, cs.ptr)",
                        "result = '%s %s %s' % (torch_seen, float(c[3, 2]), ptr)"));
                assertEquals("1.75 1.75 " + onDevice.buffer().address(), out);
                assertEquals(1, PythonProducer.released.get(), "torch's tensor died, CuPy's lives");
                py.run("del c\ngc.collect()");
                assertEquals(2, PythonProducer.released.get());
                assertEquals(pending, Dlpack.pendingExports());
            } finally {
                onDevice.buffer().close();
            }
        }
    }

    /**
     * On the GPU: a PyTorch CUDA tensor (64 MiB) comes in through its capsule; tensorbuf downloads
     * it and finds torch's values; torch's memory stays allocated while the import holds it even
     * after Python dropped its tensor, and is freed when the import closes (its deleter ran).
     */
    @Test
    void torchCudaTensorImportsIntoTensorbuf() {
        CudaRuntime cuda = GpuTests.cuda();
        GpuTests.assumeRealGpu("importing a PyTorch CUDA tensor");
        py = PythonProducer.python();
        requireModules("torch");
        int rows = 4096;
        int cols = 4096;
        String taken = py.run(String.join("\n",
                "import torch",
                "t = (torch.arange(" + rows + " * " + cols + ", dtype=torch.float32, device='cuda') % 1000 * 0.5)"
                        + ".reshape(" + rows + ", " + cols + ")",
                "torch.cuda.synchronize()",
                "result = take(t.__dlpack__())",
                "del t",
                "gc.collect()",
                "held = torch.cuda.memory_allocated()"));
        String[] parts = taken.split(" ");
        MemorySegment managed = MemorySegment.ofAddress(Long.parseLong(parts[0]));
        try (Allocator arena = Allocators.shared();
                Dlpack.Tensor t = parts[1].equals("True") ? Dlpack.importVersioned(managed) : Dlpack.importLegacy(managed)) {
            assertEquals(DLDeviceType.CUDA, t.view().buffer().memorySpace().dlpackDevice().orElseThrow());
            TensorView back = TensorView.of(arena.allocate(4L * rows * cols), "f32[" + rows + "," + cols + "]{1,0}");
            cuda.download(t.view(), back);
            float[] values = TensorElements.of(back).toFloatArray();
            for (int i = 0; i < values.length; i++) {
                if (values[i] != (i % 1000) * 0.5f) {
                    fail("element " + i + " is " + values[i] + ", torch wrote " + (i % 1000) * 0.5f);
                }
            }
        }
        assertEquals(String.valueOf(4L * rows * cols), py.run("result = held - torch.cuda.memory_allocated()"),
                "closing the import frees torch's memory (its deleter ran)");
    }
}
