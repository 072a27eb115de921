package dev.tensorbuf.interop;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.interop.internal.RestrictedNative;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The C DLPack peer of {@code src/test/c/dlpack_peer.c}, compiled by gcc into a temporary
 * directory on first use. Tests that need it skip, with the reason, when gcc is absent or fails.
 */
final class NativePeer {
    private static final Path SOURCE = Path.of("src", "test", "c", "dlpack_peer.c");
    private static final Object LOCK = new Object();
    private static volatile NativePeer instance;
    private static volatile String problem;

    private final SymbolLookup lib;

    private NativePeer(SymbolLookup lib) {
        this.lib = lib;
    }

    /** {@return the peer, or skips the calling test saying why it cannot be built} */
    static NativePeer get() {
        synchronized (LOCK) {
            if (instance == null && problem == null) {
                try {
                    instance = new NativePeer(RestrictedNative.library(compile(), Arena.global()));
                } catch (IOException | IllegalArgumentException e) {
                    problem = "native DLPack peer unavailable: " + e.getMessage();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    problem = "interrupted while compiling the native peer";
                }
            }
        }
        assumeTrue(problem == null, problem);
        return instance;
    }

    private static Path compile() throws IOException, InterruptedException {
        if (!Files.isRegularFile(SOURCE)) {
            throw new IOException("no " + SOURCE.toAbsolutePath() + " (run the tests from the interop module)");
        }
        // Under target/, so `mvn clean` removes it and no run leaves folders in /tmp.
        Path dir = Files.createTempDirectory(Files.createDirectories(Path.of("target")), "dlpack-peer");
        Path lib = dir.resolve("libdlpack_peer.so");
        Process p;
        try {
            p = new ProcessBuilder("gcc", "-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-o", lib.toString(),
                    SOURCE.toString(), "-lpthread").redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException("gcc not found on PATH (" + e.getMessage() + ")", e);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("gcc failed: " + out.strip());
        }
        // deleteOnExit runs in reverse order: the library first, then its (then empty) folder.
        dir.toFile().deleteOnExit();
        lib.toFile().deleteOnExit();
        return lib;
    }

    MethodHandle fn(String name, FunctionDescriptor descriptor) {
        return RestrictedNative.downcall(lib.find(name).orElseThrow(), descriptor);
    }

    MemorySegment symbol(String name) {
        return lib.find(name).orElseThrow();
    }

    private static final FunctionDescriptor INT_VOID = FunctionDescriptor.of(ValueLayout.JAVA_INT);
    private static final FunctionDescriptor PTR_INT = FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT);
    private static final FunctionDescriptor DOUBLE_PTR = FunctionDescriptor.of(ValueLayout.JAVA_DOUBLE, ValueLayout.ADDRESS);
    private static final FunctionDescriptor VOID_PTR = FunctionDescriptor.ofVoid(ValueLayout.ADDRESS);
    private static final FunctionDescriptor VOID_PTR_PTR = FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.ADDRESS);
    private static final FunctionDescriptor INT_PTR = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS);

    int deleterCalls() {
        return (int) invoke(fn("tb_deleter_calls", INT_VOID));
    }

    int freeCalls() {
        return (int) invoke(fn("tb_free_calls", INT_VOID));
    }

    void reset() {
        invoke(fn("tb_reset", FunctionDescriptor.ofVoid()));
    }

    MemorySegment makeVersioned(int kind) {
        return (MemorySegment) invoke(fn("tb_make_versioned", PTR_INT), kind);
    }

    MemorySegment makeLegacy(int kind) {
        return (MemorySegment) invoke(fn("tb_make_legacy", PTR_INT), kind);
    }

    double checksumVersioned(MemorySegment m) {
        return (double) invoke(fn("tb_checksum_versioned", DOUBLE_PTR), m);
    }

    double checksumLegacy(MemorySegment m) {
        return (double) invoke(fn("tb_checksum_legacy", DOUBLE_PTR), m);
    }

    int writeF32Versioned(MemorySegment m) {
        return (int) invoke(fn("tb_write_f32_versioned", INT_PTR), m);
    }

    /** {@return ndim, code, bits, lanes, device type, id, byte_offset, data NULL, strides NULL, shape[4], strides[4], major, minor, flags, deleter NULL} */
    long[] describeVersioned(MemorySegment m) {
        return describe("tb_describe_versioned", m);
    }

    long[] describeLegacy(MemorySegment m) {
        return describe("tb_describe_legacy", m);
    }

    private long[] describe(String name, MemorySegment m) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(MemoryLayout.sequenceLayout(21, ValueLayout.JAVA_LONG));
            invoke(fn(name, VOID_PTR_PTR), m, out);
            return out.toArray(ValueLayout.JAVA_LONG);
        }
    }

    void deleteVersioned(MemorySegment m) {
        invoke(fn("tb_delete_versioned", VOID_PTR), m);
    }

    void deleteLegacy(MemorySegment m) {
        invoke(fn("tb_delete_legacy", VOID_PTR), m);
    }

    int deleteVersionedOnNewThread(MemorySegment m) {
        return (int) invoke(fn("tb_delete_versioned_on_new_thread", INT_PTR), m);
    }

    long[] layout() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(MemoryLayout.sequenceLayout(15, ValueLayout.JAVA_LONG));
            invoke(fn("tb_layout", FunctionDescriptor.ofVoid(ValueLayout.ADDRESS)), out);
            return out.toArray(ValueLayout.JAVA_LONG);
        }
    }

    long allocInts(int n) {
        return ((MemorySegment) invoke(fn("tb_alloc_ints", PTR_INT), n)).address();
    }

    private static Object invoke(MethodHandle h, Object... args) {
        try {
            return h.invokeWithArguments(args);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
