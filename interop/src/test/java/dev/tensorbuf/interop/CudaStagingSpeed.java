package dev.tensorbuf.interop;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The staging pipeline of a data loader, measured: each batch of u8 NHWC pixels (pageable memory)
 * is converted by the copy engine into a pinned f32 NCHW buffer, normalised with ImageNet's
 * per-channel mean and deviation, then uploaded on a {@link CudaRuntime.CudaStream}. Two ways over the same
 * number of batches, in turns, {@code repeats} times each after a first pass of each:
 * <ul>
 *   <li>serial: stage, upload, wait, next batch;
 *   <li>overlapped: two pinned buffers; batch {@code k + 1} is staged into one while batch
 *       {@code k} uploads from the other, an event per upload telling when its buffer is free again.
 * </ul>
 * Reported: the seconds of the first (cold) serial pass, of each later run, and their medians; from the
 * overlapped run of median wall time, the time spent staging (host) and uploading (the GPU's own
 * time, from events) in the overlapped run, GB/s of f32 bytes for each, and
 * {@code overlap = (stage + upload - wall) / min(stage, upload)}: 1 when the shorter of the two is
 * hidden entirely behind the other, 0 when they ran one after the other. Each run's device batches
 * are then downloaded and compared byte for byte with the same batch staged again on the host,
 * and a few values with {@code fma(x, scale, bias)} computed here; each run uses different pixels,
 * so a run that uploaded nothing cannot pass on the previous run's bytes.
 */
final class CudaStagingSpeed {
    /** ImageNet's mean and standard deviation of R, G, B, over pixel values 0..255. */
    private static final float[] MEAN = {123.675f, 116.28f, 103.53f};
    private static final float[] STD = {58.395f, 57.12f, 57.375f};

    private CudaStagingSpeed() {
    }

    /**
     * Measures staging and uploading {@code batches} batches of u8 {@code [n, h, w, c]} (NHWC), each
     * way {@code repeats} times.
     *
     * @throws IllegalArgumentException for a channel count other than 1 or 3, or non-positive sizes
     * @throws IllegalStateException naming the batch and byte where an uploaded batch differs
     */
    static Map<String, Object> measure(CudaRuntime cuda, long n, long h, long w, long c, int batches, int repeats) {
        if (n <= 0 || h <= 0 || w <= 0 || batches <= 0 || repeats <= 0 || (c != 1 && c != 3)) {
            throw new IllegalArgumentException("batch [" + n + ", " + h + ", " + w + ", " + c + "] x " + batches
                    + ", " + repeats + " repeats: sizes, batches and repeats must be > 0, channels 1 or 3");
        }
        long elements = Math.multiplyExact(Math.multiplyExact(n, h), Math.multiplyExact(w, c));
        long f32Bytes = Math.multiplyExact(elements, 4L);
        List<Float> scale = new ArrayList<>();
        List<Float> bias = new ArrayList<>();
        for (int ch = 0; ch < c; ch++) {
            scale.add(1 / STD[ch]);
            bias.add(-MEAN[ch] / STD[ch]);
        }
        ChannelAffine normalise = new ChannelAffine(1, scale, bias);
        CopyEngine engine = CopyEngine.defaults();
        String nhwc = "u8[" + n + "," + c + "," + h + "," + w + "]{1,3,2,0}";
        String nchw = "f32[" + n + "," + c + "," + h + "," + w + "]{3,2,1,0}";
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("batch_nhwc_u8", List.of(n, h, w, c));
        result.put("batches", batches);
        result.put("f32_bytes_per_batch", f32Bytes);
        try (Allocator arena = Allocators.shared();
                MemoryBuffer device = cuda.malloc(0, Math.multiplyExact(f32Bytes, (long) batches));
                MemoryBuffer pinnedA = cuda.mallocHost(f32Bytes);
                MemoryBuffer pinnedB = cuda.mallocHost(f32Bytes);
                CudaRuntime.CudaStream stream = cuda.createStream()) {
            TensorView[] pixels = new TensorView[batches];
            TensorView[] onDevice = new TensorView[batches];
            for (int k = 0; k < batches; k++) {
                pixels[k] = TensorView.of(arena.allocate(elements), nhwc);
                onDevice[k] = TensorView.of(device.slice(k * f32Bytes, f32Bytes), nchw);
            }
            TensorView[] pinned = {TensorView.of(pinnedA, nchw), TensorView.of(pinnedB, nchw)};
            Stage stage = (k, into) -> engine.copy(pixels[k], into, normalise);

            // The first pass, cold, is reported apart: in a fresh JVM a batch under 64 MiB runs on the
            // caller's thread with scalar kernels until the vector ones are warm.
            fill(pixels, 0);
            double firstSerial = serial(stage, stream, pinned[0], onDevice, batches);
            verify(cuda, engine, normalise, pixels, onDevice, arena, nchw, "first serial");
            fill(pixels, 1);
            overlapped(stage, stream, pinned, onDevice);

            // Then the two ways in turns, each run on pixels of its own, each verified.
            double[] serialRuns = new double[repeats];
            Overlapped[] overlappedRuns = new Overlapped[repeats];
            for (int r = 0; r < repeats; r++) {
                fill(pixels, 2 + 2 * r);
                serialRuns[r] = serial(stage, stream, pinned[0], onDevice, batches);
                verify(cuda, engine, normalise, pixels, onDevice, arena, nchw, "serial");
                fill(pixels, 3 + 2 * r);
                overlappedRuns[r] = overlapped(stage, stream, pinned, onDevice);
                verify(cuda, engine, normalise, pixels, onDevice, arena, nchw, "overlapped");
            }
            double serialSeconds = median(serialRuns);
            // The overlapped run of median wall time, so that its stage and upload times belong to it.
            Overlapped o = Arrays.stream(overlappedRuns)
                    .sorted(Comparator.comparingDouble(Overlapped::wallSeconds))
                    .toList().get(repeats / 2);

            double total = (double) f32Bytes * batches;
            result.put("repeats", repeats);
            result.put("first_serial_s", firstSerial);
            result.put("serial_s_runs", Arrays.stream(serialRuns).boxed().toList());
            result.put("overlapped_s_runs", Arrays.stream(overlappedRuns).map(Overlapped::wallSeconds).toList());
            result.put("serial_s", serialSeconds);
            result.put("overlapped_s", o.wallSeconds());
            result.put("speedup", serialSeconds / o.wallSeconds());
            result.put("stage_s", o.stageSeconds());
            result.put("upload_gpu_s", o.uploadSeconds());
            result.put("stage_gbps", total / o.stageSeconds() / 1e9);
            result.put("upload_gbps", total / o.uploadSeconds() / 1e9);
            result.put("pipeline_gbps", total / o.wallSeconds() / 1e9);
            result.put("serial_gbps", total / serialSeconds / 1e9);
            result.put("overlap", (o.stageSeconds() + o.uploadSeconds() - o.wallSeconds())
                    / Math.min(o.stageSeconds(), o.uploadSeconds()));
            result.put("bytes_checked", true);
        }
        return result;
    }

