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
        int stagedShown = e.staging().size() > MOST_PARTS ? FIRST_PARTS : e.staging().size();
        for (Explanation.Staged s : e.staging().subList(0, stagedShown)) {
            if (!s.gather().isEmpty()) {
                sb.append(in).append("staged ").append(s.side()).append(": its ").append(s.slots()).append(' ')
                        .append(s.bits()).append("-bit slots (the lowest ").append(s.firstSlot()).append(") ")
                        .append(s.packedBack() ? "written a byte each in row-major order, then each scattered back into"
                                + " its slot through its " : "gathered a byte each in row-major order through its ")
                        .append(s.gather()).append('\n');
                continue;
            }
            sb.append(in).append("staged ").append(s.side()).append(": ").append(s.bits()).append("-bit slots [")
                    .append(s.firstSlot()).append(", ").append(s.firstSlot() + s.slots()).append(") a byte each, ")
                    .append(s.packedBack() && s.unpacked() == 0 ? "" : s.unpacked() + " unpacked first")
                    .append(s.packedBack() ? (s.unpacked() == 0 ? "" : ", ") + "written slots packed back after" : "")
                    .append('\n');
        }
        if (stagedShown < e.staging().size()) {
            // Runs of pieces of packed parts, one per part's buffer: a staircase of hundreds of parts.
            long slots = 0;
            for (Explanation.Staged s : e.staging().subList(stagedShown, e.staging().size())) {
                slots += s.slots();
            }
            sb.append(in).append("... ").append(e.staging().size() - stagedShown).append(" more staged runs, ").append(slots)
                    .append(" slots\n");
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
        int shown = shownParts(e);
        if (shown < e.parts().size()) {
            List<Form> forms = forms(e);
            sb.append(in).append(e.parts().size()).append(" parts in ").append(forms.size())
                    .append(forms.size() == 1 ? " form" : " forms").append(", most parts first:\n");
            for (int k = 0; k < Math.min(forms.size(), SHOWN_FORMS); k++) {
                Form f = forms.get(k);
                sb.append(in).append("  ").append(f.parts()).append(f.parts() == 1 ? " part, " : " parts, ")
                        .append(f.elements()).append(f.elements() == 1 ? " element: " : " elements: ").append(f.form())
                        .append('\n');
            }
            if (forms.size() > SHOWN_FORMS) {
                long parts = 0;
                for (Form f : forms.subList(SHOWN_FORMS, forms.size())) {
                    parts += f.parts();
                }
                sb.append(in).append("  ... ").append(forms.size() - SHOWN_FORMS).append(" more forms, ").append(parts)
                        .append(parts == 1 ? " part\n" : " parts\n");
            }
            sb.append(in).append("the first ").append(shown).append(" parts:\n");
        }
        for (int i = 0; i < shown; i++) {
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
        if (shown < e.parts().size()) {
            sb.append(in).append("... ").append(e.parts().size() - shown).append(" more parts\n");
        }
    }

    /**
     * Parts past which an explanation is summarised: a cut of a staircase is tens of thousands of
     * boxes (one line each and their steps, megabytes of text nobody reads), so a longer list shows
     * its forms with their counts, then its first {@link #FIRST_PARTS} parts.
     */
    static final int MOST_PARTS = 32;
    /** Parts a summarised explanation shows in full. */
    static final int FIRST_PARTS = 8;
    /** Forms a summarised explanation names; the rest are counted. */
    static final int SHOWN_FORMS = 16;

    private static int shownParts(Explanation e) {
        return e.parts().size() > MOST_PARTS ? FIRST_PARTS : e.parts().size();
    }

    /**
     * Parts of one form: the same route and the same steps but for their offsets (a box's loop
     * nest with its kernel, the same at every box of its form).
     *
     * @param form the route and steps, in words
     * @param parts the parts of the form
     * @param elements their elements
     */
    record Form(String form, long parts, long elements) {
    }

    /** {@return the forms of {@code e}'s parts, most parts first, ties in the order they first run} */
    static List<Form> forms(Explanation e) {
        java.util.Map<String, long[]> counts = new java.util.LinkedHashMap<>();
        for (Explanation p : e.parts()) {
            long[] c = counts.computeIfAbsent(form(p), k -> new long[2]);
            c[0]++;
            c[1] += p.elements();
        }
        List<Form> forms = new java.util.ArrayList<>(counts.size());
        counts.forEach((f, c) -> forms.add(new Form(f, c[0], c[1])));
        forms.sort(java.util.Comparator.comparingLong(Form::parts).reversed());
        return forms;
    }

    /** {@return {@code e}'s route and steps without offsets or element counts} */
    private static String form(Explanation e) {
        StringBuilder sb = new StringBuilder(routeName(e.route()));
        List<Step> steps = AccessCopies.steps(e);
        for (int i = 0; i < steps.size(); i++) {
            sb.append(i == 0 ? ", " : "; ");
            switch (steps.get(i)) {
                case Step.Run r -> {
                    sb.append("run ").append(r.kernel()).append(", loops ");
                    loops(r.loops(), true, sb);
                }
                case Step.Zero z -> {
                    sb.append("zero, loops ");
                    loops(z.loops(), false, sb);
                }
                case Step.Gather g -> sb.append("gather");
                case Step.Dequantize d -> {
                    sb.append("dequantize ").append(d.source().type()).append(", loops ");
                    loops(d.run().loops(), true, sb);
                }
                case Step.Epilogue p -> sb.append("pointwise ").append(p.pass().evaluator());
            }
        }
        if (!e.parts().isEmpty()) {
            sb.append(", ").append(e.parts().size()).append(e.parts().size() == 1 ? " part" : " parts");
        }
        return sb.toString();
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
                    .append(",\"packed_back\":").append(s.packedBack())
                    .append(",\"gather\":").append(string(s.gather())).append('}');
        }
        int shown = shownParts(e);
        sb.append("],\"zeroed_bytes\":").append(e.zeroedBytes()).append(",\"pieces\":[");
        for (int i = 0; i < Math.min(shown, e.pieces().size()); i++) {
            Explanation.Piece p = e.pieces().get(i);
            sb.append(i == 0 ? "" : ",").append("{\"start\":").append(p.start().toString().replace(" ", ""))
                    .append(",\"step\":").append(p.step().toString().replace(" ", ""))
                    .append(",\"count\":").append(p.count().toString().replace(" ", ""))
                    .append(",\"source_piece\":").append(p.sourcePiece())
                    .append(",\"destination_piece\":").append(p.destinationPiece())
                    .append(",\"source_fill\":").append(p.sourceFill()).append('}');
        }
        sb.append("],\"parts\":[");
        for (int i = 0; i < shown; i++) {
            sb.append(i == 0 ? "" : ",");
            json(e.parts().get(i), sb);
        }
        sb.append(']');
        if (shown < e.parts().size()) {
            // Summarised as the text is: "pieces" and "parts" hold the first parts only.
            sb.append(",\"parts_total\":").append(e.parts().size()).append(",\"pieces_total\":")
                    .append(e.pieces().size()).append(",\"forms\":[");
            List<Form> forms = forms(e);
            for (int k = 0; k < forms.size(); k++) {
                Form f = forms.get(k);
                sb.append(k == 0 ? "" : ",").append("{\"form\":").append(string(f.form()))
                        .append(",\"parts\":").append(f.parts())
                        .append(",\"elements\":").append(f.elements()).append('}');
            }
            sb.append(']');
        }
        sb.append(",\"reason\":").append(string(e.reason()));
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
