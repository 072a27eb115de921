// The padded tiling f32[1000,1000] -> T(8,128) in cache (8 MB read + written), one 512-byte
// MemorySegment.copy per tile row, on one thread against two polling threads that each copy half
// the tile rows: the same half every call, or (`swap`) the halves traded every call, so each
// thread's half was last touched by the other core. Why the copy engine keeps each thread's share
// of a batch on that thread (CopyWorkers).
// java bench/experiments/Halves.java [swap]
import java.lang.foreign.*;
import java.util.concurrent.atomic.*;
public class Halves {
  static void tileRows(MemorySegment s, MemorySegment d, long b0, long b1) {
    for (long b = b0; b < b1; b++) for (long ct = 0; ct < 8; ct++) { long w = ct < 7 ? 512 : 416;
      for (long r = 0; r < 8; r++) MemorySegment.copy(s, (b*8+r)*4000 + ct*512, d, (b*8*8 + ct*8 + r)*512, w); }
  }
  static volatile long go = 0;
  static final AtomicLong done = new AtomicLong();
  public static void main(String[] a) {
    MemorySegment s = Arena.global().allocate(4_000_000, 4096), d = Arena.global().allocate(125*8*8*512, 4096);
    s.fill((byte) 1); d.fill((byte) 2);
    boolean swap = a.length > 0 && a[0].equals("swap");
    Thread helper = new Thread(() -> {
      long seen = 0;
      while (true) {
        long g;
        while ((g = go) == seen) Thread.onSpinWait();
        seen = g;
        if (swap && (g & 1) == 1) tileRows(s, d, 0, 62); else tileRows(s, d, 62, 125);
        done.incrementAndGet();
      }
    });
    helper.setDaemon(true);
    helper.start();
    for (int round = 0; round < 4; round++) {
      double[] one = new double[9], two = new double[9];
      for (int k = 0; k < 9; k++) {
        long t0 = System.nanoTime();
        for (int it = 0; it < 200; it++) tileRows(s, d, 0, 125);
        one[k] = (System.nanoTime() - t0) / 200.0;
        t0 = System.nanoTime();
        for (int it = 0; it < 200; it++) {
          long want = done.get() + 1;
          go = go + 1;
          if (swap && (go & 1) == 1) tileRows(s, d, 62, 125); else tileRows(s, d, 0, 62);
          while (done.get() < want) Thread.onSpinWait();
        }
        two[k] = (System.nanoTime() - t0) / 200.0;
      }
      java.util.Arrays.sort(one);
      java.util.Arrays.sort(two);
      System.out.printf("one thread %.1f us, two threads%s %.1f us%n", one[4] / 1e3, swap ? " (halves traded every call)" : "", two[4] / 1e3);
    }
  }
}
