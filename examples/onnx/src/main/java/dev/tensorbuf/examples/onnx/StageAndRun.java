package dev.tensorbuf.examples.onnx;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.StridedLayout.TensorFormat;
import dev.tensorbuf.views.TensorView;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Stages a batch of u8 NHWC images into normalised f32 NCHW with tensorbuf and hands the staged
 * memory to ONNX Runtime without copying it: the {@link OnnxTensor} is made over the batch's
 * {@link MemoryBuffer} first, and only then does tensorbuf write the batch into that memory. Runs
 * {@code conv3x8.onnx} (one 3x3 convolution, 3 to 8 channels, padding 1; {@code make_model.py}
 * wrote it) and checks every output value against a convolution computed here from the pixels,
 * and, when {@code python3} can import numpy and onnxruntime, against onnxruntime's answer in
 * Python ({@code reference.py}); without them that comparison is skipped with the reason printed.
 *
 * <p>Run it with {@code java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector
 * -cp ... dev.tensorbuf.examples.onnx.StageAndRun MODEL_DIR}; it exits non-zero when a check fails.
 */
public final class StageAndRun {
    static final int N = 4, H = 32, W = 32, C = 3, OUT = 8, K = 3;
    static final double[] MEAN = {123.675, 116.28, 103.53};
    static final double[] STD = {58.395, 57.12, 57.375};
    /** Far above float rounding of a 27-term sum of values below 3 in magnitude, far below any wrong index. */
    static final double TOLERANCE = 1e-4;

    private StageAndRun() {
    }

    public static void main(String[] args) throws Exception {
        Path modelDir = Path.of(args.length > 0 ? args[0] : "model");
        Path model = modelDir.resolve("conv3x8.onnx");
        long inputBytes = 4L * N * C * H * W;

        try (Allocator arena = Allocators.shared();
                OrtEnvironment env = OrtEnvironment.getEnvironment();
                OrtSession session = env.createSession(model.toString(), new OrtSession.SessionOptions())) {
            MemoryBuffer pixels = arena.allocate((long) N * H * W * C);     // u8 NHWC, as images are decoded
            MemoryBuffer input = arena.allocate(inputBytes);                 // f32 NCHW, what the model takes
            for (int n = 0; n < N; n++) {
                for (int h = 0; h < H; h++) {
                    for (int w = 0; w < W; w++) {
                        for (int c = 0; c < C; c++) {
                            pixels.segment().set(ValueLayout.JAVA_BYTE, (((long) n * H + h) * W + w) * C + c, (byte) pixel(n, h, w, c));
                        }
                    }
                }
            }

            // The tensor reads the batch's own memory: a direct buffer over the segment, in the
            // platform's byte order, which ONNX Runtime takes as it is rather than copying.
            FloatBuffer batchFloats = input.segment().asByteBuffer().order(ByteOrder.nativeOrder()).asFloatBuffer();
            try (OnnxTensor tensor = OnnxTensor.createTensor(env, batchFloats, new long[] {N, C, H, W})) {
                java.nio.Buffer read = tensor.getBufferRef().orElseThrow();   // what the tensor reads
                if (!read.isDirect() || MemorySegment.ofBuffer(read).address() != input.segment().address()) {
                    throw new AssertionError("ONNX Runtime copied the batch instead of reading its memory");
                }

                // Staged after the tensor was made: the model can only see these values if no copy was taken.
                CopyEngine engine = CopyEngine.defaults();
                engine.copy(
                        TensorView.strided(pixels, DType.U8, StridedLayout.of(TensorFormat.NHWC, N, C, H, W)),
                        TensorView.strided(input, DType.F32, StridedLayout.of(TensorFormat.NCHW, N, C, H, W)),
                        new ChannelAffine(1,
                                List.of((float) (1 / STD[0]), (float) (1 / STD[1]), (float) (1 / STD[2])),
                                List.of((float) (-MEAN[0] / STD[0]), (float) (-MEAN[1] / STD[1]), (float) (-MEAN[2] / STD[2]))));

                try (OrtSession.Result result = session.run(Map.of("input", tensor))) {
                    OnnxTensor out = (OnnxTensor) result.get(0);
                    long[] shape = out.getInfo().getShape();
                    if (shape.length != 4 || shape[0] != N || shape[1] != OUT || shape[2] != H || shape[3] != W) {
                        throw new AssertionError("output shape " + java.util.Arrays.toString(shape) + ", expected [" + N + ", " + OUT + ", " + H + ", " + W + "]");
                    }
                    FloatBuffer y = out.getFloatBuffer();
                    float[] got = new float[y.remaining()];
                    y.get(got);
                    System.out.printf("staged u8 NHWC [%d,%d,%d,%d] to normalised f32 NCHW [%d,%d,%d,%d] in the ONNX input's memory"
                            + " (no copy; Vector API kernels: %s)%n", N, H, W, C, N, C, H, W, engine.vectorKernels());
                    System.out.printf("conv3x8.onnx output [%d,%d,%d,%d]: max |difference| from the convolution computed here %.3g%n",
                            N, OUT, H, W, compare(got, javaReference(), "the convolution computed here"));
                    compareWithPython(pixels, model, got);
                }
            }
        }
    }

