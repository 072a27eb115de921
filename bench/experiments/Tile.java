// f32[4096,4096] -> T(8,128) as standalone loops: per-512-byte MemorySegment.copy or vector (512 or
// 256-bit) copies, destination or source order or k tile columns at a time, 1 and 2 threads, against
// one MemorySegment.copy.
import java.lang.foreign.*;
import jdk.incubator.vector.*;
import java.util.concurrent.*;
import java.nio.ByteOrder;
public class Tile {
  static final VectorSpecies<Integer> S = IntVector.SPECIES_512;
  static final VectorSpecies<Integer> S8 = IntVector.SPECIES_256;
  static final ByteOrder O = ByteOrder.LITTLE_ENDIAN;
  interface Part { long run(long from, long to); }
  static volatile long sink;
  static double time(ExecutorService ex, int threads, long rows, Part p) throws Exception {
    double[] all = new double[20];
    for (int r = 0; r < 20; r++) {
      long t0 = System.nanoTime();
      Future<?>[] fs = new Future<?>[threads];
      long chunk = rows / threads;
      for (int t = 0; t < threads; t++) { long a = t*chunk, b = (t==threads-1)? rows : a+chunk; fs[t] = ex.submit(() -> { sink += p.run(a,b); }); }
      for (Future<?> f : fs) f.get();
      double s = (System.nanoTime()-t0)/1e9; all[r]=s;
    }
    java.util.Arrays.sort(all, 5, 20); return all[12];
  }
  /** Times one mode and prints it; GB/s count the 64 MiB read plus the 64 MiB written. */
  static void mode(ExecutorService ex, int threads, String label, Part p) throws Exception {
    double s = time(ex, threads, 512, p); // tile rows: bands of 8 rows
    System.out.printf("t=%d %-13s %.2f ms  %.1f GB/s counted%n", threads, label, s*1e3, 2*(4096L*4096*4)/s/1e9);
  }
  /** Source offset of row r of tile column ct in tile row b (row-major f32[4096,4096]). */
  static long from(long b, long r, long ct) { return b*8*16384 + r*16384 + ct*512; }
  /** Destination offset of the same row in T(8,128). */
  static long to(long b, long r, long ct) { return b*8*16384 + ct*4096 + r*512; }
  // One 512-byte row in vectors. One method per width: a species passed as an argument to a
  // shared method is not a constant to C2, and the copies fell to 2-3 GB/s.
  static void vec512(MemorySegment src, long so, MemorySegment dst, long d) {
    for (int i = 0; i < 512; i += 64) IntVector.fromMemorySegment(S, src, so+i, O).intoMemorySegment(dst, d+i, O);
  }
  static void vec256(MemorySegment src, long so, MemorySegment dst, long d) {
    for (int i = 0; i < 512; i += 32) IntVector.fromMemorySegment(S8, src, so+i, O).intoMemorySegment(dst, d+i, O);
  }
  public static void main(String[] a) throws Exception {
    long n = 4096L*4096*4;
    Arena arena = Arena.global();
    MemorySegment src = arena.allocate(n, 4096); src.fill((byte)1);
    MemorySegment dst = arena.allocate(n, 4096); dst.fill((byte)1);
    MemorySegment d2 = arena.allocate(n, 4096); d2.fill((byte)1);
    ExecutorService ex = Executors.newFixedThreadPool(2);
    for (int threads = 1; threads <= 2; threads++) {
      mode(ex, threads, "copy", (f,t) -> { MemorySegment.copy(src, f*8*16384, d2, f*8*16384, (t-f)*8*16384); return 0; });
      // dst order: tile after tile (the engine's order); src order: row after row. Each mode is a
      // lambda of its own so its row copy stays a direct, inlined call.
      mode(ex, threads, "bulk 512 dst", (f,t) -> { for (long b=f; b<t; b++) for (long ct=0; ct<32; ct++) for (long r=0;r<8;r++)
          MemorySegment.copy(src, from(b, r, ct), dst, to(b, r, ct), 512); return 0; });
      mode(ex, threads, "bulk 512 src", (f,t) -> { for (long b=f; b<t; b++) for (long r=0;r<8;r++) for (long ct=0; ct<32; ct++)
          MemorySegment.copy(src, from(b, r, ct), dst, to(b, r, ct), 512); return 0; });
      mode(ex, threads, "vec dst", (f,t) -> { for (long b=f; b<t; b++) for (long ct=0; ct<32; ct++) for (long r=0;r<8;r++)
          vec512(src, from(b, r, ct), dst, to(b, r, ct)); return 0; });
      mode(ex, threads, "vec src", (f,t) -> { for (long b=f; b<t; b++) for (long r=0;r<8;r++) for (long ct=0; ct<32; ct++)
          vec512(src, from(b, r, ct), dst, to(b, r, ct)); return 0; });
      // Between the two orders: k tile columns at a time, so each source row is read k * 512
      // bytes at once and k tiles are written at once (k = 1 is destination order, 32 source order);
      // -Dks=4 times only k = 4.
      for (String kk : System.getProperty("ks", "2,4,8,16").split(",")) {
        final long k = Long.parseLong(kk.trim());
        mode(ex, threads, "bulk k=" + k, (f,t) -> { for (long b=f; b<t; b++) for (long c0=0; c0<32; c0+=k) for (long r=0;r<8;r++)
            for (long ct=c0; ct<c0+k; ct++) MemorySegment.copy(src, from(b, r, ct), dst, to(b, r, ct), 512); return 0; });
        mode(ex, threads, "vec256 k=" + k, (f,t) -> { for (long b=f; b<t; b++) for (long c0=0; c0<32; c0+=k) for (long r=0;r<8;r++)
            for (long ct=c0; ct<c0+k; ct++) vec256(src, from(b, r, ct), dst, to(b, r, ct)); return 0; });
      }
      mode(ex, threads, "vec256 dst", (f,t) -> { for (long b=f; b<t; b++) for (long ct=0; ct<32; ct++) for (long r=0;r<8;r++)
          vec256(src, from(b, r, ct), dst, to(b, r, ct)); return 0; });
      mode(ex, threads, "vec256 src", (f,t) -> { for (long b=f; b<t; b++) for (long r=0;r<8;r++) for (long ct=0; ct<32; ct++)
          vec256(src, from(b, r, ct), dst, to(b, r, ct)); return 0; });
    }
    ex.shutdown();
  }
}
