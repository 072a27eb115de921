package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;
import dev.tensorbuf.views.internal.Extents;
import dev.tensorbuf.views.internal.ViewBounds;
import dev.tensorbuf.views.internal.ViewReader;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A view over several pieces of packed sub-byte storage (a staircase of {@code s4} parts under
 * {@code E(4)}), staged by the slots its pieces reach: each piece's reach in its buffer is rounded
 * out to whole bytes, the reaches of one buffer that share a byte are merged into one run, and
 * each run is unpacked ({@link SubByteStaging#unpack}) into a byte-a-slot temporary. The pieces'
 * maps, shifted by their run's first slot, over the temporaries are a view of whole bytes that the
 * copy over pieces cuts and loops as any (boxes of one form sharing one loop nest). A
 * destination's runs are not unpacked but marked ({@link #forWriting}), and only the slots the
 * copy writes are packed back ({@link #packBack}): a slot of a run the copy did not write (an edge
 * byte's other slot, a column a crop leaves out between two rows) keeps the bits it has then, a
 * byte with none written is not touched, and the buffer's bytes outside its runs are never read
 * or written. So a view of a few hundred elements of two parts of 4M slots each stages some thousands
 * of slots, not 8M.
 *
 * <p>A piece's reach is the interval of its map over its dims' bounds ({@link ViewBounds#reach},
 * the one a view's bounds check holds): cheap, a walk of the map's expression, and as wide as the
 * interval arithmetic makes it (a reshape's {@code mod} over indices that cross its modulus
 * reaches the whole modulus, a row of a staircase's joined rows; a crop of one part reaches into
 * the other). For a small view whose intervals are far wider than it ({@link #EXACT_LOOKUPS},
 * {@link #EXACT_SLOTS_PER_ELEMENT}: a few rows far apart), it is exact instead: the lowest and
 * highest offsets of the indices it reads, every index looked up, and a piece no index is read
 * from is not staged. A piece whose interval is unbounded has its whole buffer staged
 * ({@link Run#bounded} false, and the explanation says so); one that reads nothing (no index is
 * its, or its interval misses its buffer) is pointed at a one-byte temporary. Staged box by box
 * instead, each box of a staircase unpacked its own slots (a row segment, or a family of rows
 * reaching far more slots than it holds, which went element by element).
 * {@snippet :
 * PackedPieces p = PackedPieces.unpack(staircaseOfS4Parts, temporary);
 * engine.copy(p.view(), dst);    // the pieces' maps over byte-a-slot copies of the slots they reach
 * p.runs();                      // per buffer reached: its first slot staged and how many, whole bytes
 * }
 */
public final class PackedPieces {
    /**
     * Slots {@code [firstSlot, firstSlot + slots)} of one buffer of the pieces, whole bytes,
     * staged a byte a slot.
     *
     * @param firstSlot the first slot staged, a multiple of the slots a byte holds
     * @param slots the slots staged, a multiple of the slots a byte holds
     * @param bounded false when a piece's reach was not bounded and the whole buffer is staged
     * @param packedBack whether the run is packed back after the copy (a destination's data, not a pad's fill)
     */
    public record Run(long firstSlot, long slots, boolean bounded, boolean packedBack) {
    }

    /**
     * Views whose elements times pieces are at most this may have each piece's reach found
     * exactly: every index looked up as the element path looks it up ({@link ViewReader}), the
     * offsets it takes in the piece that holds it. The view over the temporaries is then checked
     * against them by a search of the pieces' indices ({@link ViewBounds#check} past the interval,
     * a step an index at most per dimension, far inside its budget). Past it, a piece stages its
     * bounds' interval, which the check holds at once.
     */
    static final long EXACT_LOOKUPS = 1 << 16;
    /**
     * Slots of the pieces' intervals, per element and per piece, past which the lookups pay: the
     * reader compiles each piece's map (some 120 us a piece), a lookup takes some 35 ns, and
     * unpacking and packing back a slot some 2 ns. Below, the intervals are staged: a reshape's
     * modulus wider than a piece's reach adds at most a joined row a piece.
     */
    static final long EXACT_SLOTS_PER_ELEMENT = 64;
    static final long EXACT_SLOTS_PER_PIECE = 1 << 17;

    /** One run and the buffers it is staged between. */
    private record Staged(MemoryBuffer packed, Run run, MemoryBuffer bytes) {
    }

    private final TensorView view;
    private final List<Staged> staged;
    private final int bits;
    private final boolean exact;
    /** Per piece, the index of its run in {@link #staged}, or -1 when it reads nothing. */
    private final int[] runOf;
    /** A destination's second temporaries ({@link #again}), by run; null until asked. */
    private MemoryBuffer[] second;

    private PackedPieces(TensorView view, List<Staged> staged, int bits, boolean exact, int[] runOf) {
        this.view = view;
        this.staged = staged;
        this.bits = bits;
        this.exact = exact;
        this.runOf = runOf;
    }

    /**
     * {@return whether {@code view} is over several pieces of packed sub-byte storage whose bits
     * divide a byte} A destination of such pieces must also be writable throughout (see
     * {@link #writable}).
     */
    public static boolean applies(TensorView view) {
        int bits = view.access().storageBits();
        return !(view.map() instanceof ViewMap.Single) && bits < 8 && 8 % bits == 0;
    }

    /**
     * {@return whether every buffer of {@code view}'s pieces other than a pad's fill may be
     * written: packing back writes the runs its pieces reach (a fill is never written, and not
     * packed back)}
     */
    public static boolean writable(TensorView view) {
        for (MemoryBuffer b : data(view.map(), new ArrayList<>())) {
            if (b.isReadOnly() || b.segment().isReadOnly()) {
                return false;
            }
        }
        return true;
    }

    /** {@return {@code out} with the buffers of {@code map}'s pieces that are not a pad's fill added} */
    private static List<MemoryBuffer> data(ViewMap map, List<MemoryBuffer> out) {
        switch (map) {
            case ViewMap.Single s -> out.add(s.buffer());
            case ViewMap.Padded p -> data(p.data(), out);
            case ViewMap.Concatenated c -> c.parts().forEach(part -> data(part, out));
        }
        return out;
    }

    /**
     * {@return {@code view} over byte-a-slot copies of the slots its pieces reach, each run
     * allocated from {@code temporary} and unpacked}
     *
     * @throws IllegalArgumentException if {@code view} is not {@link #applies}
     */
    public static PackedPieces unpack(TensorView view, Allocator temporary) {
        return unpack(view, temporary, true);
    }

    /**
     * {@return as {@link #unpack(TensorView, Allocator)}, the slots unpacked only when
     * {@code read}} An explanation allocates the temporaries (its copy is planned over them) and
     * reads nothing.
     */
    public static PackedPieces unpack(TensorView view, Allocator temporary, boolean read) {
        return staged(view, temporary, read, false);
    }

    /**
     * {@return {@code view}, a copy's destination, over byte-a-slot temporaries of the slots its
     * pieces reach, allocated from {@code temporary}: nothing is unpacked, the slots of its data
     * runs are marked {@link SubByteStaging#UNWRITTEN} (when {@code write}), so that {@link #packBack}
     * packs back only the slots the copy writes} An explanation allocates the temporaries and
     * writes nothing.
     *
     * @throws IllegalArgumentException if {@code view} is not {@link #applies}
     */
    public static PackedPieces forWriting(TensorView view, Allocator temporary, boolean write) {
        return staged(view, temporary, write, true);
    }

    private static PackedPieces staged(TensorView view, Allocator temporary, boolean read, boolean destination) {
        if (!applies(view)) {
            throw new IllegalArgumentException("not a view over pieces of packed sub-byte storage: " + view);
        }
        int bits = view.access().storageBits();
        List<ViewMap.Single> pieces = view.map().pieces();
        long[][] exact = null;
        if (view.elementCount() <= EXACT_LOOKUPS / pieces.size()) {
            long intervals = 0;
            for (ViewMap.Single p : pieces) {
                long[] r = reach(ViewBounds.reach(p.map()), p.buffer().byteSize() * (8 / bits), 8 / bits);
                intervals += r == null ? 0 : r[1] - r[0];
            }
            if (intervals > EXACT_SLOTS_PER_ELEMENT * view.elementCount() + EXACT_SLOTS_PER_PIECE * pieces.size()) {
                exact = exactReach(view, pieces.size());
            }
        }
        PackedPieces made = exact == null ? null : stage(view, pieces, exact, temporary, read, bits, destination);
        return made != null ? made : stage(view, pieces, null, temporary, read, bits, destination);
    }

    /**
     * {@return the view over runs of the pieces' reaches, the exact ones where {@code exact} is
     * given (a piece no index is read from reads nothing, a pad's fill its one slot), or null when
     * the exact reaches fail the view's check (a piece whose domain has indices an earlier piece
     * reads, reaching further)}
     */
    private static PackedPieces stage(TensorView view, List<ViewMap.Single> pieces, long[][] exact, Allocator temporary,
                                      boolean read, int bits, boolean destination) {
        int perByte = 8 / bits;
        Map<MemoryBuffer, Boolean> data = new IdentityHashMap<>();
        for (MemoryBuffer b : data(view.map(), new ArrayList<>())) {
            data.put(b, true);
        }
        // Each piece's reach, whole bytes: {first slot, end slot, bounded}, or null when it reads nothing.
        long[][] reach = new long[pieces.size()][];
        Map<MemoryBuffer, List<long[]>> byBuffer = new IdentityHashMap<>();
        List<MemoryBuffer> order = new ArrayList<>();
        for (int i = 0; i < pieces.size(); i++) {
            ViewMap.Single p = pieces.get(i);
            long total = p.buffer().byteSize() * perByte;
            Interval range = ViewBounds.reach(p.map());
            if (exact != null && exact[i] != null) {
                range = new Interval(exact[i][0], exact[i][1]);
            } else if (exact != null && range != null && !range.isPoint()) {
                // No index is its: it reads nothing. A pad's fill all of whose indices the data
                // reads still takes its one slot, which the view's check asks of its domain.
                range = null;
            }
            reach[i] = reach(range, total, perByte);
            if (reach[i] != null) {
                byBuffer.computeIfAbsent(p.buffer(), b -> {
                    order.add(b);
                    return new ArrayList<>();
                }).add(reach[i]);
            }
        }
        // The reaches of one buffer merged where they share a byte: runs of disjoint bytes, so that
        // packing one back never overwrites what another's copy wrote.
        Map<MemoryBuffer, List<Staged>> runs = new IdentityHashMap<>();
        List<Staged> staged = new ArrayList<>();
        for (MemoryBuffer b : order) {
            List<long[]> r = byBuffer.get(b);
            r.sort(Comparator.comparingLong(x -> x[0]));
            List<Staged> mine = new ArrayList<>();
            long first = r.getFirst()[0];
            long end = r.getFirst()[1];
            boolean bounded = r.getFirst()[2] != 0;
            for (int k = 1; k <= r.size(); k++) {
                if (k < r.size() && r.get(k)[0] <= end) {
                    end = Math.max(end, r.get(k)[1]);
                    bounded &= r.get(k)[2] != 0;
                    continue;
                }
                Run run = new Run(first, end - first, bounded, data.containsKey(b));
                MemoryBuffer t = temporary.allocate(Math.max(1, run.slots()));
                mine.add(new Staged(b, run, t));
                if (k < r.size()) {
                    first = r.get(k)[0];
                    end = r.get(k)[1];
                    bounded = r.get(k)[2] != 0;
                }
            }
            runs.put(b, mine);
            staged.addAll(mine);
        }
        MemoryBuffer nothing = null;
        List<ViewMap.Single> over = new ArrayList<>(pieces.size());
        int[] runOf = new int[pieces.size()];
        for (int i = 0; i < pieces.size(); i++) {
            ViewMap.Single p = pieces.get(i);
            runOf[i] = -1;
            if (reach[i] == null) {
                // Read nowhere: any buffer serves (the view's check finds no index of its domain).
                nothing = nothing != null ? nothing : temporary.allocate(1);
                over.add(new ViewMap.Single(nothing, p.map()));
                continue;
            }
            Staged run = null;
            for (Staged s : runs.get(p.buffer())) {
                if (s.run().firstSlot() <= reach[i][0] && reach[i][1] <= s.run().firstSlot() + s.run().slots()) {
                    run = s;
                    break;
                }
            }
            runOf[i] = staged.indexOf(run);
            over.add(new ViewMap.Single(run.bytes(), shift(p.map(), run.run().firstSlot())));
        }
        ViewMap map = rebuild(view.map(), over.iterator());
        TensorView unpacked;
        try {
            unpacked = TensorView.over(map, ElementAccess.of(view.dtype()), Extents.toArray(view.dims()));
        } catch (IllegalArgumentException narrower) {
            if (exact == null) {
                throw narrower;
            }
            return null;
        }
        if (read) {
            for (Staged s : staged) {
                if (destination && s.run().packedBack()) {
                    s.bytes().segment().fill(SubByteStaging.UNWRITTEN);
                } else {
                    SubByteStaging.unpack(s.packed().segment(), s.run().firstSlot(), s.run().slots(), bits,
                            s.bytes().segment());
                }
            }
        }
        return new PackedPieces(unpacked, List.copyOf(staged), bits, exact != null, runOf);
    }

    /**
     * {@return per piece, the lowest and highest offsets of the indices it reads (the first piece
     * whose domain holds an index, as the element path reads it), or null for a piece that reads none}
     */
    private static long[][] exactReach(TensorView view, int count) {
        long[][] out = new long[count][];
        ViewReader reader = ViewReader.of(view.map());
        long[] dims = Extents.toArray(view.dims());
        long[] index = new long[dims.length];
        for (long n = view.elementCount(); n > 0; n--) {
            int p = reader.pieceOf(index);
            if (p >= 0) {
                long at = reader.offset(p, index);
                if (out[p] == null) {
                    out[p] = new long[] {at, at};
                } else {
                    out[p][0] = Math.min(out[p][0], at);
                    out[p][1] = Math.max(out[p][1], at);
                }
            }
            for (int d = dims.length - 1; d >= 0 && ++index[d] == dims[d]; d--) {
                index[d] = 0;
            }
        }
        return out;
    }

    /**
     * {@return a piece's reach in a buffer of {@code total} slots, rounded out to whole bytes:
     * {first slot, end slot, 1 when bounded else 0}, or null when it reads nothing}
     *
     * @param range its map's interval ({@link ViewBounds#reach}), null when it reads nothing
     */
    private static long[] reach(Interval range, long total, int perByte) {
        if (range == null || total == 0) {
            return null;
        }
        if (range.lo() == Long.MIN_VALUE || range.hi() == Long.MAX_VALUE) {
            return new long[] {0, total, 0};
        }
        long lo = Math.max(0, range.lo());
        long hi = Math.min(total - 1, range.hi());
        if (lo > hi) {
            // Every index of its dims' bounds misses the buffer, which a view's check allows only
            // for a domain its constraints leave empty.
            return null;
        }
        return new long[] {lo / perByte * perByte, Math.min(total, (hi / perByte + 1) * perByte), 1};
    }

    /** {@return {@code map} reading {@code first} slots lower} */
    private static IndexingMap shift(IndexingMap map, long first) {
        if (first == 0) {
            return map;
        }
        return IndexingMap.of(map.dims(), map.rangeVars(), map.runtimeVars(), List.of(map.results().getFirst().minus(first)),
                map.constraints());
    }

    /** {@return the same map with each piece replaced by the next of {@code pieces}, in {@link ViewMap#pieces} order} */
    private static ViewMap rebuild(ViewMap map, Iterator<ViewMap.Single> pieces) {
        return switch (map) {
            case ViewMap.Single s -> pieces.next();
            case ViewMap.Padded p -> {
                ViewMap data = rebuild(p.data(), pieces);
                yield new ViewMap.Padded(data, pieces.next());
            }
            case ViewMap.Concatenated c -> {
                List<ViewMap> parts = new ArrayList<>(c.parts().size());
                for (ViewMap part : c.parts()) {
                    parts.add(rebuild(part, pieces));
                }
                yield new ViewMap.Concatenated(parts);
            }
        };
    }

    /** {@return the view over the byte-a-slot copies} */
    public TensorView view() {
        return view;
    }

    /** {@return the runs staged, buffer by buffer in the order of the pieces that first reach them, each buffer's by slot} */
    public List<Run> runs() {
        return staged.stream().map(Staged::run).toList();
    }

    /** {@return the slots staged, all runs together} */
    public long slots() {
        long n = 0;
        for (Staged s : staged) {
            n += s.run().slots();
        }
        return n;
    }

    /**
     * {@return whether the pieces' reaches are exact (every index looked up), not their maps'
     * intervals over their bounds}
     */
    public boolean exact() {
        return exact;
    }

    /** {@return the bits a slot of the packed buffers holds} */
    public int bits() {
        return bits;
    }

    /**
     * {@return the view a destination's copy runs into a second time, over zeroed temporaries,
     * when its source may write {@link SubByteStaging#UNWRITTEN} itself (a sub-byte type stored a
     * byte a slot, whose high bits no reader reads) and a run holds it after the first copy; null
     * when that cannot be} {@link #packBack} then tells a slot written with the mark from one not
     * written by the two.
     */
    public TensorView again(TensorView source, Allocator temporary) {
        if (!SubByteStaging.rawBytes(source)) {
            return null;
        }
        boolean marked = false;
        for (Staged s : staged) {
            marked |= s.run().packedBack() && SubByteStaging.anyUnwritten(s.bytes().segment(), s.run().slots());
        }
        if (!marked) {
            return null;
        }
        second = new MemoryBuffer[staged.size()];
        for (int k = 0; k < staged.size(); k++) {
            if (staged.get(k).run().packedBack()) {
                second[k] = temporary.allocate(Math.max(1, staged.get(k).run().slots()));
                second[k].segment().fill((byte) 0);
            }
        }
        List<ViewMap.Single> pieces = view.map().pieces();
        List<ViewMap.Single> over = new ArrayList<>(pieces.size());
        for (int i = 0; i < pieces.size(); i++) {
            int k = runOf[i];
            over.add(k >= 0 && second[k] != null ? new ViewMap.Single(second[k], pieces.get(i).map()) : pieces.get(i));
        }
        return TensorView.over(rebuild(view.map(), over.iterator()), ElementAccess.of(view.dtype()),
                Extents.toArray(view.dims()));
    }

    /**
     * Packs the slots the copy wrote of every run of a data buffer (not a pad's fill) into its
     * buffer ({@link SubByteStaging#packWritten}): a byte written whole is stored, one written in
     * part merged with its bits read now, and a byte of a run the copy did not write, like every
     * byte outside the runs, is neither read nor written.
     */
    public void packBack() {
        for (int k = 0; k < staged.size(); k++) {
            Staged s = staged.get(k);
            if (s.run().packedBack()) {
                if (second != null) {
                    SubByteStaging.settle(s.bytes().segment(), second[k].segment(), s.run().slots());
                }
                SubByteStaging.packWritten(s.bytes().segment(), s.run().slots(), bits, s.packed().segment(),
                        s.run().firstSlot());
            }
        }
    }
}
