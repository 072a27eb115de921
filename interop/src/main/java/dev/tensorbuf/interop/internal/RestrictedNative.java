package dev.tensorbuf.interop.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The only class in tensorbuf that calls restricted FFM methods: {@code MemorySegment.reinterpret},
 * {@code Linker.downcallHandle}, {@code Linker.upcallStub} and {@code SymbolLookup.libraryLookup}.
 * A mistake in any of them crashes the JVM instead of throwing, so they are kept where one reading
 * finds every use; {@code RestrictedNativeScanTest} fails the build if another class calls them.
 *
 * <p>The JVM must grant native access ({@code --enable-native-access=ALL-UNNAMED} on the class
 * path, {@code =dev.tensorbuf.interop} as a module) or it prints a warning on first use.
 * {@snippet :
 * MethodHandle strlen = RestrictedNative.downcall(
 *         Linker.nativeLinker().defaultLookup().find("strlen").orElseThrow(),
 *         FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));
 * try (Arena arena = Arena.ofConfined()) {
 *     long n = (long) strlen.invokeExact(arena.allocateFrom("tensor")); // 6
 * }
 * }
 */
@SuppressWarnings("restricted") // the one place they are meant to be; javac flags every other use
public final class RestrictedNative {
    private static final Linker LINKER = Linker.nativeLinker();

    private RestrictedNative() {
    }

    /**
     * {@return {@code byteSize} bytes at {@code address}, valid as long as {@code arena} is open}
     * The caller vouches that the memory exists and stays allocated until the arena closes.
     *
     * @throws IllegalArgumentException if {@code byteSize < 0}
     */
    public static MemorySegment segment(long address, long byteSize, Arena arena) {
        Objects.requireNonNull(arena, "arena");
        if (byteSize < 0) {
            throw Errors.negativeByteSize(byteSize, null, address);
        }
        return MemorySegment.ofAddress(address).reinterpret(byteSize, arena, null);
    }

    /**
     * {@return {@code byteSize} bytes at the address of {@code pointer} (often a zero-length segment
     * a native call returned), with the pointer's own lifetime (global for those)}
     *
     * @throws IllegalArgumentException if {@code byteSize < 0}
     */
    public static MemorySegment resize(MemorySegment pointer, long byteSize) {
        if (byteSize < 0) {
            throw Errors.negativeByteSize(byteSize, null, pointer.address());
        }
        return pointer.reinterpret(byteSize);
    }

    /** {@return a handle calling the native function at {@code function} with the given C signature} */
    public static MethodHandle downcall(MemorySegment function, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(function, descriptor);
    }

    /** {@return a handle for functions found by address later, passed as the first argument} */
    public static MethodHandle downcall(FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(descriptor);
    }

    /**
     * {@return a native function pointer that calls {@code target}, freed when {@code arena} closes}
     * The stub must outlive every native caller: an arena closed while C still holds the pointer
     * makes the next call crash, so long-lived callbacks use {@link Arena#global()}.
     */
    public static MemorySegment upcall(MethodHandle target, FunctionDescriptor descriptor, Arena arena) {
        return LINKER.upcallStub(target, descriptor, arena);
    }

    /**
     * {@return the symbols of a shared library found by the system loader's search ({@code dlopen}
     * of a bare name), unloaded when {@code arena} closes}
     *
     * @throws IllegalArgumentException if the library cannot be loaded
     */
    public static SymbolLookup library(String name, Arena arena) {
        return SymbolLookup.libraryLookup(name, arena);
    }

    /**
     * {@return the symbols of the shared library at {@code path}, unloaded when {@code arena} closes}
     *
     * @throws IllegalArgumentException if the library cannot be loaded
     */
    public static SymbolLookup library(Path path, Arena arena) {
        return SymbolLookup.libraryLookup(path, arena);
    }
}
