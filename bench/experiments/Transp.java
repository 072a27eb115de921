// NCHW -> NHWC f32 as a standalone banded 16x16 (or 8x8) register transpose, alternating with a
// 2-thread MemorySegment.copy of the same bytes. Modes: 0 the engine's banded order, 1 column stripes
// (all channels per 16 columns), 2 bands with the channel blocks inner, 3 8x8 blocks of 256 bits
// banded, 4 each pass's 16 row pieces first copied to a per-thread scratch, then transposed from it,
// 5 mode 0 loading each destination line -Dahead=K blocks before it is stored (a prefetch by hand
// of the write-allocate), 6 mode 0 with two channel blocks per pass (32 rows read at once), 7 mode 0
// into a 1 MiB per-thread scratch laid out as the band's destination, copied out once per band, 8 mode 0
// into a 4 MiB per-thread scratch holding the image's destination, copied out (streaming) once per image.
// java --add-modules jdk.incubator.vector [-Dback=true] bench/experiments/Transp.java N C HW BAND MODE THREADS [REPEAT]
// e.g. ... Transp.java 32 64 12544 1024 0 2 (in cache: Transp.java 1 64 1024 1024 0 1 2000)

import java.lang.foreign.*;
import jdk.incubator.vector.*;
import java.nio.ByteOrder;
import java.util.concurrent.*;
public class Transp {
  static int REP; static volatile long SINK; static final int AHEAD = Integer.getInteger("ahead", 4);
  static final ThreadLocal<MemorySegment> BIG = ThreadLocal.withInitial(() -> Arena.global().allocate(4 << 20, 4096));
  static final ThreadLocal<MemorySegment> SCR = ThreadLocal.withInitial(() -> Arena.global().allocate(1 << 20, 4096));
  static final VectorSpecies<Integer> S = IntVector.SPECIES_512;
  static final ByteOrder O = ByteOrder.LITTLE_ENDIAN;
  static int[] zip(int from) { int[] idx = new int[16]; for (int j = 0; j < 16; j++) idx[j] = (j % 2 == 0 ? 0 : 16) + from + j / 2; return idx; }
  static final IntVector LO = IntVector.fromArray(S, zip(0), 0), HI = IntVector.fromArray(S, zip(8), 0);

