package dev.tensorbuf.ops.copy.internal;

import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.Allocators;
import dev.tensorbuf.ops.copy.CopyPlan;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.ViewMap;
import dev.tensorbuf.views.indexing.IndexingMap;
import dev.tensorbuf.views.indexing.Interval;
import dev.tensorbuf.views.internal.DistinctSlots;
import dev.tensorbuf.views.internal.Extents;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Optional;
import java.util.ArrayList;
import java.util.List;

/**
 * Copies views that store a sub-byte type packed ({@code s4} under {@code E(4)}, 2- and 1-bit
 * types) through the planned kernels instead of element by element. Packed storage keeps slot
 * {@code i} at bits {@code [b*i, b*i+b)} of the buffer, first slot lowest; the same type stored one
 * a byte keeps slot {@code i} at byte {@code i}, its raw bits zero-extended, which the planned
 * kernels read and write (conversions included). So a packed side is staged through a byte-a-slot
 * buffer read through the <em>same map</em> (shifted to the slots the view reaches):
 * <ul>
 * <li>a packed source has those slots unpacked into the temporary, which the plan then reads;
 * <li>a packed destination is written by the plan into a temporary whose slots were first marked
 *     {@link #UNWRITTEN}, and only the slots the copy wrote are packed back ({@link #packWritten}):
 *     a byte written whole is stored, a byte written in part (an edge byte, or a strided crop's
 *     byte whose other slot the view skips) is merged with its bits read at that time, and a byte
 *     the copy does not write is not touched. So a thread writing other elements of the same
 *     buffer meanwhile keeps its writes, but for another slot of a byte written in part (two
 *     writers of one byte race, as with any sub-byte store). A tiled layout is written whole
 *     (its padding as zero), and its tail padding {@code L(n)} zeroed as the element path zeroes it.
 * </ul>
 * A view that reaches far more slots than it has elements (every 1000th element of a packed
 * buffer, a crop of a big tiled {@code s4} array), for which unpacking that span would not pay
 * ({@link #pays}), is staged through a temporary of exactly its elements in row-major order
 * instead: each gathered from its slot through the view's strides or map ({@link GatheredSlots}),
 * or, for a destination, written there by the copy and each scattered back into its slot, merged
 * into its byte (a whole layout's padding and gaps zeroed first, as the element path zeroes them).
 * <p>
 * A refused value leaves the destination as it was (the temporary is not packed back); the
 * caller names the refused element from the views, as for the element path. Staging is declined
 * (the caller copies element by element; {@link #declined} says why) for views over several pieces
 * (the engine hands it one box of one piece at a time, {@link PiecePairs}), for destinations the
 * element path refuses (read-only, one slot written twice), so that its errors stay what they
 * were, and for a map with constraints or range variables or reaching past its buffer.
 */
public final class SubByteStaging {
    /** A view is staged when the slots it reaches are at most this many times its elements, plus {@link #SLACK_SLOTS}. */
    static final long MAX_REACH_PER_ELEMENT = 8;
    /** Slots a small view may reach beyond the ratio: unpacking them costs less than a call. */
    static final long SLACK_SLOTS = 4096;

    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private SubByteStaging() {
    }

    /**
     * One packed side: its slots {@code [firstSlot, firstSlot + slots)} of {@code packed} (whole
     * bytes), and how to address the byte-a-slot temporary holding them; or, with {@code gathered}
     * given, its {@code slots} elements in row-major order, each from its own slot, the lowest
     * {@code firstSlot}.
     */
    private record Side(MemorySegment packed, int bits, long firstSlot, long slots, Addressing addressing,
                        boolean writesEverySlot, ArrayShape tiledShape, GatheredSlots gathered) {
        String gather() {
            return gathered == null ? "" : gathered.how();
        }

        Access over(MemorySegment temp, DType dtype) {
            return addressing.over(temp, dtype);
        }
    }

    private interface Addressing {
        Access over(MemorySegment temp, DType dtype);
    }

