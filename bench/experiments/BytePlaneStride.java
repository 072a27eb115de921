import java.lang.foreign.*;
/**
 * The scalar u8 NHWC -> f32 NCHW staging's inner loop (ScalarBytePlanes.plane) in five forms,
 * best of 200 runs each over 8x224x224x3: v0 the stride a variable channel count on slices, v1
 * the same with a multiply and add for the fma, v2 the stride the constant 3, v3 a running
 * source index, v4 absolute offsets in the whole segments (as a plain Java loop with a variable
 * count). Only v2 runs at a plain loop's speed (about 0.36 against 0.7 ms).
 * java bench/experiments/BytePlaneStride.java ROUNDS CHANNELS       (e.g. 3 3)
 */
public class BytePlaneStride {
    static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
    static final ValueLayout.OfByte I8 = ValueLayout.JAVA_BYTE;
    static final float[] SCALE = {1 / 58.395f, 1 / 57.12f, 1 / 57.375f};
    static final float[] BIAS = {-123.675f / 58.395f, -116.28f / 57.12f, -103.53f / 57.375f};
    static final int N = 8, HW = 224;
    static MemorySegment src, dst;
    public static void main(String[] a) {
        Arena arena = Arena.ofAuto();
        src = arena.allocate((long) N * HW * HW * 3, 64);
        dst = arena.allocate((long) N * HW * HW * 3 * 4, 64);
        for (long i = 0; i < src.byteSize(); i++) src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + (i >> 9)));
        int c = Integer.parseInt(a[1]);
        for (int r = 0; r < Integer.parseInt(a[0]); r++) {
            for (int v = 0; v < 5; v++) {
                long best = Long.MAX_VALUE;
                for (int i = 0; i < 200; i++) {
                    long t0 = System.nanoTime();
                    run(v, c);
                    best = Math.min(best, System.nanoTime() - t0);
                }
                System.out.printf("v%d best %.3f ms%n", v, best / 1e6);
            }
        }
    }
    static void run(int v, int c) {
        int plane = HW * HW;
        for (int n = 0; n < N; n++) for (int k = 0; k < c; k++) {
            long s = (long) n * plane * c + k, d = ((long) n * c + k) * plane * 4;
            switch (v) {
                case 0 -> planeFma(src.asSlice(s, plane * c - k), dst.asSlice(d, plane * 4L), plane, c, SCALE[k], BIAS[k]);
                case 1 -> planeMul(src.asSlice(s, plane * c - k), dst.asSlice(d, plane * 4L), plane, c, SCALE[k], BIAS[k]);
                case 2 -> plane3(src.asSlice(s, plane * c - k), dst.asSlice(d, plane * 4L), plane, SCALE[k], BIAS[k]);
                case 3 -> planeIdx(src.asSlice(s, plane * c - k), dst.asSlice(d, plane * 4L), plane, c, SCALE[k], BIAS[k]);
                default -> loopLike(s, d, plane, c, SCALE[k], BIAS[k]);
            }
        }
    }
    static void planeFma(MemorySegment s, MemorySegment d, int n, int c, float scale, float bias) {
        for (int p = 0; p < n; p++) d.set(F32, p * 4L, Math.fma(s.get(I8, (long) p * c) & 0xff, scale, bias));
    }
    static void planeMul(MemorySegment s, MemorySegment d, int n, int c, float scale, float bias) {
        for (int p = 0; p < n; p++) d.set(F32, p * 4L, (s.get(I8, (long) p * c) & 0xff) * scale + bias);
    }
    static void plane3(MemorySegment s, MemorySegment d, int n, float scale, float bias) {
        for (int p = 0; p < n; p++) d.set(F32, p * 4L, Math.fma(s.get(I8, p * 3L) & 0xff, scale, bias));
    }
    static void planeIdx(MemorySegment s, MemorySegment d, int n, int c, float scale, float bias) {
        long sp = 0;
        for (int p = 0; p < n; p++, sp += c) d.set(F32, p * 4L, Math.fma(s.get(I8, sp) & 0xff, scale, bias));
    }
    static void loopLike(long s, long d, int n, int c, float scale, float bias) {
        for (int p = 0; p < n; p++) dst.set(F32, d + 4L * p, Math.fma(src.get(I8, s + (long) c * p) & 0xff, scale, bias));
    }
}
