import java.lang.foreign.*;
import java.nio.ByteOrder;
import jdk.incubator.vector.*;

// Q6_K -> bf16: what the bf16 store costs, one thread, median CPU time per value of 9 rounds (all variants in turn
// each round), each variant a copy of VectorBlocks.q6_KBf16's loop (16-lane floats: an AVX-512 host):
//   pair+round         two vectors rounded to nearest even in int lanes, their high halves picked by one
//                      two-vector selectFrom (vpermi2w): the kept kernel
//   pair,trunc         the same without the rounding (wrong bits: what the rounding costs)
//   I2S+round(old)     one vector rounded, shifted and narrowed by convertShape(I2S): the kernel before
//   f32 store          the same values stored as f32 (twice the bytes)
//   codes only         the block's codes gathered, nothing widened
//   pair+round+touch   pair+round reading one byte a line of the destination AHEAD bytes on first (slower)
// pair+round and I2S+round are checked equal first. -Dvalues=N (16384: in cache; 134217728: 256 MiB of bf16)
// java --add-modules jdk.incubator.vector -Dvalues=134217728 bench/experiments/Q6kBf16Store.java
public class Q6kBf16Store {
    static final VectorSpecies<Byte> BW = ByteVector.SPECIES_128;
    static final VectorSpecies<Float> FW = FloatVector.SPECIES_512;
    static final VectorSpecies<Integer> I = IntVector.SPECIES_256;
    static final VectorSpecies<Short> SW = ShortVector.SPECIES_256;
    static final VectorSpecies<Short> SW2 = ShortVector.SPECIES_512;
    static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    static final ValueLayout.OfShort F16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(LE);
    static final ShortVector HIGH;
    static { short[] h = new short[32]; for (int i = 0; i < 32; i++) h[i] = (short) (2 * i + 1); HIGH = ShortVector.fromArray(SW2, h, 0); }
    static final Class<? extends MemorySegment> NATIVE = MemorySegment.NULL.getClass();
    static long sink; static final long AHEAD = Long.getLong("ahead", 4096);
    static final MemorySegment Q = Arena.global().allocate(256, 64);

    static float q6Block(MemorySegment s, long so, MemorySegment q) {
        s = NATIVE.cast(s); q = NATIVE.cast(q);
        float scale = Float.float16ToFloat(s.get(F16, so + 208));
        codes(s, so, 0, q); codes(s, so, 1, q);
        return scale;
    }
    static void codes(MemorySegment s, long so, int h, MemorySegment q) {
        s = NATIVE.cast(s); q = NATIVE.cast(q);
        int at = 128 * h;
        IntVector a = IntVector.fromMemorySegment(I, s, so + 64 * h, LE);
        IntVector b = IntVector.fromMemorySegment(I, s, so + 64 * h + 32, LE);
        IntVector hb = IntVector.fromMemorySegment(I, s, so + 128 + 32 * h, LE);
        a.and(0x0F0F0F0F).or(hb.lanewise(VectorOperators.LSHL, 4).and(0x30303030)).reinterpretAsBytes().sub((byte) 32).intoMemorySegment(q, at, LE);
        b.and(0x0F0F0F0F).or(hb.lanewise(VectorOperators.LSHL, 2).and(0x30303030)).reinterpretAsBytes().sub((byte) 32).intoMemorySegment(q, at + 32, LE);
        a.lanewise(VectorOperators.LSHR, 4).and(0x0F0F0F0F).or(hb.and(0x30303030)).reinterpretAsBytes().sub((byte) 32).intoMemorySegment(q, at + 64, LE);
        b.lanewise(VectorOperators.LSHR, 4).and(0x0F0F0F0F).or(hb.lanewise(VectorOperators.LSHR, 2).and(0x30303030)).reinterpretAsBytes().sub((byte) 32).intoMemorySegment(q, at + 96, LE);
    }
    /** Variant 0's store: a block's 256 codes as bf16, two rounded vectors narrowed by one two-vector selectFrom. */
    static void pairRounded(MemorySegment s, long so, MemorySegment q, MemorySegment d, long dOff, float scale) {
        for (int i = 0; i < 256; i += 32) {
            float dl0 = scale * (float) s.get(ValueLayout.JAVA_BYTE, so + 192 + (i >> 4));
            float dl1 = scale * (float) s.get(ValueLayout.JAVA_BYTE, so + 193 + (i >> 4));
            IntVector lo = ((FloatVector) ByteVector.fromMemorySegment(BW, q, i, LE).convertShape(VectorOperators.B2F, FW, 0)).mul(dl0).reinterpretAsInts();
            IntVector hi = ((FloatVector) ByteVector.fromMemorySegment(BW, q, i + 16, LE).convertShape(VectorOperators.B2F, FW, 0)).mul(dl1).reinterpretAsInts();
            lo = lo.add(0x7fff).add(lo.lanewise(VectorOperators.LSHR, 16).and(1));
            hi = hi.add(0x7fff).add(hi.lanewise(VectorOperators.LSHR, 16).and(1));
            HIGH.selectFrom(lo.reinterpretAsShorts(), hi.reinterpretAsShorts()).intoMemorySegment(d, dOff + 2L * i, LE);
        }
    }

