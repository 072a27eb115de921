package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.internal.Step;
import dev.tensorbuf.testing.ArenaPerTest;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.MapForm;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import dev.tensorbuf.views.XlaLayout;
import dev.tensorbuf.views.indexing.IndexingMap;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * A copy's plan is a function of the views' maps, never of the op that made them: a transpose of
 * a tiled view, the transposed layout made by {@link TensorView#of}, and the same map parsed from
 * its text and read through {@link ViewMap.Single} have one {@link MapForm} and one plan (same
 * steps, same kernels, same padding zeroed), and leave the same bytes, which a brute-force
 * element reference checks. A slice of a tiled view writes its elements and nothing else.
 */
class TiledMapPlansTest {
    private static final List<String> SHAPES = List.of("f32[3,5]{1,0:T(2,2)}", "bf16[2,16,12,20]{1,3,2,0:T(8,128)(2,1)}",
            "s8[37,300]{0,1:T(8,128)(4,1)}", "bf16[5,7]{0,1:T(2,128)(4,1)}", "u8[5,3]{1,0:T(4,4)(2,1)}",
            "f32[2,3,5]{2,1,0:T(2,2)}", "bf16[9,260]{1,0:T(8,128)}");
    @ArenaPerTest
    private Allocator allocator;
    private final CopyEngine engine = CopyEngine.of(1, true);

    @Test
    void aTransposedTiledViewPlansAsTheSameMapMadeTwoOtherWays() {
        Random rnd = new Random(36);
        for (String text : SHAPES) {
            ArrayShape shape = ArrayShape.parse(text);
            int[] perm = permutation(rnd, shape.rank());
            ArrayShape permuted = permuted(shape, perm);
            long bytes = Math.max(shape.physicalByteSize(), shape.arraySize());
            Map<String, Function<MemoryBuffer, TensorView>> ways = new LinkedHashMap<>();
            ways.put("a transpose of the tiled view", b -> Ops.transpose(TensorView.of(b, shape), perm));
            ways.put("the transposed layout", b -> TensorView.of(b, permuted));
            // A map alone cannot say it owns the padding (a slice of a bigger array reads the same): its maker says so.
            ways.put("its map from text", b -> TensorView.over(new ViewMap.Single(b,
                    IndexingMap.parse(permuted.toIndexingMap().toString()), true), ElementAccess.of(shape.dtype()),
                    Extents.toArray(permuted.dims())));
            TensorView values = counting(Extents.toArray(permuted.dims()));
            MapForm form = null;
            CopyPlan.Explanation into = null;
            CopyPlan.Explanation outOf = null;
            String bytesWritten = null;
            for (var way : ways.entrySet()) {
                String what = text + " " + Arrays.toString(perm) + ", " + way.getKey();
                MemoryBuffer buffer = allocator.allocate(bytes);
                buffer.segment().fill((byte) 0x77);
                TensorView dst = way.getValue().apply(buffer);
                MapForm.Tiled tiled = assertInstanceOf(MapForm.Tiled.class, dst.form(), what);
                assertEquals(permuted.dims(), tiled.xlaShape(shape.dtype()).orElseThrow(() -> new AssertionError(what
                        + ": no whole layout in " + tiled)).dims(), what);
                CopyPlan.Explanation in = engine.explain(values, dst);
                engine.copy(values, dst);
                TensorElements.of(values).forEachIndex(i -> assertEquals(TensorElements.of(values).getDouble(i), TensorElements.of(dst).getDouble(i), 0.0,
                        () -> what + ": element " + Arrays.toString(i)));
                checkPaddingZero(permuted, buffer, what);
                TensorView back = TensorView.strided(allocator.allocate(4 * values.elementCount()), DType.F32,
                        StridedLayout.packed(Extents.toArray(permuted.dims())));
                CopyPlan.Explanation out = engine.explain(dst, back);
                engine.copy(dst, back);
                TensorElements.of(values).forEachIndex(i -> assertEquals(TensorElements.of(values).getDouble(i), TensorElements.of(back).getDouble(i), 0.0,
                        () -> what + ": read back " + Arrays.toString(i)));
                String hex = HexFormat.of().formatHex(buffer.segment().toArray(ValueLayout.JAVA_BYTE));
                if (form == null) {
                    form = dst.form();
                    into = in;
                    outOf = out;
                    bytesWritten = hex;
                    assertEquals(CopyPlan.Explanation.Route.PLANNED, in.route(), what + ": " + in);
                    assertTrue(AccessCopies.steps(in).stream().anyMatch(s -> s instanceof Step.Zero), what + ": zeroes its padding");
                } else {
                    assertEquals(form, dst.form(), what + ": the same form");
                    assertEquals(into.route(), in.route(), what);
                    assertEquals(AccessCopies.steps(into), AccessCopies.steps(in), what + ": the same steps into it");
                    assertEquals(into.zeroedBytes(), in.zeroedBytes(), what);
                    assertEquals(AccessCopies.steps(outOf), AccessCopies.steps(out), what + ": the same steps out of it");
                    assertEquals(bytesWritten, hex, what + ": the same bytes");
                }
            }
        }
    }

    @Test
    void aSliceOfATiledViewWritesItsElementsOnly() {
        Random rnd = new Random(7);
        for (String text : SHAPES) {
            ArrayShape shape = ArrayShape.parse(text);
            for (int round = 0; round < 4; round++) {
                long[] start = new long[shape.rank()];
                long[] limit = new long[shape.rank()];
                long[] ones = new long[shape.rank()];
                Arrays.fill(ones, 1);
                for (int i = 0; i < start.length; i++) {
                    start[i] = rnd.nextLong(shape.dim(i));
                    limit[i] = start[i] + 1 + rnd.nextLong(shape.dim(i) - start[i]);
                }
                long bytes = Math.max(shape.physicalByteSize(), shape.arraySize());
                MemoryBuffer buffer = allocator.allocate(bytes);
                buffer.segment().fill((byte) 0x77);
                TensorView whole = TensorView.of(buffer, shape);
                TensorView slice = Ops.slice(whole, start, limit, ones);
                String what = text + " [" + Arrays.toString(start) + ", " + Arrays.toString(limit) + ") as " + slice.form();
                TensorView values = counting(Extents.toArray(slice.dims()));
                engine.copy(values, slice);
                // Brute force over every slot: an element of the slice holds its value, any other
                // slot (elements outside the slice, tile padding) its old bytes.
                int width = shape.dtype().byteWidth();
                byte[] memory = buffer.segment().toArray(ValueLayout.JAVA_BYTE);
                for (long slot = 0; slot < shape.physicalElementCount(); slot++) {
                    var index = shape.logicalIndex(slot);
                    boolean inside = index.isPresent();
                    for (int i = 0; inside && i < start.length; i++) {
                        inside = index.get().get(i) >= start[i] && index.get().get(i) < limit[i];
                    }
                    if (inside) {
                        long[] at = new long[start.length];
                        for (int i = 0; i < at.length; i++) {
                            at[i] = index.get().get(i) - start[i];
                        }
                        assertEquals(TensorElements.of(values).getDouble(at), TensorElements.of(slice).getDouble(at), 0.0, what + ": element " + index.get());
                    } else {
                        for (long b = slot * width; b < (slot + 1) * width; b++) {
                            assertEquals((byte) 0x77, memory[(int) b], what + ": slot " + slot + " " + index
                                    + " untouched");
                        }
                    }
                }
            }
        }
    }

    /** Every slot of {@code shape} that holds no element is zero. */
    private static void checkPaddingZero(ArrayShape shape, MemoryBuffer buffer, String what) {
        int width = shape.dtype().byteWidth();
        byte[] memory = buffer.segment().toArray(ValueLayout.JAVA_BYTE);
        long padding = 0;
        for (long slot = 0; slot < shape.physicalElementCount(); slot++) {
            if (shape.logicalIndex(slot).isEmpty()) {
                padding++;
                for (long b = slot * width; b < (slot + 1) * width; b++) {
                    assertEquals(0, memory[(int) b], what + ": padding slot " + slot);
                }
            }
        }
        assertTrue(padding > 0, what + ": has padding");
    }

    /** {@return f32 values 1, 2, 3, ... (mod 100, so s8 and u8 hold them), row-major over {@code dims}} */
    private TensorView counting(long[] dims) {
        TensorView v = TensorView.strided(allocator.allocate(4 * Math.max(1, Extents.elementCount("", Arrays.stream(dims)
                .boxed().toList()))), DType.F32, StridedLayout.packed(dims));
        float[] values = new float[(int) v.elementCount()];
        for (int i = 0; i < values.length; i++) {
            values[i] = 1 + i % 100;
        }
        TensorElements.of(v).copyFrom(values);
        return v;
    }

    private static int[] permutation(Random rnd, int n) {
        List<Integer> p = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            p.add(i);
        }
        Collections.shuffle(p, rnd);
        return p.stream().mapToInt(Integer::intValue).toArray();
    }

    /** {@return {@code shape} transposed by {@code perm} (output dim i is input dim perm[i]), as XLA's transposes that are bitcasts} */
    private static ArrayShape permuted(ArrayShape shape, int[] perm) {
        int[] outputOf = new int[perm.length];
        long[] dims = new long[perm.length];
        for (int i = 0; i < perm.length; i++) {
            outputOf[perm[i]] = i;
            dims[i] = shape.dim(perm[i]);
        }
        int[] m2m = shape.requireLayout().minorToMajor().stream().mapToInt(d -> outputOf[d]).toArray();
        return ArrayShape.of(shape.dtype(), dims).withLayout(XlaLayout.of(m2m).withTiles(shape.requireLayout().tiles()));
    }
}
