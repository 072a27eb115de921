import dev.tensorbuf.memory.*;
import dev.tensorbuf.ops.copy.*;
import dev.tensorbuf.views.*;
public class SubByteSpeed {
    public static void main(String[] a) {
        long n = Long.parseLong(a[0]);
        String from = a[1], to = a[2];
        CopyEngine eng = CopyEngine.of(2);
        try (Allocator arena = Allocators.shared()) {
            ArrayShape fs = ArrayShape.parse(from + "[" + n + "]" + (from.endsWith("4") ? "{0:E(4)}" : ""));
            ArrayShape ts = ArrayShape.parse(to + "[" + n + "]" + (to.endsWith("4") ? "{0:E(4)}" : ""));
            TensorView v = TensorView.of(arena.allocate(fs.physicalByteSize()), fs);
            TensorView d = TensorView.of(arena.allocate(ts.physicalByteSize()), ts);
            for (int rep = 0; rep < 3; rep++) {
                long t0 = System.nanoTime();
                eng.copy(v, d);
                double s = (System.nanoTime() - t0) / 1e9;
                System.out.printf("%s -> %s n=%d: %.2f s, %.1f Melem/s%n", fs, ts, n, s, n / s / 1e6);
            }
        }
    }
}
