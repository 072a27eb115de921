import dev.tensorbuf.memory.*;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.*;
import dev.tensorbuf.views.*;
import java.util.*;
public class PieceSpeed {
    public static void main(String[] a) {
        long n = Long.parseLong(a[0]);
        CopyEngine eng = CopyEngine.of(2);
        try (Allocator arena = Allocators.shared()) {
            TensorView v = TensorView.of(arena.allocate(n), "u8[" + n + "]");
            TensorView d = TensorView.of(arena.allocate(n), "u8[" + n + "]");
            TensorView cc = Ops.concatenate(0, List.of(Ops.slice(v, new long[]{n / 2}, new long[]{n}, new long[]{1}), Ops.slice(v, new long[]{0}, new long[]{n / 2}, new long[]{1})));
            TensorView pd = Ops.pad(Ops.slice(v, new long[]{0}, new long[]{n - 8}, new long[]{1}), new long[]{4}, new long[]{4}, new long[]{0}, 0L);
            TensorView v2 = TensorView.of(arena.allocate(n), "u8[" + n / 1024 + ",1024]");
            TensorView d2 = TensorView.of(arena.allocate(n), "u8[" + n / 1024 + ",1024]");
            TensorView cc2 = Ops.concatenate(1, List.of(Ops.slice(v2, new long[]{0, 512}, new long[]{n / 1024, 1024}, new long[]{1, 1}), Ops.slice(v2, new long[]{0, 0}, new long[]{n / 1024, 512}, new long[]{1, 1})));
            for (int rep = 0; rep < 2; rep++) {
                long t0 = System.nanoTime(); eng.copy(cc, d); double s = (System.nanoTime() - t0) / 1e9;
                System.out.printf("concat dim0 u8[%d]: %.2f s, %.0f MB/s%n", n, s, n / s / 1e6);
                t0 = System.nanoTime(); eng.copy(pd, d); s = (System.nanoTime() - t0) / 1e9;
                System.out.printf("pad 4,4 u8[%d]: %.2f s, %.0f MB/s%n", n, s, n / s / 1e6);
                t0 = System.nanoTime(); eng.copy(cc2, d2); s = (System.nanoTime() - t0) / 1e9;
                System.out.printf("concat dim1 u8[%d,1024]: %.2f s, %.0f MB/s%n", n / 1024, s, n / s / 1e6);
                t0 = System.nanoTime(); eng.copy(v, d); s = (System.nanoTime() - t0) / 1e9;
                System.out.printf("plain copy u8[%d]: %.2f s, %.0f MB/s%n", n, s, n / s / 1e6);
            }
        }
    }
}