    /**
     * A staged copy, decided: which sides are packed and how many slots each unpacks into its
     * byte-a-slot temporary. {@link #run} copies; planning it read and wrote nothing.
     */
    public static final class Staging {
        private final TensorView src;
        private final TensorView dst;
        private final Optional<Access> from;
        private final Optional<Access> to;
        private final Side in;
        private final Side out;

        private Staging(TensorView src, TensorView dst, Optional<Access> from, Optional<Access> to, Side in, Side out) {
            this.src = src;
            this.dst = dst;
            this.from = from;
            this.to = to;
            this.in = in;
            this.out = out;
        }

        /**
         * {@return what is unpacked and packed, one entry per packed side: "source" or
         * "destination", its storage bits, the slots staged, the slots unpacked from it before the
         * copy, and whether they are packed back after}
         */
        public List<StagedSide> sides() {
            List<StagedSide> sides = new ArrayList<>(2);
            if (in != null) {
                sides.add(new StagedSide("source", in.bits(), in.firstSlot(), in.slots(), in.slots(), false, in.gather()));
            }
            if (out != null) {
                // Nothing is unpacked from it: the slots the copy writes are packed back, bytes
                // written in part merged with their bits at that time (packWritten); gathered, every
                // element is written and scattered back into its slot.
                sides.add(new StagedSide("destination", out.bits(), out.firstSlot(), out.slots(), 0, true, out.gather()));
            }
            return sides;
        }

        /**
         * {@return the planned copy between the sides as they are staged, over {@code placeholder}
         * segments standing for the temporaries} Its steps are the steps {@link #run} runs; the
         * placeholder only names them, nothing is read or written through it.
         */
        public CopyPlan innerPlan(MemorySegment placeholder) {
            Access source = in != null ? in.over(placeholder, src.dtype()) : from.orElseThrow();
            Access destination = out != null ? out.over(placeholder, dst.dtype()) : to.orElseThrow();
            return AccessCopies.unchecked(source, destination, Optional.empty(), Planner.plan(source, destination, null));
        }

        /**
         * {@return the bytes zeroed besides the elements: {@link ViewAdapter#zeroTileSlots} in a tiled
         * packed destination afterwards, or a strided one's whole layout first when it has gaps}
         */
        public long zeroedBytes() {
            if (out == null) {
                return 0;
            }
            if (out.gathered() != null) {
                return ViewAdapter.tileSlotBytes(dst);
            }
            return out.tiledShape() != null ? ViewAdapter.tileSlotBytes(dst) : packedGapBytes();
        }

        /**
         * The layout bytes to zero first when the packed destination's own strided layout has gaps
         * between its slots ({@code s4[3,5]{1,0:T(2,8)E(4)}}), as the element path zeroes it; 0 when
         * it has none, or when the source shares its memory unstaged (zeroing would change it).
         */
        private long packedGapBytes() {
            long bytes = ViewAdapter.packedGapBytes(dst);
            boolean sourceSafe = in != null
                    || src.buffer().segment().asOverlappingSlice(dst.buffer().segment()).isEmpty();
            return sourceSafe ? bytes : 0;
        }

        /** Copies through byte-a-slot temporaries, the plan between them run by {@code executor}. */
        public void run(CopyExecutor executor) {
            run(executor, () -> { });
        }

