package dev.tensorbuf.cli.render;

import java.util.Locale;

/**
 * A minimal SVG text builder: elements with attributes in the order given, escaped text, and
 * numbers printed the same way on every machine (at most one decimal, {@link Locale#ROOT}), so the
 * same picture always gives the same bytes.
 * {@snippet :
 * SvgWriter w = new SvgWriter();
 * w.open("g", "class", "panel");
 * w.text("17", "x", 10, "y", 20, "data-index", "2,3");
 * w.close("g");
 * w.toString(); // "<g class=\"panel\">\n<text x=\"10\" y=\"20\" data-index=\"2,3\">17</text>\n</g>\n"
 * }
 */
public final class SvgWriter {
    private final StringBuilder out = new StringBuilder();

    /** Opens {@code <name attrs...>}; {@code attrs} alternate names and values (String or Number). */
    public SvgWriter open(String name, Object... attrs) {
        out.append('<').append(name);
        attributes(attrs);
        out.append(">\n");
        return this;
    }

    /** Closes {@code </name>}. */
    public SvgWriter close(String name) {
        out.append("</").append(name).append(">\n");
        return this;
    }

    /** Writes an empty element {@code <name attrs.../>}. */
    public SvgWriter empty(String name, Object... attrs) {
        out.append('<').append(name);
        attributes(attrs);
        out.append("/>\n");
        return this;
    }

    /** Writes {@code <text attrs...>content</text>} with the content escaped. */
    public SvgWriter text(String content, Object... attrs) {
        return element("text", content, attrs);
    }

    /** Writes {@code <name attrs...>content</name>} with the content escaped. */
    public SvgWriter element(String name, String content, Object... attrs) {
        out.append('<').append(name);
        attributes(attrs);
        out.append('>').append(escape(content)).append("</").append(name).append(">\n");
        return this;
    }

    /** Appends markup as it is: for fixed fragments such as {@code <defs>} written in this package. */
    public SvgWriter raw(String markup) {
        out.append(markup);
        return this;
    }

    private void attributes(Object[] attrs) {
        if (attrs.length % 2 != 0) {
            throw new IllegalArgumentException("attributes come in name/value pairs, got " + attrs.length + " items");
        }
        for (int i = 0; i < attrs.length; i += 2) {
            Object value = attrs[i + 1];
            if (value == null) {
                continue;
            }
            out.append(' ').append(attrs[i]).append("=\"")
                    .append(value instanceof Number n ? number(n.doubleValue()) : escape(value.toString()))
                    .append('"');
        }
    }

    /** {@return {@code v} with at most one decimal and no trailing {@code .0}: {@code 12}, {@code 12.5}} */
    public static String number(double v) {
        long tenths = Math.round(v * 10);
        if (tenths % 10 == 0) {
            return Long.toString(tenths / 10);
        }
        return String.format(Locale.ROOT, "%.1f", tenths / 10.0);
    }

    /** {@return {@code s} with {@code & < > "} escaped for XML text and attributes} */
    public static String escape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
