package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.StridedLayout;

import java.lang.foreign.MemorySegment;

/**
 * The brute-force reference: an element loop over logical indices through ElementAccess and
 * each side's own index formula (strided dot product, ArrayShape.linearIndex, IndexingMap.evaluate).
 */
final class CopyOracle {
    private CopyOracle() {
    }

    static long offset(Access a, long[] index) {
        return switch (a.addressing()) {
            case Access.Strided(StridedLayout l) -> l.offsetOf(index);
            case Access.Tiled(ArrayShape s) -> s.linearIndex(index);
            case Access.Mapped(var m) -> m.evaluate(index)[0];
        };
    }

    static ElementAccess access(Access a) {
        if (a.addressing() instanceof Access.Tiled(ArrayShape s)) {
            long bits = s.requireLayout().elementSizeInBits();
            if (bits != 0 && bits < 8) {
                return ElementAccess.packed(a.dtype());
            }
        }
        return ElementAccess.of(a.dtype());
    }

    /**
     * Writes the expected destination into {@code expected} (a copy of the destination's
     * initial bytes): padding slots of a tiled destination zeroed, then every element converted.
     */
    static void expect(Access src, Access dst, ChannelAffine affine, MemorySegment expected) {
        ElementAccess sa = access(src);
        ElementAccess da = access(dst);
        if (dst.addressing() instanceof Access.Tiled(ArrayShape s)) {
            long slots = s.physicalElementCount();
            for (long o = 0; o < slots; o++) {
                if (s.logicalIndex(o).isEmpty()) {
                    if (da.storageBits() < 8) {
                        da.setBits(expected, o, 0);
                    } else {
                        int w = da.storageBits() / 8;
                        expected.asSlice(o * w, w).fill((byte) 0);
                    }
                }
            }
        }
        long n = src.elementCount();
        int rank = src.rank();
        long[] idx = new long[rank];
        for (long it = 0; it < n; it++) {
            long so = offset(src, idx);
            long dOff = offset(dst, idx);
            if (affine != null) {
                int c = (int) idx[affine.channelDim()];
                double x = sa.getDouble(src.segment(), so);
                if (dst.dtype() == DType.F64) { // ChannelAffine: doubles into f64, floats into the rest
                    da.setDouble(expected, dOff, Math.fma(x, (double) affine.scale().get(c), (double) affine.bias().get(c)));
                } else {
                    da.setFloat(expected, dOff, Math.fma((float) x, affine.scale().get(c), affine.bias().get(c)));
                }
            } else if (src.dtype() == DType.C128 && dst.dtype() == DType.C128) {
                MemorySegment.copy(src.segment(), so * 16, expected, dOff * 16, 16);
            } else if (src.dtype() == dst.dtype()) {
                da.setBits(expected, dOff, sa.getBits(src.segment(), so));
            } else if (dst.dtype().kind() == DType.Kind.COMPLEX) {
                boolean complex = src.dtype().kind() == DType.Kind.COMPLEX;
                da.setComplex(expected, dOff, complex ? sa.getReal(src.segment(), so) : sa.getDouble(src.segment(), so),
                        complex ? sa.getImag(src.segment(), so) : 0);
            } else if (dst.dtype() == DType.PRED) {
                da.setLong(expected, dOff, sa.getDouble(src.segment(), so) != 0 ? 1 : 0);
            } else if (dst.dtype().kind() == DType.Kind.FLOAT) {
                da.setDouble(expected, dOff, sa.getDouble(src.segment(), so));
            } else if (src.dtype().kind() == DType.Kind.FLOAT) {
                da.setLong(expected, dOff, (long) sa.getDouble(src.segment(), so));
            } else {
                da.setLong(expected, dOff, sa.getLong(src.segment(), so));
            }
            for (int k = rank - 1; k >= 0; k--) {
                if (++idx[k] < src.dims().get(k)) {
                    break;
                }
                idx[k] = 0;
            }
        }
    }
}
