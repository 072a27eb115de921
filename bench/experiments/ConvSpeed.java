// Plain type conversions through the engine, 16M elements each, best of 6: ns an element and GB/s counted.
// java --add-modules jdk.incubator.vector -cp cli/target/tensorbuf.jar [-Dn=ELEMENTS] bench/experiments/ConvSpeed.java [THREADS] [DATA] [PAIRS]
// -Dn: elements per conversion (default 16M, DRAM-sized); a small n (65536: in the caches) repeats each timed copy
// (below 1M elements) to about 256M elements, so the figure is the conversion's arithmetic more than memory.
// -Dhuge=true: source and destination from HugePageAllocator (advised for huge pages before the first touch, as
// NumPy advises its arrays from 4 MiB); the default is a shared arena's 4 KiB pages.
// -Ddoff=BYTES: the destination starts BYTES (0-4095) past its allocation, so its page offset differs from the source's.
// -Dstride: the source's stride in elements (default 1, dense); 2 reads every other element, a strided run.
// DATA: zero (the default), normal (N(0, 0.05) values, like weights; integers 0-99, pred 0-1) or random (random bits: NaNs,
// infinities and subnormals; only meaningful between floating-point types).
// PAIRS: comma-separated FROM>TO (XLA names); the default list below.
import java.lang.foreign.*;
import java.util.Random;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.copy.*;
import dev.tensorbuf.views.*;
public class ConvSpeed {
  public static void main(String[] a) {
    long n = Long.getLong("n", 4096L * 4096);
    long stride = Long.getLong("stride", 1);
    // Never closed: the buffers live as long as the run, as the global arena's did.
    Allocator alloc = Boolean.getBoolean("huge") ? dev.tensorbuf.interop.NativeMemory.hugePageAllocator() : Allocators.shared();
    String data = a.length > 1 ? a[1] : "zero";
    String list = a.length > 2 ? a[2] : "f64>f32,f32>f64,s32>f32,f32>s32,s64>f64,u8>f32,f32>bf16,c64>c128,f32>f32,s16>s32,"
        + "bf16>f32,f32>f16,f16>f32,f16>bf16,bf16>f16,f32>f8e4m3fn,bf16>f8e4m3fn,f8e4m3fn>bf16,f8e5m2>f32,f64>bf16,f64>f16,pred>f32,f32>pred";
    CopyEngine e = CopyEngine.of(a.length > 0 ? Integer.parseInt(a[0]) : 1);
    for (String pair : list.split(",")) {
      String[] p = pair.split(">");
      DType s = DType.fromXlaName(p[0]), d = DType.fromXlaName(p[1]);
      MemoryBuffer srcBuf = alloc.allocate(n * stride * s.byteWidth(), 64);
      long doff = Long.getLong("doff", 0);
      MemoryBuffer dstBuf = alloc.allocate(n * d.byteWidth() + doff, 64).slice(doff, n * d.byteWidth());
      MemorySegment src = srcBuf.segment(), dst = dstBuf.segment();
      src.fill((byte) 0); dst.fill((byte) 1);
      Random rnd = new Random(1);
      if (data.equals("random")) {
        for (long k = 0; k + 8 <= src.byteSize(); k += 8) src.set(ValueLayout.JAVA_LONG_UNALIGNED, k, rnd.nextLong());
      } else if (data.equals("normal")) {
        ElementAccess ea = ElementAccess.of(s);
        boolean real = s.kind() == DType.Kind.FLOAT || s.kind() == DType.Kind.COMPLEX;
        int mod = s == DType.PRED ? 2 : 100; // integers: small whole numbers every integer type holds
        for (long k = 0; k < n * stride; k++) {
          double g = rnd.nextGaussian();
          if (s.kind() == DType.Kind.COMPLEX) ea.setComplex(src, k, g * 0.05, 0);
          else ea.setDouble(src, k, real ? g * 0.05 : Math.floorMod((long) Math.rint(g * 100), mod));
        }
      }
      TensorView as = TensorView.strided(srcBuf, s, StridedLayout.of(new long[] {n}, new long[] {stride}));
      TensorView ad = TensorView.strided(dstBuf, d, StridedLayout.packed(n));
      double best = 1e9;
      long reps = n >= (1 << 20) ? 1 : (1L << 28) / n;
      for (int r = 0; r < 6; r++) { long t = System.nanoTime(); for (long q = 0; q < reps; q++) e.copy(as, ad); best = Math.min(best, (System.nanoTime() - t) / 1e9 / reps); }
      System.out.printf("%s -> %s: %.1f ms, %.2f ns/element, %.1f GB/s counted%n", p[0], p[1], best * 1e3, best * 1e9 / n, n * (s.byteWidth() + d.byteWidth()) / best / 1e9);
    }
  }
}
