package dev.tensorbuf.ops.indexing;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.ops.hlo.HloInstruction;
import dev.tensorbuf.ops.hlo.HloModule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.StringJoiner;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * For random small shapes and attributes, each op's input-to-output maps and output-to-input
 * maps describe the same relation, checked by brute force over every point ({@link Agreement}).
 * Runtime values (offsets, gather start indices) are drawn at random inside the range the op
 * clamps them to. Seed: {@code -Dtensorbuf.seed=N}.
 */
class InputToOutputPropertyTest {
    private static final long SEED = Long.getLong("tensorbuf.seed", 2024_04L);
    private static final int CASES = 40;

    @BeforeAll
    static void printSeed() {
        System.out.println("[input-to-output properties] seed " + SEED + " (-Dtensorbuf.seed=N to repeat)");
    }

    private static final String ADD = """
            add {
              x = f32[] parameter(0)
              y = f32[] parameter(1)
              ROOT s = f32[] add(x, y)
            }
            """;

    private static final String ADD2 = """
            add2 {
              x0 = f32[] parameter(0)
              x1 = f32[] parameter(1)
              y0 = f32[] parameter(2)
              y1 = f32[] parameter(3)
              s0 = f32[] add(x0, y0)
              s1 = f32[] add(x1, y1)
              ROOT t = (f32[], f32[]) tuple(s0, s1)
            }
            """;

    @Test
    void dynamicSliceMapsInvertEachOther() {
        Random rnd = new Random(SEED);
        for (int c = 0; c < CASES; c++) {
            long[] in = dims(rnd, 1 + rnd.nextInt(3), 5);
            long[] size = new long[in.length];
            StringBuilder params = new StringBuilder("  src = f32" + text(in) + " parameter(0)\n");
            StringJoiner offsets = new StringJoiner(", ");
            for (int i = 0; i < in.length; i++) {
                size[i] = 1 + rnd.nextInt((int) in[i]);
                params.append("  of").append(i).append(" = s32[] parameter(").append(i + 1).append(")\n");
                offsets.add("of" + i);
            }
            String hlo = "HloModule m\nENTRY e {\n" + params + "  ROOT ds = f32" + text(size) + " dynamic-slice(src, "
                    + offsets + "), dynamic_slice_sizes=" + braces(size) + "\n}";
            long[] limit = new long[in.length];
            for (int i = 0; i < in.length; i++) {
                limit[i] = in[i] - size[i];
            }
            checkAll(hlo, scalarOffsets(rnd, limit, 1));
        }
    }

    @Test
    void dynamicUpdateSliceMapsInvertEachOther() {
        Random rnd = new Random(SEED + 1);
        for (int c = 0; c < CASES; c++) {
            long[] out = dims(rnd, 1 + rnd.nextInt(3), 5);
            long[] upd = new long[out.length];
            StringBuilder params = new StringBuilder("  src = f32" + text(out) + " parameter(0)\n");
            StringJoiner offsets = new StringJoiner(", ");
            long[] limit = new long[out.length];
            for (int i = 0; i < out.length; i++) {
                upd[i] = 1 + rnd.nextInt((int) out[i]);
                limit[i] = out[i] - upd[i];
                params.append("  of").append(i).append(" = s32[] parameter(").append(i + 2).append(")\n");
                offsets.add("of" + i);
            }
            params.append("  upd = f32").append(text(upd)).append(" parameter(1)\n");
            String hlo = "HloModule m\nENTRY e {\n" + params + "  ROOT dus = f32" + text(out)
                    + " dynamic-update-slice(src, upd, " + offsets + ")\n}";
            checkAll(hlo, scalarOffsets(rnd, limit, 2));
        }
    }