        /**
         * As {@link #run(CopyExecutor)}, {@code beforePackBack} run between the copy into the
         * destination's temporary and its packing back: a test stands there for a thread writing
         * other slots of the packed buffer meanwhile.
         */
        void run(CopyExecutor executor, Runnable beforePackBack) {
            try (Allocator temporary = Allocators.shared()) {
                Access source;
                if (in != null) {
                    MemorySegment temp = temporary.allocate(Math.max(1, in.slots())).segment();
                    if (in.gathered() != null) {
                        in.gathered().gather(in.packed(), in.bits(), temp);
                    } else {
                        unpack(in.packed(), in.firstSlot(), in.slots(), in.bits(), temp);
                    }
                    source = in.over(temp, src.dtype());
                } else {
                    source = from.get();
                }
                if (out == null) {
                    executor.execute(AccessCopies.plan(source, to.get()));
                    return;
                }
                MemorySegment temp = temporary.allocate(Math.max(1, out.slots())).segment();
                if (out.gathered() != null) {
                    // Every element of the temporary is written; a refused value stops here, the
                    // destination untouched. The layout's padding and gaps are zeroed as the
                    // element path zeroes them, then each element goes into its slot.
                    executor.execute(AccessCopies.plan(source, out.over(temp, dst.dtype())));
                    ViewAdapter.zeroTileSlots(dst);
                    beforePackBack.run();
                    out.gathered().scatter(temp, out.bits(), out.packed());
                    return;
                }
                int perByte = 8 / out.bits();
                long gapBytes = out.tiledShape() == null ? packedGapBytes() : 0;
                if (gapBytes > 0) {
                    // The element path zeroes the whole layout first; the slots the copy does not
                    // write are not packed back, so these zeros stay.
                    dst.buffer().segment().asSlice(0, gapBytes).fill((byte) 0);
                }
                if (out.tiledShape() != null) {
                    // Every slot of the tiles is written (padding as zero), and the last byte's slots
                    // past them are zero, as the element path zeroes the whole layout first.
                    temp.fill((byte) 0);
                } else if (out.writesEverySlot()) {
                    // Only the edge bytes hold slots the view does not write.
                    temp.asSlice(0, Math.min(perByte, out.slots())).fill(UNWRITTEN);
                    temp.asSlice(Math.max(0, out.slots() - perByte)).fill(UNWRITTEN);
                } else {
                    temp.fill(UNWRITTEN);
                }
                long tail = out.tiledShape() == null ? ViewAdapter.packedTailSlots(dst) : 0;
                if (tail > 0) {
                    // The rest of the layout's last byte: the temporary's last slots, packed back as zero.
                    temp.asSlice(out.slots() - tail, tail).fill((byte) 0);
                }
                Access into = out.over(temp, dst.dtype());
                CopyPlan plan = AccessCopies.plan(source, into);
                executor.execute(plan);
                if (out.tiledShape() == null && in == null && rawBytes(src) && anyUnwritten(temp, out.slots())
                        && holdsMark(source)) {
                    // The source's bytes may hold the mark itself: the copy again into zeros tells.
                    MemorySegment second = temporary.allocate(Math.max(1, out.slots())).segment();
                    second.fill((byte) 0);
                    executor.execute(AccessCopies.plan(source, out.over(second, dst.dtype())));
                    settle(temp, second, out.slots());
                }
                beforePackBack.run();
                if (out.tiledShape() != null) {
                    // Tail padding L(n) past the slots reads as zero, as after the element path.
                    ViewAdapter.zeroTileSlots(dst);
                    pack(temp, out.slots(), out.bits(), out.packed(), out.firstSlot());
                } else {
                    packWritten(temp, out.slots(), out.bits(), out.packed(), out.firstSlot());
                }
            }
        }
    }

    /**
     * One packed side of a staged copy.
     *
     * @param side "source" or "destination"
     * @param bits the storage bits of a slot
     * @param firstSlot the first slot staged
     * @param slots the slots staged, one byte each in the temporary
     * @param unpacked the slots unpacked into the temporary before the copy
     * @param packedBack whether the temporary is packed back afterwards
     * @param gather empty when the temporary holds the slots {@code [firstSlot, firstSlot + slots)};
     *     else how the view's own slots are found ("strides" or "map"), the temporary holding its
     *     {@code slots} elements in row-major order, each read from or written back to its slot,
     *     {@code firstSlot} the lowest
     */
    public record StagedSide(String side, int bits, long firstSlot, long slots, long unpacked, boolean packedBack,
                             String gather) {
    }

