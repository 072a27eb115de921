package dev.tensorbuf.ops.copy;

import dev.tensorbuf.ops.copy.CopyPlan.Explanation;
import dev.tensorbuf.ops.copy.internal.Loop;
import dev.tensorbuf.ops.copy.internal.AccessCopies;
import dev.tensorbuf.ops.copy.internal.PointwiseCopy;
import dev.tensorbuf.ops.copy.internal.Step;
import dev.tensorbuf.views.internal.JsonStrings;
import java.util.List;
import java.util.Locale;

/** The text and JSON forms of {@link Explanation}. */
final class ExplanationText {
    private ExplanationText() {
    }

    static String text(Explanation e) {
        StringBuilder sb = new StringBuilder();
        text(e, "", sb);
        return sb.toString();
    }

    private static void text(Explanation e, String indent, StringBuilder sb) {
        sb.append(indent).append(routeName(e.route())).append(' ').append(e.source()).append(" -> ").append(e.destination())
                .append(": ").append(e.elements()).append(e.elements() == 1 ? " element, " : " elements, ")
                .append(e.bytes()).append(" bytes, ").append(e.threads()).append(e.threads() == 1 ? " thread" : " threads")
                .append('\n');
        String in = indent + "  ";
        if (!e.reason().isEmpty()) {
            sb.append(in).append("why: ").append(e.reason()).append('\n');
        }
        e.epilogue().ifPresent(p -> sb.append(in).append("epilogue: ").append(p.expression()).append(" per element, ")
                .append(p.kernel()).append('\n'));
        for (Explanation.Temporary t : e.temporaries()) {
            sb.append(in).append("temporary ").append(t.dtype()).append(t.dims()).append(", ").append(t.bytes())
                    .append(" bytes: ").append(t.holds()).append('\n');
        }
        for (Explanation.Staged s : e.staging()) {
            sb.append(in).append("staged ").append(s.side()).append(": ").append(s.bits()).append("-bit slots [")
                    .append(s.firstSlot()).append(", ").append(s.firstSlot() + s.slots()).append(") a byte each, ")
                    .append(s.unpacked()).append(" unpacked first").append(s.packedBack() ? ", packed back after" : "")
                    .append('\n');
        }
        if (e.zeroedBytes() > 0) {
            sb.append(in).append("zero ").append(e.zeroedBytes()).append(" bytes of the destination's tiles\n");
        }
        for (Step step : AccessCopies.steps(e)) {
            sb.append(in);
            switch (step) {
                case Step.Run r -> {
                    sb.append("run ").append(r.kernel()).append(": ").append(r.elementCount()).append(" elements, src +")
                            .append(r.srcOffset()).append(", dst +").append(r.dstOffset()).append(", loops ");
                    loops(r.loops(), true, sb);
                    if (r.channelLoop() >= 0) {
                        sb.append(", channels on loop ").append(r.channelLoop());
                    }
                }
                case Step.Zero z -> {
                    sb.append("zero: dst +").append(z.dstOffset()).append(", loops ");
                    loops(z.loops(), false, sb);
                }
                case Step.Gather g -> sb.append("gather: ").append(g.reason());
                case Step.Dequantize d -> {
                    Step.Run r = d.run();
                    sb.append("dequantize ").append(d.source().type()).append(" blocks ")
                            .append(d.direct() ? "straight into the destination"
                                    : "through a per-thread tile of f32 rows, then " + r.kernel())
                            .append(": ").append(r.elementCount()).append(" elements, rows of ").append(d.source().cover())
                            .append(" values, dst +").append(r.dstOffset()).append(", loops ");
                    loops(r.loops(), true, sb);
                }
                case Step.Epilogue p -> {
                    PointwiseCopy pass = p.pass();
                    sb.append("pointwise ").append(pass.evaluator()).append(": ").append(pass.elements())
                            .append(" elements, ").append(pass.operands().size())
                            .append(pass.operands().size() == 1 ? " operand, " : " operands, ").append(pass.blocks())
                            .append(pass.blocks() == 1 ? " block of " : " blocks of up to ")
                            .append(pass.blockDims().toString().replace(" ", ""))
                            .append(pass.direct() ? ", stored straight" : ", stored through a block");
                }
            }
            sb.append('\n');
        }
        for (int i = 0; i < e.parts().size(); i++) {
            if (i < e.pieces().size()) {
                Explanation.Piece p = e.pieces().get(i);
                sb.append(in).append("box ").append(p.box()).append(": source piece ").append(p.sourcePiece())
                        .append(p.sourceFill() ? " (fill)" : "").append(", destination piece ").append(p.destinationPiece())
                        .append('\n');
                text(e.parts().get(i), in + "  ", sb);
            } else {
                text(e.parts().get(i), in, sb);
            }
        }
    }

    /** Loops as {@code count: srcStride/dstStride}, outermost first. */
    private static void loops(List<Loop> loops, boolean withSource, StringBuilder sb) {
        sb.append('[');
        for (int i = 0; i < loops.size(); i++) {
            Loop l = loops.get(i);
            sb.append(i == 0 ? "" : ", ").append(l.count()).append(": ");
            if (withSource) {
                sb.append(l.srcStride()).append('/');
            }
            sb.append(l.dstStride());
        }
        sb.append(']');
    }

    private static String routeName(Explanation.Route r) {
        return switch (r) {
            case PLANNED -> "planned copy";
            case PIECES -> "copy in parts";
            case STAGED -> "staged copy";
            case THROUGH_TEMPORARY -> "copy through a temporary";
            case ELEMENTS -> "element-by-element copy";
            case BLOCKS -> "elementwise copy in blocks";
        };
    }

