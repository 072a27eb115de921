package dev.tensorbuf.interop;

import dev.tensorbuf.interop.internal.Errors;
import dev.tensorbuf.interop.internal.ReadOnlyDirectBuffer;
import dev.tensorbuf.interop.internal.RestrictedNative;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.MapForm;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.util.List;
import java.util.Objects;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Agrona {@link DirectBuffer}s over tensorbuf memory and back, without copying.
 *
 * <p><b>To Agrona.</b> A host buffer, or a view whose elements lie in its buffer in row-major
 * order without gaps (C-contiguous), becomes an {@link UnsafeBuffer} over exactly the view's bytes
 * ({@link #asMutableDirectBuffer}, {@link #asDirectBuffer}). Read-only memory (a mapped file) is
 * only handed out as a {@code DirectBuffer} that is not an {@code UnsafeBuffer}: Agrona writes
 * through raw addresses, and a write into a read-only mapping would crash the JVM.
 *
 * <p><b>From Agrona.</b> An off-heap {@code DirectBuffer} becomes a root {@link MemoryBuffer} over the same
 * memory ({@link #asBuffer}, {@link #asView}); closing that buffer revokes its segment but never
 * frees the memory, which stays Agrona's owner's. A heap-backed one ({@code byte[]}) is refused:
 * buffers hold native memory only; {@link #copyOf} copies it.
 *
 * <p><b>Limits.</b> Agrona sizes buffers with an {@code int}: at most {@value #MAX_BYTES} bytes
 * (2 GiB - 1). Device memory is not host-accessible and is refused.
 *
 * <p><b>Lifetime.</b> An {@code UnsafeBuffer} holds an address, not the tensorbuf buffer: it cannot
 * see that buffer close. Reading it after the buffer (or its pool, arena, mapped file) is closed
 * reads freed memory, and may crash the JVM. Keep the buffer open while the {@code DirectBuffer}
 * is in use; the {@code DirectBuffer} keeps the memory of automatic arenas reachable.
 *
 * <p><b>JVM flag.</b> Agrona 2.x reaches memory through {@code jdk.internal.misc.Unsafe}, so the JVM
 * must run with {@value #REQUIRED_FLAG} (the {@code tensorbuf} launcher and the Maven test
 * configuration pass it). This class is the only one in tensorbuf whose work needs it (the staging
 * pipeline uses Agrona's agents and idle strategies, which do not). Without it, every method that
 * makes an {@code UnsafeBuffer} throws {@link IllegalStateException} naming the flag, before Agrona
 * is touched, instead of failing with a {@code NoClassDefFoundError} deep in Agrona;
 * {@link #isAvailable()} asks first.
 *
 * {@snippet :
 * try (Allocator arena = Allocators.shared();
 *      MemoryBuffer buffer = arena.allocate(24)) {
 *     TensorView v = TensorView.of(buffer, "f32[2,3]{1,0}");
 *     TensorElements.of(v).setFloat(6.5f, 1, 2);
 *     MutableDirectBuffer agrona = AgronaBuffers.asMutableDirectBuffer(v);
 *     agrona.capacity();            // 24
 *     agrona.getFloat(20);          // 6.5: element (1, 2) at byte 4 * (1 * 3 + 2)
 *     agrona.putFloat(0, 1.5f);
 *     TensorElements.of(v).getFloat(0, 0);             // 1.5: same memory
 *     AgronaBuffers.asMutableDirectBuffer(Ops.transpose(v, 1, 0));
 *     // IllegalArgumentException: "... is not C-contiguous: strides [1, 3], row-major strides
 *     //  would be [2, 1]; ..."
 * }
 * }
 */
public final class AgronaBuffers {
    /**
     * The most bytes bridged at once: an Agrona buffer's capacity is an {@code int}, and the JDK
     * wraps a segment as a {@code ByteBuffer} (how the bridge keeps the memory reachable) only up to
     * {@code Integer.MAX_VALUE - 8} bytes.
     */
    public static final long MAX_BYTES = Integer.MAX_VALUE - 8;

    /** The JVM option Agrona 2.x needs on the class path. */
    public static final String REQUIRED_FLAG = "--add-opens java.base/jdk.internal.misc=ALL-UNNAMED";

    /** Why Agrona cannot reach memory in this JVM, or null when it can: decided once. */
    private static final String MISSING_ACCESS = missingAccess(DirectBuffer.class.getModule());

    private AgronaBuffers() {
    }

    /** {@return whether this JVM lets Agrona's {@code UnsafeBuffer} work, i.e. was started with {@value #REQUIRED_FLAG}} */
    public static boolean isAvailable() {
        return MISSING_ACCESS == null;
    }

    /** {@return why Agrona in {@code agrona} cannot use {@code jdk.internal.misc.Unsafe}, or null when it can} */
    static String missingAccess(Module agrona) {
        if (Object.class.getModule().isExported("jdk.internal.misc", agrona)) {
            return null;
        }
        String target = agrona.isNamed() ? agrona.getName() : "ALL-UNNAMED";
        return "Agrona's UnsafeBuffer needs the JVM option --add-opens java.base/jdk.internal.misc=" + target
                + " (Agrona 2.x uses jdk.internal.misc.Unsafe, which this JVM does not open to "
                + (agrona.isNamed() ? "module " + target : "the class path")
                + "); add it to the java command line (the tensorbuf launcher and the Maven tests pass it)";
    }

    private static void requireAccess() {
        if (MISSING_ACCESS != null) {
            throw new IllegalStateException(MISSING_ACCESS);
        }
    }

    // ---- to Agrona ---------------------------------------------------------------------------

    /**
     * {@return a writable Agrona buffer over the bytes of a C-contiguous host view, no copy}
     *
     * @throws IllegalArgumentException if the view is not C-contiguous (the message says why and
     *     how to make it so), reads several buffers, holds more than {@value #MAX_BYTES} bytes, or
     *     its buffer is read-only (use {@link #asDirectBuffer(TensorView)})
     * @throws UnsupportedOperationException if its memory is not host-accessible (device memory)
     * @throws IllegalStateException if its buffer is closed, or the JVM lacks {@value #REQUIRED_FLAG}
     */
    public static MutableDirectBuffer asMutableDirectBuffer(TensorView view) {
        MemoryBuffer bytes = contiguousBytes(view);
        refuseReadOnly(bytes, view.toString());
        return wrap(bytes);
    }

    /** {@return a writable Agrona buffer over all of {@code buffer}} @throws as {@link #asMutableDirectBuffer(TensorView)} */
    public static MutableDirectBuffer asMutableDirectBuffer(MemoryBuffer buffer) {
        MemoryBuffer bytes = wholeBuffer(buffer);
        refuseReadOnly(bytes, buffer.toString());
        return wrap(bytes);
    }

    /**
     * {@return an Agrona buffer over the bytes of a C-contiguous host view, no copy: an
     * {@link UnsafeBuffer} for writable memory, a read-only {@code DirectBuffer} (not castable to
     * {@link MutableDirectBuffer}) for read-only memory}
     *
     * @throws IllegalArgumentException if the view is not C-contiguous, reads several buffers or
     *     holds more than {@value #MAX_BYTES} bytes
     * @throws UnsupportedOperationException if its memory is not host-accessible (device memory)
     * @throws IllegalStateException if its buffer is closed, or the JVM lacks {@value #REQUIRED_FLAG}
     */
    public static DirectBuffer asDirectBuffer(TensorView view) {
        return readable(contiguousBytes(view), view.toString());
    }

    /** {@return an Agrona buffer over all of {@code buffer}} @throws as {@link #asDirectBuffer(TensorView)} */
    public static DirectBuffer asDirectBuffer(MemoryBuffer buffer) {
        return readable(wholeBuffer(buffer), buffer.toString());
    }

    private static DirectBuffer readable(MemoryBuffer bytes, String what) {
        UnsafeBuffer unsafe = wrap(bytes);
        return bytes.isReadOnly() || bytes.segment().isReadOnly() ? new ReadOnlyDirectBuffer(unsafe, what) : unsafe;
    }

    private static void refuseReadOnly(MemoryBuffer bytes, String what) {
        if (bytes.isReadOnly() || bytes.segment().isReadOnly()) {
            throw new IllegalArgumentException(what + " is read-only: a MutableDirectBuffer would write through a raw"
                    + " address into it; use asDirectBuffer(...) for reading");
        }
    }

    private static UnsafeBuffer wrap(MemoryBuffer bytes) {
        requireAccess();
        // Through a ByteBuffer, so that the UnsafeBuffer keeps the segment (and an automatic
        // arena's memory) reachable for as long as it lives.
        return new UnsafeBuffer(bytes.segment().asByteBuffer());
    }

    /** The bytes of a contiguous view as a slice of its buffer, every check done first. */
    static MemoryBuffer contiguousBytes(TensorView view) {
        Objects.requireNonNull(view, "view");
        if (!(view.map() instanceof ViewMap.Single single)) {
            throw new IllegalArgumentException(view + " reads " + view.map().pieces().size()
                    + " buffers (a pad or concatenation), not one byte range; " + materializeHint(view));
        }
        MemoryBuffer buffer = checkedBuffer(single.buffer(), view.toString());
        MapForm form = view.form();
        if (!(form instanceof MapForm.Strided strided)) {
            throw new IllegalArgumentException(view + " is not C-contiguous: its map is not strided ("
                    + form.whyNotStrided().orElse("") + "); " + materializeHint(view));
        }
        StridedLayout layout = strided.layout();
        long count = view.elementCount();
        if (count > 0) {
            long[] sizes = Extents.toArray(layout.sizes());
            List<Long> rowMajor = StridedLayout.packed(sizes).strides();
            for (int d = 0; d < sizes.length; d++) {
                if (sizes[d] > 1 && !layout.strides().get(d).equals(rowMajor.get(d))) {
                    throw new IllegalArgumentException(view + " is not C-contiguous: strides " + layout.strides()
                            + ", row-major strides would be " + rowMajor + "; " + materializeHint(view));
                }
            }
        }
        int bits = view.access().storageBits();
        long firstBit = Math.multiplyExact(count == 0 ? 0 : layout.offset(), (long) bits);
        if (firstBit % 8 != 0) {
            throw new IllegalArgumentException(view + " starts at bit " + firstBit + " of its buffer, inside a byte;"
                    + " Agrona buffers start on a byte; " + materializeHint(view));
        }
        long length = view.access().byteSize(count);
        if (length > MAX_BYTES) {
            throw Errors.tooLargeForAgrona(view, length, MAX_BYTES);
        }
        return buffer.slice(firstBit / 8, length);
    }

    private static MemoryBuffer checkedBuffer(MemoryBuffer buffer, String what) {
        Objects.requireNonNull(buffer, "buffer");
        if (!buffer.memorySpace().hostAccessible()) {
            throw new UnsupportedOperationException(what + " is in " + buffer.memorySpace().describe()
                    + ", which is not host-accessible; Agrona buffers address host memory: copy it to a host buffer first");
        }
        if (!buffer.isAlive()) {
            throw new IllegalStateException(what + ": its buffer is closed; an Agrona buffer over it would read freed memory");
        }
        return buffer;
    }

    /** A whole buffer: checked as a view's, and its size too (a view may be a small part of a big buffer). */
    private static MemoryBuffer wholeBuffer(MemoryBuffer buffer) {
        checkedBuffer(buffer, String.valueOf(buffer));
        if (buffer.byteSize() > MAX_BYTES) {
            throw Errors.tooLargeForAgrona(buffer, buffer.byteSize(), MAX_BYTES);
        }
        return buffer;
    }

    private static String materializeHint(TensorView view) {
        return "copy it into row-major order first, e.g. CopyEngine.defaults().materialize(view, " + view.dtype()
                + ", StridedLayout.packed" + view.dims().toString().replace('[', '(').replace(']', ')') + ", allocator)";
    }

    // ---- from Agrona -------------------------------------------------------------------------

    /**
     * {@return a root host buffer over the same memory as an off-heap {@code DirectBuffer}, no
     * copy} Closing it ends the buffer (and revokes its segment) but frees nothing: the memory
     * belongs to whoever made {@code source}, which must outlive the buffer. The buffer keeps
     * {@code source} reachable. A {@code source} that is not a {@link MutableDirectBuffer}, or
     * that wraps a read-only {@code ByteBuffer} (a read-only file mapping), gives a read-only buffer.
     *
     * @throws IllegalArgumentException if {@code source} is on the Java heap (a {@code byte[]}):
     *     use {@link #copyOf(DirectBuffer, Allocator)}
     */
    public static MemoryBuffer asBuffer(DirectBuffer source) {
        Objects.requireNonNull(source, "source");
        if (source.byteArray() != null) {
            throw new IllegalArgumentException("Agrona buffer of " + source.capacity() + " bytes is on the Java heap"
                    + " (a byte[]); tensorbuf buffers hold native memory: copy it with AgronaBuffers.copyOf(buffer, allocator)");
        }
        Arena arena = Arena.ofShared();
        try {
            // A restricted call: the address comes from Agrona, which vouches for capacity() bytes there.
            MemorySegment segment = RestrictedNative.segment(source.addressOffset(), source.capacity(), arena);
            // An UnsafeBuffer over a read-only mapping is still a MutableDirectBuffer: writing through
            // it would fault, so its ByteBuffer decides too.
            if (!(source instanceof MutableDirectBuffer) || source.byteBuffer() != null && source.byteBuffer().isReadOnly()) {
                segment = segment.asReadOnly();
            }
            return MemoryBuffer.foreign(segment, MemorySpace.HOST, "agrona", () -> {
                arena.close();
                Reference.reachabilityFence(source);
            });
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * {@return a new buffer of {@code allocator} holding a copy of {@code source}'s bytes, heap or
     * off-heap}
     *
     * @throws IllegalStateException if the allocator is closed or over its limit
     */
    public static MemoryBuffer copyOf(DirectBuffer source, Allocator allocator) {
        Objects.requireNonNull(source, "source");
        MemoryBuffer copy = allocator.allocate(source.capacity());
        try {
            source.getBytes(0, copy.segment().asByteBuffer(), 0, source.capacity());
        } catch (RuntimeException e) {
            copy.close();
            throw e;
        }
        return copy;
    }

    /**
     * {@return a view laid out as {@code shape} over an off-heap {@code DirectBuffer}, no copy}
     * Close {@code view.buffer()} when done; see {@link #asBuffer(DirectBuffer)}.
     *
     * @throws IllegalArgumentException if {@code source} is on the heap or too small for the shape
     */
    public static TensorView asView(DirectBuffer source, ArrayShape shape) {
        MemoryBuffer buffer = asBuffer(source);
        try {
            return TensorView.of(buffer, shape);
        } catch (RuntimeException e) {
            buffer.close();
            throw e;
        }
    }

    /** {@return a strided view over an off-heap {@code DirectBuffer}, no copy} @throws as {@link #asView(DirectBuffer, ArrayShape)} */
    public static TensorView asView(DirectBuffer source, DType dtype, StridedLayout layout) {
        MemoryBuffer buffer = asBuffer(source);
        try {
            return TensorView.strided(buffer, dtype, layout);
        } catch (RuntimeException e) {
            buffer.close();
            throw e;
        }
    }
}
