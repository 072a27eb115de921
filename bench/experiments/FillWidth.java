// The broadcast f32[1,64,1,1] -> [32,64,112,112] (103 MB) as standalone per-run fills on one thread, in the
// thread's CPU time (GB/s counted read + written per CPU-second, as the bench counts): 256-bit against
// 512-bit vector stores, 8-byte scalar stores, each mode twice a round. `java --add-modules jdk.incubator.vector bench/experiments/FillWidth.java`
import java.lang.foreign.*;
import jdk.incubator.vector.*;
import java.lang.management.*;
import java.nio.ByteOrder;
public class FillWidth {
  static final ByteOrder O = ByteOrder.LITTLE_ENDIAN;
  static final long RUN = 112*112*4, N = 32L*64*RUN;
  static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();
  static void f512(MemorySegment d, long o, long n, long p) {
    LongVector v = LongVector.broadcast(LongVector.SPECIES_512, p);
    long end = o + n - 64; for (; o < end; o += 64) v.intoMemorySegment(d, o, O); v.intoMemorySegment(d, end, O);
  }
  static void f256(MemorySegment d, long o, long n, long p) {
    LongVector v = LongVector.broadcast(LongVector.SPECIES_256, p);
    long end = o + n - 32; for (; o < end; o += 32) v.intoMemorySegment(d, o, O); v.intoMemorySegment(d, end, O);
  }
  static void fscalar(MemorySegment d, long o, long n, long p) {
    long end = o + n; for (; o < end; o += 8) d.set(ValueLayout.JAVA_LONG_UNALIGNED, o, p);
  }
  interface F { void f(MemorySegment d, long o, long n, long p); }
  public static void main(String[] a) {
    MemorySegment d = Arena.global().allocate(N, 1 << 21);
    d.fill((byte) 1);
    String[] names = {"v256", "v512", "scalar", "v256b", "v512b"};
    F[] fs = {FillWidth::f256, FillWidth::f512, FillWidth::fscalar, FillWidth::f256, FillWidth::f512};
    for (int r = 0; r < 4; r++) {
      StringBuilder sb = new StringBuilder();
      for (int m = 0; m < fs.length; m++) {
        double[] t = new double[8];
        for (int k = 0; k < 11; k++) {
          long c0 = MX.getCurrentThreadCpuTime();
          for (long o = 0, i = 0; o < N; o += RUN, i++) fs[m].f(d, o, RUN, i * 0x0000000100000001L);
          long c1 = MX.getCurrentThreadCpuTime();
          if (k >= 3) t[k - 3] = (c1 - c0) / 1e9;
        }
        java.util.Arrays.sort(t);
        sb.append(String.format("%s %.1f  ", names[m], 2 * N / t[4] / 1e9));
      }
      System.out.println("GB/s counted per CPU-s: " + sb);
    }
  }
}
