// Bytes written per second by MemorySegment.copy from a cached block, by chunk size: the copy
// stub streams (non-temporal stores) from 2,621,440 bytes per call.
import java.lang.foreign.*;
public class Thr {
  public static void main(String[] a) throws Exception {
    long n = 256L << 20;
    Arena arena = Arena.global();
    MemorySegment dst = arena.allocate(n, 4096); dst.fill((byte)1);
    MemorySegment block = arena.allocate(8 << 20, 4096); block.fill((byte)3);
    long[] sizes = {256<<10, 1<<20, 2<<20, (5<<20)/2 - 4096, (5<<20)/2, 3<<20, 4<<20, 8<<20};
    for (int round = 0; round < 3; round++)
    for (long sz : sizes) {
      double best = 1e9;
      for (int r = 0; r < 8; r++) {
        long t0 = System.nanoTime();
        for (long o = 0; o + sz <= n; o += sz) MemorySegment.copy(block, 0, dst, o, sz);
        best = Math.min(best, (System.nanoTime() - t0) / 1e9);
      }
      if (round == 2) System.out.printf("chunk %8d KiB: %.1f GB/s written%n", sz >> 10, (n - n % sz) / best / 1e9);
    }
  }
}
