// Engine cases against MemorySegment.copy of the same bytes, timed in CPU time and alternating: GB/s
// per CPU-second (bytes read + written). On an oversubscribed host (load far above the cores) wall
// time measures the scheduler; CPU time still measures the kernels. With -Dtensorbuf.copy.parallelism=1
// the calling thread's CPU time, otherwise the process's (helpers included: run with
// -Dtensorbuf.copy.spinMicros=0 so idle helpers park instead of spinning; the process clock is coarse,
// so give -Dreps=30 or more; -Dwarm=N warm-up runs, 15 by default). Needs the built jar:
// java --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED -Dtensorbuf.copy.parallelism=1 \
//   -cp cli/target/tensorbuf.jar bench/experiments/EngineCpu.java ROUNDS CASE...
// A transpose far below the rest (0.4-0.7 against 10-25 GB/s per CPU-second) is VectorTranspose.block16
// left in C1 code: under load its tier-3 compile can fail ("out of virtual registers in linear scan")
// before C2 takes it, and it then stays at tier 2 for the JVM's life (-XX:+PrintCompilation shows it).
import java.lang.foreign.*;
import java.lang.management.*;
import java.util.*;
import dev.tensorbuf.bench.CopyCase;
import dev.tensorbuf.ops.copy.CopyEngine;
public class EngineCpu {
  static final int REPS = Integer.getInteger("reps", 5);
  static final int WARM = Integer.getInteger("warm", 15);
  static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();
  static long cpu() {
    return "1".equals(System.getProperty("tensorbuf.copy.parallelism")) ? MX.getCurrentThreadCpuTime() : OS.getProcessCpuTime();
  }
  public static void main(String[] a) {
    int rounds = Integer.parseInt(a[0]);
    for (int ci = 1; ci < a.length; ci++) {
      var p = CopyCase.byName(a[ci]).prepare(Arena.global(), CopyEngine.defaults());
      for (int w = 0; w < WARM; w++) { p.run(); p.runBaseline(); }
      List<Double> e = new ArrayList<>(), c = new ArrayList<>(), r = new ArrayList<>();
      for (int k = 0; k < rounds; k++) {
        long t0 = cpu();
        for (int i = 0; i < REPS; i++) p.run();
        long t1 = cpu();
        for (int i = 0; i < REPS; i++) p.runBaseline();
        long t2 = cpu();
        double ge = (double) REPS * p.bytesMoved() / (t1 - t0), gc = (double) REPS * p.bytesMoved() / (t2 - t1);
        e.add(ge); c.add(gc); r.add(ge / gc);
      }
      Collections.sort(e); Collections.sort(c); Collections.sort(r);
      System.out.printf("%-45s threads %s  engine %6.1f  copy %6.1f GB/s per CPU-second, ratio %.2f (%.2f-%.2f)%n", a[ci],
          System.getProperty("tensorbuf.copy.parallelism", "all"), e.get(rounds / 2), c.get(rounds / 2), r.get(rounds / 2),
          r.get(0), r.get(rounds - 1));
      p.close();
    }
    System.exit(0);
  }
}
