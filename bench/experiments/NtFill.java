// Bytes written per second on THREADS threads, each filling its half of 250 MiB: 256-bit vector
// stores, MemorySegment.copy of CHUNK bytes from a cached block (the copy stub streams only from
// 2.5 MiB), glibc's memcpy and memset through a downcall on the same chunks, and the stub's streamed
// 2.5 MiB copies. glibc streams from its non-temporal threshold, which the environment can lower:
//   java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector bench/experiments/NtFill.java THREADS CHUNK
//   GLIBC_TUNABLES=glibc.cpu.x86_non_temporal_threshold=0x4040 java ... NtFill.java 2 1048576
import java.lang.foreign.*;
import java.lang.invoke.*;
import java.nio.ByteOrder;
import jdk.incubator.vector.*;
public class NtFill {
  static final MethodHandle MEMCPY, MEMSET;
  static {
    Linker l = Linker.nativeLinker();
    MEMCPY = l.downcallHandle(l.defaultLookup().find("memcpy").get(),
        FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG), Linker.Option.critical(false));
    MEMSET = l.downcallHandle(l.defaultLookup().find("memset").get(),
        FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG), Linker.Option.critical(false));
  }
  static final VectorSpecies<Float> S = FloatVector.SPECIES_256;
  static final long N = 250L << 20;
  static MemorySegment dst, block;
  static void vec(long from, long to) {
    FloatVector v = FloatVector.broadcast(S, 1.5f);
    for (long o = from; o < to; o += 32) v.intoMemorySegment(dst, o, ByteOrder.LITTLE_ENDIAN);
  }
  static void stub(long from, long to, long c) { for (long o = from; o < to; o += c) MemorySegment.copy(block, 0, dst, o, c); }
  static void gcpy(long from, long to, long c) throws Throwable { for (long o = from; o < to; o += c) { MemorySegment r = (MemorySegment) MEMCPY.invokeExact(dst.asSlice(o, c), block, c); } }
  static void gset(long from, long to, long c) throws Throwable { for (long o = from; o < to; o += c) { MemorySegment r = (MemorySegment) MEMSET.invokeExact(dst.asSlice(o, c), 7, c); } }
  interface Part { void run(long from, long to) throws Throwable; }
  static double time(Part p, int threads) throws Exception {
    long t0 = System.nanoTime();
    Thread[] ts = new Thread[threads];
    for (int i = 0; i < threads; i++) {
      long from = N / threads * i, to = N / threads * (i + 1);
      ts[i] = new Thread(() -> { try { p.run(from, to); } catch (Throwable e) { throw new RuntimeException(e); } });
      ts[i].start();
    }
    for (Thread t : ts) t.join();
    return N / ((System.nanoTime() - t0) / 1e9) / 1e9;
  }
  public static void main(String[] a) throws Exception {
    int threads = Integer.parseInt(a[0]);
    long c = Long.parseLong(a[1]);
    dst = Arena.global().allocate(N, 2 << 20); dst.fill((byte) 1);
    block = Arena.global().allocate(4 << 20, 4096); block.fill((byte) 3);
    String[] names = {"vector stores", "stub copy " + c, "glibc memcpy " + c, "glibc memset " + c, "stub copy 2.5MiB"};
    Part[] ps = {NtFill::vec, (f, t) -> stub(f, t, c), (f, t) -> gcpy(f, t, c), (f, t) -> gset(f, t, c), (f, t) -> stub(f, t, 5 << 19)};
    double[][] r = new double[ps.length][];
    for (int i = 0; i < ps.length; i++) r[i] = new double[9];
    for (int round = 0; round < 9; round++) for (int i = 0; i < ps.length; i++) r[i][round] = time(ps[i], threads);
    for (int i = 0; i < ps.length; i++) { java.util.Arrays.sort(r[i], 2, 9); System.out.printf("%-22s %5.1f GB/s written (median of 7 after 2)%n", names[i], r[i][5]); }
  }
}
