package dev.tensorbuf.cli.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Dlpack;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.interop.staging.StagingPipeline;
import dev.tensorbuf.interop.staging.StagingTarget;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.memory.PooledAllocator;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.MapForm;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.StridedLayout.TensorFormat;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs every Java snippet of README.md and docs/: each region between {@code // snippet:NAME} and
 * {@code // end-snippet:NAME} here (and in {@link StageImages}) is what the Markdown shows, less
 * its {@code assert...} lines, which check what the snippet's comments claim
 * ({@link SnippetSourcesTest} holds the Markdown to these regions).
 */
class DocsSnippetTest {
    @TempDir
    Path dir;

    private static final float[] SCALE = {1 / 58.395f, 1 / 57.12f, 1 / 57.375f};
    private static final float[] BIAS = {-123.675f / 58.395f, -116.28f / 57.12f, -103.53f / 57.375f};

    /** What the README's program computes for one pixel value: one fused multiply-add, as ChannelAffine documents. */
    private static float normalised(long pixel, int channel) {
        return Math.fma((float) pixel, SCALE[channel], BIAS[channel]);
    }

    @Test
    void readmeProgramStagesEveryPixelAsABruteForceLoopDoes() {
        SplittableRandom random = new SplittableRandom(37);
        try (Allocator arena = Allocators.shared()) {
            TensorView pixels = TensorView.of(arena.allocate(8L * 224 * 224 * 3), "u8[8,224,224,3]");
            byte[] values = new byte[8 * 224 * 224 * 3];
            for (int i = 0; i < values.length; i++) {
                values[i] = (byte) random.nextInt(256);
            }
            pixels.buffer().segment().copyFrom(MemorySegment.ofArray(values));
            FloatBuffer input = StageImages.stage(pixels, arena);
            assertTrue(input.isDirect(), "ONNX Runtime uses a direct buffer in place; a heap buffer it copies");
            assertEquals(8 * 3 * 224 * 224, input.capacity());
            for (int n = 0; n < 8; n++) {
                for (int c = 0; c < 3; c++) {
                    for (int h = 0; h < 224; h++) {
                        for (int w = 0; w < 224; w++) {
                            long pixel = Byte.toUnsignedLong(values[((n * 224 + h) * 224 + w) * 3 + c]);
                            int at = ((n * 3 + c) * 224 + h) * 224 + w;
                            if (Float.floatToRawIntBits(normalised(pixel, c)) != Float.floatToRawIntBits(input.get(at))) {
                                assertEquals(normalised(pixel, c), input.get(at), "NCHW element [" + n + ", " + c + ", " + h
                                        + ", " + w + "] from NHWC pixel " + pixel);
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void readmeProgramPrintsWhatItsCommentSays() {
        PrintStream out = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setOut(new PrintStream(printed, true));
        try {
            StageImages.main(new String[0]);
        } finally {
            System.setOut(out);
        }
        assertEquals(String.valueOf(normalised(255, 2)), printed.toString().strip());
        assertEquals("2.6399999", printed.toString().strip());
    }

    @Test
    void viewsAndOps() {
        // snippet:views
        try (Allocator arena = Allocators.confined()) {
            TensorView m = TensorView.of(arena.allocate(6 * 4), "f32[2,3]");   // row-major, as f32[2,3]{1,0}
            TensorElements.of(m).copyFrom(new float[] {0, 1, 2, 3, 4, 5});
            TensorView t = Ops.transpose(m, 1, 0);               // f32[3,2]: no byte moves
            TensorElements.of(t).getFloat(2, 1);                                    // 5.0
            assertEquals(5f, TensorElements.of(t).getFloat(2, 1));
            t.stridedLayout().orElseThrow().strides();           // [1, 3]
            assertEquals(List.of(1L, 3L), t.stridedLayout().orElseThrow().strides());
            TensorView r = Ops.reverse(m, 1);                    // strides [3, -1], offset 2
            Arrays.toString(TensorElements.of(r).toFloatArray());                   // [2.0, 1.0, 0.0, 5.0, 4.0, 3.0]
            assertEquals("[2.0, 1.0, 0.0, 5.0, 4.0, 3.0]", Arrays.toString(TensorElements.of(r).toFloatArray()));
            assertEquals(List.of(3L, -1L), r.stridedLayout().orElseThrow().strides());
            TensorView s = Ops.slice(m, new long[] {0, 1}, new long[] {2, 3}, new long[] {1, 1});
            Arrays.toString(TensorElements.of(s).toFloatArray());                   // [1.0, 2.0, 4.0, 5.0]
            assertEquals("[1.0, 2.0, 4.0, 5.0]", Arrays.toString(TensorElements.of(s).toFloatArray()));
            TensorView p = Ops.pad(m, new long[] {0, 1}, new long[] {0, 1}, new long[] {0, 0}, -1.0);
            Arrays.toString(TensorElements.of(p).toFloatArray());                   // [-1.0, 0.0, 1.0, 2.0, -1.0, -1.0, 3.0, ...]
            assertEquals("[-1.0, 0.0, 1.0, 2.0, -1.0, -1.0, 3.0, 4.0, 5.0, -1.0]", Arrays.toString(TensorElements.of(p).toFloatArray()));
            p.isStrided();                                       // false: the fill is not in m's buffer
            assertFalse(p.isStrided());
            TensorView flat = Ops.reshape(t, 6);                 // [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
            flat.form();                                         // Tiled: floordiv and mod, no single stride
            assertInstanceOf(MapForm.Tiled.class, flat.form());
            assertEquals("[0.0, 3.0, 1.0, 4.0, 2.0, 5.0]", Arrays.toString(TensorElements.of(flat).toFloatArray()));
            TensorView tiled = TensorView.of(arena.allocate(96), "f32[3,5]{1,0:T(2,2)}");
            TensorElements.of(tiled).setFloat(7f, 2, 3);                            // element (2, 3) is slot 17 of 24
            assertEquals(7f, tiled.buffer().segment().getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, 17));
            // m.getFloat(2, 0) throws IndexOutOfBoundsException: "index 2 out of bounds [0, 2) for dim 0 of f32[2,3]{1,0}"
            assertEquals("index 2 out of bounds [0, 2) for dim 0 of f32[2,3]{1,0}", assertThrows(IndexOutOfBoundsException.class, () -> TensorElements.of(m).getFloat(2, 0)).getMessage());
        }
        // end-snippet:views
    }

    @Test
    void copyEngine() {
        // snippet:copy
        try (Allocator arena = Allocators.shared()) {
            TensorView nchw = TensorView.of(arena.allocate(2 * 3 * 4 * 4 * 4), "f32[2,3,4,4]");
            TensorElements.of(nchw).copyFrom(IntStream.range(0, 96).mapToDouble(i -> i).toArray());   // 0, 1, ..., 95
            CopyEngine engine = CopyEngine.defaults();
            TensorView nhwc = TensorView.of(arena.allocate(2 * 4 * 4 * 3 * 2), "bf16[2,4,4,3]");
            engine.copy(Ops.transpose(nchw, 0, 2, 3, 1), nhwc);  // NCHW f32 -> NHWC bf16 in one pass
            TensorView tiled = engine.materialize(nhwc, ArrayShape.parse("bf16[2,4,4,3]{3,2,1,0:T(8,128)(2,1)}"), arena);
            tiled.buffer().byteSize();                           // 16384: 8 tiles of 8x128 bf16, padding zeroed
            assertEquals(16384, tiled.buffer().byteSize());
            TensorView back = engine.materialize(Ops.transpose(tiled, 0, 3, 1, 2), DType.F32,
                    StridedLayout.of(TensorFormat.NCHW, 2, 3, 4, 4), arena);   // and back: integers are exact in bf16
            assertEquals(Arrays.toString(TensorElements.of(nchw).toFloatArray()), Arrays.toString(TensorElements.of(back).toFloatArray()));
            TensorElements.of(nchw).setFloat(300f, 1, 2, 3, 0);
            TensorView bytes = TensorView.of(arena.allocate(96), "u8[2,3,4,4]");
            // engine.copy(nchw, bytes) throws IllegalArgumentException: "value 300.0 at index [1, 2, 3, 0]
            //     of f32[2,3,4,4]{3,2,1,0} strides [48, 16, 4, 1] out of range [0, 255] for u8"
            assertEquals("value 300.0 at index [1, 2, 3, 0] of f32[2,3,4,4]{3,2,1,0} strides [48, 16, 4, 1] out of range [0, 255] for u8", assertThrows(IllegalArgumentException.class, () -> engine.copy(nchw, bytes)).getMessage());
        }
        // end-snippet:copy
    }

    @Test
    void files() throws Exception {
        // snippet:files
        try (Allocator arena = Allocators.confined()) {
            TensorView m = TensorView.of(arena.allocate(6 * 4), "f32[2,3]");
            TensorElements.of(m).copyFrom(new float[] {0, 1, 2, 3, 4, 5});
            Npy.write(dir.resolve("m.npy"), DenseTensor.of(m));         // m's own bytes: it is C order
            TensorView t = Ops.transpose(m, 1, 0);
            // DenseTensor.of(t) throws IllegalArgumentException: a transpose is not C order
            assertThrows(IllegalArgumentException.class, () -> DenseTensor.of(t));
            Npy.write(dir.resolve("t.npy"), DenseTensor.copyOf(t, arena)); // copied into C order
            try (Npy.Tensor a = Npy.map(dir.resolve("t.npy"))) {            // mapped, not read
                TensorElements.of(a.view()).getFloat(2, 1);                                  // 5.0
                assertEquals(5f, TensorElements.of(a.view()).getFloat(2, 1));
                assertEquals(List.of(3L, 2L), a.shape());
            }
            SafetensorsFile.write(dir.resolve("w.safetensors"), Map.of("w", DenseTensor.of(m)));
            try (SafetensorsFile f = SafetensorsFile.open(dir.resolve("w.safetensors"))) {
                TensorElements.of(f.tensor("w").view()).getFloat(1, 0);                      // 3.0
                assertEquals(3f, TensorElements.of(f.tensor("w").view()).getFloat(1, 0));
            }
        }
        // end-snippet:files
    }

    @Test
    void dlpack() {
        // snippet:dlpack
        try (Allocator arena = Allocators.shared()) {
            TensorView m = TensorView.of(arena.allocate(6 * 4), "f32[2,3]");
            TensorElements.of(m).copyFrom(new float[] {0, 1, 2, 3, 4, 5});
            MemorySegment managed = Dlpack.exportVersioned(Ops.transpose(m, 1, 0)); // strides [1, 3], no copy
            // hand `managed` (a DLManagedTensorVersioned*) to native code, which calls its deleter once;
            // here Java stands in for the consumer:
            try (Dlpack.Tensor consumer = Dlpack.importVersioned(managed)) {
                TensorElements.of(consumer.view()).getFloat(2, 1);                                  // 5.0
                assertEquals(5f, TensorElements.of(consumer.view()).getFloat(2, 1));
                assertEquals(List.of(1L, 3L), consumer.view().stridedLayout().orElseThrow().strides());
            }                                                                    // close ran our deleter

            TensorView flipped = Ops.reverse(m, 1);                              // strides [3, -1]
            if (flipped.stridedLayout().orElseThrow().hasNegativeStrides()) {    // torch.from_dlpack would abort
                flipped = CopyEngine.defaults().materialize(flipped, DType.F32, StridedLayout.packed(2, 3), arena);
            }
            MemorySegment forTorch = Dlpack.exportVersioned(flipped);            // strides [3, 1]
            // once handed out, closing the arena throws until the consumer has called the deleter
            assertEquals("[3, 1] [2.0, 1.0, 0.0, 5.0, 4.0, 3.0]", consumed(forTorch));
        }
        // end-snippet:dlpack
    }

    /** Imports an export as a consumer would read it: its strides and values, then its deleter runs. */
    private static String consumed(MemorySegment managed) {
        try (Dlpack.Tensor consumer = Dlpack.importVersioned(managed)) {
            return consumer.view().stridedLayout().orElseThrow().strides() + " " + Arrays.toString(TensorElements.of(consumer.view()).toFloatArray());
        }
    }

    @Test
    void staging() throws Exception {
        // snippet:staging
        try (PooledAllocator pool = PooledAllocator.builder().name("staging").byteLimit(64 << 20).build();
             Allocator arena = Allocators.shared();
             StagingPipeline pipeline = StagingPipeline.builder()
                     .name("images")
                     .pool(pool)                      // staged buffers come from it and go back on close
                     .queueCapacity(4)                // submit waits while 4 tensors wait (backpressure)
                     .build()) {
            StagingTarget target = StagingTarget.strided(DType.F32, StridedLayout.of(TensorFormat.NCHW, 2, 3, 4, 4))
                    .normalised(new ChannelAffine(1, List.of(1 / 58.395f, 1 / 57.12f, 1 / 57.375f),
                            List.of(-123.675f / 58.395f, -116.28f / 57.12f, -103.53f / 57.375f)));
            TensorView pixels = TensorView.of(arena.allocate(2 * 4 * 4 * 3), "u8[2,4,4,3]");  // NHWC
            TensorElements.of(pixels).setLong(255, 1, 0, 0, 2);
            long id = pipeline.submit(Ops.transpose(pixels, 0, 3, 1, 2), target);  // read on the worker thread
            switch (pipeline.poll(Duration.ofSeconds(5))) {
                case StagingPipeline.Outcome.Staged staged -> {
                    try (staged) {                                // gives the buffer back to the pool
                        TensorElements.of(staged.view()).getFloat(1, 2, 0, 0);      // 2.6399999
                        assertEquals(id, staged.id());
                        assertEquals(2.6399999f, TensorElements.of(staged.view()).getFloat(1, 2, 0, 0));
                        assertEquals(normalised(0, 0), TensorElements.of(staged.view()).getFloat(0, 0, 3, 3));
                    }
                }
                case StagingPipeline.Outcome.Failed failed -> throw failed.error();
                case null -> throw new IllegalStateException("nothing staged within 5 s");
            }
            assertEquals(0, pool.stats().liveBytes());
        }
        // end-snippet:staging
    }
}
