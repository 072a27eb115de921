package dev.tensorbuf.net;

import static dev.tensorbuf.net.TensorClientTest.connect;
import static dev.tensorbuf.net.TensorClientTest.counting;
import static dev.tensorbuf.net.TensorClientTest.slice;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.GgmlType;
import dev.tensorbuf.interop.GgufValue;
import dev.tensorbuf.interop.GgufWriter;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.quant.BlockTensor;
import dev.tensorbuf.testing.Zips;
import dev.tensorbuf.views.BlockType;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** GGUF files (block-quantized tensors sent dequantized) and sharded safetensors checkpoints, served. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ServedFileKindsTest {
    @TempDir
    Path dir;

    /**
     * Integers in [-127, 127] whose blocks of 32 each hold 127: Q8_0's scale is then exactly 1, so
     * the dequantized values are these values, a reference that needs no dequantizer.
     */
    private static double[] q8Exact(int n) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = i % 32 == 0 ? 127 : ((i * 37) % 255) - 127;
        }
        return v;
    }

    private Path gguf(Allocator arena, double[] values) throws Exception {
        TensorView f32 = TensorView.of(arena.allocate(values.length * 4L), "f32[2,64]");
        TensorElements.of(f32).copyFrom(values);
        MemoryBuffer q = arena.allocate(BlockType.Q8_0.byteSize(128));
        BlockTensor.of(q, BlockType.Q8_0, 2, 64).quantize(f32);
        TensorView norm = TensorView.of(arena.allocate(6), "f16[3]");
        TensorElements.of(norm).copyFrom(new double[] {0.5, -1, 2});
        Path served = Files.createDirectories(dir.resolve("served"));
        GgufWriter.write(served.resolve("m.gguf"), Map.of("general.architecture", GgufValue.string("llama")), List.of(
                GgufWriter.tensor("w", GgmlType.Q8_0, List.of(2L, 64L), q.segment()),
                GgufWriter.tensor("norm", GgmlType.F16, List.of(3L), norm.buffer().segment())));
        return served;
    }

    @Test
    void ggufBlockTensorsAreServedDequantizedAsF32OrTheAskedType() throws Exception {
        try (Allocator arena = Allocators.shared()) {
            double[] values = q8Exact(128);
            Path served = gguf(arena, values);
            try (TensorServer s = TensorServer.start(served, TensorServer.Options.defaults().withPort(0).withBatchBytes(256));
                 TensorClient c = connect(s, TensorClient.Options.defaults())) {
                TensorView w = c.fetch(TensorTicket.of("m.gguf", "w"), arena);
                assertEquals(DType.F32, w.dtype(), "block-quantized tensors come as f32 unless the ticket asks another");
                assertEquals(List.of(2L, 64L), w.dims());
                assertArrayEquals(values, TensorElements.of(w).toDoubleArray());
                // A box starting and ending inside blocks, as f16.
                TensorView box = c.fetch(TensorTicket.of("m.gguf", "w").withBox(List.of(1L, 10L), List.of(2L, 50L))
                        .withDType(DType.F16), arena);
                assertEquals(DType.F16, box.dtype());
                double[] want = new double[40];
                System.arraycopy(values, 64 + 10, want, 0, 40);
                assertArrayEquals(want, TensorElements.of(box).toDoubleArray());
                // Device 1's shard of {devices=[1,2]<=[2]}: columns 32:64 of both rows.
                TensorView shard = c.fetch(TensorTicket.of("m.gguf", "w").withShard("{devices=[1,2]<=[2]}", 1), arena);
                double[] cols = new double[64];
                System.arraycopy(values, 32, cols, 0, 32);
                System.arraycopy(values, 96, cols, 32, 32);
                assertArrayEquals(cols, TensorElements.of(shard).toDoubleArray());
                TensorView norm = c.fetch(TensorTicket.of("m.gguf", "norm"), arena);
                assertEquals(DType.F16, norm.dtype(), "a plain GGUF tensor comes in its own type");
                assertArrayEquals(new double[] {0.5, -1, 2}, TensorElements.of(norm).toDoubleArray());
                TensorClient.FetchException e = assertThrows(TensorClient.FetchException.class,
                        () -> c.fetch(TensorTicket.of("m.gguf", "w").withDType(DType.S32), arena));
                assertTrue(e.getMessage().endsWith("INVALID_ARGUMENT: m.gguf:w as s32: it is Q8_0, block-quantized, and"
                        + " dequantizes to a floating-point type (f32, the default, bf16, f16, ...), not s32"), e.getMessage());

                List<String> listed = new ArrayList<>();
                for (TensorClient.Listed l : c.list()) {
                    listed.add(l.ticket().describe() + " " + l.dtype() + l.dims());
                }
                assertEquals(List.of("m.gguf:w f32[2, 64]", "m.gguf:norm f16[3]"), listed);
                assertEquals(List.of("Q8_0 f32 [2, 64]", "- f16 [3]"), rawListing(s));
            }
        }
    }

    @Test
    void arrowFilesAndStreamsAreServedColumnByColumnAnyBox() throws Exception {
        try (Allocator arena = Allocators.shared()) {
            Path served = Files.createDirectories(dir.resolve("arrow"));
            TensorView a = counting(arena, 6, 4, 5);
            TensorView b = Ops.transpose(counting(arena, 6, 2, 3), 0, 2, 1);   // lent with a permutation: rows of [3, 2]
            Map<String, TensorView> columns = new LinkedHashMap<>();
            columns.put("a", a);
            columns.put("b", b);
            ArrowTensors.write(served.resolve("t.arrow"), columns);
            ArrowTensors.writeStream(served.resolve("s.arrows"), Map.of("a", a));
            ArrowTensors.write(served.resolve("f.feather"), Map.of("b", b));   // Feather V2 is the file format
            try (TensorServer s = TensorServer.start(served, TensorServer.Options.defaults().withPort(0).withBatchBytes(64));
                 TensorClient c = connect(s, TensorClient.Options.defaults())) {
                long[] lo = {1, 2, 1};
                long[] hi = {5, 4, 4};
                TensorView box = c.fetch(TensorTicket.of("t.arrow", "a").withBox(List.of(1L, 2L, 1L), List.of(5L, 4L, 4L)), arena);
                assertArrayEquals(TensorElements.of(slice(a, lo, hi)).toDoubleArray(), TensorElements.of(box).toDoubleArray());
                TensorView permuted = c.fetch(TensorTicket.of("t.arrow", "b"), arena);
                assertEquals(b.dims(), permuted.dims());
                assertArrayEquals(TensorElements.of(b).toDoubleArray(), TensorElements.of(permuted).toDoubleArray());
                TensorView fromStream = c.fetch(TensorTicket.of("s.arrows", ""), arena);
                assertArrayEquals(TensorElements.of(a).toDoubleArray(), TensorElements.of(fromStream).toDoubleArray());
                TensorView fromFeather = c.fetch(TensorTicket.of("f.feather", ""), arena);
                assertArrayEquals(TensorElements.of(b).toDoubleArray(), TensorElements.of(fromFeather).toDoubleArray());

                List<String> listed = new ArrayList<>();
                for (TensorClient.Listed l : c.list()) {
                    listed.add(l.ticket().describe() + " " + l.dtype() + l.dims());
                }
                assertEquals(List.of("f.feather:b f32[6, 3, 2]", "s.arrows:a f32[6, 4, 5]", "t.arrow:a f32[6, 4, 5]",
                        "t.arrow:b f32[6, 3, 2]"), listed);
                TensorClient.FetchException e = assertThrows(TensorClient.FetchException.class,
                        () -> c.fetch(TensorTicket.of("t.arrow", ""), arena));
                assertTrue(e.getMessage().endsWith("INVALID_ARGUMENT: 't.arrow' holds 2 tensors; name one in \"tensor\": [a, b]"),
                        e.getMessage());
            }
        }
    }

    /** {@return each listed flight's stored type, served type and dims, from its schema's metadata} */
    @SuppressWarnings("try") // Flight's close() declares InterruptedException; no test thread is interrupted
    private static List<String> rawListing(TensorServer s) throws Exception {
        List<String> out = new ArrayList<>();
        try (BufferAllocator a = ArrowTensors.allocator();
             FlightClient raw = FlightClient.builder(a, Location.forGrpcInsecure("127.0.0.1", s.port())).build()) {
            for (FlightInfo info : raw.listFlights(Criteria.ALL)) {
                Map<String, String> m = info.getSchemaOptional().orElseThrow().getCustomMetadata();
                out.add(m.getOrDefault("tensorbuf.stored", "-") + " " + m.get("tensorbuf.dtype") + " " + m.get("tensorbuf.dims"));
            }
        }
        return out;
    }

    @Test
    void aShardedCheckpointIsServedAsOneSetOfTensors() throws Exception {
        try (Allocator arena = Allocators.shared()) {
            TensorView a = counting(arena, 4, 3);
            TensorView b = counting(arena, 5);
            TensorView c = counting(arena, 6, 2);
            Path served = Files.createDirectories(dir.resolve("served"));
            Map<String, DenseTensor> tensors = new LinkedHashMap<>();
            tensors.put("a", DenseTensor.of(a));
            tensors.put("b", DenseTensor.of(b));
            tensors.put("c", DenseTensor.of(c));
            Path index = SafetensorsFile.Checkpoint.write(Files.createDirectories(served.resolve("ckpt")), tensors, Map.of(), 50);
            assertEquals("model.safetensors.index.json", index.getFileName().toString());
            try (SafetensorsFile.Checkpoint opened = SafetensorsFile.Checkpoint.open(index)) {
                assertEquals(3, opened.files().size(), "one tensor a file, so the set spans three files");
            }
            try (TensorServer s = TensorServer.start(served, TensorServer.Options.defaults().withPort(0));
                 TensorClient client = connect(s, TensorClient.Options.defaults())) {
                List<String> listed = new ArrayList<>();
                for (TensorClient.Listed l : client.list()) {
                    listed.add(l.ticket().describe() + " " + l.dtype() + l.dims());
                }
                assertEquals(List.of("ckpt/model.safetensors.index.json:a f32[4, 3]",
                        "ckpt/model.safetensors.index.json:b f32[5]",
                        "ckpt/model.safetensors.index.json:c f32[6, 2]"), listed, "the shard files are not listed again");
                String idx = "ckpt/model.safetensors.index.json";
                assertArrayEquals(TensorElements.of(slice(c, new long[] {2, 1}, new long[] {5, 2})).toDoubleArray(),
                        TensorElements.of(client.fetch(TensorTicket.of(idx, "c").withBox(List.of(2L, 1L), List.of(5L, 2L)), arena))
                                .toDoubleArray());
                assertArrayEquals(TensorElements.of(slice(a, new long[] {2, 0}, new long[] {4, 3})).toDoubleArray(),
                        TensorElements.of(client.fetch(TensorTicket.of(idx, "a").withShard("{devices=[2,1]<=[2]}", 1), arena))
                                .toDoubleArray());
                assertArrayEquals(TensorElements.of(b).toDoubleArray(),
                        TensorElements.of(client.fetch(TensorTicket.of(idx, "b"), arena)).toDoubleArray());
                TensorClient.FetchException e = assertThrows(TensorClient.FetchException.class,
                        () -> client.fetch(TensorTicket.of(idx, "d"), arena));
                assertTrue(e.getMessage().endsWith("NOT_FOUND: '" + idx + "' has no tensor 'd'"), e.getMessage());
            }
        }
    }

    /** An .npz as np.savez and np.savez_compressed write it (zipped here by the JDK): each array a tensor. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void servesTheArraysOfNpzArchives() throws Exception {
        try (Allocator arena = Allocators.shared()) {
            Path served = Files.createDirectories(dir.resolve("npz"));
            TensorView a = counting(arena, 6, 4, 5);
            TensorView b = counting(arena, 3);
            dev.tensorbuf.interop.Npy.write(dir.resolve("a.npy"), DenseTensor.of(a));
            dev.tensorbuf.interop.Npy.write(dir.resolve("b.npy"), DenseTensor.of(b));
            for (String archive : List.of("w.npz", "wc.npz")) {
                Zips.write(served.resolve(archive), archive.equals("w.npz"), Zips.Member.of("a.npy", dir.resolve("a.npy")),
                        Zips.Member.of("b.npy", dir.resolve("b.npy")));
            }
            try (TensorServer s = TensorServer.start(served, TensorServer.Options.defaults().withPort(0).withBatchBytes(64));
                 TensorClient c = connect(s, TensorClient.Options.defaults())) {
                for (String archive : List.of("w.npz", "wc.npz")) {
                    TensorView box = c.fetch(TensorTicket.of(archive, "a").withBox(List.of(1L, 2L, 1L), List.of(5L, 4L, 4L)), arena);
                    assertArrayEquals(TensorElements.of(slice(a, new long[] {1, 2, 1}, new long[] {5, 4, 4})).toDoubleArray(),
                            TensorElements.of(box).toDoubleArray(), archive);
                    assertArrayEquals(TensorElements.of(b).toDoubleArray(),
                            TensorElements.of(c.fetch(TensorTicket.of(archive, "b"), arena)).toDoubleArray(), archive);
                    TensorClient.FetchException e = assertThrows(TensorClient.FetchException.class,
                            () -> c.fetch(TensorTicket.of(archive, "z"), arena));
                    assertTrue(e.getMessage().endsWith("NOT_FOUND: '" + archive + "' has no tensor 'z'"), e.getMessage());
                }
                List<String> listed = new ArrayList<>();
                for (TensorClient.Listed l : c.list()) {
                    listed.add(l.ticket().describe() + " " + l.dtype() + l.dims());
                }
                assertEquals(List.of("w.npz:a f32[6, 4, 5]", "w.npz:b f32[3]", "wc.npz:a f32[6, 4, 5]", "wc.npz:b f32[3]"), listed);
            }
        }
    }

    @Test
    void aCheckpointWhoseFileLeadsOutOfTheDirectoryIsRefused() throws Exception {
        try (Allocator arena = Allocators.shared()) {
            Path outside = Files.createDirectories(dir.resolve("outside"));
            Map<String, DenseTensor> tensors = new LinkedHashMap<>();
            tensors.put("a", DenseTensor.of(counting(arena, 4, 3)));
            tensors.put("b", DenseTensor.of(counting(arena, 5)));
            SafetensorsFile.Checkpoint.write(outside, tensors, Map.of(), 50);
            Path served = Files.createDirectories(dir.resolve("served"));
            Files.copy(outside.resolve("model.safetensors.index.json"), served.resolve("model.safetensors.index.json"));
            Files.copy(outside.resolve("model-00001-of-00002.safetensors"), served.resolve("model-00001-of-00002.safetensors"));
            Files.createSymbolicLink(served.resolve("model-00002-of-00002.safetensors"),
                    outside.resolve("model-00002-of-00002.safetensors"));
            try (TensorServer s = TensorServer.start(served, TensorServer.Options.defaults().withPort(0));
                 TensorClient client = connect(s, TensorClient.Options.defaults())) {
                TensorClient.FetchException e = assertThrows(TensorClient.FetchException.class,
                        () -> client.fetch(TensorTicket.of("model.safetensors.index.json", "a"), arena));
                assertTrue(e.getMessage().endsWith("UNAUTHORIZED: 'model.safetensors.index.json' maps tensors to"
                        + " model-00002-of-00002.safetensors, a symlink leading out of the served directory"), e.getMessage());
                assertEquals(List.of("model-00001-of-00002.safetensors:a"),
                        client.list().stream().map(l -> l.ticket().describe()).toList(), "the refused index is not listed");
            }
        }
    }
}