    @FunctionalInterface
    private interface Stage {
        void into(int batch, TensorView pinned);
    }

    private record Overlapped(double wallSeconds, double stageSeconds, double uploadSeconds) {
    }

    private static double serial(Stage stage, CudaRuntime.CudaStream stream, TensorView pinned, TensorView[] onDevice, int batches) {
        long t0 = System.nanoTime();
        for (int k = 0; k < batches; k++) {
            stage.into(k, pinned);
            stream.upload(pinned, onDevice[k]);
            stream.synchronize();
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    private static Overlapped overlapped(Stage stage, CudaRuntime.CudaStream stream, TensorView[] pinned, TensorView[] onDevice) {
        int batches = onDevice.length;
        CudaRuntime.CudaEvent[] before = new CudaRuntime.CudaEvent[batches];
        CudaRuntime.CudaEvent[] after = new CudaRuntime.CudaEvent[batches];
        long staging = 0;
        try {
            long t0 = System.nanoTime();
            for (int k = 0; k < batches; k++) {
                TensorView buffer = pinned[k % 2];
                if (k >= 2) {
                    after[k - 2].synchronize();   // batch k - 2 has left this buffer
                }
                long s0 = System.nanoTime();
                stage.into(k, buffer);
                staging += System.nanoTime() - s0;
                before[k] = stream.record();
                stream.upload(buffer, onDevice[k]);
                after[k] = stream.record();
            }
            stream.synchronize();
            double wall = (System.nanoTime() - t0) / 1e9;
            double upload = 0;
            for (int k = 0; k < batches; k++) {
                upload += after[k].millisSince(before[k]) / 1e3;
            }
            return new Overlapped(wall, staging / 1e9, upload);
        } finally {
            for (int k = 0; k < batches; k++) {
                if (before[k] != null) {
                    before[k].close();
                }
                if (after[k] != null) {
                    after[k].close();
                }
            }
        }
    }

    /** Pixels that differ from batch to batch and from run to run. */
    private static void fill(TensorView[] pixels, int run) {
        for (int k = 0; k < pixels.length; k++) {
            MemorySegment s = pixels[k].buffer().segment();
            long seed = 0x9E3779B97F4A7C15L * (run * 1009L + k + 1);
            for (long i = 0; i < s.byteSize(); i++) {
                s.set(ValueLayout.JAVA_BYTE, i, (byte) ((i * 131 + (seed >>> 56)) ^ (i >>> 9)));
            }
        }
    }

    private static void verify(CudaRuntime cuda, CopyEngine engine, ChannelAffine normalise, TensorView[] pixels,
            TensorView[] onDevice, Allocator arena, String nchw, String run) {
        long bytes = onDevice[0].buffer().byteSize();
        MemoryBuffer back = arena.allocate(bytes);
        MemoryBuffer expected = arena.allocate(bytes);
        TensorView reference = TensorView.of(expected, nchw);
        for (int k = 0; k < onDevice.length; k++) {
            cuda.memcpy(back, 0, onDevice[k].buffer(), 0, bytes);
            engine.copy(pixels[k], reference, normalise);
            long at = back.segment().mismatch(expected.segment());
            if (at != -1) {
                throw new IllegalStateException(run + " run: batch " + k + " on the device differs from its staging at byte "
                        + at + " of " + bytes);
            }
            // The engine against the formula, at the first, the last and a middle element.
            long[] dims = pixels[k].dims().stream().mapToLong(Long::longValue).toArray();
            for (long flat : new long[] {0, pixels[k].elementCount() / 2 + 1, pixels[k].elementCount() - 1}) {
                long[] index = unflatten(flat, dims);
                int channel = (int) index[1];
                float x = TensorElements.of(pixels[k]).getLong(index);
                float want = Math.fma(x, normalise.scale().get(channel), normalise.bias().get(channel));
                float got = TensorElements.of(TensorView.of(back, nchw)).getFloat(index);
                if (Float.floatToRawIntBits(want) != Float.floatToRawIntBits(got)) {
                    throw new IllegalStateException(run + " run: batch " + k + " element " + Arrays.toString(index)
                            + " is " + got + ", expected fma(" + x + ", scale, bias) = " + want);
                }
            }
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static long[] unflatten(long flat, long[] dims) {
        long[] index = new long[dims.length];
        for (int d = dims.length - 1; d >= 0; d--) {
            index[d] = flat % dims[d];
            flat /= dims[d];
        }
        return index;
    }
}
