// 103 MB written by MemorySegment.fill, 512-bit vector stores and MemorySegment.copy, on mmap memory advised
// MADV_HUGEPAGE before the first touch (as NumPy and HugePageAllocator do) and on plain mmap memory; prints
// how much the kernel backed with huge pages. java --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED bench/experiments/Huge3.java
import java.lang.foreign.*;
import java.lang.invoke.MethodHandle;
import jdk.incubator.vector.*;
import java.nio.ByteOrder;
public class Huge3 {
  static final Linker L = Linker.nativeLinker();
  static final MethodHandle MMAP = L.downcallHandle(L.defaultLookup().find("mmap").get(), FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
  static final MethodHandle MADV = L.downcallHandle(L.defaultLookup().find("madvise").get(), FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
  static MemorySegment map(long n, boolean huge) throws Throwable {
    long len = n + (2 << 20);
    MemorySegment m = (MemorySegment) MMAP.invokeExact(MemorySegment.NULL, len, 3, 0x22, -1, 0L);
    long a = (m.address() + (2 << 20) - 1) & -(2L << 20);
    MemorySegment s = MemorySegment.ofAddress(a).reinterpret(n);
    if (huge) System.out.println("madvise " + (int) MADV.invokeExact(s, n, 14));
    return s;
  }
  static final VectorSpecies<Long> S = LongVector.SPECIES_512;
  static void vec(MemorySegment d, long n) { LongVector v = LongVector.broadcast(S, 0x3f0000003f000000L); for (long o = 0; o < n; o += 64) v.intoMemorySegment(d, o, ByteOrder.LITTLE_ENDIAN); }
  public static void main(String[] a) throws Throwable {
    long n = 32L*64*112*112*4;
    MemorySegment[] d = {map(n, false), map(n, true)}, s = {map(n, false), map(n, true)};
    for (int h = 0; h < 2; h++) { d[h].fill((byte)1); s[h].fill((byte)2); }
    for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/smaps_rollup"))) if (line.startsWith("AnonHuge")) System.out.println(line);
    for (int round = 0; round < 3; round++) {
      for (int h = 0; h < 2; h++) {
        double bf = 1e9, bc = 1e9, bv = 1e9;
        for (int r = 0; r < 10; r++) { long t0 = System.nanoTime(); d[h].fill((byte) r); bf = Math.min(bf, (System.nanoTime() - t0) / 1e9); }
        for (int r = 0; r < 10; r++) { long t0 = System.nanoTime(); MemorySegment.copy(s[h], 0, d[h], 0, n); bc = Math.min(bc, (System.nanoTime() - t0) / 1e9); }
        for (int r = 0; r < 10; r++) { long t0 = System.nanoTime(); vec(d[h], n); bv = Math.min(bv, (System.nanoTime() - t0) / 1e9); }
        System.out.printf("huge=%b fill %.1f GB/s written, vector stores %.1f written, copy %.1f GB/s r+w%n", h == 1, n / bf / 1e9, n / bv / 1e9, 2 * n / bc / 1e9);
      }
    }
  }
}
