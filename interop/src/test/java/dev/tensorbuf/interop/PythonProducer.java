package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tensorbuf.interop.internal.DlpackStructs;
import dev.tensorbuf.interop.internal.RestrictedNative;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The DLPack producer the in-process Python tests share: the embedded interpreter's
 * {@code TbTensor} wraps a tensorbuf export in an object with {@code __dlpack__}, which asks Java
 * (one FFM upcall, {@code _produce}) for a fresh struct of {@link #exporting} and hands it out in a
 * capsule made with {@code ctypes.pythonapi.PyCapsule_New}, whose destructor calls the deleter only
 * if no consumer took it, as the protocol says. {@code take(capsule)} unwraps a Python producer's
 * capsule the other way: the pointer is returned and the capsule renamed {@code used_dltensor}, so
 * tensorbuf's import owns the tensor.
 *
 * <p>PyTorch aborts the whole process (a C++ abort, not a Python exception) on a negative stride.
 * With {@link #refuseNegativeStrides} set, a struct with one is released here and refused (a
 * {@code BufferError} in Python) before a consumer sees it. Tests run one at a time in a fork, so
 * the state is static and reset by {@link #reset()} before each test.
 */
final class PythonProducer {
    private static final String PRELUDE = String.join("\n",
            "import ctypes, gc, sys",
            "_P = ctypes.PYFUNCTYPE",
            "_api = ctypes.pythonapi",
            "_capsule_new = _P(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(('PyCapsule_New', _api))",
            "_is_valid = _P(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(('PyCapsule_IsValid', _api))",
            "_get_raw = _P(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(('PyCapsule_GetPointer', _api))",
            "_get = _P(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(('PyCapsule_GetPointer', _api))",
            "_get_name = _P(ctypes.c_char_p, ctypes.py_object)(('PyCapsule_GetName', _api))",
            "_set_name = _P(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(('PyCapsule_SetName', _api))",
            "_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)",
            "def _destructor(name, deleter_at):",
            "    def destroy(capsule):",
            "        if _is_valid(capsule, name):   # not consumed: still ours to release",
            "            p = _get_raw(capsule, name)",
            "            _DELETER(ctypes.c_void_p.from_address(p + deleter_at).value)(p)",
            "    return ctypes.CFUNCTYPE(None, ctypes.c_void_p)(destroy)",
            "_destroy_legacy = _destructor(b'dltensor', %d)",
            "_destroy_versioned = _destructor(b'dltensor_versioned', %d)",
            "class TbTensor:",
            "    '''A tensorbuf view as a DLPack producer; produce(versioned) is a Java upcall.'''",
            "    def __init__(self, produce, device):",
            "        self.produce, self.device, self.streams, self.versions = produce, device, [], []",
            "        self.honour = None   # orders a consumer's stream after tensorbuf's work (a CUDA stream)",
            "    def __dlpack_device__(self):",
            "        return self.device",
            "    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):",
            "        self.streams.append(stream)",
            "        if stream not in (None, -1, 1, 2) and self.honour:   # 1, 2: the default streams",
            "            self.honour(stream)",
            "        versioned = max_version is not None and max_version[0] >= 1",
            "        self.versions.append(versioned)",
            "        p = self.produce(1 if versioned else 0)",
            "        if not p:",
            "            raise BufferError('the tensorbuf export failed or was refused; see the Java side')",
            "        if versioned:",
            "            return _capsule_new(p, b'dltensor_versioned', ctypes.cast(_destroy_versioned, ctypes.c_void_p))",
            "        return _capsule_new(p, b'dltensor', ctypes.cast(_destroy_legacy, ctypes.c_void_p))",
            "def take(capsule):",
            "    '''Consumes a producer's capsule: the struct's address, the capsule marked used.'''",
            "    name = _get_name(capsule)",
            "    p = _get(capsule, name)",
            "    _set_name(capsule, b'used_dltensor_versioned' if name == b'dltensor_versioned' else b'used_dltensor')",
            "    return '%%d %%d' %% (p, name == b'dltensor_versioned')",
            "");

    /** The view the next upcall exports, and the options it is exported with. */
    static volatile TensorView exporting;
    static volatile Dlpack.ExportOptions options = Dlpack.ExportOptions.defaults();
    static volatile boolean refuseNegativeStrides;
    /** Exports whose deleter ran, and structs refused for a negative stride. */
    static final AtomicInteger released = new AtomicInteger();
    static final AtomicInteger refusedNegative = new AtomicInteger();
    private static volatile Throwable exportFailure;
    private static MemorySegment produceStub;

    private PythonProducer() {
    }

    /**
     * The shared interpreter with the prelude and {@code _produce} defined; skips the test with the
     * reason when there is no interpreter (fails instead where a GPU run requires it).
     */
    static synchronized EmbeddedPython python() {
        EmbeddedPython.Result r = EmbeddedPython.shared();
        if (r.python() == null) {
            if (Boolean.getBoolean(GpuTests.REQUIRED)) {
                fail("-D" + GpuTests.REQUIRED + "=true, but " + r.reason());
            }
            assumeTrue(false, r.reason());
        }
        if (produceStub == null) {
            try {
                produceStub = RestrictedNative.upcall(
                        MethodHandles.lookup().findStatic(PythonProducer.class, "produce",
                                MethodType.methodType(long.class, int.class)),
                        FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT), Arena.global());
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
            long legacyDeleter = DlpackStructs.offset(DlpackStructs.DL_MANAGED_TENSOR, "deleter");
            long versionedDeleter = DlpackStructs.offset(DlpackStructs.DL_MANAGED_TENSOR_VERSIONED, "deleter");
            r.python().run(String.format(PRELUDE, legacyDeleter, versionedDeleter)
                    + "\n_produce = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_int)(" + produceStub.address() + ")");
        }
        return r.python();
    }

    /** Forgets the last test's view, options, counts and failure. */
    static void reset() {
        exporting = null;
        options = Dlpack.ExportOptions.defaults();
        refuseNegativeStrides = false;
        released.set(0);
        refusedNegative.set(0);
        exportFailure = null;
    }

    /** Throws what an export inside the upcall threw, which C could not be handed. */
    static void assertNoExportFailed() {
        if (exportFailure != null) {
            throw new AssertionError("an export in the upcall failed", exportFailure);
        }
    }

    /** The upcall: a new struct for the current view, or 0 (never a Java exception into C) on failure or refusal. */
    static long produce(int versioned) {
        try {
            Dlpack.ExportOptions o = options.withOnRelease(released::incrementAndGet);
            MemorySegment m = versioned != 0 ? Dlpack.exportVersioned(exporting, o) : Dlpack.exportLegacy(exporting, o);
            if (refuseNegativeStrides && hasNegativeStride(m, versioned != 0)) {
                refusedNegative.incrementAndGet();
                deleter(m, versioned != 0);
                return 0;
            }
            return m.address();
        } catch (Throwable e) {
            exportFailure = e;
            return 0;
        }
    }

    private static boolean hasNegativeStride(MemorySegment managed, boolean versioned) {
        MemorySegment m = RestrictedNative.resize(managed, DlpackStructs.DL_MANAGED_TENSOR_VERSIONED.byteSize());
        long t = versioned ? DlpackStructs.offset(DlpackStructs.DL_MANAGED_TENSOR_VERSIONED, "dl_tensor") : 0;
        int ndim = m.get(ValueLayout.JAVA_INT, t + DlpackStructs.offset(DlpackStructs.DL_TENSOR, "ndim"));
        MemorySegment strides = m.get(ValueLayout.ADDRESS, t + DlpackStructs.offset(DlpackStructs.DL_TENSOR, "strides"));
        if (strides.address() == 0) {
            return false;   // compact row-major
        }
        MemorySegment s = RestrictedNative.resize(strides, 8L * ndim);
        for (int i = 0; i < ndim; i++) {
            if (s.getAtIndex(ValueLayout.JAVA_LONG, i) < 0) {
                return true;
            }
        }
        return false;
    }

    /** Runs the struct's own deleter: a refused export is released as a consumer would release it. */
    private static void deleter(MemorySegment managed, boolean versioned) throws Throwable {
        MemorySegment m = RestrictedNative.resize(managed, DlpackStructs.DL_MANAGED_TENSOR_VERSIONED.byteSize());
        long at = DlpackStructs.offset(versioned ? DlpackStructs.DL_MANAGED_TENSOR_VERSIONED : DlpackStructs.DL_MANAGED_TENSOR,
                "deleter");
        MemorySegment fn = m.get(ValueLayout.ADDRESS, at);
        RestrictedNative.downcall(fn, FunctionDescriptor.ofVoid(ValueLayout.ADDRESS)).invokeExact(managed);
    }
}
