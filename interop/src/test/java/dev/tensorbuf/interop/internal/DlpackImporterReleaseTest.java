package dev.tensorbuf.interop.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.Dlpack;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Who releases a DLPack tensor when its import fails after the root buffer took the release over:
 * the root, by closing, so the deleter runs once and the root refuses use. Only a JVM
 * {@code Error} fails there in practice (the layout that sized the buffer fits it), so the view
 * maker is the test's, and throws.
 */
class DlpackImporterReleaseTest {

    private static final StructLayout LAYOUT = DlpackStructs.DL_MANAGED_TENSOR_VERSIONED;
    private static final AtomicInteger DELETED = new AtomicInteger();
    private static volatile long deletedSelf;

    /** The producer's deleter, called through an upcall stub as a C deleter would be. */
    static void deleter(MemorySegment self) {
        deletedSelf = self.address();
        DELETED.incrementAndGet();
    }

    private static long off(String... field) {
        String[] path = new String[field.length + 1];
        path[0] = "dl_tensor";
        System.arraycopy(field, 0, path, 1, field.length);
        return DlpackStructs.offset(LAYOUT, path);
    }

    /** A versioned DLPack 1.2 struct: three f32 on the host, strides {1}, with a counting deleter. */
    private static MemorySegment struct(Arena arena, MemorySegment data) throws ReflectiveOperationException {
        MemorySegment deleter = RestrictedNative.upcall(MethodHandles.lookup().findStatic(DlpackImporterReleaseTest.class,
                "deleter", MethodType.methodType(void.class, MemorySegment.class)),
                FunctionDescriptor.ofVoid(ValueLayout.ADDRESS), arena);
        MemorySegment m = arena.allocate(LAYOUT);
        m.set(ValueLayout.JAVA_INT, DlpackStructs.offset(LAYOUT, "version", "major"), DlpackStructs.MAJOR_VERSION);
        m.set(ValueLayout.JAVA_INT, DlpackStructs.offset(LAYOUT, "version", "minor"), 2);
        m.set(ValueLayout.ADDRESS, DlpackStructs.offset(LAYOUT, "deleter"), deleter);
        m.set(ValueLayout.ADDRESS, off("data"), data);
        m.set(ValueLayout.JAVA_INT, off("device", "device_type"), 1);
        m.set(ValueLayout.JAVA_INT, off("ndim"), 1);
        m.set(ValueLayout.JAVA_BYTE, off("dtype", "code"), (byte) 2);
        m.set(ValueLayout.JAVA_BYTE, off("dtype", "bits"), (byte) 32);
        m.set(ValueLayout.JAVA_SHORT, off("dtype", "lanes"), (short) 1);
        m.set(ValueLayout.ADDRESS, off("shape"), arena.allocateFrom(ValueLayout.JAVA_LONG, 3));
        m.set(ValueLayout.ADDRESS, off("strides"), arena.allocateFrom(ValueLayout.JAVA_LONG, 1));
        return m;
    }

    @Test
    void anErrorWhileMakingTheViewClosesTheRootWhichCallsTheDeleterOnce() throws ReflectiveOperationException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocateFrom(ValueLayout.JAVA_FLOAT, 1f, 2f, 3f);
            MemorySegment managed = struct(arena, data);
            List<MemoryBuffer> roots = new ArrayList<>();
            OutOfMemoryError thrown = new OutOfMemoryError("while making the view");
            DELETED.set(0);
            OutOfMemoryError e = assertThrows(OutOfMemoryError.class,
                    () -> DlpackImporter.importTensor(managed, true, (root, access, layout) -> {
                        assertEquals(0, DELETED.get(), "the deleter waits for the root");
                        assertEquals(12, root.byteSize());
                        roots.add(root);
                        throw thrown;
                    }));
            assertSame(thrown, e, "the error itself goes on");
            assertEquals(1, DELETED.get(), "released once, through the root");
            assertEquals(managed.address(), deletedSelf, "the deleter gets the managed struct");
            assertEquals(1, roots.size());
            assertFalse(roots.get(0).isAlive(), "the root is closed, not left open over released memory");
            assertThrows(IllegalStateException.class, () -> roots.get(0).segment().get(ValueLayout.JAVA_FLOAT, 0));
            roots.get(0).close();
            assertEquals(1, DELETED.get(), "closing the root again releases nothing more");
        }
    }

    /** The same struct with the real view maker imports, and releases once on close. */
    @Test
    void theSameStructImportsWithTheRealViewAndReleasesOnClose() throws ReflectiveOperationException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocateFrom(ValueLayout.JAVA_FLOAT, 1f, 2f, 3f);
            MemorySegment managed = struct(arena, data);
            DELETED.set(0);
            Dlpack.Tensor t = DlpackImporter.importTensor(managed, true, TensorView::strided);
            assertEquals(3f, TensorElements.of(t.view()).getFloat(2));
            assertTrue(t.root().isAlive());
            assertEquals(0, DELETED.get());
            t.close();
            assertEquals(1, DELETED.get());
        }
    }
}
