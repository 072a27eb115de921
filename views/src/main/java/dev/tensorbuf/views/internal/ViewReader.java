package dev.tensorbuf.views.internal;

import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.views.ViewMap;
import dev.tensorbuf.views.indexing.AffineExpr;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Finds where a logical index of a view made of several pieces reads: the first piece whose
 * domain (bounds, then constraints) holds the index, and the element offset in its buffer. Every
 * map is compiled once; a lookup allocates nothing.
 */
public final class ViewReader {
    private final Piece[] pieces;

    private record Piece(MemoryBuffer buffer, IndexingMap.Compiled offset, long[] lo, long[] hi, IndexingMap.Compiled constraints,
                         long[] constraintLo, long[] constraintHi, boolean fill, boolean empty) {
        boolean holds(long[] index) {
            if (empty) {
                // Also for rank 0, where no bound can say so: a pad that crops its only element,
                // reshaped to a scalar, must read the fill, not the data's offset 0.
                return false;
            }
            for (int i = 0; i < lo.length; i++) {
                if (index[i] < lo[i] || index[i] > hi[i]) {
                    return false;
                }
            }
            if (constraints != null) {
                for (int c = 0; c < constraintLo.length; c++) {
                    long v = constraints.evaluate(c, index);
                    if (v < constraintLo[c] || v > constraintHi[c]) {
                        return false;
                    }
                }
            }
            return true;
        }
    }

    private ViewReader(Piece[] pieces) {
        this.pieces = pieces;
    }

    /** {@return a reader of every piece of {@code map}, fill pieces marked} */
    public static ViewReader of(ViewMap map) {
        List<Piece> out = new ArrayList<>();
        collect(map, false, out);
        return new ViewReader(out.toArray(Piece[]::new));
    }

    private static void collect(ViewMap map, boolean fill, List<Piece> out) {
        switch (map) {
            case ViewMap.Single s -> out.add(piece(s, fill));
            case ViewMap.Padded p -> {
                collect(p.data(), fill, out);
                collect(p.fill(), true, out);
            }
            case ViewMap.Concatenated c -> c.parts().forEach(part -> collect(part, fill, out));
        }
    }

    private static Piece piece(ViewMap.Single s, boolean fill) {
        IndexingMap map = s.map();
        int rank = map.dims().size();
        long[] lo = new long[rank];
        long[] hi = new long[rank];
        for (int i = 0; i < rank; i++) {
            lo[i] = map.dims().get(i).bounds().lo();
            hi[i] = map.dims().get(i).bounds().hi();
        }
        IndexingMap.Compiled constraints = null;
        long[] cLo = new long[map.constraints().size()];
        long[] cHi = new long[cLo.length];
        if (!map.constraints().isEmpty()) {
            List<AffineExpr> exprs = new ArrayList<>();
            int c = 0;
            for (Map.Entry<AffineExpr, Interval> e : map.constraints().entrySet()) {
                exprs.add(e.getKey());
                cLo[c] = e.getValue().lo();
                cHi[c++] = e.getValue().hi();
            }
            constraints = IndexingMap.of(map.dims(), List.of(), exprs).compile();
        }
        IndexingMap.Compiled offset = MapForms.simplified(map).compile();
        return new Piece(s.buffer(), offset, lo, hi, constraints, cLo, cHi, fill, map.isKnownEmpty());
    }

    /** {@return the piece that holds {@code index}, or -1 when none does (a bug in the view's construction)} */
    public int pieceOf(long[] index) {
        for (int p = 0; p < pieces.length; p++) {
            if (pieces[p].holds(index)) {
                return p;
            }
        }
        return -1;
    }

    /** {@return the buffer of piece {@code p}} */
    public MemoryBuffer buffer(int p) {
        return pieces[p].buffer;
    }

    /** {@return whether piece {@code p} is the fill of a pad} */
    public boolean isFill(int p) {
        return pieces[p].fill;
    }

    /**
     * {@return why {@code index}, which piece {@code p} holds, cannot be written, or null when it
     * can} A pad's fill reads a value and has no slot; a read-only piece refuses writes.
     */
    public IllegalArgumentException writeRefusal(int p, long[] index, Object view) {
        if (pieces[p].fill) {
            return new IllegalArgumentException("index " + Arrays.toString(index) + " of " + view
                    + " is padding: it reads the fill value and cannot be written");
        }
        return pieces[p].buffer.isReadOnly() ? readOnly(index, view) : null;
    }

    /** {@return the refusal of a write to {@code index} of {@code view}, whose memory is read-only} */
    public static IllegalArgumentException readOnly(long[] index, Object view) {
        return new IllegalArgumentException("cannot write index " + Arrays.toString(index) + " of " + view
                + ": its memory is read-only (a read-only buffer, a mapped file or a constant)");
    }

    /** {@return the element offset of {@code index} in piece {@code p}} */
    public long offset(int p, long[] index) {
        return pieces[p].offset.evaluate(0, index);
    }

    /** {@return the number of pieces} */
    public int size() {
        return pieces.length;
    }
}
