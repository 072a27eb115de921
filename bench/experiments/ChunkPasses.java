// The passes of ChunkConvert, alone: why VectorChunks exists (bench/RESULTS.md, "Conversions").
// java --add-modules jdk.incubator.vector bench/experiments/ChunkPasses.java passes [M]
//   each array pass over M (512) elements in the L1 cache, ns an element: C2 leaves the loops whose element widths
//   differ (b2i, i2b, i2s, norm) and the float min/max reduction scalar.
// java --add-modules jdk.incubator.vector [-Dchunk=512] [-Dn=16777216] bench/experiments/ChunkPasses.java dram
//   s8 -> f32 over 16M elements (DRAM-sized) a chunk at a time: through arrays with bulk MemorySegment.copy in and out
//   (chunked), fused into one vector loop (fused), widened straight from the segment then converted while storing
//   (twopass), vector stores instead of the bulk copy out (vecOut), and so on.
import java.lang.foreign.*;
import jdk.incubator.vector.*;
public class ChunkPasses {
  public static void main(String[] a) {
    String[] rest = java.util.Arrays.copyOfRange(a, Math.min(1, a.length), a.length);
    if (a.length > 0 && a[0].equals("dram")) Fuse.main(rest); else Passes.main(rest);
  }
  static class Passes {
    static final int M = 512;
    static byte[] b = new byte[M]; static int[] w = new int[M]; static float[] f = new float[M]; static short[] h = new short[M];
    static void norm(int m) { for (int i = 0; i < m; i++) { int v = b[i]; w[i] = (v | -v) >>> 31; } }
    static void b2i(int m) { for (int i = 0; i < m; i++) { w[i] = b[i]; } }
    static void i2f(int m) { for (int i = 0; i < m; i++) { f[i] = w[i]; } }
    static void f2i(int m) { for (int i = 0; i < m; i++) { w[i] = (int) f[i]; } }
    static float lo, hi;
    static void f2iRange(int m) { float l = Float.POSITIVE_INFINITY, hh = Float.NEGATIVE_INFINITY; for (int i = 0; i < m; i++) { l = Math.min(l, f[i]); hh = Math.max(hh, f[i]); w[i] = (int) f[i]; } lo = l; hi = hh; }
    static void fminmax(int m) { float l = Float.POSITIVE_INFINITY, hh = Float.NEGATIVE_INFINITY; for (int i = 0; i < m; i++) { l = Math.min(l, f[i]); hh = Math.max(hh, f[i]); } lo = l; hi = hh; }
    static int ilo, ihi;
    static void iminmax(int m) { int l = Integer.MAX_VALUE, hh = Integer.MIN_VALUE; for (int i = 0; i < m; i++) { l = Math.min(l, w[i]); hh = Math.max(hh, w[i]); } ilo = l; ihi = hh; }
    static void i2b(int m) { for (int i = 0; i < m; i++) { b[i] = (byte) w[i]; } }
    static void i2s(int m) { for (int i = 0; i < m; i++) { h[i] = (short) w[i]; } }
    static void fpred(int m) { for (int i = 0; i < m; i++) { int a = Float.floatToRawIntBits(f[i]) & Integer.MAX_VALUE; w[i] = (a | -a) >>> 31; } }
    static MemorySegment seg = Arena.global().allocate(4 * M, 64);
    static void cpIn(int m) { MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, 0, b, 0, m); }
    static void cpOut(int m) { MemorySegment.copy(f, 0, seg, ValueLayout.JAVA_FLOAT, 0, m); }
    interface P { void run(int m); }
    static void main(String[] a) {
      String[] names = {"norm","b2i","i2f","f2i","f2iRange","fminmax","iminmax","i2b","i2s","fpred","cpIn","cpOut"};
      P[] ps = {Passes::norm, Passes::b2i, Passes::i2f, Passes::f2i, Passes::f2iRange, Passes::fminmax, Passes::iminmax, Passes::i2b, Passes::i2s, Passes::fpred, Passes::cpIn, Passes::cpOut};
      int m = Integer.parseInt(a.length > 0 ? a[0] : "512");
      for (int k = 0; k < ps.length; k++) {
        P p = ps[k];
        for (int r = 0; r < 20000; r++) p.run(m);
        long best = Long.MAX_VALUE;
        for (int rep = 0; rep < 5; rep++) { long t = System.nanoTime(); for (int r = 0; r < 100000; r++) p.run(m); best = Math.min(best, System.nanoTime() - t); }
        System.out.printf("%-9s %.3f ns/element%n", names[k], best / 1e5 / m);
      }
    }
  }
  static class Fuse {
    static final VectorSpecies<Integer> I = IntVector.SPECIES_512;
    static final VectorSpecies<Float> F = FloatVector.SPECIES_512;
    static final VectorSpecies<Byte> B = ByteVector.SPECIES_128;
    static final int M = Integer.getInteger("chunk", 512);
    static byte[] b = new byte[M]; static int[] w = new int[M]; static float[] f = new float[M];
    static void chunked(MemorySegment s, MemorySegment d, long n) {
      for (long done = 0; done < n; done += M) {
        int m = (int) Math.min(M, n - done);
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, done, b, 0, m);
        int i = 0;
        for (; i <= m - 16; i += 16) ((IntVector) ByteVector.fromArray(B, b, i).convertShape(VectorOperators.B2I, I, 0)).intoArray(w, i);
        for (int k = 0; k < m; k++) f[k] = w[k];
        MemorySegment.copy(f, 0, d, ValueLayout.JAVA_FLOAT, done * 4, m);
      }
    }
    static void fused(MemorySegment s, MemorySegment d, long n) {
      long i = 0;
      for (; i <= n - 16; i += 16) {
        ByteVector.fromMemorySegment(B, s, i, java.nio.ByteOrder.LITTLE_ENDIAN).convertShape(VectorOperators.B2F, F, 0).reinterpretAsFloats()
          .intoMemorySegment(d, i * 4, java.nio.ByteOrder.LITTLE_ENDIAN);
      }
    }
    static void twopass(MemorySegment s, MemorySegment d, long n) {
      for (long done = 0; done < n; done += M) {
        int m = (int) Math.min(M, n - done);
        int i = 0;
        for (; i <= m - 16; i += 16) ((IntVector) ByteVector.fromMemorySegment(B, s, done + i, java.nio.ByteOrder.LITTLE_ENDIAN).convertShape(VectorOperators.B2I, I, 0)).intoArray(w, i);
        for (i = 0; i <= m - 16; i += 16) IntVector.fromArray(I, w, i).convert(VectorOperators.I2F, 0).reinterpretAsFloats().intoMemorySegment(d, (done + i) * 4, java.nio.ByteOrder.LITTLE_ENDIAN);
      }
    }
    static void readFused(MemorySegment s, MemorySegment d, long n) {
      for (long done = 0; done < n; done += M) {
        int m = (int) Math.min(M, n - done);
        int i = 0;
        for (; i <= m - 16; i += 16) ((IntVector) ByteVector.fromMemorySegment(B, s, done + i, java.nio.ByteOrder.LITTLE_ENDIAN).convertShape(VectorOperators.B2I, I, 0)).intoArray(w, i);
        for (int k = 0; k < m; k++) f[k] = w[k];
        MemorySegment.copy(f, 0, d, ValueLayout.JAVA_FLOAT, done * 4, m);
      }
    }
    static void writeFused(MemorySegment s, MemorySegment d, long n) {
      for (long done = 0; done < n; done += M) {
        int m = (int) Math.min(M, n - done);
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, done, b, 0, m);
        int i = 0;
        for (; i <= m - 16; i += 16) ((IntVector) ByteVector.fromArray(B, b, i).convertShape(VectorOperators.B2I, I, 0)).intoArray(w, i);
        for (i = 0; i <= m - 16; i += 16) IntVector.fromArray(I, w, i).convert(VectorOperators.I2F, 0).reinterpretAsFloats().intoMemorySegment(d, (done + i) * 4, java.nio.ByteOrder.LITTLE_ENDIAN);
      }
    }
    static void vecOut(MemorySegment s, MemorySegment d, long n) {
      for (long done = 0; done < n; done += M) {
        int m = (int) Math.min(M, n - done);
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, done, b, 0, m);
        int i = 0;
        for (; i <= m - 16; i += 16) ((IntVector) ByteVector.fromArray(B, b, i).convertShape(VectorOperators.B2I, I, 0)).intoArray(w, i);
        for (int k = 0; k < m; k++) f[k] = w[k];
        for (i = 0; i <= m - 16; i += 16) FloatVector.fromArray(F, f, i).intoMemorySegment(d, (done + i) * 4, java.nio.ByteOrder.LITTLE_ENDIAN);
      }
    }
    static void scalar(MemorySegment s, MemorySegment d, long n) {
      for (long i = 0; i < n; i++) d.set(ValueLayout.JAVA_FLOAT, 4 * i, s.get(ValueLayout.JAVA_BYTE, i));
    }
    interface K { void run(MemorySegment s, MemorySegment d, long n); }
    static void main(String[] a) {
      long n = Long.getLong("n", 1L << 24);
      MemorySegment s = Arena.global().allocate(n, 64), d = Arena.global().allocate(4 * n, 64);
      s.fill((byte) 3); d.fill((byte) 1);
      String[] names = {"chunked", "fused", "twopass", "readFused", "writeFused", "vecOut", "scalar"};
      K[] ks = {Fuse::chunked, Fuse::fused, Fuse::twopass, Fuse::readFused, Fuse::writeFused, Fuse::vecOut, Fuse::scalar};
      for (int round = 0; round < 2; round++)
      for (int k = 0; k < ks.length; k++) {
        long reps = Math.max(1, (1L << 27) / n);
        double best = 1e9;
        for (int r = 0; r < 8; r++) { long t = System.nanoTime(); for (long q = 0; q < reps; q++) ks[k].run(s, d, n); best = Math.min(best, (System.nanoTime() - t) / 1e9 / reps); }
        System.out.printf("%-9s %.3f ns/element%n", names[k], best * 1e9 / n);
      }
    }
  }
  }