    /**
     * {@return how to copy {@code src} into {@code dst} through byte-a-slot temporaries when a side
     * is packed and both are single-piece; empty when it declines ({@link #declined} says why): the
     * caller copies element by element} Reads and writes nothing.
     *
     * @param from the source's access, empty when packed or over several pieces
     * @param to the destination's access, likewise
     */
    public static Optional<Staging> plan(TensorView src, TensorView dst, Optional<Access> from, Optional<Access> to) {
        try {
            return Optional.of(staging(src, dst, from, to));
        } catch (Declined declined) {
            return Optional.empty();
        }
    }

    /** {@return why {@link #plan} declines these views, or empty when it stages them} */
    public static Optional<String> declined(TensorView src, TensorView dst, Optional<Access> from, Optional<Access> to) {
        try {
            staging(src, dst, from, to);
            return Optional.empty();
        } catch (Declined declined) {
            return Optional.of(declined.getMessage());
        }
    }

    private static Staging staging(TensorView src, TensorView dst, Optional<Access> from, Optional<Access> to)
            throws Declined {
        if (src.elementCount() == 0) {
            throw new Declined("nothing to copy");
        }
        if (from.isPresent() && to.isPresent()) {
            throw new Declined("no side is packed");
        }
        if (src.dtype().kind() == DType.Kind.COMPLEX && dst.dtype().kind() != DType.Kind.COMPLEX) {
            throw new Declined("complex into real: the element path names the imaginary part lost");
        }
        Side in = from.isEmpty() ? side(src, false) : null;
        Side out = to.isEmpty() ? side(dst, true) : null;
        return new Staging(src, dst, from, to, in, out);
    }

    /**
     * {@return the staging of a packed single-piece view: the span of slots it reaches unpacked
     * whole when that pays ({@link #pays}), else its own slots gathered one by one ({@link GatheredSlots})}
     *
     * @throws Declined when neither can stage it, saying why: the caller copies element by element
     */
    private static Side side(TensorView view, boolean destination) throws Declined {
        int bits = view.access().storageBits();
        if (bits >= 8 || 8 % bits != 0 || !(view.map() instanceof ViewMap.Single single)) {
            throw new Declined("not one piece of packed 1, 2 or 4-bit storage");
        }
        MemorySegment packed = single.buffer().segment();
        if (destination && packed.isReadOnly()) {
            throw new Declined("a read-only packed destination: the element path refuses it, naming the view");
        }
        int perByte = 8 / bits;
        long n = view.elementCount();
        Optional<ArrayShape> tiles = ViewAdapter.tiledLayout(view);
        Optional<StridedLayout> strided = view.stridedLayout();
        try {
            long bufferSlots = Math.multiplyExact(packed.byteSize(), (long) perByte);
            if (tiles.isPresent() && (destination || strided.isEmpty())) {
                ArrayShape shape = tiles.get();
                ArrayShape unpacked = shape.withLayout(shape.requireLayout().withElementSizeInBits(0));
                long slots = roundUp(shape.physicalElementCount(), perByte);
                if (pays(slots, n) && slots <= bufferSlots) {
                    return new Side(packed, bits, 0, slots, (temp, dtype) -> Access.tiled(temp, unpacked), true,
                            destination ? shape : null, null);
                }
            } else if (strided.isPresent()) {
                StridedLayout layout = strided.get();
                if (destination && layout.isOverlapping()) {
                    throw new Declined("a packed destination that writes one slot from two indices: the element path"
                            + " refuses it, naming the slot");
                }
                if (layout.minOffset() < 0 || layout.maxOffset() >= bufferSlots) {
                    throw new Declined("a packed view whose strides reach past its buffer");
                }
                long first = Math.floorDiv(layout.minOffset(), perByte) * perByte;
                long end = roundUp(Math.addExact(layout.maxOffset(), 1), perByte);
                long slots = Math.subtractExact(end, first);
                if (pays(slots, n)) {
                    StridedLayout shifted = layout.withOffset(layout.offset() - first);
                    boolean dense = n == layout.maxOffset() - layout.minOffset() + 1;
                    return new Side(packed, bits, first, slots, (temp, dtype) -> Access.strided(temp, dtype, shifted),
                            dense, null, null);
                }
                return gathered(view, packed, bits, GatheredSlots.strided(layout));
            }
            IndexingMap map = single.map();
            if (map.results().size() != 1 || !map.rangeVars().isEmpty() || !map.runtimeVars().isEmpty()
                    || !map.constraints().isEmpty()) {
                throw new Declined("a packed view whose map has range or runtime variables or constraints (" + map
                        + "): its slots are found index by index");
            }
            Interval range = map.range(map.results().getFirst());
            if (range.lo() < 0 || range.hi() == Long.MAX_VALUE || range.hi() >= bufferSlots) {
                throw new Declined("a packed view whose map is not bounded within its buffer (slots " + range + ")");
            }
            if (destination && DistinctSlots.firstRepeat(view) != null) {
                throw new Declined("a packed destination that writes one slot from two indices: the element path"
                        + " refuses it, naming the slot");
            }
            long end = roundUp(Math.addExact(range.hi(), 1), perByte);
            if (tiles.isEmpty() && pays(end, n)) {
                // Offsets from slot 0: a map is not shifted, so only a map reaching most of [0, end) pays.
                return new Side(packed, bits, 0, end, (temp, dtype) -> Access.mapped(temp, dtype, map), false, null, null);
            }
            return gathered(view, packed, bits, GatheredSlots.mapped(map, Extents.toArray(view.dims()), range.lo()));
        } catch (ArithmeticException overflow) {
            throw new Declined("an index computation overflows a long");
        }
    }