    @Test
    void gatherMapsInvertEachOther() {
        Random rnd = new Random(SEED + 2);
        for (int c = 0; c < CASES; c++) {
            long[] operand = dims(rnd, 1 + rnd.nextInt(3), 5);
            int k = 1 + rnd.nextInt(operand.length);
            long batch = 1 + rnd.nextInt(3);
            long[] slice = new long[operand.length];
            long[] out = new long[operand.length + 1];
            out[0] = batch;
            for (int j = 0; j < operand.length; j++) {
                slice[j] = 1 + rnd.nextInt((int) operand[j]);
                out[j + 1] = slice[j];
            }
            StringJoiner offsetDims = new StringJoiner(",");
            StringJoiner startMap = new StringJoiner(",");
            for (int j = 0; j < operand.length; j++) {
                offsetDims.add(String.valueOf(j + 1));
            }
            // start_index_map: k distinct operand dimensions in any order (XLA's simplified form
            // allows a shuffled one, GatherOpWithShuffledStartIndexMap).
            List<Integer> indexed = new ArrayList<>();
            for (int j = 0; j < operand.length; j++) {
                indexed.add(j);
            }
            java.util.Collections.shuffle(indexed, rnd);
            indexed = indexed.subList(0, k);
            for (int j = 0; j < k; j++) {
                startMap.add(String.valueOf(indexed.get(j)));
            }
            String hlo = "HloModule m\nENTRY e {\n  operand = f32" + text(operand) + " parameter(0)\n  indices = s32["
                    + batch + "," + k + "] parameter(1)\n  ROOT g = f32" + text(out) + " gather(operand, indices), offset_dims={"
                    + offsetDims + "}, collapsed_slice_dims={}, start_index_map={" + startMap
                    + "}, index_vector_dim=1, slice_sizes=" + braces(slice) + "\n}";
            long[][] starts = new long[(int) batch][k];
            for (int b = 0; b < batch; b++) {
                for (int j = 0; j < k; j++) {
                    int dim = indexed.get(j);
                    starts[b][j] = rnd.nextInt((int) (operand[dim] - slice[dim] + 1));
                }
            }
            checkAll(hlo, (instr, index) -> starts[(int) index[0]][(int) index[1]]);
        }
    }

    @Test
    void reduceWindowMapsInvertEachOther() {
        Random rnd = new Random(SEED + 3);
        for (int c = 0; c < CASES; c++) {
            int rank = 1 + rnd.nextInt(2);
            long[] in = dims(rnd, rank, 6);
            Window w = window(rnd, in);
            boolean variadic = rnd.nextInt(3) == 0;
            String hlo;
            if (variadic) {
                hlo = "HloModule m\n" + ADD2 + "ENTRY e {\n  p0 = f32" + text(in) + " parameter(0)\n  p1 = f32" + text(in)
                        + " parameter(1)\n  c = f32[] constant(0)\n  ROOT rw = (f32" + text(w.out) + ", f32" + text(w.out)
                        + ") reduce-window(p0, p1, c, c), window={" + w.text + "}, to_apply=add2\n}";
            } else {
                hlo = "HloModule m\n" + ADD + "ENTRY e {\n  p0 = f32" + text(in) + " parameter(0)\n  c = f32[] constant(0)\n"
                        + "  ROOT rw = f32" + text(w.out) + " reduce-window(p0, c), window={" + w.text + "}, to_apply=add\n}";
            }
            checkAll(hlo, none());
        }
    }

    @Test
    void convolutionMapsInvertEachOther() {
        Random rnd = new Random(SEED + 4);
        for (int c = 0; c < CASES; c++) {
            int spatial = 1 + rnd.nextInt(2);
            long[] inSpatial = dims(rnd, spatial, 5);
            Window w = window(rnd, inSpatial);
            long fgc = rnd.nextInt(3) == 0 ? 2 : 1;
            long bgc = fgc == 1 && rnd.nextInt(3) == 0 ? 2 : 1;
            long batch = 1 + rnd.nextInt(2);
            long inGroup = 1 + rnd.nextInt(2);
            long outFeatures = (fgc * bgc) * (1 + rnd.nextInt(2));
            // Layouts: lhs b f 0 [1], kernel 0 [1] i o, output f b 0 [1] (non-trivial dim_labels).
            String sp = spatial == 1 ? "0" : "01";
            long[] lhs = concat(new long[] {batch * bgc, inGroup * fgc}, inSpatial);
            long[] kernel = concat(w.size, new long[] {inGroup, outFeatures});
            long[] out = concat(new long[] {outFeatures, batch}, w.out);
            String hlo = "HloModule m\nENTRY e {\n  p0 = f32" + text(lhs) + " parameter(0)\n  p1 = f32" + text(kernel)
                    + " parameter(1)\n  ROOT conv = f32" + text(out) + " convolution(p0, p1), window={" + w.text
                    + "}, dim_labels=bf" + sp + "_" + sp + "io->fb" + sp + ", feature_group_count=" + fgc
                    + ", batch_group_count=" + bgc + "\n}";
            checkAll(hlo, none());
        }
    }

    @Test
    void tupleMapsInvertEachOther() {
        String hlo = """
                HloModule m
                ENTRY e {
                  a = f32[2,3] parameter(0)
                  b = f32[4] parameter(1)
                  ROOT t = (f32[2,3], f32[4]) tuple(a, b)
                }""";
        checkAll(hlo, none());
    }

