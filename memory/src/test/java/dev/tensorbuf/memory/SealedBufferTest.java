package dev.tensorbuf.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.internal.BufferFactory;
import java.lang.foreign.Arena;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link MemoryBuffer} is a closed set: sealed, its one implementation package-private in its own
 * package (as a seal needs on the class path, where the tests run), and every buffer an allocator,
 * a pool or {@code foreign} makes, and every view of one, is of that set. Only this package may
 * lend {@link BufferFactory} the constructors.
 */
class SealedBufferTest {

    @Test
    void memoryBufferIsSealedToPackagePrivateImplementations() {
        assertTrue(MemoryBuffer.class.isSealed());
        List<Class<?>> permitted = List.of(MemoryBuffer.class.getPermittedSubclasses());
        assertEquals(1, permitted.size(), permitted.toString());
        Class<?> base = permitted.getFirst();
        assertEquals("dev.tensorbuf.memory.AbstractBuffer", base.getName());
        assertTrue(base.isSealed());
        for (Class<?> c : List.of(base, base.getPermittedSubclasses()[0], base.getPermittedSubclasses()[1])) {
            assertTrue(!Modifier.isPublic(c.getModifiers()), c + " is not API");
            assertEquals(MemoryBuffer.class.getPackage(), c.getPackage(), c + " shares the sealed type's package");
        }
    }

    @Test
    void everyBufferMadeIsOfTheSealedSet() {
        Set<Class<?>> set = Set.of(AbstractBuffer.class.getPermittedSubclasses());
        try (Allocator arena = Allocators.confined(); PooledAllocator pool = PooledAllocator.builder().name("sealed").build()) {
            MemoryBuffer a = arena.allocate(64);
            MemoryBuffer p = pool.allocate(64);
            MemoryBuffer f = MemoryBuffer.foreign(Arena.ofAuto().allocate(16), MemorySpace.HOST, "test", () -> { });
            for (MemoryBuffer b : List.of(a, p, f, a.slice(8, 8), p.asReadOnly())) {
                assertTrue(set.contains(b.getClass()), b + " is " + b.getClass());
            }
            assertEquals(64, a.byteSize());
        }
    }

    @Test
    void onlyThisPackageLendsTheConstructors() {
        try (Allocator arena = Allocators.confined()) {
            arena.allocate(8); // the lender is in once a buffer was made
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> BufferFactory.lend(new BufferFactory.Lender() {
            @Override
            public MemoryBuffer host(dev.tensorbuf.memory.internal.Lifetime lifetime, MemorySpace space,
                                     java.lang.foreign.MemorySegment segment) {
                throw new AssertionError();
            }

            @Override
            public MemoryBuffer device(dev.tensorbuf.memory.internal.Lifetime lifetime, MemorySpace space, long address,
                                       long byteSize, boolean readOnly) {
                throw new AssertionError();
            }
        }));
        assertEquals("only dev.tensorbuf.memory lends, once", e.getMessage());
    }
}
