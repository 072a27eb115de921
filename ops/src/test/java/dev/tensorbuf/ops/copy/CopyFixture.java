package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.XlaShape;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.fail;

/** Builds sides over fresh memory, fills sources, runs an engine and compares with {@link CopyOracle}. */
final class CopyFixture {
    /** Engines every equivalence test runs: scalar, vector, and vector split across threads from the first byte. */
    static final List<CopyEngine> ENGINES = List.of(CopyEngine.of(1, false), CopyEngine.of(1, true),
            CopyEngine.of(3, true, 0), CopyEngine.of(2, false, 0));

    static final long SEED = Long.getLong("tensorbuf.seed", System.nanoTime());

    static {
        System.out.println("copy engine tests: seed " + SEED + " (rerun with -Dtensorbuf.seed=" + SEED + ")");
    }

    private CopyFixture() {
    }

    static Access strided(Arena arena, DType t, StridedLayout l) {
        long bytes = l.elementCount() == 0 ? 1 : (l.maxOffset() + 1) * t.byteWidth();
        return Access.strided(arena.allocate(bytes + 8, 64), t, l);
    }

    static Access tiled(Arena arena, String shapeText) {
        ArrayShape s = (ArrayShape) XlaShape.parse(shapeText);
        long bits = s.requireLayout().elementSizeInBits();
        long bytes = bits == 0 ? s.physicalElementCount() * s.dtype().byteWidth()
                : Math.ceilDiv(s.physicalElementCount() * bits, 8);
        return Access.tiled(arena.allocate(Math.max(bytes, s.arraySize()) + 8, 64), s);
    }

    /** Random values: raw bits when no conversion happens, else small finite values every type holds. */
    static void fill(Access a, Random rnd, boolean rawBits) {
        fill(a, rnd, rawBits, true);
    }

    /** As {@link #fill(Access, Random, boolean)}; {@code signed} false keeps values non-negative. */
    static void fill(Access a, Random rnd, boolean rawBits, boolean signed) {
        MemorySegment m = a.segment();
        if (rawBits) {
            for (long i = 0; i < m.byteSize(); i++) {
                m.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) rnd.nextInt());
            }
            return;
        }
        ElementAccess e = CopyOracle.access(a);
        long slots = m.byteSize() * 8 / e.storageBits();
        for (long i = 0; i < slots; i++) {
            switch (a.dtype().kind()) {
                case FLOAT -> e.setDouble(m, i, (rnd.nextInt(2000) - (signed ? 1000 : 0)) / 8.0);
                case SIGNED -> e.setLong(m, i, rnd.nextInt(100) - (signed ? 50 : 0));
                case UNSIGNED -> e.setLong(m, i, rnd.nextInt(a.dtype().bitWidth() >= 8 ? 256 : 1 << a.dtype().bitWidth()));
                case BOOLEAN -> e.setLong(m, i, rnd.nextInt(2));
                case COMPLEX -> e.setComplex(m, i, (rnd.nextInt(2000) - 1000) / 8.0, (rnd.nextInt(2000) - 1000) / 8.0);
                default -> throw new AssertionError(a.dtype());
            }
        }
    }

    /** Fills the source, poisons the destination, copies with every engine and compares every byte. */
    static void check(Access src, Access dst, ChannelAffine affine, Random rnd, String what) {
        boolean raw = src.dtype() == dst.dtype() && affine == null;
        fill(src, rnd, raw, dst.dtype().kind() != DType.Kind.UNSIGNED);
        for (CopyEngine engine : ENGINES) {
            dst.segment().fill((byte) 0x5a);
            MemorySegment expected = Arena.ofAuto().allocate(dst.segment().byteSize());
            expected.copyFrom(dst.segment());
            CopyOracle.expect(src, dst, affine, expected);
            CopyPlan plan = AccessCopies.plan(src, dst, affine);
            engine.execute(plan);
            long mismatch = expected.mismatch(dst.segment());
            if (mismatch >= 0) {
                fail(what + ": engine(parallelism " + engine.parallelism() + ", vector " + engine.vectorKernels()
                        + ") differs at byte " + mismatch + " (expected " + expected.get(java.lang.foreign.ValueLayout.JAVA_BYTE, mismatch)
                        + ", got " + dst.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, mismatch) + "); plan "
                        + AccessCopies.steps(plan) + "; seed " + SEED);
            }
        }
    }

    static long[] longs(List<Long> values) {
        return Extents.toArray(values);
    }
}