    /**
     * Random fusions. A fusion can legitimately read nothing of its parameter (a slice that keeps
     * only padding: seed 33333 made one), so vacuous cases are counted, not refused, and most
     * must not be.
     */
    @Test
    void fusionMapsInvertEachOther() {
        Random rnd = new Random(SEED + 5);
        int vacuous = 0;
        for (int c = 0; c < CASES; c++) {
            if (relations(FusionGenerator.random(rnd, ADD, ADD2), none()) == 0) {
                vacuous++;
            }
        }
        assertTrue(vacuous < CASES / 4, "seed " + SEED + ": " + vacuous + " of " + CASES + " fusions read nothing");
    }

    /** Checks every (operand, output) pair of the root; at least one must be non-vacuous. */
    private static void checkAll(String hlo, Agreement.Env env) {
        assertTrue(relations(hlo, env) > 0, "every relation is empty (vacuous case): " + hlo);
    }

    /** {@return how many (operand, output) pairs of the root relate some elements}, each pair checked */
    private static int relations(String hlo, Agreement.Env env) {
        HloModule m = HloModule.parse(hlo);
        HloInstruction root = m.entry().root();
        int nonEmpty = 0;
        for (int k = 0; k < root.operands().size(); k++) {
            for (int o = 0; o < root.outputCount(); o++) {
                String d = Agreement.check(m, root, k, o, env);
                assertNull(d, () -> "seed " + SEED + ", " + hlo + "\n" + d);
                if (Agreement.size(m, root, k, o, env) > 0) {
                    nonEmpty++;
                }
            }
        }
        return nonEmpty;
    }

    private static Agreement.Env none() {
        return (instr, index) -> {
            throw new AssertionError("no runtime values expected, asked for " + instr.name());
        };
    }

    /** Offsets: parameter {@code first + i} holds a value in {@code [0, limit[i]]}. */
    private static Agreement.Env scalarOffsets(Random rnd, long[] limit, int first) {
        Map<Integer, Long> values = new HashMap<>();
        for (int i = 0; i < limit.length; i++) {
            values.put(first + i, (long) rnd.nextInt((int) limit[i] + 1));
        }
        return (instr, index) -> values.get(instr.parameterNumber());
    }

    record Window(String text, long[] size, long[] out) {
    }

    /** A random window (size, stride, padding, dilations) that fits the input. */
    private static Window window(Random rnd, long[] in) {
        List<String> size = new ArrayList<>();
        List<String> stride = new ArrayList<>();
        List<String> pad = new ArrayList<>();
        List<String> lhsDilate = new ArrayList<>();
        List<String> rhsDilate = new ArrayList<>();
        long[] sizes = new long[in.length];
        long[] out = new long[in.length];
        for (int i = 0; i < in.length; i++) {
            while (true) {
                long s = 1 + rnd.nextInt(3);
                long st = 1 + rnd.nextInt(3);
                long lo = rnd.nextInt(4) - 1;
                long hi = rnd.nextInt(3);
                long bd = 1 + rnd.nextInt(2);
                long wd = 1 + rnd.nextInt(2);
                long padded = (in[i] - 1) * bd + 1 + lo + hi;
                long window = (s - 1) * wd + 1;
                if (padded < window) {
                    continue;
                }
                sizes[i] = s;
                out[i] = (padded - window) / st + 1;
                size.add(String.valueOf(s));
                stride.add(String.valueOf(st));
                pad.add(lo + "_" + hi);
                lhsDilate.add(String.valueOf(bd));
                rhsDilate.add(String.valueOf(wd));
                break;
            }
        }
        String text = "size=" + String.join("x", size) + " stride=" + String.join("x", stride) + " pad="
                + String.join("x", pad) + " lhs_dilate=" + String.join("x", lhsDilate) + " rhs_dilate="
                + String.join("x", rhsDilate);
        return new Window(text, sizes, out);
    }

    static long[] dims(Random rnd, int rank, int max) {
        long[] d = new long[rank];
        for (int i = 0; i < rank; i++) {
            d[i] = 1 + rnd.nextInt(max);
        }
        return d;
    }

    private static long[] concat(long[] a, long[] b) {
        long[] out = new long[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    static String text(long[] d) {
        StringJoiner j = new StringJoiner(",", "[", "]");
        for (long v : d) {
            j.add(String.valueOf(v));
        }
        return j.toString();
    }

    private static String braces(long[] d) {
        String t = text(d);
        return "{" + t.substring(1, t.length() - 1) + "}";
    }
}
