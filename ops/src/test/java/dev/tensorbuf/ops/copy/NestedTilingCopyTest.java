package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Every two-level tiling with tile entries 1 to 3 (ranks 1 and 2), over small shapes, copied to
 * and from a strided window with gaps, byte for byte against the element loop. Entries of 1 and
 * later tiles equal to what they tile make digits of radix 1, which once gave two digits of a
 * dimension the same weight: the planner then wrote tile padding outside the destination window.
 */
class NestedTilingCopyTest {
    private static final long[] ENTRIES = {1, 2, 3};
    private static final long[] SIZES = {1, 2, 3, 5};

    private static List<String> tiles() {
        List<String> out = new ArrayList<>();
        for (long a : ENTRIES) {
            out.add("(" + a + ")");
            for (long b : ENTRIES) {
                out.add("(" + a + "," + b + ")");
            }
        }
        return out;
    }

    private static List<long[]> shapes() {
        List<long[]> out = new ArrayList<>();
        for (long a : SIZES) {
            out.add(new long[] {a});
            for (long b : SIZES) {
                out.add(new long[] {a, b});
            }
        }
        return out;
    }

    /** Row-major with one element of gap after every row and at the end: writes outside the window show. */
    private static StridedLayout window(long[] d) {
        return d.length == 1 ? StridedLayout.of(d, new long[] {1}, 1)
                : StridedLayout.of(d, new long[] {d[1] + 1, 1}, 1);
    }

    @Test
    void everySmallTwoLevelTilingCopiesExactlyBothWays() {
        Random rnd = new Random(CopyFixture.SEED + 7);
        int layouts = 0;
        try (Arena arena = Arena.ofShared()) {
            for (long[] d : shapes()) {
                String dims = d.length == 1 ? "[" + d[0] + "]{0" : "[" + d[0] + "," + d[1] + "]{1,0";
                for (String first : tiles()) {
                    for (String second : tiles()) {
                        String text = "f32" + dims + ":T" + first + second + "}";
                        Access tiled = CopyFixture.tiled(arena, text);
                        Access strided = CopyFixture.strided(arena, DType.F32, window(d));
                        CopyFixture.check(tiled, strided, null, rnd, text + " -> window");
                        CopyFixture.check(strided, tiled, null, rnd, "window -> " + text);
                        layouts++;
                    }
                }
            }
        }
        if (layouts != 20 * 144) {
            throw new AssertionError(layouts + " layouts");
        }
    }
}
