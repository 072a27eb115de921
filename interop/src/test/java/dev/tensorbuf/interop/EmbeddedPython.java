package dev.tensorbuf.interop;

import dev.tensorbuf.interop.internal.RestrictedNative;
import dev.tensorbuf.testing.PythonPeer;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * CPython in this JVM, loaded through FFM, so that Python consumers of DLPack (NumPy, PyTorch,
 * CuPy) take tensorbuf's structs, and hand theirs over, in the same process, as they must for
 * device pointers. Test code only.
 *
 * <p>The interpreter is the one of {@code -Dtensorbuf.python} (a virtualenv's is fine): a
 * subprocess of it reports its shared {@code libpython}, home and {@code sys.path}; that library is
 * opened with {@code RTLD_GLOBAL} (extension modules such as NumPy's resolve the C API against the
 * global namespace), {@code PYTHONHOME} set to the interpreter's home, and {@code Py_InitializeEx(0)}
 * called, which leaves the JVM's signal handlers alone. One interpreter per JVM, never finalized
 * (NumPy cannot be loaded twice); every {@link #run} holds the GIL through {@code PyGILState_Ensure},
 * so any thread may call it.
 * {@snippet :
 * EmbeddedPython py = EmbeddedPython.shared().orElseThrow();
 * py.run("import numpy as np\nresult = np.arange(3).sum()");   // "3"
 * }
 */
final class EmbeddedPython {
    private static final int RTLD_NOW = 2;
    private static final int RTLD_GLOBAL = 0x100;
    private static final long CAPACITY = 1 << 20;
    private static final Linker LINKER = Linker.nativeLinker();

    private static EmbeddedPython shared;
    private static String unavailable;

    private final MethodHandle runSimpleString;
    private final MethodHandle gilEnsure;
    private final MethodHandle gilRelease;
    private final MemorySegment resultBuffer = Arena.global().allocate(CAPACITY + 8, 8);
    private final String library;

    private EmbeddedPython(String library, MethodHandle run, MethodHandle ensure, MethodHandle release) {
        this.library = library;
        this.runSimpleString = run;
        this.gilEnsure = ensure;
        this.gilRelease = release;
    }

    /** {@return the interpreter, started on first use, or why there is none} */
    static synchronized Result shared() {
        if (shared == null && unavailable == null) {
            try {
                shared = start();
            } catch (IOException | RuntimeException e) {
                unavailable = "cannot embed " + PythonPeer.python() + ": " + e.getMessage();
            } catch (Throwable e) {
                unavailable = "cannot embed " + PythonPeer.python() + ": " + e;
            }
        }
        return new Result(shared, unavailable);
    }

    /** The interpreter, or the reason there is none. */
    record Result(EmbeddedPython python, String reason) {
    }

    /** {@return the path of the shared libpython in use} */
    String library() {
        return library;
    }

    private static final String CONFIG = String.join("\n",
            "import os, sys, sysconfig",
            "names = [sysconfig.get_config_var(k) for k in ('LDLIBRARY', 'INSTSONAME')]",
            "dirs = [sysconfig.get_config_var(k) for k in ('LIBDIR', 'LIBPL')] + [os.path.join(sys.base_prefix, 'lib')]",
            "found = [os.path.join(d, n) for d in dirs if d for n in names if n and '.so' in n]",
            "found = [f for f in found if os.path.exists(f)]",
            "print(found[0] if found else '')",
            "print(sys.base_prefix + os.pathsep + sys.base_exec_prefix)",
            "print(os.pathsep.join(p for p in sys.path if p))");

    private static EmbeddedPython start() throws Throwable {
        List<String> lines = subprocess(PythonPeer.python(), "-c", CONFIG);
        if (lines.size() < 3 || lines.get(0).isBlank()) {
            throw new IOException("it reports no shared libpython (a statically linked interpreter;"
                    + " install the libpython3.x package or use another interpreter): " + lines);
        }
        String library = lines.get(0);
        SymbolLookup libc = LINKER.defaultLookup();
        MethodHandle setenv = RestrictedNative.downcall(libc.find("setenv").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        MethodHandle unsetenv = RestrictedNative.downcall(libc.find("unsetenv").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        MethodHandle dlopen = RestrictedNative.downcall(libc.find("dlopen").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        MethodHandle dlsym = RestrictedNative.downcall(libc.find("dlsym").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        MethodHandle dlerror = RestrictedNative.downcall(libc.find("dlerror").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS));
        Arena global = Arena.global();
        MemorySegment handle = (MemorySegment) dlopen.invokeExact(global.allocateFrom(library), RTLD_NOW | RTLD_GLOBAL);
        if (handle.address() == 0) {
            MemorySegment why = (MemorySegment) dlerror.invokeExact();
            throw new IOException("dlopen(" + library + "): "
                    + (why.address() == 0 ? "?" : RestrictedNative.resize(why, 4096).getString(0)));
        }
        class Sym {
            MethodHandle of(String name, FunctionDescriptor fd) throws Throwable {
                MemorySegment f = (MemorySegment) dlsym.invokeExact(handle, global.allocateFrom(name));
                if (f.address() == 0) {
                    throw new IOException(library + " has no " + name);
                }
                return RestrictedNative.downcall(f, fd);
            }
        }
        Sym sym = new Sym();
        MethodHandle isInitialized = sym.of("Py_IsInitialized", FunctionDescriptor.of(ValueLayout.JAVA_INT));
        MethodHandle initialize = sym.of("Py_InitializeEx", FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT));
        MethodHandle saveThread = sym.of("PyEval_SaveThread", FunctionDescriptor.of(ValueLayout.ADDRESS));
        MethodHandle run = sym.of("PyRun_SimpleString", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        MethodHandle ensure = sym.of("PyGILState_Ensure", FunctionDescriptor.of(ValueLayout.JAVA_INT));
        MethodHandle release = sym.of("PyGILState_Release", FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT));
        EmbeddedPython py = new EmbeddedPython(library, run, ensure, release);
        if ((int) isInitialized.invokeExact() == 0) {
            // Without PYTHONHOME an embedded interpreter looks for its standard library from the
            // JVM's executable, finds none, and Py_FatalError aborts the JVM.
            int rc = (int) setenv.invokeExact(global.allocateFrom("PYTHONHOME"), global.allocateFrom(lines.get(1)), 1);
            if (rc != 0) {
                throw new IOException("setenv(PYTHONHOME) failed");
            }
            initialize.invokeExact(0);
            // Read at start-up only; gone again, so that no later child process inherits it.
            int unset = (int) unsetenv.invokeExact(global.allocateFrom("PYTHONHOME"));
            MemorySegment unused = (MemorySegment) saveThread.invokeExact();   // the GIL goes back; run() takes it
        }
        py.run("import sys\nsys.path[:] = " + literal(lines.get(2)) + ".split(" + literal(java.io.File.pathSeparator) + ")"
                + "\nresult = sys.version");
        return py;
    }

    private static List<String> subprocess(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " failed: " + out.strip());
        }
        return new ArrayList<>(out.lines().toList());
    }

    /** {@return {@code s} as a Python string literal (JSON's escapes are Python's)} */
    static String literal(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    /**
     * Runs {@code code} in {@code __main__} and {@return {@code str(result)}, the variable the code
     * may set} A Python exception becomes an {@link AssertionError} carrying the traceback.
     */
    String run(String code) {
        String wrapped = String.join("\n",
                "import ctypes as _tb_ct, traceback as _tb_tb",
                "try:",
                "    result = None",
                "    exec(" + literal(code) + ", globals())",
                "    _tb_r = 'OK' + str(result)",
                "except BaseException:",
                "    _tb_r = 'ER' + _tb_tb.format_exc()",
                "_tb_b = _tb_r.encode('utf-8')[:" + CAPACITY + "]",
                "_tb_ct.c_int64.from_address(" + resultBuffer.address() + ").value = len(_tb_b)",
                "_tb_ct.memmove(" + (resultBuffer.address() + 8) + ", _tb_b, len(_tb_b))",
                "");
        String out;
        synchronized (this) {
            resultBuffer.set(ValueLayout.JAVA_LONG, 0, -1);
            int rc;
            try (Arena a = Arena.ofConfined()) {
                MemorySegment text = a.allocateFrom(wrapped);
                int state = (int) gilEnsure.invokeExact();
                try {
                    rc = (int) runSimpleString.invokeExact(text);
                } finally {
                    gilRelease.invokeExact(state);
                }
            } catch (Throwable e) {
                throw new AssertionError("PyRun_SimpleString: " + e, e);
            }
            long n = resultBuffer.get(ValueLayout.JAVA_LONG, 0);
            if (rc != 0 || n < 0) {
                throw new AssertionError("the Python wrapper itself failed (PyRun_SimpleString returned " + rc + ")");
            }
            out = new String(resultBuffer.asSlice(8, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
        }
        if (out.startsWith("ER")) {
            throw new AssertionError("Python raised:\n" + out.substring(2));
        }
        return out.substring(2);
    }
}
