package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/** Random strided and tiled layout pairs, every one against the element loop. */
class CopyRandomTest {
    private static final DType[] TYPES = {DType.F32, DType.BF16, DType.U8, DType.F64, DType.S16, DType.C64, DType.C128};
    private static final String[] TILES = {"T(8,128)", "T(2,3)", "T(4)(2)", "T(8,128)(2,1)", "T(2,1)", "T(4,4)(2,2)",
        "T(3,5)", "T(1,8)", "T(16)"};
    private final Random rnd = new Random(CopyFixture.SEED + 1);

    private long[] dims(int rank) {
        long[] d = new long[rank];
        for (int i = 0; i < rank; i++) {
            d[i] = 1 + rnd.nextInt(rnd.nextInt(4) == 0 ? 40 : 13);
        }
        return d;
    }

    /** A random strided layout over {@code d}: any dimension order, gaps, reversals, broadcasts (source only). */
    private StridedLayout stridedLayout(long[] d, boolean source) {
        int rank = d.length;
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < rank; i++) {
            order.add(i);
        }
        Collections.shuffle(order, rnd);
        long[] strides = new long[rank];
        long stride = 1 + (rnd.nextInt(4) == 0 ? 1 : 0);
        long offset = 0;
        for (int k = rank - 1; k >= 0; k--) {
            int dim = order.get(k);
            if (source && rnd.nextInt(6) == 0) {
                strides[dim] = 0;
                continue;
            }
            strides[dim] = stride;
            if (rnd.nextInt(5) == 0) {
                strides[dim] = -stride;
                offset += (d[dim] - 1) * stride;
            }
            stride *= d[dim] + (rnd.nextInt(4) == 0 ? 1 : 0);
        }
        return StridedLayout.of(d, strides, offset + rnd.nextInt(3));
    }

    private String tiledText(DType t, long[] d) {
        StringBuilder sb = new StringBuilder(t.xlaName()).append('[');
        for (int i = 0; i < d.length; i++) {
            sb.append(i == 0 ? "" : ",").append(d[i]);
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < d.length; i++) {
            order.add(i);
        }
        if (rnd.nextBoolean()) {
            Collections.shuffle(order, rnd);
        } else {
            Collections.reverse(order);
        }
        sb.append("]{");
        for (int i = 0; i < order.size(); i++) {
            sb.append(i == 0 ? "" : ",").append(order.get(i));
        }
        if (rnd.nextInt(4) != 0) {
            sb.append(':').append(TILES[rnd.nextInt(TILES.length)]);
        }
        return sb.append('}').toString();
    }

    private Access side(Arena arena, DType t, long[] d, boolean source) {
        if (rnd.nextInt(3) == 0) {
            return CopyFixture.tiled(arena, tiledText(t, d));
        }
        return CopyFixture.strided(arena, t, stridedLayout(d, source));
    }

    @Test
    void randomLayoutPairsMatchTheElementLoop() {
        try (Arena arena = Arena.ofShared()) {
            for (int c = 0; c < 300; c++) {
                int rank = 1 + rnd.nextInt(4);
                long[] d = dims(rank);
                DType st = TYPES[rnd.nextInt(TYPES.length)];
                DType dt = rnd.nextInt(4) == 0 ? TYPES[rnd.nextInt(TYPES.length)] : st;
                if (st.kind() == DType.Kind.COMPLEX && dt.kind() != DType.Kind.COMPLEX) {
                    dt = st; // refused: the imaginary part would be lost (CopyPlanTest)
                }
                Access src = side(arena, st, d, true);
                Access dst = side(arena, dt, d, false);
                CopyFixture.check(src, dst, null, rnd, "case " + c + ": " + describe(src) + " -> " + describe(dst));
            }
        }
    }

    private static String describe(Access a) {
        return switch (a.addressing()) {
            case Access.Strided(StridedLayout l) -> a.dtype() + " " + l;
            case Access.Tiled(var s) -> s.toString();
            case Access.Mapped(var m) -> a.dtype() + " " + m;
        };
    }
}
