package dev.tensorbuf.interop;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Measures {@link CudaRuntime#memcpy} of one buffer (1 GiB by default) host to device and device
 * to host, from pinned ({@code cudaMallocHost}) and from pageable (an arena's) memory, in GB/s
 * (10^9 bytes per second), and checks that the bytes arrived; then the overlapped staging and upload
 * of image batches, {@link CudaStagingSpeed} (under {@code "staged_upload"}; a batch of
 * {@code --batch N,H,W,C} u8 pixels, 64,224,224,3 by default, 4,32,32,3 under {@code --fake}, times
 * {@code --batches}, 16 or 6). A harness run by gpu/check.sh, not a
 * test: {@code --fake} runs it over {@link FakeCuda} (host memory; the figures then say nothing
 * about a GPU, only that the code runs).
 * <pre>
 * java ... dev.tensorbuf.interop.CudaSpeed [--fake] [--bytes N] [--repeats N] [--batch N,H,W,C] [--batches K] [--out speed.json]
 * </pre>
 */
public final class CudaSpeed {
    private CudaSpeed() {
    }

    public static void main(String[] args) throws IOException {
        boolean fake = false;
        long bytes = 1L << 30;
        int repeats = 5;
        Path out = null;
        long[] batch = null;
        int batches = 0;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--fake" -> fake = true;
                case "--bytes" -> bytes = Long.parseLong(args[++i]);
                case "--repeats" -> repeats = Integer.parseInt(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--batch" -> batch = Arrays.stream(args[++i].split(",")).mapToLong(Long::parseLong).toArray();
                case "--batches" -> batches = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + "; usage: CudaSpeed [--fake] [--bytes N] [--repeats N] [--batch N,H,W,C] [--batches K] [--out FILE]");
            }
        }
        if (bytes <= 0 || repeats <= 0) {
            throw new IllegalArgumentException("--bytes and --repeats must be > 0, got " + bytes + " and " + repeats);
        }
        CudaRuntime cuda;
        String source;
        if (fake) {
            cuda = new CudaRuntime(new FakeCuda());
            source = "fake (host memory)";
        } else {
            CudaRuntime.Availability a = CudaRuntime.probe();
            cuda = a.runtime().orElseThrow(() -> new IllegalStateException("no usable CUDA: " + a.reason()));
            source = a.reason();
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("runtime", source);
        result.put("bytes", bytes);
        result.put("repeats", repeats);
        measure(cuda, bytes, repeats, result);
        if (batch == null) {
            batch = fake ? new long[] {4, 32, 32, 3} : new long[] {64, 224, 224, 3};
        }
        if (batch.length != 4) {
            throw new IllegalArgumentException("--batch takes N,H,W,C, got " + batch.length + " numbers");
        }
        if (batches == 0) {
            batches = fake ? 6 : 16;
        }
        result.put("staged_upload", CudaStagingSpeed.measure(cuda, batch[0], batch[1], batch[2], batch[3], batches, repeats));
        String json = toJson(result);
        System.out.println(json);
        if (out != null) {
            Files.writeString(out, json + "\n");
        }
    }

    private static void measure(CudaRuntime cuda, long bytes, int repeats, Map<String, Object> result) {
        try (Allocator arena = Allocators.confined();
                MemoryBuffer device = cuda.malloc(0, bytes);
                MemoryBuffer pinned = cuda.mallocHost(bytes)) {
            MemoryBuffer pageable = arena.allocate(bytes);
            pattern(pinned.segment(), 0x9E3779B97F4A7C15L);
            pageable.segment().fill((byte) 1);   // fault the pages in before timing
            result.put("h2d_pinned", time(bytes, repeats, () -> cuda.memcpy(device, 0, pinned, 0, bytes)));
            result.put("d2h_pageable", time(bytes, repeats, () -> cuda.memcpy(pageable, 0, device, 0, bytes)));
            long mismatch = pageable.segment().mismatch(pinned.segment());
            if (mismatch != -1) {
                throw new IllegalStateException("pinned -> device -> pageable changed byte " + mismatch);
            }
            pattern(pageable.segment(), 0xC2B2AE3D27D4EB4FL);
            result.put("h2d_pageable", time(bytes, repeats, () -> cuda.memcpy(device, 0, pageable, 0, bytes)));
            result.put("d2h_pinned", time(bytes, repeats, () -> cuda.memcpy(pinned, 0, device, 0, bytes)));
            long wrong = pinned.segment().mismatch(pageable.segment());
            if (wrong != -1) {
                throw new IllegalStateException("pageable -> device -> pinned changed byte " + wrong);
            }
            result.put("bytes_checked", true);
        }
    }

    /** Bytes that differ from place to place, so that a misplaced block shows in the comparison. */
    private static void pattern(MemorySegment s, long seed) {
        long words = s.byteSize() / 8;
        for (long w = 0; w < words; w++) {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, w * 8, (w + 1) * seed);
        }
        for (long i = words * 8; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * seed));
        }
    }

    /** {@return GB/s of the best and the median of {@code repeats} timed runs, after one untimed} */
    private static Map<String, Object> time(long bytes, int repeats, Runnable copy) {
        copy.run();
        double[] seconds = new double[repeats];
        for (int i = 0; i < repeats; i++) {
            long t0 = System.nanoTime();
            copy.run();
            seconds[i] = (System.nanoTime() - t0) / 1e9;
        }
        Arrays.sort(seconds);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("best_gbps", bytes / seconds[0] / 1e9);
        m.put("median_gbps", bytes / seconds[repeats / 2] / 1e9);
        m.put("best_s", seconds[0]);
        return m;
    }

    private static String toJson(Object o) {
        if (o instanceof Map<?, ?> m) {
            StringBuilder sb = new StringBuilder("{");
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (sb.length() > 1) {
                    sb.append(", ");
                }
                sb.append('"').append(e.getKey()).append("\": ").append(toJson(e.getValue()));
            }
            return sb.append('}').toString();
        }
        if (o instanceof List<?> list) {
            return list.stream().map(CudaSpeed::toJson).collect(Collectors.joining(", ", "[", "]"));
        }
        if (o instanceof String s) {
            return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
        }
        if (o instanceof Double d) {
            return String.format(Locale.ROOT, "%.6g", d);
        }
        return String.valueOf(o);
    }
}
