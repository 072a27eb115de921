// The first copies in a fresh JVM: f32 NCHW -> NHWC [32,64,112,112] (103 MB each way; other dims as
// N C H W after the call count), timed call by call, to see what the JIT costs before the kernels
// are compiled. Run it three ways:
//   (no property)                                  vector kernels from the first call (the default)
//   -Dtensorbuf.copy.scalarFirstBytes=268435456    scalar until a kernel has moved 256 MiB (convert, run)
//   -Dtensorbuf.copy.vector=false                  scalar kernels only
// java --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED [-D...] \
//   -cp cli/target/tensorbuf.jar bench/experiments/FirstCopies.java [calls [N C H W]]
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.copy.*;
import dev.tensorbuf.views.*;
import dev.tensorbuf.views.StridedLayout.TensorFormat;
public class FirstCopies {
  static final Allocator A = Allocators.shared(); // never closed: the views live as long as the run
  public static void main(String[] a) {
    int calls = a.length > 0 ? Integer.parseInt(a[0]) : 30;
    TensorView tiny = side(1, 64, 4, 4, TensorFormat.NCHW), tinyOut = side(1, 64, 4, 4, TensorFormat.NHWC);
    long t0 = System.nanoTime();
    CopyEngine.defaults().copy(tiny, tinyOut); // class loading and the first plan, kept out of the calls below
    System.out.printf("first tiny copy (class loading): %.1f ms%n", (System.nanoTime() - t0) / 1e6);
    int[] d = a.length > 4 ? new int[] {Integer.parseInt(a[1]), Integer.parseInt(a[2]), Integer.parseInt(a[3]),
        Integer.parseInt(a[4])} : new int[] {32, 64, 112, 112};
    TensorView src = side(d[0], d[1], d[2], d[3], TensorFormat.NCHW), dst = side(d[0], d[1], d[2], d[3], TensorFormat.NHWC);
    double total = 0;
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < calls; i++) {
      long s = System.nanoTime();
      CopyEngine.defaults().copy(src, dst);
      double ms = (System.nanoTime() - s) / 1e6;
      total += ms;
      line.append(String.format("%.0f ", ms));
    }
    System.out.println("calls (ms): " + line);
    System.out.printf("total %.0f ms for %d calls%n", total, calls);
  }
  static TensorView side(int n, int c, int h, int w, TensorFormat f) {
    MemoryBuffer m = A.allocate(4L * n * c * h * w, 64);
    m.segment().fill((byte) 1);
    return TensorView.strided(m, DType.F32, StridedLayout.of(f, n, c, h, w));
  }
}
