// The dense u8 -> f32 vector loop alone (DenseConvert / VectorDenseConvert.bytesToF32), three ways: with its mask, cap and
// fma as the engine runs it ("full"), widening then converting ("plain"), and with a zero-extending widening ("zx").
// ns an element, best of 5, four rounds, on the global arena (4 KiB pages):
// java --add-modules jdk.incubator.vector bench/experiments/BytesToF32.java ELEMENTS   (4096: L1; 65536: L2; 16777216: DRAM)
import java.lang.foreign.*;
import java.nio.ByteOrder;
import jdk.incubator.vector.*;
public class BytesToF32 {
  static final VectorSpecies<Integer> I = IntVector.SPECIES_512;
  static final VectorSpecies<Float> F = FloatVector.SPECIES_512;
  static final VectorSpecies<Byte> B = ByteVector.SPECIES_128;
  static final ByteOrder O = ByteOrder.LITTLE_ENDIAN;
  static long full(MemorySegment s, MemorySegment d, long n, int mask, int cap, float scale, float bias) {
    long i = 0;
    for (; i <= n - 16; i += 16) {
      FloatVector x = ((IntVector) ByteVector.fromMemorySegment(B, s, i, O).convertShape(VectorOperators.B2I, I, 0))
          .and(mask).min(cap).convert(VectorOperators.I2F, 0).reinterpretAsFloats();
      x.fma(scale, bias).intoMemorySegment(d, 4 * i, O);
    }
    return i;
  }
  static long plain(MemorySegment s, MemorySegment d, long n) {
    long i = 0;
    for (; i <= n - 16; i += 16) {
      ((IntVector) ByteVector.fromMemorySegment(B, s, i, O).convertShape(VectorOperators.B2I, I, 0))
          .and(0xff).convert(VectorOperators.I2F, 0).reinterpretAsFloats().intoMemorySegment(d, 4 * i, O);
    }
    return i;
  }
  static long zx(MemorySegment s, MemorySegment d, long n) {
    long i = 0;
    for (; i <= n - 16; i += 16) {
      ((IntVector) ByteVector.fromMemorySegment(B, s, i, O).convertShape(VectorOperators.ZERO_EXTEND_B2I, I, 0))
          .convert(VectorOperators.I2F, 0).reinterpretAsFloats().intoMemorySegment(d, 4 * i, O);
    }
    return i;
  }
  public static void main(String[] a) {
    long n = Long.parseLong(a[0]);
    MemorySegment s = Arena.global().allocate(n, 64), d = Arena.global().allocate(4 * n, 64);
    for (long k = 0; k < n; k++) s.set(ValueLayout.JAVA_BYTE, k, (byte) (k * 7));
    long reps = Math.max(1, (1L << 28) / n);
    for (int round = 0; round < 4; round++) {
      for (String m : new String[] {"full", "plain", "zx"}) {
        double best = 1e9;
        for (int r = 0; r < 5; r++) {
          long t = System.nanoTime();
          for (long q = 0; q < reps; q++) {
            switch (m) { case "full" -> full(s, d, n, 0xff, Integer.MAX_VALUE, 1f, 0f); case "plain" -> plain(s, d, n); default -> zx(s, d, n); }
          }
          best = Math.min(best, (System.nanoTime() - t) / (double) reps / n);
        }
        System.out.printf("%s %.3f  ", m, best);
      }
      System.out.println();
    }
  }
}
