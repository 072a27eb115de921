// Start latency of a parked ForkJoinPool worker vs a polling thread (why CopyWorkers polls).
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;
import java.util.concurrent.locks.LockSupport;
public class Wake {
  public static void main(String[] a) throws Exception {
    ForkJoinPool p = new ForkJoinPool(1);
    long[] lat = new long[200];
    for (int i = 0; i < 200; i++) {
      Thread.sleep(2);
      long t0 = System.nanoTime();
      AtomicLong started = new AtomicLong();
      ForkJoinTask<?> f = p.submit(() -> started.set(System.nanoTime()));
      f.join();
      lat[i] = started.get() - t0;
    }
    java.util.Arrays.sort(lat);
    System.out.printf("FJP wake after 2 ms idle: median %d us, p90 %d us%n", lat[100] / 1000, lat[180] / 1000);
    // spinning worker
    AtomicLong go = new AtomicLong(); AtomicLong seen = new AtomicLong();
    Thread w = Thread.ofPlatform().daemon().start(() -> { long last = 0; while (true) { long g = go.get(); if (g != last) { seen.set(System.nanoTime()); last = g; } else Thread.onSpinWait(); } });
    for (int i = 0; i < 200; i++) {
      Thread.sleep(2);
      long before = seen.get();
      long t0 = System.nanoTime(); go.incrementAndGet();
      while (seen.get() == before) Thread.onSpinWait();
      lat[i] = seen.get() - t0;
    }
    java.util.Arrays.sort(lat);
    System.out.printf("spinning worker: median %d us, p90 %d us%n", lat[100] / 1000, lat[180] / 1000);
  }
}
