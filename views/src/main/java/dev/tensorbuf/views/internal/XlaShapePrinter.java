package dev.tensorbuf.views.internal;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.XlaShape.BufferShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.XlaShape;
import dev.tensorbuf.views.XlaLayout.SplitConfig;
import dev.tensorbuf.views.XlaLayout.Tile;
import dev.tensorbuf.views.XlaLayout;

import java.util.List;

/** Canonical XLA text for shapes and layouts ({@code ShapeUtil::HumanStringWithLayout}, {@code Layout::ToString}). */
public final class XlaShapePrinter {
    /** XLA annotates every fifth tuple separator with the index that follows it. */
    private static final int TUPLE_ANNOTATION_INTERVAL = 5;

    private XlaShapePrinter() {
    }

    /** {@return the text of {@code shape}, with or without array layouts} */
    public static String shape(XlaShape shape, boolean withLayout) {
        StringBuilder sb = new StringBuilder();
        append(sb, shape, withLayout);
        return sb.toString();
    }

    /** {@return the text of {@code layout}, e.g. {@code "{1,0:T(2,2)}"}} */
    public static String layout(XlaLayout layout) {
        StringBuilder sb = new StringBuilder();
        appendLayout(sb, layout);
        return sb.toString();
    }

    /** {@return {@code dtype[dims]} without a layout, e.g. {@code "f32[<=3,?]"}} */
    public static String arrayWithoutLayout(DType dtype, List<Long> dims, List<Boolean> dynamic) {
        StringBuilder sb = new StringBuilder();
        appendArrayPrefix(sb, dtype, dims, dynamic);
        return sb.toString();
    }

    private static void append(StringBuilder sb, XlaShape shape, boolean withLayout) {
        switch (shape) {
            case ArrayShape a -> {
                appendArrayPrefix(sb, a.dtype(), a.dims(), a.dynamicDims());
                // XLA prints a scalar's layout only when it says more than "{}".
                if (withLayout && a.layout().isPresent() && (a.rank() > 0 || a.layout().get().hasAttributes())) {
                    appendLayout(sb, a.layout().get());
                }
            }
            case XlaShape.Tuple t -> {
                sb.append('(');
                List<XlaShape> elements = t.elements();
                for (int i = 0; i < elements.size(); i++) {
                    if (i > 0) {
                        sb.append(", ");
                        if (i % TUPLE_ANNOTATION_INTERVAL == 0) {
                            sb.append("/*index=").append(i).append("*/");
                        }
                    }
                    append(sb, elements.get(i), withLayout);
                }
                sb.append(')');
            }
            case BufferShape b -> {
                sb.append("b(");
                append(sb, b.array(), withLayout);
                sb.append(')');
            }
            case XlaShape.Token tok -> sb.append("token[]");
            case XlaShape.Opaque o -> sb.append("opaque[]");
        }
    }

    private static void appendArrayPrefix(StringBuilder sb, DType dtype, List<Long> dims, List<Boolean> dynamic) {
        sb.append(dtype.xlaName()).append('[');
        for (int i = 0; i < dims.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            long d = dims.get(i);
            if (d == ArrayShape.UNBOUNDED) {
                sb.append('?');
            } else {
                if (dynamic.get(i)) {
                    sb.append("<=");
                }
                sb.append(d);
            }
        }
        sb.append(']');
    }

    private static void appendLayout(StringBuilder sb, XlaLayout l) {
        sb.append('{');
        List<Integer> m2m = l.minorToMajor();
        for (int i = 0; i < m2m.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(m2m.get(i));
        }
        if (l.hasAttributes()) {
            sb.append(':');
        }
        if (!l.tiles().isEmpty()) {
            sb.append('T');
            for (Tile t : l.tiles()) {
                sb.append(t);
            }
        }
        if (l.tailPaddingAlignment() != 1) {
            sb.append("L(").append(l.tailPaddingAlignment()).append(')');
        }
        l.indexPrimitiveType().ifPresent(t -> sb.append("#(").append(t.xlaName()).append(')'));
        l.pointerPrimitiveType().ifPresent(t -> sb.append("*(").append(t.xlaName()).append(')'));
        if (l.elementSizeInBits() != 0) {
            sb.append("E(").append(l.elementSizeInBits()).append(')');
        }
        if (l.memorySpaceId() != 0) {
            sb.append("S(").append(l.memorySpaceId()).append(')');
        }
        if (!l.splitConfigs().isEmpty()) {
            sb.append("SC");
            for (SplitConfig sc : l.splitConfigs()) {
                sb.append(sc);
            }
        }
        if (l.dynamicShapeMetadataPrefixBytes() != 0) {
            sb.append("M(").append(l.dynamicShapeMetadataPrefixBytes()).append(')');
        }
        sb.append('}');
    }
}
