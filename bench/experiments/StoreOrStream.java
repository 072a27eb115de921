// Ordinary stores against the copy stub's streaming stores, one thread, timed in the thread's CPU time
// (GB/s per CPU-second, bytes read + written): on an oversubscribed host wall time measures the
// scheduler, CPU time still measures the loop. The broadcast f32[1,64,1,1] -> [32,64,112,112] as
// 512-bit vector stores per channel run, against one image filled and 31 streaming copies of it
// (3.2 MB each, above the stub's 2.5 MiB threshold); f32[4096,4096] <-> T(8,128) as one
// MemorySegment.copy per 512-byte tile row, against the same rows staged in a scratch that leaves in
// streaming copies of SCRATCH_BYTES. Byte fills (no f32 broadcast can use them unless its four bytes
// are equal) show what the fill stub gains on one long call that it loses on 50 KB runs. Each variant
// alternates with the others, ROUNDS times.
// java --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED bench/experiments/StoreOrStream.java [ROUNDS [SCRATCH_BYTES]]
import java.lang.foreign.*;
import java.lang.management.*;
import java.nio.ByteOrder;
import java.util.*;
import jdk.incubator.vector.*;
public class StoreOrStream {
  static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
  static final VectorSpecies<Float> S = FloatVector.SPECIES_512;
  static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();
  static final long RUN = 112 * 112 * 4, IMG = 64 * RUN, BN = 32 * IMG, TN = 4096L * 4096 * 4;
  static final float[] CH = new float[64];
  static MemorySegment alloc(long n) { MemorySegment m = Arena.global().allocate(n, 2 << 20); m.fill((byte) 1); return m; }
  static double cpuSeconds(Runnable r, int reps) {
    long t0 = MX.getCurrentThreadCpuTime();
    for (int i = 0; i < reps; i++) r.run();
    return (MX.getCurrentThreadCpuTime() - t0) / 1e9 / reps;
  }
  static void fillImage(MemorySegment d, long at) {
    for (int c = 0; c < 64; c++) {
      FloatVector v = FloatVector.broadcast(S, CH[c]);
      for (long o = at + c * RUN, e = o + RUN; o < e; o += 64) v.intoMemorySegment(d, o, LE);
    }
  }
  /** Tiles [t0, t1) of T(8,128) in destination order, written at their offset less outBase. */
  static void tiles(MemorySegment src, long t0, long t1, MemorySegment out, long outBase) {
    for (long t = t0; t < t1; t++) {
      long d = t * 4096 - outBase, s = ((t >> 5) * 8 * 4096 + (t & 31) * 128) * 4;
      for (int r = 0; r < 8; r++) MemorySegment.copy(src, s + r * 16384L, out, d + r * 512, 512);
    }
  }
  /** Tile rows [r0, r1) of T(8,128) back to rows, in destination order, written at their offset less outBase. */
  static void untile(MemorySegment src, long r0, long r1, MemorySegment out, long outBase) {
    for (long tr = r0; tr < r1; tr++) for (int r = 0; r < 8; r++) for (int tc = 0; tc < 32; tc++)
      MemorySegment.copy(src, (tr * 32 + tc) * 4096 + r * 512, out, ((tr * 8 + r) * 4096 + tc * 128) * 4 - outBase, 512);
  }
  public static void main(String[] a) {
    int rounds = a.length > 0 ? Integer.parseInt(a[0]) : 7;
    long scratchBytes = a.length > 1 ? Long.parseLong(a[1]) : 3L << 20;
    if (scratchBytes < 131072 || scratchBytes % 131072 != 0) throw new IllegalArgumentException("SCRATCH_BYTES: a multiple of 131072 (one tile row)");
    for (int c = 0; c < 64; c++) CH[c] = c * 0.5f;
    MemorySegment bd = alloc(BN), bs = alloc(BN), ts = alloc(TN), td = alloc(TN), scratch = alloc(scratchBytes);
    long tilesPer = scratchBytes / 4096, rowsPer = scratchBytes / 131072;
    Map<String, Runnable> parts = new LinkedHashMap<>();
    Map<String, Long> bytes = new HashMap<>();
    parts.put("broadcast: copy of the same bytes", () -> MemorySegment.copy(bs, 0, bd, 0, BN));
    parts.put("broadcast: vector stores", () -> { for (int i = 0; i < 32; i++) fillImage(bd, i * IMG); });
    parts.put("broadcast: 1 image + 31 streaming copies", () -> { fillImage(bd, 0); for (int i = 1; i < 32; i++) MemorySegment.copy(bd, 0, bd, i * IMG, IMG); });
    parts.put("broadcast: MemorySegment.fill, one call", () -> bd.fill((byte) 3));
    parts.put("broadcast: MemorySegment.fill per run", () -> { for (long o = 0; o < BN; o += RUN) bd.asSlice(o, RUN).fill((byte) 3); });
    for (String k : parts.keySet()) bytes.put(k, 2 * BN);
    parts.put("tiles: copy of the same bytes", () -> MemorySegment.copy(ts, 0, td, 0, TN));
    parts.put("tiles: 512-byte copies", () -> tiles(ts, 0, 16384, td, 0));
    parts.put("tiles: staged, streamed out", () -> { for (long t = 0; t < 16384; t += tilesPer) { long e = Math.min(16384, t + tilesPer); tiles(ts, t, e, scratch, t * 4096); MemorySegment.copy(scratch, 0, td, t * 4096, (e - t) * 4096); } });
    parts.put("untile: 512-byte copies", () -> untile(td, 0, 512, ts, 0));
    parts.put("untile: staged, streamed out", () -> { for (long r = 0; r < 512; r += rowsPer) { long e = Math.min(512, r + rowsPer); untile(td, r, e, scratch, r * 131072); MemorySegment.copy(scratch, 0, ts, r * 131072, (e - r) * 131072); } });
    for (String k : parts.keySet()) bytes.putIfAbsent(k, 2 * TN);
    for (Runnable r : parts.values()) cpuSeconds(r, 15);
    Map<String, List<Double>> got = new LinkedHashMap<>();
    for (int round = 0; round < rounds; round++)
      for (var e : parts.entrySet()) got.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(bytes.get(e.getKey()) / cpuSeconds(e.getValue(), 8) / 1e9);
    for (var e : got.entrySet()) {
      List<Double> v = e.getValue(); Collections.sort(v);
      System.out.printf("%-42s %6.1f GB/s per CPU-second (%.1f-%.1f)%n", e.getKey(), v.get(v.size() / 2), v.get(0), v.get(v.size() - 1));
    }
  }
}
