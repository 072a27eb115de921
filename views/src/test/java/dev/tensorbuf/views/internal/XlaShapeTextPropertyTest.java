package dev.tensorbuf.views.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.XlaLayout;
import dev.tensorbuf.views.XlaLayout.SplitConfig;
import dev.tensorbuf.views.XlaLayout.Tile;
import dev.tensorbuf.views.XlaShape;
import java.text.ParsePosition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Shape text against a reference written from XLA's grammar ({@code ShapeUtil::HumanStringWithLayout},
 * {@code Layout::ToString}): random shapes with every layout attribute are built through the
 * value API and, independently, as text here; the printer must write that text, the parser must
 * read it (and the same text with whitespace and comments between every token) back to the
 * same value, and a shape read out of longer text must stop right after itself. Seeded.
 */
class XlaShapeTextPropertyTest {
    private static final long SEED = Long.getLong("tensorbuf.seed", 4405L);
    private static final List<String> TYPES = List.of("pred", "s4", "s8", "s16", "s32", "s64", "u4", "u8", "u32",
            "f16", "bf16", "f32", "f64", "c64", "f8e4m3fn", "f8e5m2");
    private static final List<String> UNSIGNED = List.of("u8", "u16", "u32", "u64");

    /** A random shape and its text, built side by side. */
    private record Case(XlaShape shape, String text) {
    }

    private static Case array(Random rnd) {
        String type = TYPES.get(rnd.nextInt(TYPES.size()));
        DType dtype = DType.forXlaNameOrNull(type);
        int rank = rnd.nextInt(4);
        List<Long> dims = new ArrayList<>();
        List<Boolean> dynamic = new ArrayList<>();
        StringBuilder text = new StringBuilder(type).append('[');
        for (int i = 0; i < rank; i++) {
            if (i > 0) {
                text.append(',');
            }
            int kind = rnd.nextInt(6);
            if (kind == 0) {
                dims.add(ArrayShape.UNBOUNDED);
                dynamic.add(true);
                text.append('?');
            } else {
                long n = rnd.nextInt(300);
                dims.add(n);
                dynamic.add(kind == 1);
                text.append(kind == 1 ? "<=" : "").append(n);
            }
        }
        text.append(']');
        XlaLayout layout = layout(rnd, rank, false); // #(t) and *(t) are for sparse arrays only
        String layoutText = layoutText(layout);
        // XLA leaves out a scalar's layout when it says nothing more than "{}".
        if (rank > 0 || !layoutText.equals("{}")) {
            text.append(layoutText);
        }
        return new Case(new ArrayShape(dtype, dims, dynamic, Optional.of(layout)), text.toString());
    }

    private static XlaLayout layout(Random rnd, int rank, boolean sparseTypes) {
        List<Integer> m2m = new ArrayList<>();
        for (int i = 0; i < rank; i++) {
            m2m.add(rnd.nextInt(m2m.size() + 1), i);
        }
        List<Tile> tiles = new ArrayList<>();
        if (rnd.nextInt(3) == 0) {
            for (int level = 1 + rnd.nextInt(2); level > 0; level--) {
                int r = 1 + rnd.nextInt(3);
                long[] t = new long[r];
                for (int k = 0; k < r; k++) {
                    t[k] = k < r - 1 && rnd.nextInt(5) == 0 ? Tile.COMBINE : 1 + rnd.nextInt(256);
                }
                tiles.add(Tile.of(t));
            }
        }
        long tail = rnd.nextInt(4) == 0 ? 2 + rnd.nextInt(10) : 1;
        Optional<DType> index = sparseTypes && rnd.nextInt(4) == 0
                ? Optional.of(DType.forXlaNameOrNull(UNSIGNED.get(rnd.nextInt(4)))) : Optional.empty();
        Optional<DType> pointer = sparseTypes && rnd.nextInt(4) == 0
                ? Optional.of(DType.forXlaNameOrNull(UNSIGNED.get(rnd.nextInt(4)))) : Optional.empty();
        long e = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(32) : 0;
        long s = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(6) : 0;
        List<SplitConfig> splits = new ArrayList<>();
        if (rank > 0 && rnd.nextInt(4) == 0) {
            for (int d = 0; d < rank; d++) {
                if (rnd.nextBoolean()) {
                    long[] at = new long[1 + rnd.nextInt(3)];
                    for (int k = 0; k < at.length; k++) {
                        at[k] = 1 + rnd.nextInt(500);
                    }
                    splits.add(SplitConfig.of(d, at));
                }
            }
        }
        long m = rnd.nextInt(5) == 0 ? 1 + rnd.nextInt(64) : 0;
        return new XlaLayout(m2m, tiles, tail, index, pointer, e, s, splits, m);
    }

