package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.ops.peers.PeerScripts;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every pair of 30 element types converted by the engine against NumPy's {@code astype}
 * (ml_dtypes' for bf16, f8, f6, f4 and the 2- and 4-bit integers, stored a byte each), value for
 * value: all bit patterns of the types of 16 bits and fewer,
 * and for the wider ones the values conversions go wrong on (ties after a first rounding, range
 * edges, specials) plus random patterns ({@code numpy_astype.py}). Values NumPy leaves undefined
 * (NaN, infinities and out-of-range values to an integer type) must be refused instead, alone and
 * in the middle of long runs, as must complex to real. The planned kernels (scalar, vector, split over threads; dense runs and
 * reversed ones) and the element path of multi-buffer views are checked. Needs Python with numpy and ml_dtypes; skipped with the
 * reason otherwise.
 */
class ConversionNumpyAgreementTest {
    private static final List<String> TYPES = List.of("pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64",
            "f16", "bf16", "f32", "f64", "f8e4m3fn", "f8e5m2", "c64", "c128", "s4", "u4", "s2", "u2", "f8e4m3", "f8e3m4",
            "f8e4m3b11fnuz", "f8e5m2fnuz", "f8e4m3fnuz", "f8e8m0fnu", "f6e2m3fn", "f6e3m2fn", "f4e2m1fn");
    private static final List<CopyEngine> ENGINES = List.of(CopyEngine.of(1, false), CopyEngine.of(1, true),
            CopyEngine.of(2, true, 0));
    /** Refusals are checked one value at a time: this many per pair keeps the test short. */
    private static final int REFUSALS_PER_PAIR = 40;

    @TempDir
    Path dir;

    private final Arena arena = Arena.ofAuto();
    private final List<String> failures = new ArrayList<>();

    @Test
    void everyPairConvertsAsNumpyDoesAndRefusesWhatNumpyLeavesUndefined() throws Exception {
        String problem = PeerScripts.importProblem("numpy, ml_dtypes", "pip install numpy ml_dtypes");
        assumeTrue(problem == null, problem);
        PeerScripts.run(dir, "numpy_astype.py");
        int pairs = 0;
        for (String s : TYPES) {
            DType from = DType.fromXlaName(s);
            MemorySegment src = read("src_" + s + ".bin");
            for (String t : TYPES) {
                DType to = DType.fromXlaName(t);
                if (from.kind() == DType.Kind.COMPLEX && to.kind() != DType.Kind.COMPLEX) {
                    expectRefused(from, to, src.asSlice(0, from.byteWidth()), "complex to real");
                    continue;
                }
                check(from, to, src, read("dst_" + s + "_" + t + ".bin"), read("ok_" + s + "_" + t + ".bin"));
                pairs++;
            }
        }
        System.out.println("ConversionNumpyAgreementTest: " + pairs + " pairs against NumPy");
        assertTrue(failures.isEmpty(), failures.size() + " disagreements, the first:\n"
                + String.join("\n", failures.subList(0, Math.min(40, failures.size()))));
    }

    private void check(DType from, DType to, MemorySegment src, MemorySegment dst, MemorySegment ok) {
        int sw = from.byteWidth();
        int tw = to.byteWidth();
        long n = ok.byteSize();
        long m = 0;
        for (long i = 0; i < n; i++) {
            m += ok.get(ValueLayout.JAVA_BYTE, i);
        }
        MemorySegment in = arena.allocate(Math.max(1, m * sw));
        MemorySegment expected = arena.allocate(Math.max(1, m * tw));
        int refused = 0;
        for (long i = 0, k = 0; i < n; i++) {
            if (ok.get(ValueLayout.JAVA_BYTE, i) != 0) {
                MemorySegment.copy(src, i * sw, in, k * sw, sw);
                MemorySegment.copy(dst, i * tw, expected, k * tw, tw);
                k++;
            } else if (refused++ < REFUSALS_PER_PAIR) {
                expectRefused(from, to, src.asSlice(i * sw, sw), "out of range");
            }
        }
        if (m > 0 && refused > 0) {
            expectRefusedInRuns(from, to, src, ok, in, m);
        }
        Access source = Access.strided(in, from, StridedLayout.packed(m));
        for (CopyEngine engine : ENGINES) {
            MemorySegment out = arena.allocate(Math.max(1, m * tw));
            try {
                AccessCopies.copy(engine, source, Access.strided(out, to, StridedLayout.packed(m)));
                failures.addAll(PeerScripts.differences(from + " -> " + to + " (engine, parallelism "
                        + engine.parallelism() + ", vector " + engine.vectorKernels() + ")", in, sw, ElementAccess.of(to),
                        expected, out, k -> fnuzNanToNoNan(from, to, in, k)));
            } catch (RuntimeException e) {
                failures.add(from + " -> " + to + ": engine threw " + e);
            }
        }
        // Both sides reversed: the strided loops, not the dense ones.
        if (m > 0) {
            MemorySegment out = arena.allocate(m * tw);
            StridedLayout reversed = StridedLayout.of(new long[] {m}, new long[] {-1}, m - 1);
            try {
                AccessCopies.copy(CopyEngine.of(1, true), Access.strided(in, from, reversed), Access.strided(out, to, reversed));
                failures.addAll(PeerScripts.differences(from + " -> " + to + " (reversed)", in, sw, ElementAccess.of(to),
                        expected, out, k -> fnuzNanToNoNan(from, to, in, k)));
            } catch (RuntimeException e) {
                failures.add(from + " -> " + to + ": reversed copy threw " + e);
            }
        }
        // A concatenation of one part spans "several buffers": the element path.
        MemorySegment out = arena.allocate(Math.max(1, m * tw));
        try {
            CopyEngine.defaults().copy(Ops.concatenate(0, List.of(view(in, from, m))), view(out, to, m));
            failures.addAll(PeerScripts.differences(from + " -> " + to + " (element path)", in, sw, ElementAccess.of(to),
                    expected, out, k -> fnuzNanToNoNan(from, to, in, k)));
        } catch (RuntimeException e) {
            failures.add(from + " -> " + to + ": element path threw " + e);
        }
    }

    /**
     * {@return whether element {@code k} is the fnuz NaN going to a format without NaN (f6, f4)}
     * That NaN reads as +NaN here, as XLA and torch read it, so it becomes -0 (a NaN's sign
     * inverted, as ml_dtypes maps it, and as XLA gives it); ml_dtypes reads it as -NaN and gives +0.
     */
    private static boolean fnuzNanToNoNan(DType from, DType to, MemorySegment in, long k) {
        boolean fnuz = from == DType.F8E4M3FNUZ || from == DType.F8E5M2FNUZ || from == DType.F8E4M3B11FNUZ;
        boolean noNan = to == DType.F4E2M1FN || to == DType.F6E2M3FN || to == DType.F6E3M2FN;
        return fnuz && noNan && (in.get(ValueLayout.JAVA_BYTE, k) & 0xff) == 0x80;
    }

    private static TensorView view(MemorySegment m, DType t, long n) {
        MemoryBuffer b = MemoryBuffer.foreign(m, MemorySpace.HOST, "test", () -> { });
        return TensorView.strided(b, t, StridedLayout.packed(n));
    }

    private void expectRefused(DType from, DType to, MemorySegment one, String why) {
        MemorySegment out = arena.allocate(to.byteWidth());
        try {
            AccessCopies.copy(CopyEngine.defaults(), Access.strided(one, from, StridedLayout.packed(1)),
                    Access.strided(out, to, StridedLayout.packed(1)));
            failures.add(from + " -> " + to + ": " + why + " value " + PeerScripts.hex(one, 0, from.byteWidth())
                    + " was converted, not refused");
        } catch (IllegalArgumentException expected) {
            // refused, as it must be
        }
        try {
            CopyEngine.defaults().copy(Ops.concatenate(0, List.of(view(one, from, 1))), view(out, to, 1));
            failures.add(from + " -> " + to + ": " + why + " value " + PeerScripts.hex(one, 0, from.byteWidth())
                    + " was converted by the element path, not refused");
        } catch (IllegalArgumentException expected) {
            // refused, as it must be
        }
    }

    /**
     * A value to refuse in the middle of a long run of values that convert, so that the vector
     * loops meet it in a lane (a lone value only reaches their scalar tails): in the first chunk,
     * in later ones, and in the last element. The values test each bound from both sides: the
     * lowest and the highest refused, the refused values nearest the range below and above it,
     * and a NaN. Picked by position in the list instead, they missed bounds: the first three were
     * all below s32's range for s64 -> s32, and first, middle and last were no negative bf16, so a
     * bf16 -> s32 loop without its lower bound passed.
     */
    private void expectRefusedInRuns(DType from, DType to, MemorySegment src, MemorySegment ok, MemorySegment good,
                                     long m) {
        int sw = from.byteWidth();
        List<Long> refused = new ArrayList<>();
        for (long i = 0; i < ok.byteSize(); i++) {
            if (ok.get(ValueLayout.JAVA_BYTE, i) == 0) {
                refused.add(i);
            }
        }
        long length = 1200;
        long[] at = {37, 300, 700, 900, length - 1};
        for (long i : boundaryValues(from, src, refused)) {
            for (long position : at) {
                expectRefusedInRun(from, to, src, i, position, good, m, length);
            }
        }
    }

    private void expectRefusedInRun(DType from, DType to, MemorySegment src, long i, long position, MemorySegment good,
                                    long m, long length) {
        int sw = from.byteWidth();
        MemorySegment run = arena.allocate(length * sw);
        for (long k = 0; k < length; k++) {
            MemorySegment.copy(good, (k % m) * sw, run, k * sw, sw);
        }
        MemorySegment.copy(src, i * sw, run, position * sw, sw);
        for (CopyEngine engine : ENGINES) {
            MemorySegment out = arena.allocate(length * to.byteWidth());
            try {
                AccessCopies.copy(engine, Access.strided(run, from, StridedLayout.packed(length)),
                        Access.strided(out, to, StridedLayout.packed(length)));
                failures.add(from + " -> " + to + " (engine, parallelism " + engine.parallelism() + ", vector "
                        + engine.vectorKernels() + "): value " + PeerScripts.hex(src, i * sw, sw) + " at " + position
                        + " of a run of " + length + " was converted, not refused");
            } catch (IllegalArgumentException expected) {
                // refused, as it must be
            }
        }
    }

    /**
     * {@return indices into {@code src} of refused values: the lowest, the highest, the highest
     * below zero and the lowest above zero (the nearest to the range on each side), and the first
     * NaN; without duplicates} Real sources only: complex ones are refused only to real types,
     * which are checked apart.
     */
    private static List<Long> boundaryValues(DType from, MemorySegment src, List<Long> refused) {
        ElementAccess a = ElementAccess.of(from);
        Long lowest = null;
        Long highest = null;
        Long nearestBelow = null;
        Long nearestAbove = null;
        Long nan = null;
        for (long i : refused) {
            double v = a.getDouble(src, i);
            if (Double.isNaN(v)) {
                nan = nan == null ? i : nan;
                continue;
            }
            lowest = lowest == null || v < a.getDouble(src, lowest) ? i : lowest;
            highest = highest == null || v > a.getDouble(src, highest) ? i : highest;
            if (v < 0 && (nearestBelow == null || v > a.getDouble(src, nearestBelow))) {
                nearestBelow = i;
            }
            if (v > 0 && (nearestAbove == null || v < a.getDouble(src, nearestAbove))) {
                nearestAbove = i;
            }
        }
        LinkedHashSet<Long> picked = new LinkedHashSet<>();
        for (Long i : new Long[] {lowest, highest, nearestBelow, nearestAbove, nan}) {
            if (i != null) {
                picked.add(i);
            }
        }
        return List.copyOf(picked);
    }

    private MemorySegment read(String name) throws IOException {
        return PeerScripts.read(dir.resolve(name), arena);
    }
}
