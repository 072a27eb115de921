package dev.tensorbuf.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Random view factories and element access with mostly invalid arguments: strided layouts with
 * wild sizes, strides and offsets over buffers too small, XLA shapes with tiles and padding, and
 * indices of the wrong rank or out of range. Only the documented exceptions, with messages; an
 * in-range index of a view that was made never fails for bounds, and reads the element the
 * layout's formula names (brute force on the buffer for strided views).
 */
class TensorViewAbuseTest {
    private static final int VIEWS = 6_000;
    private static final DType[] TYPES = {
        DType.F32, DType.F64, DType.S8, DType.U16, DType.S32, DType.BF16, DType.PRED, DType.S4, DType.U1,
        DType.F4E2M1FN, DType.C64, DType.TOKEN, DType.OPAQUE,
    };
    private static final long[] WILD = {-1, Long.MIN_VALUE, Long.MAX_VALUE, 1L << 40, 1L << 62, 0};

    private final Map<String, Integer> outcomes = new TreeMap<>();

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void randomViewsAndIndicesThrowOnlyDocumentedExceptionsAndReadTheirElements() {
        long seed = TestSeed.of("TensorViewAbuseTest");
        SplittableRandom random = new SplittableRandom(seed);
        try (Allocator arena = Allocators.confined()) {
            for (int n = 0; n < VIEWS; n++) {
                MemoryBuffer buffer = arena.allocate(random.nextInt(4) == 0 ? random.nextInt(8) : random.nextInt(2048));
                if (random.nextInt(10) == 0) {
                    buffer = buffer.asReadOnly();
                }
                MemoryBuffer b = buffer;
                TensorView[] made = new TensorView[1];
                StridedLayout[] layout = new StridedLayout[1];
                String factory = random.nextBoolean() ? "strided" : "of(xla)";
                String[] what = {factory};
                attempt(factory, seed, n, what, () -> {
                    if (factory.equals("strided")) {
                        stridedCase(random, b, made, layout, what);
                    } else {
                        xlaCase(random, b, made, what);
                    }
                });
                TensorView view = made[0];
                if (view == null) {
                    continue;
                }
                for (int k = 0; k < 8; k++) {
                    long[] index = index(random, view);
                    boolean inRange = inRange(view, index);
                    String call = "get/set " + Arrays.toString(index) + " of " + view;
                    attempt(inRange ? "access in range" : "access out of range", seed, n, new String[] {call}, () -> {
                        long bits = TensorElements.of(view).getBits(index);
                        if (layout[0] != null && view.access().storageBits() >= 8) {
                            long at = layout[0].offsetOf(index);
                            assertEquals(view.access().getBits(b.segment(), at), bits, call + ": element at offset " + at);
                        }
                        TensorElements.of(view).setBits(bits, index); // read-only buffers: FFM's IllegalArgumentException
                        assertEquals(bits, TensorElements.of(view).getBits(index), call);
                        assertTrue(inRange, "accepted " + call);
                    });
                }
            }
        }
        System.out.println("TensorViewAbuseTest outcomes " + outcomes);
        for (String expected : new String[] {"strided: ok", "of(xla): ok", "access in range: ok",
            "access out of range: IndexOutOfBoundsException", "strided: IllegalArgumentException"}) {
            assertTrue(outcomes.containsKey(expected), () -> expected + " never happened: " + outcomes);
        }
    }

    private static void stridedCase(SplittableRandom random, MemoryBuffer buffer, TensorView[] made, StridedLayout[] layout,
                                    String[] what) {
        int rank = random.nextInt(5);
        long[] sizes = new long[rank];
        long[] strides = new long[rank];
        for (int d = 0; d < rank; d++) {
            sizes[d] = random.nextInt(12) == 0 ? WILD[random.nextInt(WILD.length)] : random.nextInt(6);
            strides[d] = random.nextInt(12) == 0 ? WILD[random.nextInt(WILD.length)] : random.nextInt(-12, 13);
        }
        long offset = random.nextInt(12) == 0 ? WILD[random.nextInt(WILD.length)] : random.nextInt(80);
        DType type = TYPES[random.nextInt(TYPES.length)];
        what[0] = "strided " + type + " sizes " + Arrays.toString(sizes) + " strides " + Arrays.toString(strides)
                + " offset " + offset + " over " + buffer.byteSize() + " bytes";
        layout[0] = StridedLayout.of(sizes, strides, offset);
        made[0] = TensorView.strided(buffer, type, layout[0]);
    }