    /**
     * {@return a side whose temporary holds exactly the view's elements, row-major, each gathered
     * from (or scattered back to) its own slot} Every element of it is written by the copy, so no
     * slot is marked unwritten.
     */
    private static Side gathered(TensorView view, MemorySegment packed, int bits, GatheredSlots slots) {
        StridedLayout rowMajor = StridedLayout.packed(Extents.toArray(view.dims()));
        return new Side(packed, bits, slots.lowestSlot(), slots.elements(),
                (temp, dtype) -> Access.strided(temp, dtype, rowMajor), true, null, slots);
    }

    /** Why a packed side is not staged; thrown without a stack trace, while planning. */
    private static final class Declined extends Exception {
        @java.io.Serial
        private static final long serialVersionUID = 1L;

        Declined(String reason) {
            super(reason, null, false, false);
        }
    }

    /** {@return whether unpacking {@code slots} slots for {@code elements} elements beats the element path} */
    private static boolean pays(long slots, long elements) {
        return slots <= SLACK_SLOTS || slots / MAX_REACH_PER_ELEMENT <= elements;
    }

    private static long roundUp(long x, int perByte) {
        return Math.ceilDiv(x, perByte) * (long) perByte;
    }

    /**
     * Unpacks slots {@code [firstSlot, firstSlot + slots)} of {@code packed} ({@code firstSlot} and
     * {@code slots} multiples of the slots a byte holds) into bytes {@code [0, slots)} of {@code out}.
     * Eight slots at a time: {@code bits} bytes in, one long out, the bit groups spread a byte apart.
     */
    static void unpack(MemorySegment packed, long firstSlot, long slots, int bits, MemorySegment out) {
        int perByte = 8 / bits;
        long at = firstSlot / perByte;
        long bytes = slots / perByte;
        long[] masks = MASKS[bits];
        int s1 = (8 - bits) * 4;
        int s2 = (8 - bits) * 2;
        int s3 = 8 - bits;
        long i = 0;
        long o = 0;
        for (; i + bits <= bytes; i += bits, o += 8) {
            long t = switch (bits) {
                case 4 -> packed.get(I32, at + i) & 0xffff_ffffL;
                case 2 -> packed.get(I16, at + i) & 0xffffL;
                default -> packed.get(ValueLayout.JAVA_BYTE, at + i) & 0xffL;
            };
            t = (t | t << s1) & masks[0];
            t = (t | t << s2) & masks[1];
            t = (t | t << s3) & masks[2];
            out.set(I64, o, t);
        }
        int low = (1 << bits) - 1;
        for (; i < bytes; i++) {
            int b = packed.get(ValueLayout.JAVA_BYTE, at + i);
            for (int k = 0; k < perByte; k++, o++) {
                out.set(ValueLayout.JAVA_BYTE, o, (byte) ((b >>> (k * bits)) & low));
            }
        }
    }

