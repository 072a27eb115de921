// fill and copy of 103 MB with and without madvise(MADV_HUGEPAGE); prints how much the kernel granted.
import java.lang.foreign.*;
import java.lang.invoke.MethodHandle;
public class Huge2 {
  public static void main(String[] a) throws Throwable {
    Linker l = Linker.nativeLinker();
    MethodHandle mad = l.downcallHandle(l.defaultLookup().find("madvise").get(), FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    long n = 32L*64*112*112*4;
    MemorySegment plain = Arena.global().allocate(n, 2 << 20);
    MemorySegment huge = Arena.global().allocate(n, 2 << 20);
    System.out.println("madvise rc " + (int) mad.invokeExact(huge, n, 14));
    plain.fill((byte)1); huge.fill((byte)1);
    for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/meminfo"))) if (line.startsWith("AnonHuge")) System.out.println(line);
    MemorySegment src = Arena.global().allocate(n, 2 << 20); src.fill((byte)2);
    MemorySegment hsrc = Arena.global().allocate(n, 2 << 20); int rc = (int) mad.invokeExact(hsrc, n, 14); hsrc.fill((byte)2);
    for (int round = 0; round < 4; round++) {
      for (int h = 0; h < 2; h++) {
        MemorySegment d = h == 0 ? plain : huge, s = h == 0 ? src : hsrc;
        double best = 1e9, bestc = 1e9;
        for (int r = 0; r < 10; r++) { long t0 = System.nanoTime(); d.fill((byte) r); best = Math.min(best, (System.nanoTime() - t0) / 1e9); }
        for (int r = 0; r < 10; r++) { long t0 = System.nanoTime(); MemorySegment.copy(s, 0, d, 0, n); bestc = Math.min(bestc, (System.nanoTime() - t0) / 1e9); }
        System.out.printf("huge=%b fill %.1f GB/s written, copy %.1f GB/s r+w%n", h == 1, n / best / 1e9, 2 * n / bestc / 1e9);
      }
    }
  }
}
