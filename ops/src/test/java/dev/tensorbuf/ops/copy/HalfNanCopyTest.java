package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One f16 NaN rule on every path. The dense loops convert with the JDK's intrinsics, which on
 * x86 quiet a signalling NaN and keep the top payload bits (as XLA does); the strided chunks, the
 * vector encoder and element access must give the same bits, where they once kept NumPy's
 * signalling NaN ({@code 0x7f800001 -> 0x7c01} on one path, {@code 0x7e00} on another).
 */
class HalfNanCopyTest {
    private static final int[] F32_NANS = {0x7f800001, 0x7fa00000, 0xff815466, 0x7fc00001, 0xffffffff, 0x7fbfffff};
    /** Top ten payload bits with the quiet bit set: {@code sign | 0x7e00 | (payload >>> 13)}. */
    private static final int[] F16_OF_F32_NANS = {0x7e00, 0x7f00, 0xfe0a, 0x7e00, 0xffff, 0x7fff};
    private static final int[] F16_NANS = {0x7c01, 0x7d00, 0xfc0a, 0x7e01, 0xffff};
    /** The payload shifted up, the quiet bit set. */
    private static final int[] F32_OF_F16_NANS = {0x7fc02000, 0x7fe00000, 0xffc14000, 0x7fc02000, 0xffffe000};

    @ArenaPerTest
    private Allocator arena;

    @Test
    void f32NansBecomeTheSameF16OnEveryPath() {
        for (Path path : Path.values()) {
            assertEquals(hex(F16_OF_F32_NANS), hex(convert(path, DType.F32, DType.F16, F32_NANS)), path.name());
        }
    }

    @Test
    void f16NansBecomeTheSameF32OnEveryPath() {
        for (Path path : Path.values()) {
            assertEquals(hex(F32_OF_F16_NANS), hex(convert(path, DType.F16, DType.F32, F16_NANS)), path.name());
        }
    }

    private enum Path { DENSE_SCALAR, DENSE_VECTOR, STRIDED, REVERSED, ELEMENTS }

    /** Each value repeated 40 times, so that the vector loops take whole vectors of them. */
    private int[] convert(Path path, DType from, DType to, int[] values) {
        int reps = 40;
        int n = values.length * reps;
        long stride = path == Path.STRIDED ? 2 : 1;
        MemoryBuffer inBuffer = arena.allocate(n * stride * from.byteWidth());
        MemorySegment in = inBuffer.segment();
        for (int i = 0; i < n; i++) {
            int v = values[i / reps];
            if (from == DType.F32) {
                in.setAtIndex(ValueLayout.JAVA_INT, i * stride, v);
            } else {
                in.setAtIndex(ValueLayout.JAVA_SHORT, i * stride, (short) v);
            }
        }
        MemoryBuffer outBuffer = arena.allocate((long) n * to.byteWidth());
        MemorySegment out = outBuffer.segment();
        StridedLayout dense = StridedLayout.packed(n);
        StridedLayout source = switch (path) {
            case STRIDED -> StridedLayout.of(new long[] {n}, new long[] {2});
            case REVERSED -> StridedLayout.of(new long[] {n}, new long[] {-1}, n - 1);
            default -> dense;
        };
        StridedLayout target = path == Path.REVERSED ? source : dense;
        switch (path) {
            case DENSE_SCALAR -> AccessCopies.copy(CopyEngine.of(1, false), Access.strided(in, from, source), Access.strided(out, to, target));
            case ELEMENTS -> CopyEngine.defaults().copy(
                    Ops.concatenate(0, List.of(TensorView.strided(inBuffer, from, source))),
                    TensorView.strided(outBuffer, to, target));
            default -> AccessCopies.copy(CopyEngine.of(1, true), Access.strided(in, from, source), Access.strided(out, to, target));
        }
        int[] got = new int[values.length];
        for (int k = 0; k < values.length; k++) {
            for (int r = 0; r < reps; r++) {
                int i = k * reps + r;
                int bits = to == DType.F32 ? out.getAtIndex(ValueLayout.JAVA_INT, i)
                        : out.getAtIndex(ValueLayout.JAVA_SHORT, i) & 0xffff;
                if (r == 0) {
                    got[k] = bits;
                } else {
                    assertEquals(Integer.toHexString(got[k]), Integer.toHexString(bits), path + ": element " + i + " of a run of one value");
                }
            }
        }
        return got;
    }

    private static List<String> hex(int[] values) {
        List<String> out = new ArrayList<>();
        for (int v : values) {
            out.add(Integer.toHexString(v));
        }
        return out;
    }
}
