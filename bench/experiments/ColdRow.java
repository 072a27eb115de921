import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * What a cold JVM pays for the scalar transpose's row loop as it was before its 2x2 steps (one
 * segment get and set an element) before the JIT has compiled it, on convert's shape: one image of 256
 * channels x 3136 pixels transposed to pixel-major, rows of 256 elements.
 *
 *   java bench/experiments/ColdRow.java rows      time per 128 rows (32K elements), in order
 *   java bench/experiments/ColdRow.java segment   time per 2 MiB piece, six pieces, row by row
 *   java bench/experiments/ColdRow.java arrays    the same through int[] arrays: each channel's
 *                                                 run of the piece read in bulk, transposed as
 *                                                 arrays, written in bulk
 *
 * Add -XX:CompileThresholdScaling=4 for convert's setting, and -XX:CompileCommand=... to move one
 * method's thresholds; run each a few times, fresh JVMs.
 */
public class ColdRow {
    static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
    static final int C = 256, HW = 3136, PIECE_PIXELS = 2048;

    static void row(MemorySegment src, long s, long sa, MemorySegment dst, long d, long da, long n) {
        for (long i = 0; i < n; i++) {
            dst.set(I32, d + i * da, src.get(I32, s + i * sa));
        }
    }

    static void pieceSegment(MemorySegment src, MemorySegment dst, int p0) {
        for (int p = p0; p < p0 + PIECE_PIXELS; p++) {
            row(src, 4L * p, 4L * HW, dst, 4L * (p - p0) * C, 4, C);
        }
    }

    static void pieceArrays(MemorySegment src, MemorySegment dst, int p0, int[] in, int[] out) {
        for (int k = 0; k < C; k++) {
            MemorySegment.copy(src, I32, 4L * ((long) k * HW + p0), in, k * PIECE_PIXELS, PIECE_PIXELS);
        }
        for (int p = 0; p < PIECE_PIXELS; p++) {
            for (int k = 0; k < C; k++) {
                out[p * C + k] = in[k * PIECE_PIXELS + p];
            }
        }
        MemorySegment.copy(out, 0, dst, I32, 0, PIECE_PIXELS * C);
    }

    public static void main(String[] args) {
        String mode = args.length > 0 ? args[0] : "rows";
        MemorySegment src = Arena.global().allocate(4L * C * HW, 64);
        MemorySegment dst = Arena.global().allocate(4L * C * HW, 64);
        for (long i = 0; i < (long) C * HW; i++) {
            src.setAtIndex(ValueLayout.JAVA_INT, i, (int) i);
        }
        StringBuilder out = new StringBuilder(mode);
        if (mode.equals("rows")) {
            long t0 = System.nanoTime();
            for (int p = 0; p < HW; p++) {
                row(src, 4L * p, 4L * HW, dst, 4L * p * C, 4, C);
                if ((p & 127) == 127) {
                    long t = System.nanoTime();
                    out.append(String.format(" %.1f", (t - t0) / 1e6));
                    t0 = t;
                }
            }
            System.out.println(out + " ms per 128 rows");
            return;
        }
        int[] in = new int[PIECE_PIXELS * C];
        int[] tmp = new int[PIECE_PIXELS * C];
        for (int piece = 0; piece < 6; piece++) {
            int p0 = (piece * 512) % (HW - PIECE_PIXELS);
            long t0 = System.nanoTime();
            if (mode.equals("segment")) {
                pieceSegment(src, dst, p0);
            } else {
                pieceArrays(src, dst, p0, in, tmp);
            }
            out.append(String.format(" %.1f", (System.nanoTime() - t0) / 1e6));
        }
        for (int k = 0; k < 1000; k++) { // the last piece, checked against the source
            int p = k % PIECE_PIXELS, c = (k * 31) % C, p0 = (5 * 512) % (HW - PIECE_PIXELS);
            if (dst.getAtIndex(ValueLayout.JAVA_INT, (long) p * C + c) != c * HW + p0 + p) {
                throw new AssertionError("pixel " + p + " channel " + c);
            }
        }
        System.out.println(out + " ms per 2 MiB piece");
    }
}