    /**
     * Packs bytes {@code [0, slots)} of {@code in} (each holding one slot's bits, zero-extended)
     * into slots {@code [firstSlot, firstSlot + slots)} of {@code packed}, the reverse of
     * {@link #unpack}: whole bytes written.
     */
    static void pack(MemorySegment in, long slots, int bits, MemorySegment packed, long firstSlot) {
        int perByte = 8 / bits;
        long at = firstSlot / perByte;
        long bytes = slots / perByte;
        long i = 0;
        long o = 0;
        for (; i + bits <= bytes; i += bits, o += 8) {
            packEight(in.get(I64, o), bits, packed, at + i);
        }
        int low = (1 << bits) - 1;
        for (; i < bytes; i++) {
            int b = 0;
            for (int k = 0; k < perByte; k++, o++) {
                b |= (in.get(ValueLayout.JAVA_BYTE, o) & low) << (k * bits);
            }
            packed.set(ValueLayout.JAVA_BYTE, at + i, (byte) b);
        }
    }

    /**
     * The byte a destination's temporary holds in a slot the copy did not write, filled in before
     * the copy. No conversion writes it (a sub-byte value is written zero-extended, in the low
     * bits); only a raw copy of a byte-a-slot sub-byte source holding it can, which
     * {@link #rawBytes} tells and {@link #settle} resolves.
     */
    static final byte UNWRITTEN = (byte) 0x80;
    private static final long UNWRITTEN_LANES = 0x8080_8080_8080_8080L;

    /**
     * {@return whether a copy from {@code src} into a byte-a-slot temporary may write any byte
     * there, {@link #UNWRITTEN} included: a sub-byte type stored a byte a slot, whose bits above
     * the type's are not read (NumPy's sign-extended {@code int8} for an {@code s4}) and which a
     * same-type copy moves as they are}
     */
    static boolean rawBytes(TensorView src) {
        return src.dtype().isSubByte() && src.access().storageBits() >= 8;
    }

    /** {@return whether any of bytes {@code [0, slots)} of {@code temp} is {@link #UNWRITTEN}} */
    static boolean anyUnwritten(MemorySegment temp, long slots) {
        long o = 0;
        for (; o + 8 <= slots; o += 8) {
            long t = temp.get(I64, o) ^ UNWRITTEN_LANES;
            // A zero byte in t: the SWAR test for a zero lane.
            if (((t - 0x0101_0101_0101_0101L) & ~t & UNWRITTEN_LANES) != 0) {
                return true;
            }
        }
        for (; o < slots; o++) {
            if (temp.get(ValueLayout.JAVA_BYTE, o) == UNWRITTEN) {
                return true;
            }
        }
        return false;
    }

    /** {@return whether a byte the side can read is {@link #UNWRITTEN}} */
    private static boolean holdsMark(Access side) {
        long[] bytes = Reach.bytes(side);
        return bytes != null && anyUnwritten(side.segment().asSlice(bytes[0], bytes[1] - bytes[0]), bytes[1] - bytes[0]);
    }

    /**
     * Tells, in {@code first}, a slot written with {@link #UNWRITTEN} from one not written, by
     * {@code second}: the same copy run again into a temporary of zeros. A slot holding it in both
     * was written (its bits, the low ones, are zero); in {@code first} only, not written.
     */
    static void settle(MemorySegment first, MemorySegment second, long slots) {
        for (long o = 0; o < slots; o++) {
            if (first.get(ValueLayout.JAVA_BYTE, o) == UNWRITTEN && second.get(ValueLayout.JAVA_BYTE, o) == UNWRITTEN) {
                first.set(ValueLayout.JAVA_BYTE, o, (byte) 0);
            }
        }
    }