    /** The pixel at (n, h, w, c): every byte value occurs, neighbours differ. */
    static int pixel(int n, int h, int w, int c) {
        return (n * 131 + h * 31 + w * 17 + c * 71 + h * w) & 0xFF;
    }

    /** make_model.py's weights. */
    static double weight(int o, int c, int i, int j) {
        return ((o * 27 + c * 9 + i * 3 + j) % 11 - 5) / 8.0;
    }

    /** The convolution by its definition, in doubles, from the pixels and the mean and std. */
    static float[] javaReference() {
        float[] y = new float[N * OUT * H * W];
        for (int n = 0; n < N; n++) {
            for (int o = 0; o < OUT; o++) {
                for (int h = 0; h < H; h++) {
                    for (int w = 0; w < W; w++) {
                        double sum = (o - 4) / 4.0;
                        for (int c = 0; c < C; c++) {
                            for (int i = 0; i < K; i++) {
                                for (int j = 0; j < K; j++) {
                                    int hh = h + i - 1, ww = w + j - 1;
                                    if (hh >= 0 && hh < H && ww >= 0 && ww < W) {
                                        sum += weight(o, c, i, j) * ((pixel(n, hh, ww, c) - MEAN[c]) / STD[c]);
                                    }
                                }
                            }
                        }
                        y[((n * OUT + o) * H + h) * W + w] = (float) sum;
                    }
                }
            }
        }
        return y;
    }

    /** {@return the largest absolute difference}, after failing on the first value out of tolerance */
    static double compare(float[] got, float[] expected, String what) {
        if (got.length != expected.length) {
            throw new AssertionError(got.length + " output values, " + what + " has " + expected.length);
        }
        double max = 0;
        for (int k = 0; k < got.length; k++) {
            double d = Math.abs((double) got[k] - expected[k]);
            if (!(d <= TOLERANCE * Math.max(1, Math.abs(expected[k])))) {
                int w = k % W, h = k / W % H, o = k / (W * H) % OUT, n = k / (W * H * OUT);
                throw new AssertionError("output[" + n + ", " + o + ", " + h + ", " + w + "] = " + got[k] + ", " + what
                        + " gives " + expected[k]);
            }
            max = Math.max(max, d);
        }
        return max;
    }

    /** onnxruntime in Python on the same pixels, normalised and transposed with NumPy. */
    static void compareWithPython(MemoryBuffer pixels, Path model, float[] got) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("tensorbuf-onnx-example");
        try {
            Path in = dir.resolve("pixels.u8"), out = dir.resolve("output.f32");
            Files.write(in, pixels.segment().toArray(ValueLayout.JAVA_BYTE));
            List<String> cmd = new ArrayList<>(List.of(System.getProperty("tensorbuf.python", "python3"),
                    model.resolveSibling("reference.py").toString(), model.toString(), in.toString(),
                    String.valueOf(N), String.valueOf(H), String.valueOf(W), out.toString()));
            Process p;
            try {
                p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            } catch (IOException e) {
                System.out.println("skipped the comparison with onnxruntime in Python: cannot start " + cmd.getFirst() + " (" + e.getMessage() + ")");
                return;
            }
            String said = new String(p.getInputStream().readAllBytes()).strip();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("reference.py did not finish in 120 s");
            }
            if (p.exitValue() == 3) {
                System.out.println("skipped the comparison with onnxruntime in Python: " + cmd.getFirst() + " cannot import numpy and onnxruntime (" + said + ")");
                return;
            }
            if (p.exitValue() != 0) {
                throw new AssertionError("reference.py failed (exit " + p.exitValue() + "): " + said);
            }
            ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(out)).order(ByteOrder.LITTLE_ENDIAN);
            float[] expected = new float[bytes.remaining() / 4];
            bytes.asFloatBuffer().get(expected);
            System.out.printf("%s; max |difference| from it %.3g%n", said,
                    compare(got, expected, "onnxruntime in Python"));
        } finally {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
            Files.delete(dir);
        }
    }
}
