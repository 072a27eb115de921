package dev.tensorbuf.cli;

import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.StridedLayout.TensorFormat;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code tensorbuf strides}: a strided layout's buffer size (DirectML's
 * {@code DMLCalcBufferTensorSize}), its classification, its format name and element offsets.
 */
final class StridesCommand implements Command {
    /** Also an option of {@code render}, which draws the same layouts. */
    static final Option OFFSET = Option.value("offset", "N", false,
            "element offset of index 0 (default 0); negative strides need one");

    @Override
    public String name() {
        return "strides";
    }

    @Override
    public String summary() {
        return "buffer size, packed/broadcast/padded/overlapping and offsets of sizes and strides";
    }

    @Override
    public String synopsis() {
        return "tensorbuf strides --dtype T --sizes S0,S1,.. [--strides T0,T1,.. | --format NAME] [--offset N]"
                + " [--index I0,I1,..]... [--json] [--batch]";
    }

    @Override
    public String description() {
        return """
                Sizes and strides are in elements, in logical order (NCHW order for NHWC, as in
                DirectML). Without --strides or --format the layout is packed row-major (DirectML's
                null strides). The format shown is the one given, else the first whose packed
                strides these are (CHW and DHW always agree; CHW comes first). --dtype takes an
                XLA name (f32, s4, bf16) or a DirectML one (FLOAT32), in any case. --offset is the element offset of index 0 (NumPy's offset, in
                elements); negative strides need one that keeps every offset at least 0. Element
                offsets count from the buffer's start, --offset included, and so does the buffer
                size: DMLCalcBufferTensorSize, (last offset + 1) x bits, in bytes, rounded up to 4;
                the minimum is the same before that rounding. (DirectML itself has no element
                offset: it binds the tensor at a byte offset and sizes the rest.) Packed, broadcast,
                padded and overlapping look only at the offsets in use, so --offset never changes
                them. --batch reads {"dtype", "sizes", "strides", "offset", "format", "indices"}
                per stdin line and writes one JSON result per line.

                example:
                  tensorbuf strides --dtype f32 --sizes 1,3,224,224 --format NHWC --index 0,2,223,223
                  f32 sizes [1, 3, 224, 224] strides [150528, 1, 672, 3] (NHWC)
                  buffer 602112 bytes (minimum 602112)
                  packed yes, broadcast no, padded no, overlapping no
                  index [0, 2, 223, 223] -> offset 150527
                """;
    }

    @Override
    public List<Option> options() {
        return List.of(
                Option.value("dtype", "T", false, "element type: XLA name (f32, s4, bf16) or DirectML name (FLOAT32)"),
                Option.value("sizes", "S0,S1,..", false, "size of each dim, logical order"),
                Option.value("strides", "T0,T1,..", false, "element stride of each dim (0 broadcasts)"),
                Option.value("format", "NAME", false, "packed strides of a named format: "
                        + Arrays.toString(TensorFormat.values())),
                OFFSET,
                Option.value("index", "I0,I1,..", true, "a logical index to map to its element offset"),
                Option.JSON,
                Option.BATCH);
    }

    @Override
    public int run(Invocation in) throws IOException {
        if (in.flag("batch")) {
            return Batch.run(in, List.of("dtype", "sizes", "strides", "offset", "format", "indices"),
                    StridesCommand::answerRequest);
        }
        in.expectAtMostPositionals(0);
        if (in.value("dtype") == null || in.value("sizes") == null) {
            throw Errors.withUsage("--dtype and --sizes are required", synopsis());
        }
        List<long[]> indices = new ArrayList<>();
        for (String index : in.values("index")) {
            indices.add(Invocation.parseLongs(index, "--index"));
        }
        Answer answer = answer(DTypeNames.parse(in.value("dtype"), "--dtype"), in.longs("sizes"), in.longs("strides"),
                offset(in), "pass --offset", in.value("format"), indices);
        if (in.flag("json")) {
            in.printJson(answer.json());
        } else {
            printText(in, answer);
        }
        return 0;
    }

    private static Map<String, Object> answerRequest(BatchRequest request) {
        String dtype = request.requiredString("dtype", "the element type name");
        long[] sizes = request.requiredLongs("sizes", "a list of integers");
        Long offset = request.longValue("offset");
        return answer(DTypeNames.parse(dtype, "\"dtype\""), sizes, request.longs("strides"), offset == null ? 0 : offset,
                "set \"offset\" to", request.string("format"), request.longLists("indices")).json();
    }

