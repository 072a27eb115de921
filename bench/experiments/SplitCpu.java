// Engine settings side by side in one JVM, in turns: each variant is its own engine (own helper
// threads) over its own copy of the case; per round and variant the median of REPS copies (after 3
// not counted), in wall time and in the CPU time of all the JVM's threads (helpers' polling
// included), and each variant's per-round ratio to the first. Variants: NAME:key=value,... with
// key spin (CopyEngine.Config.spinMicros), any other key a system property set while that variant's
// engine is made and first runs (for a switch an experiment reads there; the parked end wait in
// CopyWorkers was measured so, against the old polling one). -Dthreads=N (2). Needs the built jar:
// java --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED -cp bench/target/benchmarks.jar \
//   bench/experiments/SplitCpu.java ROUNDS CASE base nospin:spin=0 ...
import java.lang.management.*;
import java.util.*;
import dev.tensorbuf.bench.BenchMemory;
import dev.tensorbuf.bench.CopyCase;
import dev.tensorbuf.ops.copy.CopyEngine;
public class SplitCpu {
  static final int REPS = Integer.getInteger("reps", 9);
  static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();
  static long cpu() {
    long s = 0;
    for (long id : MX.getAllThreadIds()) s += Math.max(0, MX.getThreadCpuTime(id));
    return s;
  }
  public static void main(String[] a) {
    int rounds = Integer.parseInt(a[0]);
    String c = a[1];
    int n = a.length - 2;
    String[] names = new String[n];
    CopyCase.Prepared[] p = new CopyCase.Prepared[n];
    BenchMemory memory = BenchMemory.open();
    for (int i = 0; i < n; i++) {
      String[] v = a[i + 2].split(":", 2);
      names[i] = v[0];
      CopyEngine.Config cfg = CopyEngine.Config.of().withParallelism(Integer.getInteger("threads", 2));
      List<String> set = new ArrayList<>();
      if (v.length > 1) for (String kv : v[1].split(",")) {
        String[] x = kv.split("=", 2);
        if (x[0].equals("spin")) cfg = cfg.withSpinMicros(Long.parseLong(x[1]));
        else { System.setProperty(x[0], x[1]); set.add(x[0]); }
      }
      p[i] = CopyCase.byName(c).prepare(memory, CopyEngine.of(cfg));
      p[i].run();  // makes the executor and its workers with the properties set
      for (String k : set) System.clearProperty(k);
    }
    for (int w = 0; w < 10; w++) for (var x : p) { x.run(); }
    double[][] wall = new double[n][rounds], cpu = new double[n][rounds];
    for (int r = 0; r < rounds; r++) {
      for (int j = 0; j < n; j++) {
        int k = (j + r) % n;
        double[] ww = new double[REPS], cc = new double[REPS];
        for (int m = -3; m < REPS; m++) {
          long c0 = cpu(), t0 = System.nanoTime();
          p[k].run();
          long t1 = System.nanoTime(), c1 = cpu();
          if (m >= 0) { ww[m] = t1 - t0; cc[m] = c1 - c0; }
        }
        Arrays.sort(ww); Arrays.sort(cc);
        wall[k][r] = p[k].bytesMoved() / ww[REPS / 2];
        cpu[k][r] = p[k].bytesMoved() / cc[REPS / 2];
      }
    }
    System.out.printf("%s, %d rounds, GB/s moved (read + written): median (min-max by round), wall | per CPU-second, load %s%n", c, rounds,
        String.format("%.1f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()));
    for (int i = 0; i < n; i++) {
      double[] rw = new double[rounds], rc = new double[rounds];
      for (int r = 0; r < rounds; r++) { rw[r] = wall[i][r] / wall[0][r]; rc[r] = cpu[i][r] / cpu[0][r]; }
      System.out.printf("%-12s %s | %s   vs %s by round: wall %s | CPU %s%n", names[i], sum(wall[i]), sum(cpu[i]), names[0], rat(rw), rat(rc));
    }
    System.exit(0);
  }
  static String rat(double[] x) {
    double[] s = x.clone(); Arrays.sort(s);
    return String.format("%.2f (%.2f-%.2f, IQR %.2f-%.2f)", s[s.length / 2], s[0], s[s.length - 1], s[s.length / 4], s[3 * s.length / 4]);
  }
  static String sum(double[] x) {
    double[] s = x.clone(); Arrays.sort(s);
    return String.format("%5.1f (%4.1f-%4.1f)", s[s.length / 2], s[0], s[s.length - 1]);
  }
}
