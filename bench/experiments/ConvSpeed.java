// Plain type conversions through the engine, 16M elements each, best of 6: ns an element and GB/s counted.
// java --add-modules jdk.incubator.vector -cp cli/target/tensorbuf.jar bench/experiments/ConvSpeed.java [THREADS]
import java.lang.foreign.*;
import dev.tensorbuf.ops.copy.*;
import dev.tensorbuf.views.*;
public class ConvSpeed {
  public static void main(String[] a) {
    long n = 4096L * 4096;
    String[][] pairs = {{"f64","f32"},{"f32","f64"},{"s32","f32"},{"f32","s32"},{"s64","f64"},{"u8","f32"},{"f32","bf16"},{"c64","c128"},{"f32","f32"},{"s16","s32"},
        {"bf16","f32"},{"f32","f16"},{"f16","f32"}};
    CopyEngine e = CopyEngine.of(a.length > 0 ? Integer.parseInt(a[0]) : 1);
    for (String[] p : pairs) {
      DType s = DType.fromXlaName(p[0]), d = DType.fromXlaName(p[1]);
      MemorySegment src = Arena.global().allocate(n * s.byteWidth(), 64), dst = Arena.global().allocate(n * d.byteWidth(), 64);
      src.fill((byte) 0); dst.fill((byte) 1);
      Access as = Access.strided(src, s, StridedLayout.packed(n)), ad = Access.strided(dst, d, StridedLayout.packed(n));
      double best = 1e9;
      for (int r = 0; r < 6; r++) { long t = System.nanoTime(); e.copy(as, ad); best = Math.min(best, (System.nanoTime() - t) / 1e9); }
      System.out.printf("%s -> %s: %.1f ms, %.2f ns/element, %.1f GB/s counted%n", p[0], p[1], best * 1e3, best * 1e9 / n, n * (s.byteWidth() + d.byteWidth()) / best / 1e9);
    }
  }
}