    private static void xlaCase(SplittableRandom random, MemoryBuffer buffer, TensorView[] made, String[] what) {
        int rank = 1 + random.nextInt(3);
        StringBuilder text = new StringBuilder(
                new String[] {"f32", "s8", "bf16", "s4", "pred", "u32", "token"}[random.nextInt(7)]).append('[');
        for (int d = 0; d < rank; d++) {
            text.append(d > 0 ? "," : "").append(random.nextInt(12) == 0 ? "-1" : Integer.toString(random.nextInt(7)));
        }
        text.append("]{");
        int[] order = random.ints(0, rank).distinct().limit(rank).toArray();
        for (int d = 0; d < rank; d++) {
            text.append(d > 0 ? "," : "").append(random.nextInt(20) == 0 ? rank : order[d]);
        }
        if (random.nextBoolean()) {
            text.append(":T(").append(1 + random.nextInt(4));
            if (random.nextBoolean()) {
                text.append(',').append(random.nextInt(20) == 0 ? 0 : 1 + random.nextInt(4));
            }
            text.append(')');
            if (random.nextInt(4) == 0) {
                text.append("(2,1)");
            }
        }
        if (random.nextInt(5) == 0) {
            text.append("E(").append(new int[] {0, 4, 8, 3}[random.nextInt(4)]).append(')');
        }
        text.append('}');
        what[0] = text + " over " + buffer.byteSize() + " bytes";
        made[0] = TensorView.of(buffer, text.toString());
    }

    private static long[] index(SplittableRandom random, TensorView view) {
        int rank = random.nextInt(10) == 0 ? view.rank() + 1 - random.nextInt(3) : view.rank();
        long[] index = new long[Math.max(0, rank)];
        for (int d = 0; d < index.length; d++) {
            long dim = d < view.rank() ? view.dims().get(d) : 3;
            index[d] = switch (random.nextInt(10)) {
                case 0 -> -1;
                case 1 -> dim;
                case 2 -> WILD[random.nextInt(WILD.length)];
                default -> dim <= 0 ? 0 : random.nextLong(dim);
            };
        }
        return index;
    }

    private static boolean inRange(TensorView view, long[] index) {
        if (index.length != view.rank()) {
            return false;
        }
        for (int d = 0; d < index.length; d++) {
            if (index[d] < 0 || index[d] >= view.dims().get(d)) {
                return false;
            }
        }
        return true;
    }

    private void attempt(String name, long seed, int n, String[] what, Runnable code) {
        RuntimeException thrown;
        try {
            code.run();
            outcomes.merge(name + ": ok", 1, Integer::sum);
            return;
        } catch (RuntimeException e) {
            thrown = e;
        }
        String message = thrown.getMessage();
        boolean documented = thrown instanceof IllegalArgumentException || thrown instanceof IndexOutOfBoundsException
                || thrown instanceof IllegalStateException || thrown instanceof UnsupportedOperationException;
        if (!documented || message == null || message.isBlank()) {
            fail("case " + n + " (seed " + seed + "): " + what[0] + " threw " + thrown, thrown);
        }
        if (name.equals("access in range") && thrown instanceof IndexOutOfBoundsException) {
            fail("case " + n + " (seed " + seed + "): in-range " + what[0] + " left the buffer: " + thrown, thrown);
        }
        outcomes.merge(name + ": " + thrown.getClass().getSimpleName(), 1, Integer::sum);
    }
}
