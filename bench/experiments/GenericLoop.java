// One Vector API conversion loop for every pair, its load and store picked by type inside the loop, against a loop
// of its own for s8 -> f32: fast for the first pair it meets, then slow for all once it has seen several (boxed vectors).
// java --add-modules jdk.incubator.vector bench/experiments/GenericLoop.java
import java.lang.foreign.*;
import java.nio.ByteOrder;
import jdk.incubator.vector.*;
public class GenericLoop {
  static final VectorSpecies<Integer> I = IntVector.SPECIES_512;
  static final VectorSpecies<Float> F = FloatVector.SPECIES_512;
  static final VectorSpecies<Byte> B = ByteVector.SPECIES_128;
  static final VectorSpecies<Short> S = ShortVector.SPECIES_256;
  static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
  enum T { S8, U8, S16, BF16, F32, S32 }
  static boolean isFloat(T t) { return t == T.BF16 || t == T.F32; }
  static int width(T t) { return switch (t) { case S8, U8 -> 1; case S16, BF16 -> 2; default -> 4; }; }
  // load 16 lanes as int bits: ints for integer types, float bits for float types
  static IntVector load(T t, MemorySegment s, long off) {
    return switch (t) {
      case S8 -> (IntVector) ByteVector.fromMemorySegment(B, s, off, LE).convertShape(VectorOperators.B2I, I, 0);
      case U8 -> ((IntVector) ByteVector.fromMemorySegment(B, s, off, LE).convertShape(VectorOperators.B2I, I, 0)).and(0xff);
      case S16 -> (IntVector) ShortVector.fromMemorySegment(S, s, off, LE).convertShape(VectorOperators.S2I, I, 0);
      case BF16 -> ((IntVector) ShortVector.fromMemorySegment(S, s, off, LE).convertShape(VectorOperators.S2I, I, 0)).lanewise(VectorOperators.LSHL, 16);
      case F32, S32 -> IntVector.fromMemorySegment(I, s, off, LE);
    };
  }
  static void store(T t, IntVector v, MemorySegment d, long off) {
    switch (t) {
      case S8, U8 -> ((ByteVector) v.convertShape(VectorOperators.I2B, B, 0)).intoMemorySegment(d, off, LE);
      case S16 -> ((ShortVector) v.convertShape(VectorOperators.I2S, S, 0)).intoMemorySegment(d, off, LE);
      case BF16 -> {
        IntVector r = v.add(0x7fff).add(v.lanewise(VectorOperators.LSHR, 16).and(1)).lanewise(VectorOperators.LSHR, 16);
        ((ShortVector) r.convertShape(VectorOperators.I2S, S, 0)).intoMemorySegment(d, off, LE);
      }
      case F32, S32 -> v.intoMemorySegment(d, off, LE);
    }
  }
  static boolean generic(T from, T to, MemorySegment s, MemorySegment d, long n) {
    int sw = width(from), dw = width(to);
    boolean fin = isFloat(from), fout = isFloat(to);
    VectorMask<Integer> bad = I.maskAll(false);
    for (long i = 0; i <= n - 16; i += 16) {
      IntVector v = load(from, s, i * sw);
      if (fin && !fout) {
        FloatVector x = v.reinterpretAsFloats();
        bad = bad.or(x.compare(VectorOperators.GT, -2.1474836E9f).and(x.compare(VectorOperators.LT, 2.1474836E9f)).not().cast(I));
        v = (IntVector) x.convert(VectorOperators.F2I, 0);
      } else if (!fin && fout) {
        v = ((FloatVector) v.convert(VectorOperators.I2F, 0)).reinterpretAsInts();
      }
      store(to, v, d, i * dw);
    }
    return !bad.anyTrue();
  }
  static void fusedS8F32(MemorySegment s, MemorySegment d, long n) {
    for (long i = 0; i <= n - 16; i += 16) {
      ByteVector.fromMemorySegment(B, s, i, LE).convertShape(VectorOperators.B2F, F, 0).reinterpretAsFloats().intoMemorySegment(d, i * 4, LE);
    }
  }
  public static void main(String[] a) {
    long n = Long.getLong("n", 1L << 24);
    MemorySegment s = Arena.global().allocate(4 * n, 64), d = Arena.global().allocate(4 * n, 64);
    s.fill((byte) 3); d.fill((byte) 1);
    String[][] pairs = {{"S8","F32"},{"F32","S32"},{"U8","BF16"},{"BF16","S32"},{"F32","S8"},{"S8","S32"}};
    for (int round = 0; round < 2; round++) {
      { double best = 1e9; for (int r = 0; r < 8; r++) { long t = System.nanoTime(); fusedS8F32(s, d, n); best = Math.min(best, (System.nanoTime() - t) / 1e9); }
        System.out.printf("dedicated S8>F32 %.3f ns/element%n", best * 1e9 / n); }
      for (String[] p : pairs) {
        T from = T.valueOf(p[0]), to = T.valueOf(p[1]);
        double best = 1e9;
        for (int r = 0; r < 8; r++) { long t = System.nanoTime(); generic(from, to, s, d, n); best = Math.min(best, (System.nanoTime() - t) / 1e9); }
        System.out.printf("generic %s>%s %.3f ns/element%n", p[0], p[1], best * 1e9 / n);
      }
    }
  }
}
