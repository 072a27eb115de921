// A data loader's first batches in a fresh JVM: u8 NHWC [N,H,W,3] -> f32 NCHW normalised (the README's
// staging, 64 images of 224x224 unless given), call by call, to see what a cold engine costs on a
// machine with many cores: the first call, the first 16, how many calls and ms passed before the calls
// came within twice the median of the last half, and that median (give enough calls, 2,000 or more,
// that the last half runs after the JIT has compiled the vector kernel). -Dshow=K prints the first K.
// java --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED [-D...] \
//   -cp cli/target/tensorbuf.jar bench/experiments/ColdStaging.java [calls [N H W]]
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.TensorView;
import java.util.List;
public class ColdStaging {
  public static void main(String[] a) {
    long start = System.nanoTime();
    int calls = a.length > 0 ? Integer.parseInt(a[0]) : 16;
    long n = a.length > 3 ? Long.parseLong(a[1]) : 64, h = a.length > 3 ? Long.parseLong(a[2]) : 224,
        w = a.length > 3 ? Long.parseLong(a[3]) : 224;
    Allocator arena = Allocators.shared(); // never closed: the views live as long as the run
    TensorView pixels = TensorView.of(arena.allocate(n * h * w * 3), "u8[" + n + "," + h + "," + w + ",3]");
    pixels.buffer().segment().fill((byte) 7);
    TensorView input = TensorView.of(arena.allocate(n * 3 * h * w * 4), "f32[" + n + ",3," + h + "," + w + "]");
    input.buffer().segment().fill((byte) 0);
    ChannelAffine normalise = new ChannelAffine(1, List.of(1 / 58.395f, 1 / 57.12f, 1 / 57.375f),
        List.of(-123.675f / 58.395f, -116.28f / 57.12f, -103.53f / 57.375f));
    TensorView nchw = Ops.transpose(pixels, 0, 3, 1, 2);
    double[] ms = new double[calls];
    double first16 = 0;
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < calls; i++) {
      long s = System.nanoTime();
      CopyEngine.defaults().copy(nchw, input, normalise);
      ms[i] = (System.nanoTime() - s) / 1e6;
      if (i < Integer.getInteger("show", 16)) {
        first16 += ms[i];
        line.append(String.format("%.1f ", ms[i]));
      }
    }
    double[] late = java.util.Arrays.copyOfRange(ms, calls / 2, calls);
    java.util.Arrays.sort(late);
    double steady = late[late.length / 2];
    int settled = 0;
    double before = 0;
    while (settled < calls && ms[settled] > 2 * steady) {
      before += ms[settled++];
    }
    System.out.printf("calls slower than twice the steady median: the first %d, %.1f ms in all%n", settled, before);
    System.out.printf("cores %d, first calls (ms): %s%n", Runtime.getRuntime().availableProcessors(), line);
    System.out.printf("first %.1f ms, first 16 calls %.1f ms, median of the last %d calls %.2f ms, process to end %.1f ms%n",
        ms[0], first16, late.length, late[late.length / 2], (System.nanoTime() - start) / 1e6);
  }
}
