package dev.tensorbuf.cli.docs;

// The README's first program, as users copy it: everything from the snippet marker on is shown
// there verbatim (SnippetSourcesTest), and DocsSnippetTest runs it.
// snippet:stage-images
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.Ops;
import dev.tensorbuf.ops.copy.ChannelAffine;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.TensorElements;
import dev.tensorbuf.views.TensorView;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.List;

public class StageImages {
    public static void main(String[] args) {
        try (Allocator arena = Allocators.shared()) {
            TensorView pixels = TensorView.of(arena.allocate(8L * 224 * 224 * 3), "u8[8,224,224,3]");
            TensorElements.of(pixels).setLong(255, 0, 0, 0, 2);          // your image decoder fills the batch (N, H, W, C)
            FloatBuffer input = stage(pixels, arena);
            // ONNX Runtime reads a direct buffer in place, no copy:
            // OnnxTensor tensor = OnnxTensor.createTensor(env, input, new long[] {8, 3, 224, 224});
            System.out.println(input.get(2 * 224 * 224)); // (255 - 103.53) / 57.375: 2.6399999
        }
    }

    /** u8 NHWC pixels, as decoded, to f32 NCHW normalised by ImageNet's mean and std, as a model takes them. */
    static FloatBuffer stage(TensorView pixels, Allocator arena) {
        TensorView input = TensorView.of(arena.allocate(8L * 3 * 224 * 224 * 4), "f32[8,3,224,224]");
        CopyEngine.defaults().copy(Ops.transpose(pixels, 0, 3, 1, 2), input,   // NHWC -> NCHW, (x - mean) / std
                new ChannelAffine(1, List.of(1 / 58.395f, 1 / 57.12f, 1 / 57.375f),
                        List.of(-123.675f / 58.395f, -116.28f / 57.12f, -103.53f / 57.375f)));
        return input.buffer().segment().asByteBuffer().order(ByteOrder.nativeOrder()).asFloatBuffer();
    }
}
// end-snippet:stage-images