    // 0: pair + round (new)   1: pair, truncate   2: I2S + round (old)   3: f32 store   4: codes only (no widen)
    static void run(int v, MemorySegment s, MemorySegment d, long blocks) {
        s = NATIVE.cast(s); d = NATIVE.cast(d); MemorySegment q = NATIVE.cast(Q);
        long so = 0, dOff = 0;
        for (long b = 0; b < blocks; b++, so += 210, dOff += (v == 3 ? 1024 : 512)) {
            float scale = q6Block(s, so, q);
            if (v == 0) {
                pairRounded(s, so, q, d, dOff, scale);
            } else if (v == 5) {
                long ahead = Math.min(dOff + AHEAD, d.byteSize() - 512);
                for (int k = 0; k < 512; k += 64) {
                    sink += d.get(ValueLayout.JAVA_BYTE, ahead + k);
                }
                pairRounded(s, so, q, d, dOff, scale);
            } else if (v == 1) {
                for (int i = 0; i < 256; i += 32) {
                    float dl0 = scale * (float) s.get(ValueLayout.JAVA_BYTE, so + 192 + (i >> 4));
                    float dl1 = scale * (float) s.get(ValueLayout.JAVA_BYTE, so + 193 + (i >> 4));
                    IntVector lo = ((FloatVector) ByteVector.fromMemorySegment(BW, q, i, LE).convertShape(VectorOperators.B2F, FW, 0)).mul(dl0).reinterpretAsInts();
                    IntVector hi = ((FloatVector) ByteVector.fromMemorySegment(BW, q, i + 16, LE).convertShape(VectorOperators.B2F, FW, 0)).mul(dl1).reinterpretAsInts();
                    HIGH.selectFrom(lo.reinterpretAsShorts(), hi.reinterpretAsShorts()).intoMemorySegment(d, dOff + 2L * i, LE);
                }
            } else if (v == 2) {
                for (int i = 0; i < 256; i += 16) {
                    float dl = scale * (float) s.get(ValueLayout.JAVA_BYTE, so + 192 + (i >> 4));
                    IntVector bits = ((FloatVector) ByteVector.fromMemorySegment(BW, q, i, LE).convertShape(VectorOperators.B2F, FW, 0)).mul(dl).reinterpretAsInts();
                    bits.add(0x7fff).add(bits.lanewise(VectorOperators.LSHR, 16).and(1)).lanewise(VectorOperators.LSHR, 16)
                            .convertShape(VectorOperators.I2S, SW, 0).intoMemorySegment(d, dOff + 2L * i, LE);
                }
            } else if (v == 3) {
                for (int i = 0; i < 256; i += 16) {
                    float dl = scale * (float) s.get(ValueLayout.JAVA_BYTE, so + 192 + (i >> 4));
                    ((FloatVector) ByteVector.fromMemorySegment(BW, q, i, LE).convertShape(VectorOperators.B2F, FW, 0)).mul(dl).intoMemorySegment(d, dOff + 4L * i, LE);
                }
            }
        }
    }
    public static void main(String[] a) {
        long values = Long.getLong("values", 16384);
        long blocks = values / 256;
        Arena arena = Arena.global();
        MemorySegment s = arena.allocate(blocks * 210, 64), d = arena.allocate(4 * values, 64);
        java.util.Random r = new java.util.Random(1);
        for (long i = 0; i < s.byteSize(); i++) s.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
        for (long b = 0; b < blocks; b++) s.set(F16, b * 210 + 208, Float.floatToFloat16(r.nextFloat() * 0.01f));
        d.fill((byte) 1);
        run(0, s, d, blocks);
        byte[] kept = d.asSlice(0, 2 * values).toArray(ValueLayout.JAVA_BYTE);
        run(2, s, d, blocks);
        if (!java.util.Arrays.equals(kept, d.asSlice(0, 2 * values).toArray(ValueLayout.JAVA_BYTE))) {
            throw new AssertionError("pair+round and I2S+round differ");
        }
        var cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        int[] vs = {0, 1, 2, 3, 4, 5};
        double[][] t = new double[6][9];
        for (int round = 0; round < 9; round++) {
            for (int v : vs) {
                int reps = (int) Math.max(1, 64_000_000L / values);
                long c0 = cpu.getCurrentThreadCpuTime();
                for (int k = 0; k < reps; k++) {
                    if (v == 4) { for (long b = 0; b < blocks; b++) q6Block(s, b * 210, Q); } else run(v, s, d, blocks);
                }
                t[v][round] = (cpu.getCurrentThreadCpuTime() - c0) / (double) (reps * values);
            }
        }
        String[] names = {"pair+round", "pair,trunc", "I2S+round(old)", "f32 store", "codes only", "pair+round+touch"};
        for (int v : vs) { java.util.Arrays.sort(t[v]); System.out.printf("%-17s median %.3f ns/value%n", names[v], t[v][4]); }
    }
}