    /** {@code Layout::ToString}, written from XLA's source rather than from ours. */
    private static String layoutText(XlaLayout l) {
        StringBuilder sb = new StringBuilder("{");
        List<String> m2m = l.minorToMajor().stream().map(String::valueOf).toList();
        sb.append(String.join(",", m2m));
        StringBuilder attrs = new StringBuilder();
        if (!l.tiles().isEmpty()) {
            attrs.append('T');
            for (Tile t : l.tiles()) {
                attrs.append('(').append(String.join(",", t.dims().stream()
                        .map(d -> d == Tile.COMBINE ? "*" : String.valueOf(d)).toList())).append(')');
            }
        }
        if (l.tailPaddingAlignment() != 1) {
            attrs.append("L(").append(l.tailPaddingAlignment()).append(')');
        }
        l.indexPrimitiveType().ifPresent(t -> attrs.append("#(").append(t.xlaName()).append(')'));
        l.pointerPrimitiveType().ifPresent(t -> attrs.append("*(").append(t.xlaName()).append(')'));
        if (l.elementSizeInBits() != 0) {
            attrs.append("E(").append(l.elementSizeInBits()).append(')');
        }
        if (l.memorySpaceId() != 0) {
            attrs.append("S(").append(l.memorySpaceId()).append(')');
        }
        if (!l.splitConfigs().isEmpty()) {
            attrs.append("SC");
            for (SplitConfig sc : l.splitConfigs()) {
                attrs.append('(').append(sc.dimension()).append(':').append(String.join(",",
                        sc.splitIndices().stream().map(String::valueOf).toList())).append(')');
            }
        }
        if (l.dynamicShapeMetadataPrefixBytes() != 0) {
            attrs.append("M(").append(l.dynamicShapeMetadataPrefixBytes()).append(')');
        }
        if (!attrs.isEmpty()) {
            sb.append(':').append(attrs);
        }
        return sb.append('}').toString();
    }

    private static Case shape(Random rnd, int depth) {
        int kind = depth > 2 ? 0 : rnd.nextInt(10);
        if (kind <= 5) {
            return array(rnd);
        }
        if (kind == 6) {
            Case a = array(rnd);
            return new Case(new XlaShape.BufferShape((ArrayShape) a.shape()), "b(" + a.text() + ")");
        }
        if (kind == 7) {
            return rnd.nextBoolean() ? new Case(new XlaShape.Token(), "token[]") : new Case(new XlaShape.Opaque(), "opaque[]");
        }
        int n = rnd.nextInt(depth == 0 ? 13 : 4);
        List<XlaShape> elements = new ArrayList<>();
        StringBuilder text = new StringBuilder("(");
        for (int i = 0; i < n; i++) {
            Case c = shape(rnd, depth + 1);
            elements.add(c.shape());
            if (i > 0) {
                text.append(", ");
                if (i % 5 == 0) {
                    text.append("/*index=").append(i).append("*/");
                }
            }
            text.append(c.text());
        }
        return new Case(new XlaShape.Tuple(elements), text.append(')').toString());
    }

    /** The same text with whitespace or a comment between every two tokens (and none inside one). */
    private static String spaced(String text, Random rnd) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            sb.append(c);
            if (i + 1 < text.length() && boundary(c, text.charAt(i + 1)) && rnd.nextInt(3) == 0) {
                sb.append(switch (rnd.nextInt(4)) {
                    case 0 -> " ";
                    case 1 -> "\t\n ";
                    case 2 -> "/* c */";
                    default -> "// line\n";
                });
            }
        }
        return sb.toString();
    }

    /** Whether a separator may go between {@code a} and {@code b}: not inside a word, a number, {@code <=} or a comment. */
    private static boolean boundary(char a, char b) {
        boolean aWord = Character.isLetterOrDigit(a) || a == '_';
        boolean bWord = Character.isLetterOrDigit(b) || b == '_';
        return !(aWord && bWord) && !(a == '<' && b == '=') && !(a == '/' || b == '/' || a == '*' && b == '/');
    }

    @Test
    void printedTextIsXlasAndReadsBackToTheSameShape() {
        Random rnd = new Random(SEED);
        for (int c = 0; c < 400; c++) {
            Case k = shape(rnd, 0);
            assertEquals(k.text(), k.shape().toString(), "printing " + k.text());
            XlaShape read = XlaShape.parse(k.text());
            assertEquals(k.shape(), read, "reading " + k.text());
            assertEquals(k.text(), read.toString(), "reading " + k.text());
            if (!k.text().contains("/*")) {
                String loose = spaced(k.text(), rnd);
                assertEquals(k.text(), XlaShape.parse(loose).toString(), "reading " + loose);
            }
        }
    }

    @Test
    void aShapeReadOutOfLongerTextEndsRightAfterItself() {
        Random rnd = new Random(SEED + 1);
        for (int c = 0; c < 200; c++) {
            Case k = shape(rnd, 0);
            String before = "p.1 = ";
            String after = rnd.nextBoolean() ? " parameter(0)" : ", f32[3] -> s8[]";
            ParsePosition pos = new ParsePosition(before.length());
            XlaShape read = XlaShapeParser.parseShape(before + k.text() + after, pos);
            assertEquals(k.shape(), read, k.text());
            assertEquals(before.length() + k.text().length(), pos.getIndex(), "end of " + k.text());
        }
    }

    @Test
    void layoutsReadAndPrintOnTheirOwn() {
        Random rnd = new Random(SEED + 2);
        for (int c = 0; c < 300; c++) {
            XlaLayout l = layout(rnd, rnd.nextInt(5), true);
            String text = layoutText(l);
            assertEquals(text, XlaShapePrinter.layout(l));
            XlaLayout read = XlaShapeParser.parseLayout(text);
            assertEquals(l, read, text);
            assertEquals(l.dynamicShapeMetadataPrefixBytes(), read.dynamicShapeMetadataPrefixBytes(), text);
        }
    }
}
