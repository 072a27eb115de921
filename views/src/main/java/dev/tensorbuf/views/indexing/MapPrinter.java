package dev.tensorbuf.views.indexing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/** Prints maps as XLA does: header, results, then the domain with constraints sorted by text. */
final class MapPrinter {
    private MapPrinter() {}

    static String print(IndexingMap m, IndexingMap.Notation style) {
        if (m.isUndefined()) {
            return "UNDEFINED";
        }
        if (m.isKnownEmpty()) {
            return "KNOWN EMPTY";
        }
        Names names = m.names();
        StringBuilder sb = new StringBuilder();
        sb.append(list(m.dims().size(), names::dim, "(", ")"));
        if (!m.rangeVars().isEmpty()) {
            sb.append(list(m.rangeVars().size(), names::range, "[", "]"));
        }
        if (!m.runtimeVars().isEmpty()) {
            sb.append(list(m.runtimeVars().size(), names::runtime, "{", "}"));
        }
        StringJoiner res = new StringJoiner(", ", " -> (", ")");
        for (AffineExpr e : m.results()) {
            res.add(ExprPrinter.print(e, names, style));
        }
        sb.append(res);
        if (m.dims().isEmpty() && m.rangeVars().isEmpty() && m.runtimeVars().isEmpty()
                && m.constraints().isEmpty()) {
            return sb.toString();
        }
        StringJoiner domain = new StringJoiner(", ", ", domain: ", "");
        for (int i = 0; i < m.dims().size(); i++) {
            domain.add(names.dim(i) + " in " + m.dims().get(i).bounds());
        }
        for (int i = 0; i < m.rangeVars().size(); i++) {
            domain.add(names.range(i) + " in " + m.rangeVars().get(i).bounds());
        }
        for (int i = 0; i < m.runtimeVars().size(); i++) {
            domain.add(names.runtime(i) + " in " + m.runtimeVars().get(i).bounds());
        }
        List<String> cons = new ArrayList<>();
        for (Map.Entry<AffineExpr, Interval> c : m.constraints().entrySet()) {
            cons.add(ExprPrinter.print(c.getKey(), names, style) + " in " + c.getValue());
        }
        cons.sort(null);
        cons.forEach(domain::add);
        return sb.append(domain).toString();
    }

    private static String list(int n, java.util.function.IntFunction<String> name, String open, String close) {
        StringJoiner j = new StringJoiner(", ", open, close);
        for (int i = 0; i < n; i++) {
            j.add(name.apply(i));
        }
        return j.toString();
    }
}
