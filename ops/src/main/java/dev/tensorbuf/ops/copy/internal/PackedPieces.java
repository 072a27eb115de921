package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.views.ElementAccess;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import dev.tensorbuf.views.internal.Extents;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A view over several pieces of packed sub-byte storage (a staircase of {@code s4} parts under
 * {@code E(4)}), staged whole: every buffer its pieces read is unpacked, all its slots, into a
 * byte-a-slot temporary ({@link SubByteStaging#unpack}), and the same maps over the temporaries,
 * read a byte a slot, are a view of whole bytes that the copy over pieces cuts and loops as any
 * (boxes of one form sharing one loop nest). Staged box by box instead, each box of a staircase
 * unpacked its own slots (a row segment, or a family of rows reaching far more slots than it
 * holds, which went element by element). A destination's temporaries are packed back whole
 * ({@link #packBack}): the slots the copy did not write were unpacked and go back as they were.
 * {@snippet :
 * PackedPieces p = PackedPieces.unpack(staircaseOfS4Parts, temporary);
 * engine.copy(p.view(), dst);    // the pieces' maps over byte-a-slot copies of their buffers
 * }
 */
public final class PackedPieces {
    private final TensorView view;
    private final List<MemoryBuffer> packed;
    private final List<MemoryBuffer> bytes;
    private final List<MemoryBuffer> back;
    private final List<MemoryBuffer> backBytes;
    private final int bits;

    private PackedPieces(TensorView view, List<MemoryBuffer> packed, List<MemoryBuffer> bytes, List<MemoryBuffer> back,
                         List<MemoryBuffer> backBytes, int bits) {
        this.view = view;
        this.packed = packed;
        this.bytes = bytes;
        this.back = back;
        this.backBytes = backBytes;
        this.bits = bits;
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
     * written: packing back writes them whole (a fill is never written, and not packed back)}
     */
    public static boolean writable(TensorView view) {
        for (MemoryBuffer b : data(view.map(), new java.util.ArrayList<>())) {
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
     * {@return {@code view} over byte-a-slot copies of its buffers, each allocated from
     * {@code temporary} and holding every slot of its buffer}
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
        if (!applies(view)) {
            throw new IllegalArgumentException("not a view over pieces of packed sub-byte storage: " + view);
        }
        int bits = view.access().storageBits();
        Map<MemoryBuffer, MemoryBuffer> copies = new IdentityHashMap<>();
        List<MemoryBuffer> packed = new ArrayList<>();
        List<MemoryBuffer> bytes = new ArrayList<>();
        for (ViewMap.Single p : view.map().pieces()) {
            copies.computeIfAbsent(p.buffer(), b -> {
                long slots = b.byteSize() * (8 / bits);
                MemoryBuffer t = temporary.allocate(Math.max(1, slots));
                if (read) {
                    SubByteStaging.unpack(b.segment(), 0, slots, bits, t.segment());
                }
                packed.add(b);
                bytes.add(t);
                return t;
            });
        }
        // Only the data's buffers go back: a fill is read, never written, and may be read-only.
        Map<MemoryBuffer, Boolean> data = new IdentityHashMap<>();
        for (MemoryBuffer b : data(view.map(), new ArrayList<>())) {
            data.put(b, true);
        }
        List<MemoryBuffer> back = new ArrayList<>();
        List<MemoryBuffer> backBytes = new ArrayList<>();
        for (int i = 0; i < packed.size(); i++) {
            if (data.containsKey(packed.get(i))) {
                back.add(packed.get(i));
                backBytes.add(bytes.get(i));
            }
        }
        ViewMap map = over(view.map(), copies);
        TensorView unpacked = TensorView.over(map, ElementAccess.of(view.dtype()), Extents.toArray(view.dims()));
        return new PackedPieces(unpacked, List.copyOf(packed), List.copyOf(bytes), List.copyOf(back), List.copyOf(backBytes),
                bits);
    }

    /** {@return the same map with each piece's buffer replaced by its copy} */
    private static ViewMap over(ViewMap map, Map<MemoryBuffer, MemoryBuffer> copies) {
        return switch (map) {
            case ViewMap.Single s -> new ViewMap.Single(copies.get(s.buffer()), s.map());
            case ViewMap.Padded p -> new ViewMap.Padded(over(p.data(), copies), (ViewMap.Single) over(p.fill(), copies));
            case ViewMap.Concatenated c -> {
                List<ViewMap> parts = new ArrayList<>(c.parts().size());
                for (ViewMap part : c.parts()) {
                    parts.add(over(part, copies));
                }
                yield new ViewMap.Concatenated(parts);
            }
        };
    }

    /** {@return the view over the byte-a-slot copies} */
    public TensorView view() {
        return view;
    }

    /** {@return the slots unpacked, all buffers together} */
    public long slots() {
        long n = 0;
        for (MemoryBuffer b : packed) {
            n += b.byteSize() * (8 / bits);
        }
        return n;
    }

    /** {@return the bits a slot of the packed buffers holds} */
    public int bits() {
        return bits;
    }

    /**
     * Packs the copy of every data buffer (not a pad's fill) back into its buffer, whole: the slots
     * a copy did not write go back as they were.
     */
    public void packBack() {
        for (int i = 0; i < back.size(); i++) {
            SubByteStaging.pack(backBytes.get(i).segment(), back.get(i).byteSize() * (8 / bits), bits, back.get(i).segment(), 0);
        }
    }
}