    static String json(Explanation e) {
        StringBuilder sb = new StringBuilder();
        json(e, sb);
        return sb.toString();
    }

    private static void json(Explanation e, StringBuilder sb) {
        sb.append("{\"route\":").append(string(e.route().name().toLowerCase(Locale.ROOT)))
                .append(",\"source\":").append(string(e.source()))
                .append(",\"destination\":").append(string(e.destination()))
                .append(",\"elements\":").append(e.elements())
                .append(",\"bytes\":").append(e.bytes())
                .append(",\"threads\":").append(e.threads())
                .append(",\"steps\":[");
        for (int i = 0; i < AccessCopies.steps(e).size(); i++) {
            sb.append(i == 0 ? "" : ",");
            switch (AccessCopies.steps(e).get(i)) {
                case Step.Run r -> {
                    sb.append("{\"step\":\"run\",\"kernel\":").append(string(r.kernel().name()))
                            .append(",\"elements\":").append(r.elementCount())
                            .append(",\"src_offset\":").append(r.srcOffset())
                            .append(",\"dst_offset\":").append(r.dstOffset())
                            .append(",\"loops\":");
                    loopsJson(r.loops(), sb);
                    sb.append(",\"channel_loop\":").append(r.channelLoop()).append('}');
                }
                case Step.Zero z -> {
                    sb.append("{\"step\":\"zero\",\"dst_offset\":").append(z.dstOffset()).append(",\"loops\":");
                    loopsJson(z.loops(), sb);
                    sb.append('}');
                }
                case Step.Gather g -> sb.append("{\"step\":\"gather\",\"reason\":").append(string(g.reason())).append('}');
                case Step.Dequantize d -> {
                    Step.Run r = d.run();
                    sb.append("{\"step\":\"dequantize\",\"block_type\":").append(string(d.source().type().name()))
                            .append(",\"direct\":").append(d.direct())
                            .append(",\"kernel\":").append(string(r.kernel().name()))
                            .append(",\"elements\":").append(r.elementCount())
                            .append(",\"row_values\":").append(d.source().cover())
                            .append(",\"src_offset\":").append(r.srcOffset())
                            .append(",\"dst_offset\":").append(r.dstOffset())
                            .append(",\"loops\":");
                    loopsJson(r.loops(), sb);
                    sb.append('}');
                }
                case Step.Epilogue p -> {
                    PointwiseCopy pass = p.pass();
                    sb.append("{\"step\":\"pointwise\",\"evaluator\":").append(string(pass.evaluator().name()))
                            .append(",\"elements\":").append(pass.elements())
                            .append(",\"operands\":").append(pass.operands().size())
                            .append(",\"blocks\":").append(pass.blocks())
                            .append(",\"block_dims\":").append(pass.blockDims().toString().replace(" ", ""))
                            .append(",\"direct\":").append(pass.direct()).append('}');
                }
            }
        }
        sb.append("],\"temporaries\":[");
        for (int i = 0; i < e.temporaries().size(); i++) {
            Explanation.Temporary t = e.temporaries().get(i);
            sb.append(i == 0 ? "" : ",").append("{\"holds\":").append(string(t.holds()))
                    .append(",\"dtype\":").append(string(t.dtype().xlaName()))
                    .append(",\"dims\":").append(t.dims().toString().replace(" ", ""))
                    .append(",\"bytes\":").append(t.bytes()).append('}');
        }
        sb.append("],\"staging\":[");
        for (int i = 0; i < e.staging().size(); i++) {
            Explanation.Staged s = e.staging().get(i);
            sb.append(i == 0 ? "" : ",").append("{\"side\":").append(string(s.side()))
                    .append(",\"bits\":").append(s.bits())
                    .append(",\"first_slot\":").append(s.firstSlot())
                    .append(",\"slots\":").append(s.slots())
                    .append(",\"unpacked\":").append(s.unpacked())
                    .append(",\"packed_back\":").append(s.packedBack()).append('}');
        }
        sb.append("],\"zeroed_bytes\":").append(e.zeroedBytes()).append(",\"pieces\":[");
        for (int i = 0; i < e.pieces().size(); i++) {
            Explanation.Piece p = e.pieces().get(i);
            sb.append(i == 0 ? "" : ",").append("{\"start\":").append(p.start().toString().replace(" ", ""))
                    .append(",\"step\":").append(p.step().toString().replace(" ", ""))
                    .append(",\"count\":").append(p.count().toString().replace(" ", ""))
                    .append(",\"source_piece\":").append(p.sourcePiece())
                    .append(",\"destination_piece\":").append(p.destinationPiece())
                    .append(",\"source_fill\":").append(p.sourceFill()).append('}');
        }
        sb.append("],\"parts\":[");
        for (int i = 0; i < e.parts().size(); i++) {
            sb.append(i == 0 ? "" : ",");
            json(e.parts().get(i), sb);
        }
        sb.append("],\"reason\":").append(string(e.reason()));
        e.epilogue().ifPresent(p -> sb.append(",\"epilogue\":{\"expression\":").append(string(p.expression()))
                .append(",\"kernel\":").append(string(p.kernel())).append('}'));
        sb.append('}');
    }

    private static void loopsJson(List<Loop> loops, StringBuilder sb) {
        sb.append('[');
        for (int i = 0; i < loops.size(); i++) {
            Loop l = loops.get(i);
            sb.append(i == 0 ? "" : ",").append("{\"count\":").append(l.count()).append(",\"src_stride\":")
                    .append(l.srcStride()).append(",\"dst_stride\":").append(l.dstStride()).append('}');
        }
        sb.append(']');
    }

    /** {@return {@code s} as a JSON string} */
    private static String string(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2);
        JsonStrings.quote(sb, s);
        return sb.toString();
    }
}