    /**
     * Packs the slots the copy wrote of bytes {@code [0, slots)} of {@code in} (every byte but
     * {@link #UNWRITTEN}) into slots {@code [firstSlot, firstSlot + slots)} of {@code packed}: a
     * byte all of whose slots were written is stored whole, one with none is not touched (neither
     * read nor written), and one written in part is read now and only its written slots' bits
     * changed. So a thread writing other slots of the buffer meanwhile keeps its writes, but for
     * one writing another slot of a byte written in part: that byte's read and store are two
     * accesses, as any sub-byte store's are.
     */
    static void packWritten(MemorySegment in, long slots, int bits, MemorySegment packed, long firstSlot) {
        int perByte = 8 / bits;
        long at = firstSlot / perByte;
        long bytes = slots / perByte;
        long i = 0;
        long o = 0;
        for (; i + bits <= bytes; i += bits, o += 8) {
            long raw = in.get(I64, o);
            if ((raw & UNWRITTEN_LANES) != 0) {
                // Some byte has its top bit set: an unwritten slot, or a raw byte with high bits.
                for (int k = 0; k < bits; k++) {
                    mergeByte(in, o + (long) k * perByte, perByte, bits, packed, at + i + k);
                }
                continue;
            }
            packEight(raw, bits, packed, at + i);
        }
        for (; i < bytes; i++, o += perByte) {
            mergeByte(in, o, perByte, bits, packed, at + i);
        }
    }

    /** Packs eight byte-a-slot slots ({@code raw}, first slot lowest) into the {@code bits} bytes at {@code at} of {@code packed}. */
    private static void packEight(long raw, int bits, MemorySegment packed, long at) {
        long[] masks = MASKS[bits];
        long t = raw & masks[2];
        t = (t | t >>> (8 - bits)) & masks[1];
        t = (t | t >>> ((8 - bits) * 2)) & masks[0];
        t = t | t >>> ((8 - bits) * 4);
        switch (bits) {
            case 4 -> packed.set(I32, at, (int) t);
            case 2 -> packed.set(I16, at, (short) t);
            default -> packed.set(ValueLayout.JAVA_BYTE, at, (byte) t);
        }
    }

    /** Packs the written ones of slots {@code [o, o + perByte)} of {@code in} into byte {@code at} of {@code packed}. */
    private static void mergeByte(MemorySegment in, long o, int perByte, int bits, MemorySegment packed, long at) {
        int low = (1 << bits) - 1;
        int value = 0;
        int written = 0;
        for (int k = 0; k < perByte; k++) {
            byte b = in.get(ValueLayout.JAVA_BYTE, o + k);
            if (b != UNWRITTEN) {
                value |= (b & low) << (k * bits);
                written |= low << (k * bits);
            }
        }
        if (written == 0) {
            return;
        }
        if (written != 0xff) {
            value |= packed.get(ValueLayout.JAVA_BYTE, at) & ~written & 0xff;
        }
        packed.set(ValueLayout.JAVA_BYTE, at, (byte) value);
    }

    /**
     * Per storage width {@code b}: the masks after each spreading step, groups of {@code 4b},
     * {@code 2b} and {@code b} bits every 32, 16 and 8 bits.
     */
    private static final long[][] MASKS = new long[9][];

    static {
        for (int b : new int[] {1, 2, 4}) {
            MASKS[b] = new long[] {repeat(4 * b, 32), repeat(2 * b, 16), repeat(b, 8)};
        }
    }

    private static long repeat(int width, int every) {
        long group = (1L << width) - 1;
        long m = 0;
        for (int at = 0; at < 64; at += every) {
            m |= group << at;
        }
        return m;
    }
}