    /** The layout asked about and the answer in the JSON keys of the command. */
    record Answer(DType type, StridedLayout layout, Map<String, Object> json) {
    }

    /**
     * {@return the answer for one layout}
     *
     * @param offset the element offset of index 0
     * @param setOffset how the user sets the offset, for the message when negative strides need a
     *        larger one: {@code "pass --offset"} on the command line, {@code "set \"offset\" to"} in a batch
     */
    static Answer answer(DType type, long[] sizes, long[] strides, long offset, String setOffset, String format,
                         List<long[]> indices) {
        if (strides != null && format != null) {
            throw new IllegalArgumentException("give strides or a format, not both");
        }
        if (strides != null) {
            checkReach(sizes, strides, offset, setOffset);
        }
        StridedLayout layout = format != null ? TensorFormat.fromName(format).layout(sizes).withOffset(offset)
                : strides != null ? StridedLayout.of(sizes, strides, offset) : StridedLayout.packed(sizes).withOffset(offset);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("buffer_bytes", layout.bufferBytes(type));
        out.put("min_bytes", layout.minBytes(type));
        out.put("packed", layout.isPacked());
        out.put("broadcast", layout.isBroadcast());
        out.put("padded", layout.isPadded());
        out.put("overlapping", layout.isOverlapping());
        // The format asked for, not the first with the same strides (DHW and CHW always agree).
        out.put("format", format != null ? TensorFormat.fromName(format).name() : layout.format().map(Enum::name).orElse(null));
        out.put("strides", layout.strides());
        out.put("offset", layout.offset());
        List<Object> offsets = new ArrayList<>();
        for (long[] index : indices) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("index", index);
            entry.put("offset", layout.offsetOf(index));
            offsets.add(entry);
        }
        out.put("offsets", offsets);
        return new Answer(type, layout, out);
    }

    /**
     * The layout refuses offsets below 0 too, but can only say what the offset must be; the
     * command also knows how the user sets it.
     */
    private static void checkReach(long[] sizes, long[] strides, long offset, String setOffset) {
        if (sizes.length != strides.length || Arrays.stream(sizes).anyMatch(size -> size <= 0)) {
            return;
        }
        long low = offset;
        try {
            for (int d = 0; d < sizes.length; d++) {
                low = Math.addExact(low, Math.min(0, Math.multiplyExact(sizes[d] - 1, strides[d])));
            }
        } catch (ArithmeticException e) {
            return; // the layout names the overflow
        }
        long need = offset - low;
        // need < 0: it overflowed, so no offset will do, and the layout's own message says so.
        if (low < 0 && offset >= 0 && need >= 0) {
            throw new IllegalArgumentException("negative strides " + Arrays.toString(strides) + " reach element offset "
                    + low + " for sizes " + Arrays.toString(sizes) + " from offset " + offset + ": " + setOffset + " "
                    + need + " or more");
        }
    }

    /** {@return the {@code --offset} option's value, 0 when absent} */
    static long offset(Invocation in) {
        Long offset = in.longValue("offset");
        return offset == null ? 0 : offset;
    }

    private static void printText(Invocation in, Answer answer) {
        Map<String, Object> r = answer.json();
        in.out().println(answer.type() + " " + answer.layout() + (r.get("format") == null ? "" : " (" + r.get("format") + ")"));
        in.out().println("buffer " + r.get("buffer_bytes") + " bytes (minimum " + r.get("min_bytes") + ")");
        in.out().println("packed " + yes(r.get("packed")) + ", broadcast " + yes(r.get("broadcast")) + ", padded "
                + yes(r.get("padded")) + ", overlapping " + yes(r.get("overlapping")));
        for (Object o : (List<?>) r.get("offsets")) {
            Map<?, ?> entry = (Map<?, ?>) o;
            in.out().println("index " + Arrays.toString((long[]) entry.get("index")) + " -> offset " + entry.get("offset"));
        }
    }

    private static String yes(Object flag) {
        return Boolean.TRUE.equals(flag) ? "yes" : "no";
    }
}
