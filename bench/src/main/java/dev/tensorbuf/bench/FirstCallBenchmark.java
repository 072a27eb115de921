package dev.tensorbuf.bench;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.StridedLayout.TensorFormat;
import dev.tensorbuf.views.XlaShape;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The first call in a fresh JVM: one copy per fork, the engine's (class loading, planning and the
 * kernel before the JIT has compiled it, all in the measured call) against a plain Java loop over
 * the same {@code MemorySegment}s, for the common kernels: the README's image staging (u8 NHWC
 * [8,224,224,3] to f32 NCHW, normalised per channel), an NCHW -> NHWC transpose (f32
 * [8,64,56,56]), a tiling (f32 [1024,1024] to bf16 {@code T(8,128)(2,1)}) and a plain type
 * conversion (f32 to bf16, 4M elements). The setup only allocates and fills memory, with no
 * tensorbuf class, so that loading them is part of the first call, as it is for a user.
 * {@snippet lang=shell :
 * java -jar bench/target/benchmarks.jar FirstCallBenchmark -f 10
 * java -jar bench/target/benchmarks.jar FirstCallBenchmark -f 10 -jvmArgsAppend -Dtensorbuf.copy.warmup=false
 * }
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
@Fork(value = 10, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector"})
public class FirstCallBenchmark {
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final float[] SCALE = {1 / 58.395f, 1 / 57.12f, 1 / 57.375f};
    private static final float[] BIAS = {-123.675f / 58.395f, -116.28f / 57.12f, -103.53f / 57.375f};
    private static final int N = 8;
    private static final int HW = 224;
    private static final int TC = 64;
    private static final int TH = 56;
    private static final int TILE_ROWS = 1024;
    private static final int TILE_COLS = 1024;
    private static final int CONVERT_ELEMENTS = 4 << 20;

    /** The copy: {@code staging}, {@code transpose}, {@code tiling} or {@code convert}. */
    @Param({"staging", "transpose", "tiling", "convert"})
    public String kernel;

    /** Who copies: {@code engine} ({@code CopyEngine.defaults()}) or {@code loop}. */
    @Param({"engine", "loop"})
    public String by;

    private MemorySegment src;
    private MemorySegment dst;

    /** Allocates and fills the source, allocates the destination: java.lang.foreign only. */
    @Setup(Level.Trial)
    public void setUp() {
        Arena arena = Arena.ofAuto();
        switch (kernel) {
            case "staging" -> {
                src = arena.allocate((long) N * HW * HW * 3, 64);
                dst = arena.allocate((long) N * HW * HW * 3 * 4, 64);
                for (long i = 0; i < src.byteSize(); i++) {
                    src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + (i >> 9)));
                }
            }
            case "transpose", "tiling", "convert" -> {
                long n = switch (kernel) {
                    case "transpose" -> (long) N * TC * TH * TH;
                    case "tiling" -> (long) TILE_ROWS * TILE_COLS;
                    default -> CONVERT_ELEMENTS;
                };
                src = arena.allocate(n * 4, 64);
                dst = arena.allocate(n * (kernel.equals("transpose") ? 4 : 2), 64);
                for (long i = 0; i < n; i++) {
                    src.set(F32, 4 * i, (i % 1000) * 0.37f - 150);
                }
            }
            default -> throw new IllegalArgumentException("kernel " + kernel);
        }
    }

    /** One copy: the first, as each fork runs once. */
    @Benchmark
    public MemorySegment firstCall() {
        boolean engine = by.equals("engine");
        switch (kernel) {
            case "staging" -> {
                if (engine) {
                    AccessCopies.copy(CopyEngine.defaults(), 
                            Access.strided(src, DType.U8, StridedLayout.of(TensorFormat.NHWC, N, 3, HW, HW)),
                            Access.strided(dst, DType.F32, StridedLayout.of(TensorFormat.NCHW, N, 3, HW, HW)),
                            new ChannelAffine(1, List.of(SCALE[0], SCALE[1], SCALE[2]), List.of(BIAS[0], BIAS[1], BIAS[2])));
                } else {
                    stagingLoop();
                }
            }
            case "transpose" -> {
                if (engine) {
                    AccessCopies.copy(CopyEngine.defaults(), 
                            Access.strided(src, DType.F32, StridedLayout.of(TensorFormat.NCHW, N, TC, TH, TH)),
                            Access.strided(dst, DType.F32, StridedLayout.of(TensorFormat.NHWC, N, TC, TH, TH)));
                } else {
                    transposeLoop();
                }
            }
            case "tiling" -> {
                if (engine) {
                    ArrayShape tiled = (ArrayShape) XlaShape.parse(
                            "bf16[" + TILE_ROWS + "," + TILE_COLS + "]{1,0:T(8,128)(2,1)}");
                    AccessCopies.copy(CopyEngine.defaults(), 
                            Access.strided(src, DType.F32, StridedLayout.packed(TILE_ROWS, TILE_COLS)),
                            Access.tiled(dst, tiled));
                } else {
                    tilingLoop();
                }
            }
            default -> {
                if (engine) {
                    AccessCopies.copy(CopyEngine.defaults(), Access.strided(src, DType.F32, StridedLayout.packed(CONVERT_ELEMENTS)),
                            Access.strided(dst, DType.BF16, StridedLayout.packed(CONVERT_ELEMENTS)));
                } else {
                    for (long i = 0; i < CONVERT_ELEMENTS; i++) {
                        dst.set(I16, 2 * i, bf16(src.get(F32, 4 * i)));
                    }
                }
            }
        }
        return dst;
    }

    /** Destination order: each channel's plane, its pixels read at stride 3. */
    private void stagingLoop() {
        int plane = HW * HW;
        for (int n = 0; n < N; n++) {
            for (int c = 0; c < 3; c++) {
                float scale = SCALE[c];
                float bias = BIAS[c];
                long s = (long) n * plane * 3 + c;
                long d = ((long) n * 3 + c) * plane * 4;
                for (int p = 0; p < plane; p++) {
                    dst.set(F32, d + 4L * p, (src.get(ValueLayout.JAVA_BYTE, s + 3L * p) & 0xff) * scale + bias);
                }
            }
        }
    }

    /** Destination order: NHWC written in turn, NCHW read at the plane stride. */
    private void transposeLoop() {
        long plane = (long) TH * TH;
        long d = 0;
        for (int n = 0; n < N; n++) {
            for (int p = 0; p < plane; p++) {
                long s = ((long) n * TC * plane + p) * 4;
                for (int c = 0; c < TC; c++) {
                    dst.set(F32, d, src.get(F32, s + c * plane * 4));
                    d += 4;
                }
            }
        }
    }

    /**
     * XLA's {@code T(8,128)(2,1)} for bf16: 8x128 tiles in row-major order, and in each tile row
     * pairs {@code (2r, 2r + 1)} interleaved, so element (r, c) of a tile is at
     * {@code (r / 2) * 256 + c * 2 + r % 2}.
     */
    private void tilingLoop() {
        int tilesPerRow = TILE_COLS / 128;
        for (int r = 0; r < TILE_ROWS; r++) {
            long tileRow = (long) (r / 8) * tilesPerRow * 1024 + ((r % 8) / 2) * 256 + r % 2;
            for (int c = 0; c < TILE_COLS; c++) {
                long e = tileRow + (long) (c / 128) * 1024 + (c % 128) * 2;
                dst.set(I16, 2 * e, bf16(src.get(F32, 4 * ((long) r * TILE_COLS + c))));
            }
        }
    }

    /** Round to nearest even; NaN to the quiet NaN with its sign. */
    private static short bf16(float f) {
        int bits = Float.floatToRawIntBits(f);
        if (Float.isNaN(f)) {
            return (short) (((bits >>> 16) & 0x8000) | 0x7fc0);
        }
        return (short) ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16);
    }
}
