// Q6_K dequantization kernel shapes, one thread, CPU time per value over 128 Mi values (32 Ki rows of 16 blocks), each
// checked against a scalar reference (f32 exact; bf16 by round-to-nearest-even of it):
//   A  byte-lane shifts by a count that varies with the sub-block (the first kernel), 8-lane f32 out
//   B  A's gathering, bf16 rounded in the register (an in-register bf16 kernel of the first shape)
//   F  A's shape with the shifts in int lanes and a byte mask after
//   C  a block's 256 codes gathered first (int-lane shifts of 32 bytes, constant counts), widened 16 at a time, f32 out
//   E  C to bf16 in the register, the NaN test only for blocks with a non-finite scale (the kept kernel)
//   copy: MemorySegment.copy of E's bf16 bytes
// java --add-modules jdk.incubator.vector bench/experiments/Q6kShapes.java
import java.lang.foreign.*;
import java.nio.ByteOrder;
import java.util.*;
import jdk.incubator.vector.*;
public class Q6kShapes {
  static final VectorSpecies<Byte> B128 = ByteVector.SPECIES_128;
  static final VectorSpecies<Float> F256 = FloatVector.SPECIES_256;
  static final VectorSpecies<Integer> I128 = IntVector.SPECIES_128, I256 = IntVector.SPECIES_256;
  static final VectorSpecies<Float> FW = FloatVector.SPECIES_PREFERRED.length() == 16 ? FloatVector.SPECIES_PREFERRED : F256;
  static final VectorSpecies<Byte> BW = VectorSpecies.of(byte.class, VectorShape.forBitSize(FW.length() * 8));
  static final VectorSpecies<Short> SW = VectorSpecies.of(short.class, VectorShape.forBitSize(FW.length() * 16));
  static final VectorSpecies<Short> S128 = ShortVector.SPECIES_128;
  static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
  static final ValueLayout.OfShort H = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(LE);
  static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(LE);
  static float f16(MemorySegment s, long at) { return Float.float16ToFloat(s.get(H, at)); }
  static void scales(MemorySegment s, long so, float[] dl) { float sc = f16(s, so + 208); for (int g = 0; g < 16; g++) dl[g] = sc * (float) s.get(ValueLayout.JAVA_BYTE, so + 192 + g); }
  static short bf16(float f) { int b = Float.floatToRawIntBits(f); return Float.isNaN(f) ? (short) (((b >>> 16) & 0x8000) | 0x7fc0) : (short) ((b + 0x7fff + ((b >>> 16) & 1)) >>> 16); }
  static void scalar(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
    float[] dl = new float[16];
    for (long b = 0; b < blocks; b++, so += 210, dOff += 1024) { scales(s, so, dl);
      for (int i = 0; i < 256; i++) { int h = i >> 7, r = i & 127;
        int ql = (Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, so + h * 64 + (r & 63))) >> (4 * (r >> 6))) & 0xF;
        int qh = (Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, so + 128 + h * 32 + (r & 31))) >> (2 * (r >> 5))) & 3;
        d.set(F, dOff + 4L * i, dl[i >> 4] * (float) ((byte) (ql | qh << 4) - 32)); } }
  }
  static void a(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
    float[] dl = new float[16];
    for (long b = 0; b < blocks; b++, so += 210, dOff += 1024) { scales(s, so, dl);
      for (int t = 0; t < 8; t++) { int h = t >> 2, lo = 4 * ((t & 3) >> 1), hi = 2 * (t & 3);
        for (int half = 0; half < 2; half++) {
          ByteVector ql = ByteVector.fromMemorySegment(B128, s, so + 64 * h + 32 * (t & 1) + 16 * half, LE).lanewise(VectorOperators.LSHR, lo).and((byte) 0xF);
          ByteVector qh = ByteVector.fromMemorySegment(B128, s, so + 128 + 32 * h + 16 * half, LE).lanewise(VectorOperators.LSHR, hi).and((byte) 3).lanewise(VectorOperators.LSHL, 4);
          ByteVector c = ql.or(qh).sub((byte) 32); float sc = dl[2 * t + half]; long at = dOff + 4L * (32 * t + 16 * half);
          ((FloatVector) c.convertShape(VectorOperators.B2F, F256, 0)).mul(sc).intoMemorySegment(d, at, LE);
          ((FloatVector) c.convertShape(VectorOperators.B2F, F256, 1)).mul(sc).intoMemorySegment(d, at + 32, LE); } } }
  }
  static void b(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
    float[] dl = new float[16];
    for (long b = 0; b < blocks; b++, so += 210, dOff += 512) { scales(s, so, dl);
      for (int t = 0; t < 8; t++) { int h = t >> 2, lo = 4 * ((t & 3) >> 1), hi = 2 * (t & 3);
        for (int half = 0; half < 2; half++) {
          ByteVector ql = ByteVector.fromMemorySegment(B128, s, so + 64 * h + 32 * (t & 1) + 16 * half, LE).lanewise(VectorOperators.LSHR, lo).and((byte) 0xF);
          ByteVector qh = ByteVector.fromMemorySegment(B128, s, so + 128 + 32 * h + 16 * half, LE).lanewise(VectorOperators.LSHR, hi).and((byte) 3).lanewise(VectorOperators.LSHL, 4);
          ByteVector c = ql.or(qh).sub((byte) 32); float sc = dl[2 * t + half]; long at = dOff + 2L * (32 * t + 16 * half);
          for (int p = 0; p < 2; p++) {
            IntVector bits = ((FloatVector) c.convertShape(VectorOperators.B2F, F256, p)).mul(sc).reinterpretAsInts();
            IntVector high = bits.lanewise(VectorOperators.LSHR, 16);
            bits.add(0x7fff).add(high.and(1)).lanewise(VectorOperators.LSHR, 16)
                .blend(high.and(0x8000).or(0x7fc0), bits.and(0x7fff_ffff).compare(VectorOperators.GT, 0x7f80_0000))
                .convertShape(VectorOperators.I2S, S128, 0).intoMemorySegment(d, at + 16 * p, LE); } } } }
  }
  static void f(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
    float[] dl = new float[16];
    for (long b = 0; b < blocks; b++, so += 210, dOff += 1024) { scales(s, so, dl);
      for (int t = 0; t < 8; t++) { int h = t >> 2, lo = 4 * ((t & 3) >> 1), hi = 2 * (t & 3);
        for (int half = 0; half < 2; half++) {
          IntVector ql = IntVector.fromMemorySegment(I128, s, so + 64 * h + 32 * (t & 1) + 16 * half, LE).lanewise(VectorOperators.LSHR, lo).and(0x0F0F0F0F);
          IntVector qh = IntVector.fromMemorySegment(I128, s, so + 128 + 32 * h + 16 * half, LE).lanewise(VectorOperators.LSHR, hi).and(0x03030303).lanewise(VectorOperators.LSHL, 4);
          ByteVector c = ql.or(qh).reinterpretAsBytes().sub((byte) 32); float sc = dl[2 * t + half]; long at = dOff + 4L * (32 * t + 16 * half);
          ((FloatVector) c.convertShape(VectorOperators.B2F, F256, 0)).mul(sc).intoMemorySegment(d, at, LE);
          ((FloatVector) c.convertShape(VectorOperators.B2F, F256, 1)).mul(sc).intoMemorySegment(d, at + 32, LE); } } }
  }
  static void codes(MemorySegment s, long so, int h, byte[] q) {
    int at = 128 * h;
    IntVector a = IntVector.fromMemorySegment(I256, s, so + 64 * h, LE), b = IntVector.fromMemorySegment(I256, s, so + 64 * h + 32, LE);
    IntVector hb = IntVector.fromMemorySegment(I256, s, so + 128 + 32 * h, LE);
    a.and(0x0F0F0F0F).or(hb.lanewise(VectorOperators.LSHL, 4).and(0x30303030)).reinterpretAsBytes().sub((byte) 32).intoArray(q, at);
    b.and(0x0F0F0F0F).or(hb.lanewise(VectorOperators.LSHL, 2).and(0x30303030)).reinterpretAsBytes().sub((byte) 32).intoArray(q, at + 32);
    a.lanewise(VectorOperators.LSHR, 4).and(0x0F0F0F0F).or(hb.and(0x30303030)).reinterpretAsBytes().sub((byte) 32).intoArray(q, at + 64);
    b.lanewise(VectorOperators.LSHR, 4).and(0x0F0F0F0F).or(hb.lanewise(VectorOperators.LSHR, 2).and(0x30303030)).reinterpretAsBytes().sub((byte) 32).intoArray(q, at + 96);
  }
  static void c(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
    byte[] q = new byte[256]; float[] dl = new float[16];
    for (long b = 0; b < blocks; b++, so += 210, dOff += 1024) { scales(s, so, dl); codes(s, so, 0, q); codes(s, so, 1, q);
      for (int i = 0; i < 256; i += FW.length())
        ((FloatVector) ByteVector.fromArray(BW, q, i).convertShape(VectorOperators.B2F, FW, 0)).mul(dl[i >> 4]).intoMemorySegment(d, dOff + 4L * i, LE); }
  }
  static void e(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
    byte[] q = new byte[256]; float[] dl = new float[16];
    for (long b = 0; b < blocks; b++, so += 210, dOff += 512) { scales(s, so, dl); codes(s, so, 0, q); codes(s, so, 1, q);
      if (!Float.isFinite(f16(s, so + 208))) { eNaN(q, dl, d, dOff); continue; }
      for (int i = 0; i < 256; i += FW.length()) {
        IntVector bits = ((FloatVector) ByteVector.fromArray(BW, q, i).convertShape(VectorOperators.B2F, FW, 0)).mul(dl[i >> 4]).reinterpretAsInts();
        bits.add(0x7fff).add(bits.lanewise(VectorOperators.LSHR, 16).and(1)).lanewise(VectorOperators.LSHR, 16)
            .convertShape(VectorOperators.I2S, SW, 0).intoMemorySegment(d, dOff + 2L * i, LE); } }
  }
  static void eNaN(byte[] q, float[] dl, MemorySegment d, long dOff) {
    for (int i = 0; i < 256; i += FW.length()) {
      IntVector bits = ((FloatVector) ByteVector.fromArray(BW, q, i).convertShape(VectorOperators.B2F, FW, 0)).mul(dl[i >> 4]).reinterpretAsInts();
      IntVector high = bits.lanewise(VectorOperators.LSHR, 16);
      bits.add(0x7fff).add(high.and(1)).lanewise(VectorOperators.LSHR, 16)
          .blend(high.and(0x8000).or(0x7fc0), bits.and(0x7fff_ffff).compare(VectorOperators.GT, 0x7f80_0000))
          .convertShape(VectorOperators.I2S, SW, 0).intoMemorySegment(d, dOff + 2L * i, LE); }
  }
  interface K { void run(MemorySegment s, long so, MemorySegment d, long dOff, long blocks); }
  public static void main(String[] args) {
    long values = 128L << 20, blocks = values / 256, rowBlocks = 16;
    Arena arena = Arena.global();
    MemorySegment src = arena.allocate(blocks * 210, 64);
    Random r = new Random(38); byte[] chunk = new byte[1 << 20];
    for (long at = 0; at < src.byteSize(); at += chunk.length) { r.nextBytes(chunk); MemorySegment.copy(chunk, 0, src, ValueLayout.JAVA_BYTE, at, (int) Math.min(chunk.length, src.byteSize() - at)); }
    for (long b = 0; b < blocks; b++) src.set(H, b * 210 + 208, Float.floatToFloat16(r.nextFloat() * 0.01f));
    src.set(H, 210 + 208, (short) 0x7c00); src.set(H, 2 * 210 + 208, (short) 0x7e01); // an infinite and a NaN scale
    MemorySegment f32 = arena.allocate(values * 4, 64), bf = arena.allocate(values * 2, 64), cp = arena.allocate(values * 2, 64);
    f32.fill((byte) 1); bf.fill((byte) 1); cp.fill((byte) 1);
    MemorySegment ref = arena.allocate(4 * 256 * 64, 64);
    scalar(src, 0, ref, 0, 64);
    String[] names = {"A byte-lane shifts, f32", "B A's gathering, bf16 in register", "F int-lane shifts, f32", "C codes first, f32", "E codes first, bf16", "copy of the bf16 bytes"};
    K[] ks = {Q6kShapes::a, Q6kShapes::b, Q6kShapes::f, Q6kShapes::c, Q6kShapes::e, null};
    boolean[] toBf16 = {false, true, false, false, true, true};
    Runnable[] rs = new Runnable[ks.length];
    for (int k = 0; k < ks.length; k++) {
      K kk = ks[k]; MemorySegment out = toBf16[k] ? bf : f32; int w = toBf16[k] ? 2 : 4;
      rs[k] = kk == null ? () -> MemorySegment.copy(bf, 0, cp, 0, values * 2)
          : () -> { for (long b = 0; b < blocks; b += rowBlocks) kk.run(src, b * 210, out, b * 256 * w, rowBlocks); };
      if (kk == null) continue;
      rs[k].run();
      for (int i = 0; i < 256 * 64; i++) {
        float want = ref.getAtIndex(ValueLayout.JAVA_FLOAT, i);
        boolean ok = toBf16[k] ? out.get(H, 2L * i) == bf16(want) : Float.floatToRawIntBits(out.get(F, 4L * i)) == Float.floatToRawIntBits(want);
        if (!ok) throw new AssertionError(names[k] + ": value " + i);
      }
    }
    var mx = java.lang.management.ManagementFactory.getThreadMXBean();
    for (int w = 0; w < 3; w++) for (Runnable x : rs) x.run();
    int reps = 7; double[][] t = new double[rs.length][reps];
    for (int i = 0; i < reps; i++) for (int k = 0; k < rs.length; k++) { long c0 = mx.getCurrentThreadCpuTime(); rs[k].run(); t[k][i] = (mx.getCurrentThreadCpuTime() - c0) / 1e6; }
    for (int k = 0; k < rs.length; k++) { Arrays.sort(t[k]); System.out.printf("%-36s CPU median %6.1f ms  %.3f ns/value%n", names[k], t[k][reps / 2], t[k][reps / 2] * 1e6 / values); }
  }
}
