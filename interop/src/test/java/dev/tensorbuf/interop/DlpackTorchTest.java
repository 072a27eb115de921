package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemorySpace.DLDeviceType;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * DLPack between tensorbuf and PyTorch's CPU build in one process, through {@link EmbeddedPython}
 * and {@link PythonProducer}: {@code torch.from_dlpack} of tensorbuf's views (contiguous,
 * transposed, sliced with a step; f32, bf16, f16, pred, s8) against the same view taken by torch's
 * own ops on the same bits, with the memory shared both ways; tensorbuf's import of torch tensors,
 * strided ones included, and torch's deleter when the import closes.
 *
 * <p>PyTorch aborts the whole process (a C++ abort, not a Python exception) on a negative stride. So
 * every struct this class hands to torch is checked first, in Java
 * ({@link PythonProducer#refuseNegativeStrides}), and one with a negative stride is refused (a
 * {@code BufferError} in Python) instead of reaching torch: a reversed view goes with
 * {@code withNonNegativeStrides(true)}, which copies it. Skips with the reason when torch cannot be
 * imported (CI installs {@code torch==2.13.0+cpu}; see .ci/run).
 */
class DlpackTorchTest {
    private EmbeddedPython py;
    private int pending;

    private static synchronized EmbeddedPython python() {
        EmbeddedPython py = PythonProducer.python();
        String problem = py.run("try:\n    import torch\n    result = ''\nexcept Exception as e:\n    result = repr(e)");
        assumeTrue(problem.isEmpty(), "PyTorch cannot be imported in the embedded interpreter (CI installs"
                + " torch==2.13.0+cpu): " + problem);
        return py;
    }

    @BeforeEach
    void setUp() {
        py = python();
        PythonProducer.reset();
        PythonProducer.refuseNegativeStrides = true;
        pending = Dlpack.pendingExports();
    }

    @AfterEach
    void noExportFailed() {
        PythonProducer.assertNoExportFailed();
    }

    /** The dtypes both sides name, with torch's name and the integer dtype of the same width that views its bits. */
    enum Kind {
        F32(DType.F32, "torch.float32", "torch.int32"),
        BF16(DType.BF16, "torch.bfloat16", "torch.int16"),
        F16(DType.F16, "torch.float16", "torch.int16"),
        PRED(DType.PRED, "torch.bool", "torch.uint8"),
        S8(DType.S8, "torch.int8", "torch.int8");

        final DType dtype;
        final String torch;
        final String bitsAs;

        Kind(DType dtype, String torch, String bitsAs) {
            this.dtype = dtype;
            this.torch = torch;
            this.bitsAs = bitsAs;
        }

        long mask() {
            return dtype.bitWidth() == 64 ? -1L : (1L << dtype.bitWidth()) - 1;
        }

        /** Bits of element {@code i}: ordinary values of both signs (no NaN, which torch.equal never matches). */
        long bits(int i) {
            return switch (this) {
                case F32 -> Float.floatToRawIntBits((i % 2 == 0 ? 1 : -1) * (i * 0.375f + 0.5f)) & mask();
                case BF16 -> (0x3f80 + 3 * i) ^ (i % 3 == 0 ? 0x8000 : 0);
                case F16 -> (0x3c00 + 5 * i) ^ (i % 2 == 0 ? 0x8000 : 0);
                case PRED -> i % 3 == 0 ? 1 : 0;
                case S8 -> (i * 37 + 11) & 0xff;
            };
        }

        /** The Python expression for the same row-major bits as a torch tensor of this dtype. */
        String base(int rows, int cols) {
            StringBuilder list = new StringBuilder("[");
            for (int i = 0; i < rows * cols; i++) {
                long b = bits(i);
                // torch.tensor takes signed values for its signed integer dtypes.
                long signed = this == PRED ? b : (b << (64 - dtype.bitWidth())) >> (64 - dtype.bitWidth());
                list.append(signed).append(',');
            }
            return "torch.tensor(" + list.append(']') + ", dtype=" + bitsAs + ").view(" + torch + ").reshape("
                    + rows + ", " + cols + ")";
        }
    }

    /** One of the views tested, as tensorbuf's op and as the same op in torch. */
    private record Shape(String name, UnaryOperator<TensorView> ours, String torchOp) {
    }

    private static final List<Shape> SHAPES = List.of(
            new Shape("contiguous", v -> v, "base"),
            new Shape("transposed", v -> Ops.transpose(v, 1, 0), "base.T"),
            new Shape("sliced", v -> Ops.slice(v, new long[] {1, 1}, new long[] {4, 7}, new long[] {1, 2}), "base[1:4, 1:7:2]"),
            new Shape("transposed slice", v -> Ops.transpose(Ops.slice(v, new long[] {0, 2}, new long[] {4, 8},
                    new long[] {2, 3}), 1, 0), "base[0:4:2, 2:8:3].T"));

    private static List<Long> bitsOf(TensorView v) {
        List<Long> out = new ArrayList<>();
        TensorElements e = TensorElements.of(v);
        e.forEachIndex(index -> out.add(e.getBits(index)));
        return out;
    }

    /**
     * torch.from_dlpack takes each view in place: its dtype, shape and strides are those of the
     * same view taken by torch's ops on the same bits, torch.equal holds, its data pointer is our
     * element's address; a write through torch (every bit pattern flipped by an xor, or a logical
     * not) reaches exactly the view's elements in our buffer; the deleter runs once when torch's
     * tensor dies.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void torchReadsAndWritesOurViewsInPlace(Kind kind) {
        int rows = 4;
        int cols = 8;
        long xor = kind == Kind.PRED ? 1 : 0x55 & kind.mask();
        for (Shape shape : SHAPES) {
            try (Allocator arena = Allocators.shared()) {
                TensorView base = TensorView.of(arena.allocate((long) rows * cols * kind.dtype.byteWidth()),
                        kind.dtype.xlaName() + "[" + rows + "," + cols + "]{1,0}");
                TensorElements all = TensorElements.of(base);
                for (int i = 0; i < rows * cols; i++) {
                    all.setBits(kind.bits(i), i / cols, i % cols);
                }
                TensorView view = shape.ours().apply(base);
                PythonProducer.exporting = view;
                StridedLayout layout = view.stridedLayout().orElseThrow();
                long address = base.buffer().address() + layout.offset() * kind.dtype.byteWidth();
                List<Long> before = bitsOf(view);
                List<Long> baseBefore = bitsOf(base);
                String what = kind + " " + shape.name();
                String out = py.run(String.join("\n",
                        "import torch",
                        "base = " + kind.base(rows, cols),
                        "expected = " + shape.torchOp(),
                        "src = TbTensor(_produce, (1, 0))",
                        "t = torch.from_dlpack(src)",
                        "assert t.dtype == " + kind.torch + ", t.dtype",
                        "assert t.shape == expected.shape and t.stride() == expected.stride(), (t.shape, t.stride(), expected.stride())",
                        "assert torch.equal(t, expected), (t, expected)",
                        "ptr = t.data_ptr()",
                        kind == Kind.PRED ? "t.logical_not_()" : "t.view(" + kind.bitsAs + ").bitwise_xor_(" + xor + ")",
                        "result = '%d %s' % (ptr, src.versions)"));
                assertEquals(address + " [True]", out, what + ": in place, asked for a versioned struct");
                assertEquals(0, PythonProducer.released.get(), what + ": released while torch holds the tensor");
                List<Long> after = bitsOf(view);
                for (int i = 0; i < before.size(); i++) {
                    assertEquals((before.get(i) ^ xor) & kind.mask(), after.get(i) & kind.mask(), what + ": element " + i);
                }
                List<Long> baseAfter = bitsOf(base);
                int changed = 0;
                for (int i = 0; i < baseAfter.size(); i++) {
                    changed += baseAfter.get(i).equals(baseBefore.get(i)) ? 0 : 1;
                }
                assertEquals(view.elementCount(), changed, what + ": torch's write touched the view's elements only");
                py.run("del t\ngc.collect()");
                assertEquals(1, PythonProducer.released.get(), what);
                assertEquals(pending, Dlpack.pendingExports(), what);
                PythonProducer.released.set(0);
            }
        }
        assertEquals(0, PythonProducer.refusedNegative.get());
    }

    /**
     * A reversed view has a negative stride, which torch answers with an abort of the process. With
     * {@code withNonNegativeStrides(true)} it is copied (IS_COPIED): torch sees the reversed values
     * (torch.flip of the same bits) with positive strides in memory of its own, and its writes stay
     * there. Without the option this class's guard refuses the struct before torch sees it.
     */
    @Test
    void reversedViewReachesTorchOnlyAsACopyWithPositiveStrides() {
        try (Allocator arena = Allocators.shared()) {
            TensorView base = TensorView.of(arena.allocate(4 * 15), "f32[3,5]{1,0}");
            TensorElements all = TensorElements.of(base);
            for (int i = 0; i < 15; i++) {
                all.setBits(Kind.F32.bits(i), i / 5, i % 5);
            }
            List<Long> baseBefore = bitsOf(base);
            TensorView reversed = Ops.reverse(Ops.transpose(base, 1, 0), 0, 1);
            assertTrue(reversed.stridedLayout().orElseThrow().hasNegativeStrides());
            PythonProducer.exporting = reversed;

            String refused = py.run(String.join("\n",
                    "import torch",
                    "try:",
                    "    torch.from_dlpack(TbTensor(_produce, (1, 0)))",
                    "    result = 'taken'",
                    "except BufferError as e:",
                    "    result = 'refused'"));
            assertEquals("refused", refused, "the guard keeps a negative stride from torch");
            assertEquals(1, PythonProducer.refusedNegative.get());
            assertEquals(1, PythonProducer.released.get(), "the refused struct was released");
            PythonProducer.released.set(0);

            PythonProducer.options = Dlpack.ExportOptions.defaults().withNonNegativeStrides(true);
            String out = py.run(String.join("\n",
                    "base = " + Kind.F32.base(3, 5),
                    "expected = base.T.flip(0, 1)",
                    "t = torch.from_dlpack(TbTensor(_produce, (1, 0)))",
                    "assert all(s > 0 for s in t.stride()), t.stride()",
                    "assert t.shape == (5, 3), t.shape",
                    "assert torch.equal(t, expected), (t, expected)",
                    "ptr = t.data_ptr()",
                    "t.fill_(7.0)",
                    "result = '%d %s' % (ptr, float(t[4, 2]))"));
            String[] parts = out.split(" ");
            long ptr = Long.parseLong(parts[0]);
            long start = base.buffer().address();
            assertTrue(ptr < start || ptr >= start + 4 * 15, "a copy, not our buffer: " + ptr);
            assertEquals("7.0", parts[1]);
            assertEquals(baseBefore, bitsOf(base), "torch's writes went to the copy");
            assertEquals(1, PythonProducer.refusedNegative.get(), "the option's struct passed the guard");
            py.run("del t\ngc.collect()");
            assertEquals(1, PythonProducer.released.get());
            assertEquals(pending, Dlpack.pendingExports());
        }
    }

    /**
     * Torch tensors come in through their capsules, legacy and versioned, contiguous and strided
     * (transposed slices with steps, bf16 and bool among them): tensorbuf reads torch's bits in
     * place, at torch's data pointer. Each tensor is made over a NumPy array of random bits, whose
     * reference count shows torch's storage alive after Python dropped the tensor: closing the
     * import runs torch's deleter, which lets the array go.
     */
    @Test
    void torchTensorsImportIntoTensorbuf() {
        String[][] cases = {
                // torch dtype, NumPy integer dtype of the same width, the view of x [4,6], versioned
                {"torch.float32", "np.int32", "x", "True"},
                {"torch.float32", "np.int32", "x.T[1:, ::2]", "False"},
                {"torch.bfloat16", "np.int16", "x[::2, 1:4].T", "True"},
                {"torch.float16", "np.int16", "x[1:, :].T", "False"},
                {"torch.bool", "np.uint8", "x.T[::3]", "True"},
                {"torch.int8", "np.int8", "x[1:3, ::2]", "True"}};
        for (String[] c : cases) {
            String what = c[0] + " " + c[2] + (c[3].equals("True") ? " versioned" : " legacy");
            String taken = py.run(String.join("\n",
                    "import numpy as np, torch",
                    "rng = np.random.default_rng(43)",
                    "info = np.iinfo(" + c[1] + ")",
                    "arr = (rng.integers(0, 2, size=(4, 6)) if " + (c[0].equals("torch.bool") ? "True" : "False") + " else"
                            + " rng.integers(info.min, info.max, size=(4, 6), endpoint=True)).astype(" + c[1] + ")",
                    "refs_before = sys.getrefcount(arr)",
                    "x = torch.from_numpy(arr).view(" + c[0] + ")",
                    "t = " + c[2],
                    "bits = t.contiguous().view(torch.from_numpy(arr[:0]).dtype).flatten().tolist()",
                    "cap = t.__dlpack__(max_version=(1, 0)) if " + c[3] + " else t.__dlpack__()",
                    "seen = '%d %s %s' % (t.data_ptr(), ','.join(map(str, t.shape)), ','.join(map(str, bits)))",
                    "del t, x",
                    "gc.collect()",
                    "refs_held = sys.getrefcount(arr)",
                    "result = take(cap) + ' ' + seen",
                    "del cap"));
            String[] parts = taken.split(" ");
            MemorySegment managed = MemorySegment.ofAddress(Long.parseLong(parts[0]));
            assertEquals(c[3].equals("True") ? "1" : "0", parts[1], what + ": the capsule asked for");
            try (Dlpack.Tensor t = parts[1].equals("1") ? Dlpack.importVersioned(managed) : Dlpack.importLegacy(managed)) {
                TensorView v = t.view();
                assertEquals(DLDeviceType.CPU, v.buffer().memorySpace().dlpackDevice().orElseThrow());
                StridedLayout layout = v.stridedLayout().orElseThrow();
                assertEquals(Long.parseLong(parts[2]), v.buffer().address() + layout.offset() * v.dtype().byteWidth(),
                        what + ": in place at torch's data pointer");
                assertEquals(parts[3], v.dims().stream().map(String::valueOf).collect(Collectors.joining(",")), what);
                String[] torchBits = parts[4].split(",");
                List<Long> ours = bitsOf(v);
                assertEquals(torchBits.length, ours.size(), what);
                long mask = (1L << v.dtype().bitWidth()) - 1;
                for (int i = 0; i < ours.size(); i++) {
                    assertEquals(Long.parseLong(torchBits[i]) & mask, ours.get(i) & mask, what + ": element " + i);
                }
                assertEquals("True", py.run("result = refs_held > refs_before"), what + ": torch's storage holds the array");
            }
            assertEquals("True", py.run("gc.collect()\nresult = sys.getrefcount(arr) == refs_before"),
                    what + ": closing the import ran torch's deleter");
        }
    }
}
