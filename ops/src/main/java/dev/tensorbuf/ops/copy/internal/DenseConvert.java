package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.views.DType;

import java.lang.foreign.MemorySegment;

/**
 * The commonest conversions on dense runs, one loop per pair from segment to segment: the one
 * place such loops live. {@link ChunkConvert} tries this first and converts what is left a chunk
 * at a time, so every loop here may stop early. A chunk is read, converted, then written, and the
 * memory traffic of one step does not overlap the arithmetic of the next; a loop of its own
 * converts s8 -> f32 over 16M elements in 0.28 ns an element against 0.36 through the chunks.
 * <ul>
 * <li>Plain loops with constant strides, which C2 vectorises: f64 <-> f32, and f32 <-> f16 through
 * the JDK's intrinsics.
 * <li>{@link VectorDenseConvert}'s loops where C2 leaves the plain loop scalar or slow (element widths
 * that differ, a range check): s8, u8, pred, s16 and u16 -> f32 and s32; s32 and u32 -> f32; bf16 -> f32;
 * f32 and f64 -> bf16; f32 to the integers of up to 32 bits; f64 and bf16 -> s32; f32 and
 * f64 -> s64; s32 and s64 -> f64; s64 -> f32; s64 <-> s32. Those with a range stop before the vector holding
 * a value out of it; the chunk path then converts the rest and reports that value. Without the
 * Vector API ({@code vector} false), the pairs with a scalar form here run it and the others are
 * left to the chunks.
 * </ul>
 * {@snippet :
 * long done = DenseConvert.run(src, 0, DType.F32, dst, 0, DType.S8, n, true); // whole vectors (96 of n = 100), fewer before a value out of s8's range
 * }
 */
final class DenseConvert {
    private DenseConvert() {
    }

    /**
     * Converts dense {@code from} elements at {@code so} to dense {@code to} elements at {@code dO}.
     * {@return how many elements were converted from the start: all, none (a pair without a loop
     * here), or, for a {@link VectorDenseConvert} loop, a whole number of vectors: all of them, or
     * those before the vector holding a value out of range}
     */
    static long run(MemorySegment s, long so, DType from, MemorySegment d, long dO, DType to, long n, boolean vector) {
        if (from == DType.F64 && to == DType.F32) {
            for (long i = 0; i < n; i++) {
                d.set(Layouts.F32, dO + 4 * i, (float) s.get(Layouts.F64, so + 8 * i));
            }
        } else if (from == DType.F32 && to == DType.F64) {
            for (long i = 0; i < n; i++) {
                d.set(Layouts.F64, dO + 8 * i, s.get(Layouts.F32, so + 4 * i));
            }
        } else if (from == DType.S32 && to == DType.F32) {
            for (long i = vector ? VectorDenseConvert.s32ToF32(s, so, d, dO, n) : 0; i < n; i++) {
                d.set(Layouts.F32, dO + 4 * i, (float) s.get(Layouts.I32, so + 4 * i));
            }
        } else if (from == DType.BF16 && to == DType.F32) {
            for (long i = vector ? VectorDenseConvert.bf16ToF32(s, so, d, dO, n) : 0; i < n; i++) {
                d.set(Layouts.I32, dO + 4 * i, (s.get(Layouts.I16, so + 2 * i) & 0xffff) << 16);
            }
        } else if (from == DType.F32 && to == DType.F16) {
            for (long i = 0; i < n; i++) {
                d.set(Layouts.I16, dO + 2 * i, Float.floatToFloat16(s.get(Layouts.F32, so + 4 * i)));
            }
        } else if (from == DType.F16 && to == DType.F32) {
            for (long i = 0; i < n; i++) {
                d.set(Layouts.F32, dO + 4 * i, Float.float16ToFloat(s.get(Layouts.I16, so + 2 * i)));
            }
        } else if (from == DType.F32 && to == DType.BF16) {
            f32ToBf16(s, so, d, dO, n, vector);
        } else if (isByte(from) && to == DType.F32) {
            bytesToF32(s, so, d, dO, n, byteMask(from), byteCap(from), 1f, 0f, vector);
        } else if (!vector) {
            return 0;
        } else if (isByte(from) && to == DType.S32) {
            return VectorDenseConvert.bytesToS32(s, so, d, dO, n, byteMask(from), byteCap(from));
        } else if ((from == DType.S16 || from == DType.U16) && (to == DType.S32 || to == DType.F32)) {
            int mask = from == DType.S16 ? -1 : 0xffff;
            return to == DType.S32 ? VectorDenseConvert.shortsToS32(s, so, d, dO, n, mask)
                    : VectorDenseConvert.shortsToF32(s, so, d, dO, n, mask);
        } else if (from == DType.F32 && ChunkConvert.isInteger(to) && to.byteWidth() <= 4 && !to.isSubByte() && to != DType.U32) {
            return VectorDenseConvert.f32ToInts(s, so, d, dO, n, ChunkRanges.truncatesAbove(to), ChunkRanges.truncatesBelow(to),
                    to.byteWidth());
        } else if (from == DType.F64 && to == DType.BF16) {
            return VectorDenseConvert.f64ToBf16(s, so, d, dO, n);
        } else if (from == DType.BF16 && to == DType.S32) {
            return VectorDenseConvert.bf16ToS32(s, so, d, dO, n, ChunkRanges.truncatesAbove(to), ChunkRanges.truncatesBelow(to));
        } else if (from == DType.F64 && to == DType.S64) {
            return VectorDenseConvert.f64ToS64(s, so, d, dO, n);
        } else if (from == DType.F32 && to == DType.S64) {
            return VectorDenseConvert.f32ToS64(s, so, d, dO, n);
        } else if (from == DType.F64 && to == DType.S32) {
            return VectorDenseConvert.f64ToS32(s, so, d, dO, n);
        } else if (from == DType.U32 && to == DType.F32) {
            return VectorDenseConvert.u32ToF32(s, so, d, dO, n);
        } else if (from == DType.S32 && to == DType.F64) {
            return VectorDenseConvert.s32ToF64(s, so, d, dO, n);
        } else if (from == DType.S64 && to == DType.F32) {
            return VectorDenseConvert.s64ToF32(s, so, d, dO, n);
        } else if (from == DType.S64 && to == DType.F64) {
            return VectorDenseConvert.s64ToF64(s, so, d, dO, n);
        } else if (from == DType.S64 && to == DType.S32) {
            return VectorDenseConvert.s64ToS32(s, so, d, dO, n);
        } else if (from == DType.S32 && to == DType.S64) {
            return VectorDenseConvert.s32ToS64(s, so, d, dO, n);
        } else {
            return 0;
        }
        return n;
    }

