package dev.tensorbuf.interop;

import dev.tensorbuf.interop.internal.Errors;
import dev.tensorbuf.interop.internal.HugePageAllocator;
import dev.tensorbuf.interop.internal.RestrictedNative;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Objects;

/**
 * Memory made by another native library (a raw address, its size and how to free it) as a
 * {@link MemoryBuffer} in a chosen {@link MemorySpace}. The free function runs exactly once, on the
 * buffer's first {@link MemoryBuffer#close()}, from whichever thread closes it.
 *
 * <p>For host-accessible spaces the bytes become a {@link MemorySegment} scoped to a shared arena
 * that is closed <em>before</em> the memory is freed, so a segment kept past close throws instead
 * of reading freed memory. If that arena cannot close because another thread is inside a bulk
 * operation on the segment, {@code close()} throws {@link IllegalStateException} and the memory is
 * <em>not</em> freed (a leak, never a crash). Device spaces only carry the address.
 *
 * <p>Nothing here can check that the memory exists or is as large as claimed: that is the caller's
 * word. This class calls restricted FFM methods (through
 * {@link dev.tensorbuf.interop.internal.RestrictedNative}), so the JVM needs
 * {@code --enable-native-access}.
 * {@snippet :
 * MemorySegment malloc = Linker.nativeLinker().defaultLookup().find("malloc").orElseThrow();
 * MemorySegment free = Linker.nativeLinker().defaultLookup().find("free").orElseThrow();
 * long address = ...; // from malloc(1024) in C
 * try (MemoryBuffer b = NativeMemory.wrap(address, 1024, MemorySpace.HOST, "libfoo", free)) {
 *     b.segment().set(ValueLayout.JAVA_INT, 0, 42);
 *     b.byteSize();                     // 1024
 * }                                     // free(address) ran once here
 * }
 */
public final class NativeMemory {
    private static final MethodHandle CALL_FREE =
            RestrictedNative.downcall(FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));

    private NativeMemory() {
    }

    /**
     * {@return a new allocator of zeroed host memory whose buffers from 4 MiB are anonymous mappings
     * of their own, 2 MiB aligned and advised {@code MADV_HUGEPAGE} before the first touch, as NumPy
     * does for its arrays}
     * Kernels that write with ordinary stores spend less time on page walks in them
     * (bench/RESULTS.md). Smaller buffers, and every buffer where {@link #hugePagesAvailable()} is
     * false, come from a shared arena. A large buffer is unmapped when it is closed; closing the
     * allocator frees all its memory, and is refused, freeing nothing, while any buffer is lent
     * (an in-place DLPack export). Thread-safe.
     * {@snippet :
     * try (Allocator memory = NativeMemory.hugePagesAvailable() ? NativeMemory.hugePageAllocator() : Allocators.shared()) {
     *     MemoryBuffer image = memory.allocate(32L * 64 * 112 * 112 * 4);   // 103 MB, zeroed
     *     image.isAligned(2 << 20);                                        // true on Linux
     * }
     * }
     */
    public static Allocator hugePageAllocator() {
        return HugePageAllocator.open();
    }

    /** {@return whether {@link #hugePageAllocator()}'s large buffers are mappings of their own here (Linux)} */
    public static boolean hugePagesAvailable() {
        return HugePageAllocator.available();
    }

    /**
     * {@return a root buffer of {@code byteSize} bytes at {@code address}, freed by {@code deleter}}
     *
     * @param address where the memory starts (a device address for device spaces)
     * @param byteSize the size in bytes, {@code >= 0}
     * @param space where the memory is
     * @param owner names the owner in messages, e.g. {@code "cuda"}
     * @param deleter frees the memory; runs exactly once, on the first close
     * @throws IllegalArgumentException if {@code byteSize < 0}, the address is 0 (NULL) with a
     *     non-zero size, or the range runs past the end of the 64-bit address space
     */
    public static MemoryBuffer wrap(long address, long byteSize, MemorySpace space, String owner, Runnable deleter) {
        return wrap(address, byteSize, space, owner, false, deleter);
    }

    /**
     * {@return a root buffer as {@link #wrap(long, long, MemorySpace, String, Runnable)}, read-only
     * when the owner forbids writes (its segment, and every view of it, refuses writes)}
     *
     * @param readOnly whether the owner forbids writes, e.g. memory it mapped {@code PROT_READ}
     */
    public static MemoryBuffer wrap(long address, long byteSize, MemorySpace space, String owner, boolean readOnly,
                              Runnable deleter) {
        Objects.requireNonNull(space, "space");
        Objects.requireNonNull(deleter, "deleter");
        if (byteSize < 0) {
            throw Errors.negativeByteSize(byteSize, owner, address);
        }
        if (address == 0 && byteSize != 0) {
            throw new IllegalArgumentException("NULL address with " + byteSize + " bytes for memory of " + owner);
        }
        if (!space.hostAccessible()) {
            return MemoryBuffer.foreign(address, byteSize, space, owner, readOnly, deleter);
        }
        Arena scope = Arena.ofShared();
        try {
            // MemoryBuffer.foreign checks the range (a segment is only a description until touched).
            MemorySegment bytes = RestrictedNative.segment(address, byteSize, scope);
            return MemoryBuffer.foreign(readOnly ? bytes.asReadOnly() : bytes, space, owner, () -> {
                scope.close(); // first: a kept segment must throw, not read freed memory
                deleter.run();
            });
        } catch (RuntimeException e) {
            scope.close();
            throw e;
        }
    }

    /**
     * {@return a root buffer at {@code address}, freed by calling the C function
     * {@code void free(void*)} at {@code freeFunction} with {@code address}}
     *
     * @param freeFunction the address of a C function taking the pointer, e.g. libc's {@code free}
     * @throws IllegalArgumentException as {@link #wrap(long, long, MemorySpace, String, Runnable)},
     *     or if {@code freeFunction} is NULL
     */
    public static MemoryBuffer wrap(long address, long byteSize, MemorySpace space, String owner, MemorySegment freeFunction) {
        Objects.requireNonNull(freeFunction, "freeFunction");
        if (freeFunction.address() == 0) {
            throw new IllegalArgumentException("NULL free function for memory of " + owner);
        }
        return wrap(address, byteSize, space, owner, () -> callVoid(freeFunction, MemorySegment.ofAddress(address)));
    }

    /** Calls the C function {@code void f(void*)} at {@code function} with {@code argument}. */
    static void callVoid(MemorySegment function, MemorySegment argument) {
        try {
            CALL_FREE.invokeExact(function, argument);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw Errors.nativeCallFailed(t);
        }
    }
}
