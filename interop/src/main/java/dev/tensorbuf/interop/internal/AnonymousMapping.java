package dev.tensorbuf.interop.internal;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;
import java.util.Optional;

/**
 * Private anonymous memory from Linux's {@code mmap}, with {@code madvise} and {@code munmap}:
 * the memory of {@link dev.tensorbuf.interop.internal.HugePageAllocator}. The kernel hands such memory out
 * zeroed and gives it pages only when touched, so advice given before the first touch decides the
 * page size of every page.
 */
public final class AnonymousMapping {
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
    private static final int MADV_HUGEPAGE = 14;
    private static final long MAP_FAILED = -1L;

    /** The three functions, or none where this is not Linux or libc lacks one. */
    private record Calls(MethodHandle mmap, MethodHandle munmap, MethodHandle madvise) {
    }

    private static final boolean LINUX = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");

    /**
     * The calls, looked up and made at the first mapping rather than when {@link #available()} is
     * asked: a fresh JVM spends 30-65 ms on its first symbol lookup and downcall handles (the
     * lower with a class-data archive), which a program that only asks, or allocates only small
     * buffers, would pay for nothing ({@code tensorbuf run} of a 48-byte module 364 -> 327 ms,
     * bench/RESULTS.md "Start-up").
     */
    private static final class Lazy {
        static final Optional<Calls> CALLS = find();
    }

    private AnonymousMapping() {
    }

    private static Optional<Calls> find() {
        if (!LINUX) {
            return Optional.empty();
        }
        var libc = Linker.nativeLinker().defaultLookup();
        var mmap = libc.find("mmap");
        var munmap = libc.find("munmap");
        var madvise = libc.find("madvise");
        if (mmap.isEmpty() || munmap.isEmpty() || madvise.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Calls(
                RestrictedNative.downcall(mmap.get(), FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_LONG)),
                RestrictedNative.downcall(munmap.get(), FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG)),
                RestrictedNative.downcall(madvise.get(), FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT))));
    }

    /**
     * {@return whether mappings can be made here: Linux, whose C libraries all have mmap, munmap
     * and madvise} Where one lacked them, the first {@link #map} would throw.
     */
    public static boolean available() {
        return LINUX;
    }

    /**
     * {@return the address of {@code length} bytes of fresh zeroed memory, or -1 when the kernel
     * refuses (out of memory or address space)}
     *
     * @throws UnsupportedOperationException if {@link #available()} is false
     */
    public static long map(long length) {
        long address = (long) call(calls().mmap(), 0L, length, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0L);
        return address == MAP_FAILED ? -1 : address;
    }

    /** {@return whether the kernel took the advice to back {@code [address, address + length)} with huge pages} */
    public static boolean adviseHugePages(long address, long length) {
        return (int) call(calls().madvise(), address, length, MADV_HUGEPAGE) == 0;
    }

    /**
     * Returns the mapping to the kernel. The caller makes sure nothing uses it any more: every
     * segment over it must belong to an arena already closed.
     *
     * @throws IllegalStateException if the kernel refuses (the range was not a mapping)
     */
    public static void unmap(long address, long length) {
        if ((int) call(calls().munmap(), address, length) != 0) {
            throw new IllegalStateException("munmap of " + length + " bytes at 0x" + Long.toHexString(address) + " failed");
        }
    }

    private static Calls calls() {
        return Lazy.CALLS.orElseThrow(() -> new UnsupportedOperationException(
                LINUX ? "this C library lacks mmap, munmap or madvise" : "anonymous mappings need Linux"));
    }

    private static Object call(MethodHandle handle, Object... args) {
        try {
            return handle.invokeWithArguments(args);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw Errors.nativeCallFailed(t);
        }
    }
}