    /** {@return whether {@code t} is s8, u8 or pred, which the byte loops read as {@code min(byte & mask, cap)}} */
    private static boolean isByte(DType t) {
        return t == DType.S8 || t == DType.U8 || t == DType.PRED;
    }

    /** {@return the byte loops' mask: -1 keeps s8's sign, 0xff reads u8 and pred unsigned} */
    private static int byteMask(DType t) {
        return t == DType.S8 ? -1 : 0xff;
    }

    /** {@return the byte loops' cap: 1 for pred, so that any byte not zero reads as 1; none for the others} */
    private static int byteCap(DType t) {
        return t == DType.PRED ? 1 : Integer.MAX_VALUE;
    }

    /** Dense f32 -> bf16 as {@link ConvertKernel#bf16}: the vector loop, then a scalar tail. */
    private static void f32ToBf16(MemorySegment s, long so, MemorySegment d, long dO, long n, boolean vector) {
        // Constant strides, and the NaN case as a select: C2 vectorises this one (0.75 ns an element against 1.6),
        // the Vector API loop more tightly (0.2).
        for (long i = vector ? VectorDenseConvert.f32ToBf16(s, so, d, dO, n) : 0; i < n; i++) {
            int bits = s.get(Layouts.I32, so + 4 * i);
            int nan = ((bits >>> 16) & 0x8000) | 0x7fc0;
            int rounded = (bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16;
            d.set(Layouts.I16, dO + 2 * i, (short) ((bits & 0x7fff_ffff) > 0x7f80_0000 ? nan : rounded));
        }
    }

    /**
     * Dense s8, u8 or pred -> f32 with {@code fma(min(byte & mask, cap), scale, bias)}: the vector
     * loop, then a scalar tail. C2 leaves the plain loop scalar (it does not widen bytes): 0.43 ns
     * an element, the Vector API loop 0.25. {@link ConvertKernel} uses it for u8 -> f32 with scale and bias.
     */
    static void bytesToF32(MemorySegment s, long so, MemorySegment d, long dO, long n, int mask, int cap, float scale,
                           float bias, boolean vector) {
        for (long i = vector ? VectorDenseConvert.bytesToF32(s, so, d, dO, n, mask, cap, scale, bias) : 0; i < n; i++) {
            d.set(Layouts.F32, dO + 4 * i, Math.fma(Math.min(s.get(Layouts.I8, so + i) & mask, cap), scale, bias));
        }
    }
}
