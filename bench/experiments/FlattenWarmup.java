// The flatten(transpose) copies of Small.java in its order (64 B made once, 64 B per call, then 1 KiB
// made once), the last timed in four windows of 0.3 s: how long a JVM takes to reach its steady state.
// java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -cp cli/target/tensorbuf.jar \
//     bench/experiments/FlattenWarmup.java

import dev.tensorbuf.views.*;
import dev.tensorbuf.ops.*;
import dev.tensorbuf.ops.copy.*;
import dev.tensorbuf.memory.*;
public class FlattenWarmup {
  static final CopyEngine E = CopyEngine.defaults();
  static double time(Runnable r, double seconds) {
    long end = System.nanoTime() + (long)(seconds*1e9); long n=0; long t0=System.nanoTime();
    while (System.nanoTime() < end) { for (int i=0;i<100;i++) r.run(); n+=100; }
    return (System.nanoTime()-t0)/1e3/n;
  }
  public static void main(String[] a) {
    var alloc = Allocators.shared("probe");
    var s1 = TensorView.of(alloc.allocate(64), "f32[2,8]{1,0}");
    var d1 = TensorView.of(alloc.allocate(64), "f32[16]{0}");
    var v1 = Ops.reshape(Ops.transpose(s1, 1, 0), 16);
    System.out.printf("64B prebuilt %.3f%n", time(() -> E.copy(v1, d1), 1.0));
    System.out.printf("64B per call %.3f%n", time(() -> E.copy(Ops.reshape(Ops.transpose(s1, 1, 0), 16), d1), 1.0));
    var s = TensorView.of(alloc.allocate(1024), "f32[8,32]{1,0}");
    var d = TensorView.of(alloc.allocate(1024), "f32[256]{0}");
    var v = Ops.reshape(Ops.transpose(s, 1, 0), 256);
    for (int k=0;k<4;k++) System.out.printf("1KiB prebuilt %.3f%n", time(() -> E.copy(v, d), 0.3));
  }
}