  static final VectorSpecies<Integer> S8 = IntVector.SPECIES_256;
  static int[] zip8(int from) { int[] idx = new int[8]; for (int j = 0; j < 8; j++) idx[j] = (j % 2 == 0 ? 0 : 8) + from + j / 2; return idx; }
  static final IntVector LO8 = IntVector.fromArray(S8, zip8(0), 0), HI8 = IntVector.fromArray(S8, zip8(4), 0);
  static void block8(MemorySegment src, long s, long sa, MemorySegment dst, long d, long db) {
    IntVector r0 = IntVector.fromMemorySegment(S8, src, s + 0 * sa, O);
    IntVector r1 = IntVector.fromMemorySegment(S8, src, s + 1 * sa, O);
    IntVector r2 = IntVector.fromMemorySegment(S8, src, s + 2 * sa, O);
    IntVector r3 = IntVector.fromMemorySegment(S8, src, s + 3 * sa, O);
    IntVector r4 = IntVector.fromMemorySegment(S8, src, s + 4 * sa, O);
    IntVector r5 = IntVector.fromMemorySegment(S8, src, s + 5 * sa, O);
    IntVector r6 = IntVector.fromMemorySegment(S8, src, s + 6 * sa, O);
    IntVector r7 = IntVector.fromMemorySegment(S8, src, s + 7 * sa, O);
    IntVector a0 = LO8.selectFrom(r0, r4);
    IntVector a1 = HI8.selectFrom(r0, r4);
    IntVector a2 = LO8.selectFrom(r1, r5);
    IntVector a3 = HI8.selectFrom(r1, r5);
    IntVector a4 = LO8.selectFrom(r2, r6);
    IntVector a5 = HI8.selectFrom(r2, r6);
    IntVector a6 = LO8.selectFrom(r3, r7);
    IntVector a7 = HI8.selectFrom(r3, r7);
    IntVector b0 = LO8.selectFrom(a0, a4);
    IntVector b1 = HI8.selectFrom(a0, a4);
    IntVector b2 = LO8.selectFrom(a1, a5);
    IntVector b3 = HI8.selectFrom(a1, a5);
    IntVector b4 = LO8.selectFrom(a2, a6);
    IntVector b5 = HI8.selectFrom(a2, a6);
    IntVector b6 = LO8.selectFrom(a3, a7);
    IntVector b7 = HI8.selectFrom(a3, a7);
    IntVector e0 = LO8.selectFrom(b0, b4);
    IntVector e1 = HI8.selectFrom(b0, b4);
    IntVector e2 = LO8.selectFrom(b1, b5);
    IntVector e3 = HI8.selectFrom(b1, b5);
    IntVector e4 = LO8.selectFrom(b2, b6);
    IntVector e5 = HI8.selectFrom(b2, b6);
    IntVector e6 = LO8.selectFrom(b3, b7);
    IntVector e7 = HI8.selectFrom(b3, b7);
    e0.intoMemorySegment(dst, d + 0 * db, O);
    e1.intoMemorySegment(dst, d + 1 * db, O);
    e2.intoMemorySegment(dst, d + 2 * db, O);
    e3.intoMemorySegment(dst, d + 3 * db, O);
    e4.intoMemorySegment(dst, d + 4 * db, O);
    e5.intoMemorySegment(dst, d + 5 * db, O);
    e6.intoMemorySegment(dst, d + 6 * db, O);
    e7.intoMemorySegment(dst, d + 7 * db, O);
  }
  static void block16(MemorySegment src, long s, long sa, MemorySegment dst, long d, long db) {
    IntVector r0 = IntVector.fromMemorySegment(S, src, s + 0 * sa, O);
    IntVector r1 = IntVector.fromMemorySegment(S, src, s + 1 * sa, O);
    IntVector r2 = IntVector.fromMemorySegment(S, src, s + 2 * sa, O);
    IntVector r3 = IntVector.fromMemorySegment(S, src, s + 3 * sa, O);
    IntVector r4 = IntVector.fromMemorySegment(S, src, s + 4 * sa, O);
    IntVector r5 = IntVector.fromMemorySegment(S, src, s + 5 * sa, O);
    IntVector r6 = IntVector.fromMemorySegment(S, src, s + 6 * sa, O);
    IntVector r7 = IntVector.fromMemorySegment(S, src, s + 7 * sa, O);
    IntVector r8 = IntVector.fromMemorySegment(S, src, s + 8 * sa, O);
    IntVector r9 = IntVector.fromMemorySegment(S, src, s + 9 * sa, O);
    IntVector r10 = IntVector.fromMemorySegment(S, src, s + 10 * sa, O);
    IntVector r11 = IntVector.fromMemorySegment(S, src, s + 11 * sa, O);
    IntVector r12 = IntVector.fromMemorySegment(S, src, s + 12 * sa, O);
    IntVector r13 = IntVector.fromMemorySegment(S, src, s + 13 * sa, O);
    IntVector r14 = IntVector.fromMemorySegment(S, src, s + 14 * sa, O);
    IntVector r15 = IntVector.fromMemorySegment(S, src, s + 15 * sa, O);
    IntVector a0 = LO.selectFrom(r0, r8);
    IntVector a1 = HI.selectFrom(r0, r8);
    IntVector a2 = LO.selectFrom(r1, r9);
    IntVector a3 = HI.selectFrom(r1, r9);
    IntVector a4 = LO.selectFrom(r2, r10);
    IntVector a5 = HI.selectFrom(r2, r10);
    IntVector a6 = LO.selectFrom(r3, r11);
    IntVector a7 = HI.selectFrom(r3, r11);
    IntVector a8 = LO.selectFrom(r4, r12);
    IntVector a9 = HI.selectFrom(r4, r12);
    IntVector a10 = LO.selectFrom(r5, r13);
    IntVector a11 = HI.selectFrom(r5, r13);
    IntVector a12 = LO.selectFrom(r6, r14);
    IntVector a13 = HI.selectFrom(r6, r14);
    IntVector a14 = LO.selectFrom(r7, r15);
    IntVector a15 = HI.selectFrom(r7, r15);
    IntVector b0 = LO.selectFrom(a0, a8);
    IntVector b1 = HI.selectFrom(a0, a8);
    IntVector b2 = LO.selectFrom(a1, a9);
    IntVector b3 = HI.selectFrom(a1, a9);
    IntVector b4 = LO.selectFrom(a2, a10);
    IntVector b5 = HI.selectFrom(a2, a10);
    IntVector b6 = LO.selectFrom(a3, a11);
    IntVector b7 = HI.selectFrom(a3, a11);
    IntVector b8 = LO.selectFrom(a4, a12);
    IntVector b9 = HI.selectFrom(a4, a12);
    IntVector b10 = LO.selectFrom(a5, a13);
    IntVector b11 = HI.selectFrom(a5, a13);
    IntVector b12 = LO.selectFrom(a6, a14);
    IntVector b13 = HI.selectFrom(a6, a14);
    IntVector b14 = LO.selectFrom(a7, a15);
    IntVector b15 = HI.selectFrom(a7, a15);
    IntVector c0 = LO.selectFrom(b0, b8);
    IntVector c1 = HI.selectFrom(b0, b8);
    IntVector c2 = LO.selectFrom(b1, b9);
    IntVector c3 = HI.selectFrom(b1, b9);
    IntVector c4 = LO.selectFrom(b2, b10);
    IntVector c5 = HI.selectFrom(b2, b10);
    IntVector c6 = LO.selectFrom(b3, b11);
    IntVector c7 = HI.selectFrom(b3, b11);
    IntVector c8 = LO.selectFrom(b4, b12);
    IntVector c9 = HI.selectFrom(b4, b12);
    IntVector c10 = LO.selectFrom(b5, b13);
    IntVector c11 = HI.selectFrom(b5, b13);
    IntVector c12 = LO.selectFrom(b6, b14);
    IntVector c13 = HI.selectFrom(b6, b14);
    IntVector c14 = LO.selectFrom(b7, b15);
    IntVector c15 = HI.selectFrom(b7, b15);
    IntVector e0 = LO.selectFrom(c0, c8);
    IntVector e1 = HI.selectFrom(c0, c8);
    IntVector e2 = LO.selectFrom(c1, c9);
    IntVector e3 = HI.selectFrom(c1, c9);
    IntVector e4 = LO.selectFrom(c2, c10);
    IntVector e5 = HI.selectFrom(c2, c10);
    IntVector e6 = LO.selectFrom(c3, c11);
    IntVector e7 = HI.selectFrom(c3, c11);
    IntVector e8 = LO.selectFrom(c4, c12);
    IntVector e9 = HI.selectFrom(c4, c12);
    IntVector e10 = LO.selectFrom(c5, c13);
    IntVector e11 = HI.selectFrom(c5, c13);
    IntVector e12 = LO.selectFrom(c6, c14);
    IntVector e13 = HI.selectFrom(c6, c14);
    IntVector e14 = LO.selectFrom(c7, c15);
    IntVector e15 = HI.selectFrom(c7, c15);
    e0.intoMemorySegment(dst, d + 0 * db, O);
    e1.intoMemorySegment(dst, d + 1 * db, O);
    e2.intoMemorySegment(dst, d + 2 * db, O);
    e3.intoMemorySegment(dst, d + 3 * db, O);
    e4.intoMemorySegment(dst, d + 4 * db, O);
    e5.intoMemorySegment(dst, d + 5 * db, O);
    e6.intoMemorySegment(dst, d + 6 * db, O);
    e7.intoMemorySegment(dst, d + 7 * db, O);
    e8.intoMemorySegment(dst, d + 8 * db, O);
    e9.intoMemorySegment(dst, d + 9 * db, O);
    e10.intoMemorySegment(dst, d + 10 * db, O);
    e11.intoMemorySegment(dst, d + 11 * db, O);
    e12.intoMemorySegment(dst, d + 12 * db, O);
    e13.intoMemorySegment(dst, d + 13 * db, O);
    e14.intoMemorySegment(dst, d + 14 * db, O);
    e15.intoMemorySegment(dst, d + 15 * db, O);
  }
  // one image: src [C][HW], dst [HW][C]; band: columns per band. -Dback=true: NHWC -> NCHW (src [HW][C],
  // dst [C][HW]) in modes 0, 1 and 3, the same loops with the roles of the strides swapped.
  static final boolean BACK = Boolean.getBoolean("back");
  static void image(MemorySegment src, long s0, MemorySegment dst, long d0, int C, int HW, int band, int mode) {
    long sa = 4L * HW, db = 4L * C;
    // Bytes per channel and per pixel on each side; blocks read rows along the source's outer
    // dimension and write rows along the destination's.
    long srcC = BACK ? 4 : sa, srcP = BACK ? db : 4, dstC = BACK ? sa : 4, dstP = BACK ? 4 : db;
    long srcRow = BACK ? srcP : srcC, dstRow = BACK ? dstC : dstP;
    if (mode == 0) {
      for (int jt = 0; jt < HW; jt += band) { int je = Math.min(jt + band, HW);
        for (int ib = 0; ib < C; ib += 16) for (int jb = jt; jb + 16 <= je; jb += 16)
          block16(src, s0 + ib * srcC + jb * srcP, srcRow, dst, d0 + jb * dstP + ib * dstC, dstRow); }
    } else if (mode == 5) { // mode 0, loading each destination line AHEAD blocks before it is stored
      long sink = 0; long ahead = 16L * AHEAD;
      for (int jt = 0; jt < HW; jt += band) { int je = Math.min(jt + band, HW);
        for (int ib = 0; ib < C; ib += 16) for (int jb = jt; jb + 16 <= je; jb += 16) {
          long t = jb + ahead;
          if (t + 16 <= HW) { long dt = d0 + t * db + ib * 4L; for (int k = 0; k < 16; k++) sink += dst.get(ValueLayout.JAVA_LONG_UNALIGNED, dt + k * db); }
          block16(src, s0 + ib * sa + jb * 4L, sa, dst, d0 + jb * db + ib * 4L, db); } }
      SINK += sink;
    } else if (mode == 6) { // mode 0 with two channel blocks per pass: 32 rows read, 128 B written per position
      for (int jt = 0; jt < HW; jt += band) { int je = Math.min(jt + band, HW);
        for (int ib = 0; ib < C; ib += 32) for (int jb = jt; jb + 16 <= je; jb += 16) {
          block16(src, s0 + ib * sa + jb * 4L, sa, dst, d0 + jb * db + ib * 4L, db);
          block16(src, s0 + (ib + 16) * sa + jb * 4L, sa, dst, d0 + jb * db + (ib + 16) * 4L, db); } }
    } else if (mode == 7) { // mode 0 into a per-thread scratch laid out as the band's destination, then one copy out
      MemorySegment sc = SCR.get();
      for (int jt = 0; jt < HW; jt += band) { int je = Math.min(jt + band, HW);
        for (int ib = 0; ib < C; ib += 16) for (int jb = jt; jb + 16 <= je; jb += 16)
          block16(src, s0 + ib * sa + jb * 4L, sa, sc, (jb - jt) * db + ib * 4L, db);
        MemorySegment.copy(sc, 0, dst, d0 + jt * db, (je - jt) * db); }
    } else if (mode == 8) { // mode 0 into a per-thread image-sized scratch, copied out once per image (streaming from 2.5 MiB)
      MemorySegment sc = BIG.get();
      for (int jt = 0; jt < HW; jt += band) { int je = Math.min(jt + band, HW);
        for (int ib = 0; ib < C; ib += 16) for (int jb = jt; jb + 16 <= je; jb += 16)
          block16(src, s0 + ib * sa + jb * 4L, sa, sc, jb * db + ib * 4L, db); }
      MemorySegment.copy(sc, 0, dst, d0, (long) HW * db);
    } else if (mode == 3) {
      for (int jt = 0; jt < HW; jt += band) { int je = Math.min(jt + band, HW);
        for (int ib = 0; ib < C; ib += 8) for (int jb = jt; jb + 8 <= je; jb += 8)
          block8(src, s0 + ib * srcC + jb * srcP, srcRow, dst, d0 + jb * dstP + ib * dstC, dstRow); }
    } else if (mode == 4) {
      MemorySegment sc = SCR.get();
      long bb = 4L * band;
      for (int jt = 0; jt < HW; jt += band) { int je = Math.min(jt + band, HW); long w = 4L * (je - jt);
        for (int ib = 0; ib < C; ib += 16) {
          for (int k = 0; k < 16; k++) MemorySegment.copy(src, s0 + (ib + k) * sa + jt * 4L, sc, k * bb, w);
          for (int jb = jt; jb + 16 <= je; jb += 16)
            block16(sc, (jb - jt) * 4L, bb, dst, d0 + jb * db + ib * 4L, db); } }
    } else if (mode == 1) { // column stripe: all channels per 16 columns
      for (int jb = 0; jb + 16 <= HW; jb += 16) for (int ib = 0; ib < C; ib += 16)
          block16(src, s0 + ib * srcC + jb * srcP, srcRow, dst, d0 + jb * dstP + ib * dstC, dstRow);
    } else { // mode 2: band but inner loop over channels within a band? (jb outer inside band)
      for (int jt = 0; jt < HW; jt += band) { int je = Math.min(jt + band, HW);
        for (int jb = jt; jb + 16 <= je; jb += 16) for (int ib = 0; ib < C; ib += 16)
          block16(src, s0 + ib * sa + jb * 4L, sa, dst, d0 + jb * db + ib * 4L, db); }
    }
  }
  public static void main(String[] a) throws Exception {
    int N = Integer.parseInt(a[0]), C = Integer.parseInt(a[1]), HW = Integer.parseInt(a[2]);
    REP = a.length > 6 ? Integer.parseInt(a[6]) : 1; int band = Integer.parseInt(a[3]), mode = Integer.parseInt(a[4]), thr = Integer.parseInt(a[5]);
    if (BACK && mode != 0 && mode != 1 && mode != 3) throw new IllegalArgumentException("mode " + mode + " has no NHWC -> NCHW form");
    long img = 4L * C * HW, bytes = img * N;
    MemorySegment src = Arena.global().allocate(bytes, 4096), dst = Arena.global().allocate(bytes, 4096);
    src.fill((byte) 1); dst.fill((byte) 2);
    ExecutorService ex = Executors.newFixedThreadPool(thr);
    double[] g = new double[15], cg = new double[15];
    for (int r = 0; r < 25; r++) {
      long t0 = System.nanoTime();
      Future<?>[] fs = new Future<?>[thr];
      for (int t = 0; t < thr; t++) { final int tt = t; fs[t] = ex.submit(() -> {
        for (int q = 0; q < REP; q++) for (int n = tt; n < N; n += thr) image(src, n * img, dst, n * img, C, HW, band, mode); }); }
      for (Future<?> f : fs) f.get();
      long t1 = System.nanoTime();
      for (int t = 0; t < thr; t++) { final int tt = t; fs[t] = ex.submit(() -> {
        long per = bytes / thr; MemorySegment.copy(src, tt * per, dst, tt * per, per); }); }
      for (Future<?> f : fs) f.get();
      long t2 = System.nanoTime();
      if (r >= 10) { g[r - 10] = 2.0 * bytes * REP / (t1 - t0); cg[r - 10] = 2.0 * bytes / (t2 - t1); }
    }
    java.util.Arrays.sort(g); java.util.Arrays.sort(cg);
    System.out.printf("N=%d C=%d HW=%d band=%d mode=%d thr=%d: %.1f GB/s, copy %.1f, ratio %.2f%n", N, C, HW, band, mode, thr, g[7], cg[7], g[7] / cg[7]);
    System.exit(0);
  }
}
