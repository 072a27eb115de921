package dev.tensorbuf.net.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Decodes Zstandard frames (RFC 8878) into memory of the size its caller expects: how Arrow IPC
 * stores a buffer compressed with {@code ZSTD}, which pyarrow writes for
 * {@code feather.write_feather(..., compression='zstd')} and {@code ipc.IpcWriteOptions(compression='zstd')}.
 * Frames without a dictionary, one after another, skippable frames skipped; a frame's content
 * checksum, where it has one, is verified. Every header, table, bit stream, length and offset is checked against
 * the input and the output, so damaged input gives an {@link IllegalArgumentException} saying
 * what and where, never a read or write outside either segment.
 * {@snippet :
 * MemorySegment out = arena.allocate(n);
 * ZstdFrames.decode(frame, out);   // out holds the n bytes the frames encode, or it throws
 * }
 */
public final class ZstdFrames {
    private static final int MAGIC = 0xFD2FB528;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int MAX_BLOCK = 128 << 10;
    private static final ValueLayout.OfLong I64_OUT = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final VarHandle LITERAL_LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());
    /**
     * The most bytes one input byte can decode to: a block, at least 4 bytes with its header
     * (an RLE block), decodes to at most {@code MAX_BLOCK}. Callers bound what they allocate by it.
     */
    public static final int MAX_RATIO = MAX_BLOCK / 4;

    // RFC 8878 3.1.1.3.2.1.1: literal and match length codes, their baselines and extra bits.
    private static final int[] LL_BASE = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 20, 22, 24, 28, 32, 40,
        48, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
    private static final int[] LL_BITS = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9,
        10, 11, 12, 13, 14, 15, 16};
    private static final int[] ML_BASE = {3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
        27, 28, 29, 30, 31, 32, 33, 34, 35, 37, 39, 41, 43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051, 4099, 8195,
        16387, 32771, 65539};
    private static final int[] ML_BITS = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    // RFC 8878 3.1.1.3.2.2: the predefined distributions.
    private static final Fse LL_PREDEFINED = Fse.build(new short[] {4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2,
        2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1}, 36, 6);
    private static final Fse ML_PREDEFINED = Fse.build(new short[] {1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1}, 53, 6);
    private static final Fse OF_PREDEFINED = Fse.build(new short[] {1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
        1, 1, 1, -1, -1, -1, -1, -1}, 29, 5);

    private ZstdFrames() {
    }

    /**
     * Decodes the frames in {@code in} into all of {@code out}.
     *
     * @throws IllegalArgumentException if {@code in} is not Zstandard frames encoding exactly
     *     {@code out.byteSize()} bytes, saying what is wrong and at which input byte
     */
    public static void decode(MemorySegment in, MemorySegment out) {
        long at = 0;
        long written = 0;
        do {
            require(in, at, 4, "a frame's magic number");
            int magic = in.get(I32, at);
            if ((magic & 0xFFFFFFF0) == 0x184D2A50) {   // a skippable frame
                require(in, at + 4, 4, "a skippable frame's size");
                long skip = in.get(I32, at + 4) & 0xFFFFFFFFL;
                require(in, at + 8, skip, "a skippable frame");
                at += 8 + skip;
                continue;
            }
            if (magic != MAGIC) {
                throw new IllegalArgumentException("a Zstandard frame starts with the magic 0xFD2FB528 (byte " + at + ")");
            }
            Frame frame = new Frame(in, out, written);
            at = frame.decode(at + 4);
            written = frame.written;
        } while (at < in.byteSize());
        if (written != out.byteSize()) {
            throw new IllegalArgumentException("the Zstandard frames hold " + written + " bytes, " + out.byteSize() + " expected");
        }
    }

    private static void require(MemorySegment in, long at, long bytes, String what) {
        if (bytes > in.byteSize() - at) {
            throw new IllegalArgumentException("the Zstandard input ends at byte " + in.byteSize() + ", inside " + what
                    + " at byte " + at);
        }
    }

    private static int u8(MemorySegment in, long at) {
        return in.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
    }

    private static int u16(MemorySegment in, long at) {
        return u8(in, at) | u8(in, at + 1) << 8;
    }

    private static int u24(MemorySegment in, long at) {
        return u16(in, at) | u8(in, at + 2) << 16;
    }

    private static IllegalArgumentException damaged(String what, long at) {
        return new IllegalArgumentException("Zstandard " + what + " (input byte " + at + ")");
    }

    /** One frame's state: its output so far, window, tables and offsets, which later blocks may reuse. */
    private static final class Frame {
        private final MemorySegment in;
        private final MemorySegment out;
        private final long frameStart;
        private long written;
        private long window;
        private final byte[] literals = new byte[MAX_BLOCK];
        private Huffman huffman;
        private Fse ll;
        private Fse of;
        private Fse ml;
        private final long[] repeats = {1, 4, 8};

        Frame(MemorySegment in, MemorySegment out, long written) {
            this.in = in;
            this.out = out;
            this.frameStart = written;
            this.written = written;
        }

        /** Decodes the frame whose header starts at {@code at}; {@return the input byte after it} */
        long decode(long at) {
            require(in, at, 1, "a frame header");
            int descriptor = u8(in, at++);
            int contentSizeFlag = descriptor >>> 6;
            boolean singleSegment = (descriptor & 0x20) != 0;
            boolean checksum = (descriptor & 0x04) != 0;
            int dictionaryFlag = descriptor & 0x03;
            if ((descriptor & 0x08) != 0) {
                throw damaged("frame header descriptor 0x" + Integer.toHexString(descriptor) + " sets its reserved bit", at - 1);
            }
            if (!singleSegment) {
                require(in, at, 1, "a window descriptor");
                int w = u8(in, at++);
                int log = 10 + (w >>> 3);
                window = (1L << log) + ((1L << log) / 8) * (w & 7);
            }
            int dictionaryBytes = new int[] {0, 1, 2, 4}[dictionaryFlag];
            require(in, at, dictionaryBytes, "a dictionary id");
            long dictionary = switch (dictionaryBytes) {
                case 1 -> u8(in, at);
                case 2 -> u16(in, at);
                case 4 -> in.get(I32, at) & 0xFFFFFFFFL;
                default -> 0;
            };
            if (dictionary != 0) {
                throw damaged("frame needs dictionary " + dictionary + ", which Arrow never uses", at);
            }
            at += dictionaryBytes;
            int sizeBytes = new int[] {singleSegment ? 1 : 0, 2, 4, 8}[contentSizeFlag];
            require(in, at, sizeBytes, "a frame content size");
            long contentSize = switch (sizeBytes) {
                case 1 -> u8(in, at);
                case 2 -> u16(in, at) + 256;
                case 4 -> in.get(I32, at) & 0xFFFFFFFFL;
                case 8 -> in.get(I64, at);
                default -> -1;
            };
            at += sizeBytes;
            if (contentSize != -1 && (contentSize < 0 || contentSize > out.byteSize() - written)) {
                throw new IllegalArgumentException("a Zstandard frame holds " + Long.toUnsignedString(contentSize)
                        + " bytes, where " + (out.byteSize() - written) + " are left of the " + out.byteSize() + " expected");
            }
            if (singleSegment) {
                window = contentSize;
            }
            while (true) {
                require(in, at, 3, "a block header");
                int header = u24(in, at);
                at += 3;
                boolean last = (header & 1) != 0;
                int type = (header >>> 1) & 3;
                int size = header >>> 3;
                long blockMax = Math.min(window, MAX_BLOCK);
                if (type != 2 && size > blockMax) {
                    throw damaged("block of " + size + " bytes, past the frame's " + blockMax + "-byte blocks", at - 3);
                }
                switch (type) {
                    case 0 -> {   // raw
                        require(in, at, size, "a raw block");
                        room(size, at);
                        MemorySegment.copy(in, at, out, written, size);
                        written += size;
                        at += size;
                    }
                    case 1 -> {   // one byte, repeated
                        require(in, at, 1, "an RLE block");
                        room(size, at);
                        out.asSlice(written, size).fill(in.get(ValueLayout.JAVA_BYTE, at));
                        written += size;
                        at += 1;
                    }
                    case 2 -> {
                        if (size > blockMax) {
                            throw damaged("block of " + size + " bytes, past the frame's " + blockMax + "-byte blocks", at - 3);
                        }
                        require(in, at, size, "a compressed block");
                        long before = written;
                        compressedBlock(at, at + size);
                        if (written - before > blockMax) {
                            throw damaged("block decodes to " + (written - before) + " bytes, past the frame's " + blockMax
                                    + "-byte blocks", at - 3);
                        }
                        at += size;
                    }
                    default -> throw damaged("block of the reserved type 3", at - 3);
                }
                if (last) {
                    break;
                }
            }
            if (contentSize != -1 && written - frameStart != contentSize) {
                throw new IllegalArgumentException("a Zstandard frame says it holds " + contentSize + " bytes but decodes to "
                        + (written - frameStart));
            }
            if (checksum) {
                require(in, at, 4, "a content checksum");
                int stored = in.get(I32, at);
                int computed = (int) XxHash.xxh64(out, frameStart, written - frameStart, 0);
                if (stored != computed) {
                    throw damaged("frame's content checksum 0x" + Integer.toHexString(stored) + " is not that of the "
                            + (written - frameStart) + " bytes it decodes to (0x" + Integer.toHexString(computed)
                            + "): the frame is damaged", at);
                }
                at += 4;
            }
            return at;
        }

        private void room(long bytes, long at) {
            if (bytes > out.byteSize() - written) {
                throw tooLong(at);
            }
        }

        private IllegalArgumentException tooLong(long at) {
            return new IllegalArgumentException("the Zstandard frames hold more than the " + out.byteSize()
                    + " bytes expected (at input byte " + at + ")");
        }

        private void compressedBlock(long from, long to) {
            long at = from;
            // Literals section (RFC 8878 3.1.1.3.1).
            require(in, at, 1, "a literals section header");
            int b0 = u8(in, at);
            int type = b0 & 3;
            int format = (b0 >>> 2) & 3;
            int count;
            if (type < 2) {
                int headerBytes = format == 1 ? 2 : format == 3 ? 3 : 1;
                if (headerBytes > to - at) {
                    throw damaged("literals section header past its block", at);
                }
                count = switch (headerBytes) {
                    case 1 -> b0 >>> 3;
                    case 2 -> u16(in, at) >>> 4;
                    default -> u24(in, at) >>> 4;
                };
                at += headerBytes;
                if (count > MAX_BLOCK) {
                    throw damaged(count + " literals, past a block's " + MAX_BLOCK, from);
                }
                if (type == 0) {
                    if (count > to - at) {
                        throw damaged(count + " raw literals past their block", at);
                    }
                    MemorySegment.copy(in, ValueLayout.JAVA_BYTE, at, literals, 0, count);
                    at += count;
                } else {
                    if (at >= to) {
                        throw damaged("RLE literals without their byte", at);
                    }
                    Arrays.fill(literals, 0, count, in.get(ValueLayout.JAVA_BYTE, at));
                    at += 1;
                }
            } else {
                int headerBytes = format <= 1 ? 3 : format == 2 ? 4 : 5;
                if (headerBytes > to - at) {
                    throw damaged("literals section header past its block", at);
                }
                long h = 0;
                for (int i = headerBytes - 1; i >= 0; i--) {
                    h = h << 8 | u8(in, at + i);
                }
                int sizeBits = headerBytes == 3 ? 10 : headerBytes == 4 ? 14 : 18;
                count = (int) ((h >>> 4) & ((1 << sizeBits) - 1));
                int compressed = (int) ((h >>> (4 + sizeBits)) & ((1 << sizeBits) - 1));
                boolean fourStreams = format != 0;
                at += headerBytes;
                if (count > MAX_BLOCK) {
                    throw damaged(count + " literals, past a block's " + MAX_BLOCK, from);
                }
                if (compressed > to - at) {
                    throw damaged(compressed + " bytes of compressed literals past their block", at);
                }
                long end = at + compressed;
                if (type == 2) {
                    huffman = Huffman.read(in, at, end);
                    at = huffman.end;
                } else if (huffman == null) {
                    throw damaged("literals reuse a Huffman table no earlier block of the frame gave", at);
                }
                if (fourStreams) {
                    if (end - at < 6) {
                        throw damaged("four literal streams without their jump table", at);
                    }
                    long s1 = at + 6 + u16(in, at);
                    long s2 = s1 + u16(in, at + 2);
                    long s3 = s2 + u16(in, at + 4);
                    if (s3 > end) {
                        throw damaged("literal streams' jump table reaches past the literals", at);
                    }
                    int part = (count + 3) / 4;
                    if (3 * part > count) {
                        throw damaged(count + " literals cannot be split in four streams", at);
                    }
                    huffman.decode(in, at + 6, s1, literals, 0, part);
                    huffman.decode(in, s1, s2, literals, part, part);
                    huffman.decode(in, s2, s3, literals, 2 * part, part);
                    huffman.decode(in, s3, end, literals, 3 * part, count - 3 * part);
                } else {
                    huffman.decode(in, at, end, literals, 0, count);
                }
                at = end;
            }
            // Sequences section (RFC 8878 3.1.1.3.2).
            if (at >= to) {
                throw damaged("block ends before its sequences section", at);
            }
            int s0 = u8(in, at);
            long sequences;
            if (s0 < 128) {
                sequences = s0;
                at += 1;
            } else if (s0 < 255) {
                if (to - at < 2) {
                    throw damaged("sequence count past its block", at);
                }
                sequences = ((s0 - 128) << 8) + u8(in, at + 1);
                at += 2;
            } else {
                if (to - at < 3) {
                    throw damaged("sequence count past its block", at);
                }
                sequences = u16(in, at + 1) + 0x7F00;
                at += 3;
            }
            int literal = 0;
            if (sequences > 0) {
                if (at >= to) {
                    throw damaged("block ends before its symbol compression modes", at);
                }
                int modes = u8(in, at++);
                if ((modes & 3) != 0) {
                    throw damaged("symbol compression modes 0x" + Integer.toHexString(modes) + " set their reserved bits", at - 1);
                }
                TableRead t = table(modes >>> 6, ll, LL_PREDEFINED, 35, 9, at, to, "literal length");
                ll = t.table();
                t = table((modes >>> 4) & 3, of, OF_PREDEFINED, 31, 8, t.end(), to, "offset");
                of = t.table();
                t = table((modes >>> 2) & 3, ml, ML_PREDEFINED, 52, 9, t.end(), to, "match length");
                ml = t.table();
                at = t.end();
                literal = sequences(new BackwardBits(in, at, to, "sequences"), sequences, count, at);
            } else if (at != to) {
                throw damaged("block holds " + (to - at) + " bytes after a sequences section of no sequences", at);
            }
            room(count - literal, at);
            MemorySegment.copy(literals, literal, out, ValueLayout.JAVA_BYTE, written, count - literal);
            written += count - literal;
        }

        /**
         * Decodes and carries out {@code sequences} sequences from {@code bits} (RFC 8878 3.1.1.3.2.1,
         * 3.1.1.4), taking literals from the {@code count} decoded; {@return the literals taken}
         */
        private int sequences(BackwardBits bits, long sequences, int count, long at) {
            byte[] llSymbol = ll.symbol;
            byte[] llBits = ll.bits;
            int[] llBase = ll.baseline;
            byte[] mlSymbol = ml.symbol;
            byte[] mlBits = ml.bits;
            int[] mlBase = ml.baseline;
            byte[] ofSymbol = of.symbol;
            byte[] ofBits = of.bits;
            int[] ofBase = of.baseline;
            MemorySegment dst = out;
            long size = dst.byteSize();
            long pos = written;
            long r1 = repeats[0];
            long r2 = repeats[1];
            long r3 = repeats[2];
            int literal = 0;
            int llState = (int) bits.read(ll.log);
            int ofState = (int) bits.read(of.log);
            int mlState = (int) bits.read(ml.log);
            // The stream's window in locals: a sequence reads up to 89 bits, in three groups of at
            // most 56 (offset; match and literal lengths; the next states), each after a refill.
            long container = bits.window;
            int used = bits.used;
            long from = bits.at;
            long start = bits.start;
            for (long s = 0; s < sequences; s++) {
                int ofCode = ofSymbol[ofState] & 0xFF;
                int mlCode = mlSymbol[mlState] & 0xFF;
                int llCode = llSymbol[llState] & 0xFF;
                if (ofCode > 31 || mlCode > 52 || llCode > 35) {
                    throw damaged("sequence " + s + " has a code past the table's symbols", at);
                }
                if (used >= 8 && from > start) {
                    long back = Math.min(used >>> 3, from - start);
                    from -= back;
                    used -= (int) back * 8;
                    container = in.get(I64, from);
                }
                long offsetValue = (1L << ofCode) + BackwardBits.take(container, used, ofCode);
                used += ofCode;
                if (used >= 8 && from > start) {
                    long back = Math.min(used >>> 3, from - start);
                    from -= back;
                    used -= (int) back * 8;
                    container = in.get(I64, from);
                }
                long matchLength = ML_BASE[mlCode] + BackwardBits.take(container, used, ML_BITS[mlCode]);
                used += ML_BITS[mlCode];
                long literalLength = LL_BASE[llCode] + BackwardBits.take(container, used, LL_BITS[llCode]);
                used += LL_BITS[llCode];
                if (s + 1 < sequences) {
                    if (used >= 8 && from > start) {
                        long back = Math.min(used >>> 3, from - start);
                        from -= back;
                        used -= (int) back * 8;
                        container = in.get(I64, from);
                    }
                    int n = llBits[llState];
                    llState = llBase[llState] + (int) BackwardBits.take(container, used, n);
                    used += n;
                    n = mlBits[mlState];
                    mlState = mlBase[mlState] + (int) BackwardBits.take(container, used, n);
                    used += n;
                    n = ofBits[ofState];
                    ofState = ofBase[ofState] + (int) BackwardBits.take(container, used, n);
                    used += n;
                }
                // The offset (RFC 8878 3.1.2.5): a new one, or one of the last three, kept in order of use.
                long offset;
                if (offsetValue > 3) {
                    offset = offsetValue - 3;
                    r3 = r2;
                    r2 = r1;
                    r1 = offset;
                } else {
                    int k = (int) offsetValue - (literalLength == 0 ? 0 : 1);   // 0 to 3: r1, r2, r3, r1 - 1
                    if (k == 0) {
                        offset = r1;
                    } else {
                        offset = k == 1 ? r2 : k == 2 ? r3 : r1 - 1;
                        if (offset <= 0) {
                            throw damaged("sequence " + s + " repeats an offset of 0", at);
                        }
                        if (k != 1) {
                            r3 = r2;
                        }
                        r2 = r1;
                        r1 = offset;
                    }
                }
                if (literalLength > count - literal) {
                    throw damaged("sequence " + s + " takes " + literalLength + " literals where " + (count - literal)
                            + " are left", at);
                }
                if (literalLength + matchLength > size - pos) {
                    throw tooLong(at);
                }
                // Short runs are moved 16 bytes at a time where the output has room past them: the
                // bytes beyond a run are written again by what follows it.
                if (literalLength <= 16 && pos <= size - 16 && literal <= MAX_BLOCK - 16) {
                    dst.set(I64_OUT, pos, (long) LITERAL_LONGS.get(literals, literal));
                    dst.set(I64_OUT, pos + 8, (long) LITERAL_LONGS.get(literals, literal + 8));
                } else {
                    MemorySegment.copy(literals, literal, dst, ValueLayout.JAVA_BYTE, pos, (int) literalLength);
                }
                literal += (int) literalLength;
                pos += literalLength;
                if (offset > pos - frameStart || offset > window) {
                    throw damaged("sequence " + s + " matches " + offset + " bytes back, where the frame has "
                            + (pos - frameStart) + " in a window of " + window, at);
                }
                Matches.copy(dst, pos, offset, matchLength);
                pos += matchLength;
            }
            written = pos;
            repeats[0] = r1;
            repeats[1] = r2;
            repeats[2] = r3;
            bits.window = container;
            bits.used = used;
            bits.at = from;
            bits.requireEnd();
            return literal;
        }

        /** {@return the table a sequences section's {@code mode} gives, described from {@code at} on (RFC 8878 3.1.1.3.2.1)} */
        private TableRead table(int mode, Fse previous, Fse predefined, int maxSymbol, int maxLog, long at, long to, String what) {
            return switch (mode) {
                case 0 -> new TableRead(predefined, at);
                case 1 -> {
                    if (at >= to) {
                        throw damaged(what + " RLE symbol past its block", at);
                    }
                    int symbol = u8(in, at);
                    if (symbol > maxSymbol) {
                        throw damaged(what + " RLE symbol " + symbol + " past " + maxSymbol, at);
                    }
                    yield new TableRead(Fse.rle(symbol), at + 1);
                }
                case 2 -> Fse.read(in, at, to, maxSymbol, maxLog, what);
                default -> {
                    if (previous == null) {
                        throw damaged(what + " table repeats one no earlier block of the frame gave", at);
                    }
                    yield new TableRead(previous, at);
                }
            };
        }
    }

    /** A decoding table and the input byte after its description. */
    private record TableRead(Fse table, long end) {
    }

    /** A finite state entropy decoding table (RFC 8878 4.1). */
    private static final class Fse {
        final int log;
        final byte[] symbol;
        final byte[] bits;
        final int[] baseline;

        private Fse(int log, byte[] symbol, byte[] bits, int[] baseline) {
            this.log = log;
            this.symbol = symbol;
            this.bits = bits;
            this.baseline = baseline;
        }

        static Fse rle(int symbol) {
            return new Fse(0, new byte[] {(byte) symbol}, new byte[1], new int[1]);
        }

        /** {@return the table of normalized {@code counts} of symbols {@code 0..symbols-1} (-1: less than one) at accuracy {@code log}} */
        static Fse build(short[] counts, int symbols, int log) {
            int size = 1 << log;
            byte[] symbol = new byte[size];
            byte[] bits = new byte[size];
            int[] baseline = new int[size];
            int[] next = new int[symbols];
            int high = size - 1;
            for (int s = 0; s < symbols; s++) {
                if (counts[s] == -1) {
                    symbol[high--] = (byte) s;
                    next[s] = 1;
                } else {
                    next[s] = counts[s];
                }
            }
            int position = 0;
            int step = (size >>> 1) + (size >>> 3) + 3;
            for (int s = 0; s < symbols; s++) {
                for (int i = 0; i < counts[s]; i++) {
                    symbol[position] = (byte) s;
                    do {
                        position = (position + step) & (size - 1);
                    } while (position > high);
                }
            }
            if (position != 0) {
                throw new IllegalArgumentException("Zstandard FSE table: its counts do not fill its " + size + " states");
            }
            for (int u = 0; u < size; u++) {
                int s = symbol[u] & 0xFF;
                int state = next[s]++;
                int n = log - (31 - Integer.numberOfLeadingZeros(state));
                bits[u] = (byte) n;
                baseline[u] = (state << n) - size;
            }
            return new Fse(log, symbol, bits, baseline);
        }

        /**
         * {@return the table whose normalized counts (RFC 8878 4.1.1) of symbols up to {@code maxSymbol}
         * are described from {@code at}, within {@code to}, at an accuracy log up to {@code maxLog}}
         */
        static TableRead read(MemorySegment in, long at, long to, int maxSymbol, int maxLog, String what) {
            short[] counts = new short[maxSymbol + 1];
            long bit = at * 8;
            long end = to * 8;
            int log = (int) forward(in, bit, 4, end, what) + 5;
            bit += 4;
            if (log > maxLog) {
                throw damaged(what + " table of accuracy log " + log + ", past " + maxLog, at);
            }
            int remaining = (1 << log) + 1;
            int threshold = 1 << log;
            int width = log + 1;
            int s = 0;
            boolean previousZero = false;
            while (remaining > 1) {
                if (previousZero) {
                    int repeat;
                    do {
                        repeat = (int) forward(in, bit, 2, end, what);
                        bit += 2;
                        if (s + repeat > counts.length) {
                            throw damaged(what + " table has zero counts past its last symbol", at);
                        }
                        s += repeat;   // counts[] is zero there already
                    } while (repeat == 3);
                }
                if (s >= counts.length) {
                    throw damaged(what + " table has counts past its last symbol", at);
                }
                int max = 2 * threshold - 1 - remaining;
                int value = (int) forward(in, bit, width, end, what);
                int count;
                if ((value & (threshold - 1)) < max) {
                    count = value & (threshold - 1);
                    bit += width - 1;
                } else {
                    count = value & (2 * threshold - 1);
                    if (count >= threshold) {
                        count -= max;
                    }
                    bit += width;
                }
                count--;
                remaining -= Math.abs(count);
                counts[s++] = (short) count;
                previousZero = count == 0;
                while (remaining < threshold) {
                    width--;
                    threshold >>= 1;
                }
            }
            if (remaining != 1 || bit > end) {
                throw damaged(what + " table's counts do not add up to its size", at);
            }
            return new TableRead(build(counts, s, log), (bit + 7) / 8);
        }

        /** {@return {@code n} bits from bit {@code bit} of {@code in}, least significant first; zeros past {@code end} are refused} */
        private static long forward(MemorySegment in, long bit, int n, long end, String what) {
            long value = 0;
            for (int i = 0; i < n; i++) {
                long b = bit + i;
                if (b >= end) {
                    // The last field may reach past the section only by bits it does not use.
                    break;
                }
                value |= (long) ((u8(in, b >>> 3) >>> (b & 7)) & 1) << i;
            }
            return value;
        }
    }

    /** A Huffman decoding table for literals (RFC 8878 4.2). */
    private static final class Huffman {
        final int maxBits;
        final byte[] symbol;
        final byte[] bits;
        final long end;

        private Huffman(int maxBits, byte[] symbol, byte[] bits, long end) {
            this.maxBits = maxBits;
            this.symbol = symbol;
            this.bits = bits;
            this.end = end;
        }

        /** {@return the table whose description starts at {@code at}, within the literals ending at {@code to}} */
        static Huffman read(MemorySegment in, long at, long to) {
            if (at >= to) {
                throw damaged("Huffman table description past its literals", at);
            }
            int header = u8(in, at);
            int[] weights = new int[256];
            int n;
            long end;
            if (header >= 128) {
                n = header - 127;
                end = at + 1 + (n + 1) / 2;
                if (end > to) {
                    throw damaged("Huffman weights past their literals", at);
                }
                for (int i = 0; i < n; i++) {
                    int b = u8(in, at + 1 + i / 2);
                    weights[i] = i % 2 == 0 ? b >>> 4 : b & 0xF;
                }
            } else {
                end = at + 1 + header;
                if (end > to) {
                    throw damaged("Huffman weights past their literals", at);
                }
                TableRead read = Fse.read(in, at + 1, end, 255, 6, "Huffman weight");
                Fse fse = read.table();
                BackwardBits b = new BackwardBits(in, read.end(), end, "Huffman weights");
                int s1 = (int) b.read(fse.log);
                int s2 = (int) b.read(fse.log);
                n = 0;
                while (true) {
                    if (n > 253) {
                        throw damaged("Huffman weights past 255 symbols", at);
                    }
                    weights[n++] = fse.symbol[s1] & 0xFF;
                    s1 = fse.baseline[s1] + (int) b.read(fse.bits[s1]);
                    if (b.overflowed()) {
                        weights[n++] = fse.symbol[s2] & 0xFF;
                        break;
                    }
                    weights[n++] = fse.symbol[s2] & 0xFF;
                    s2 = fse.baseline[s2] + (int) b.read(fse.bits[s2]);
                    if (b.overflowed()) {
                        weights[n++] = fse.symbol[s1] & 0xFF;
                        break;
                    }
                }
            }
            long total = 0;
            for (int i = 0; i < n; i++) {
                if (weights[i] > 11) {
                    throw damaged("Huffman weight " + weights[i] + " past 11", at);
                }
                total += weights[i] == 0 ? 0 : 1L << (weights[i] - 1);
            }
            if (total == 0 || n > 255) {
                throw damaged("Huffman table of no symbols or past 256", at);
            }
            int maxBits = 64 - Long.numberOfLeadingZeros(total);   // highest bit + 1
            long left = (1L << maxBits) - total;
            if (maxBits > 11 || Long.bitCount(left) != 1) {
                throw damaged("Huffman weights do not complete a code", at);
            }
            weights[n++] = 64 - Long.numberOfLeadingZeros(left);   // the last symbol's weight, implied
            int[] start = new int[maxBits + 2];
            int[] rank = new int[maxBits + 2];
            for (int i = 0; i < n; i++) {
                rank[weights[i]]++;
            }
            int next = 0;
            for (int w = 1; w <= maxBits; w++) {
                start[w] = next;
                next += rank[w] << (w - 1);
            }
            int size = 1 << maxBits;
            byte[] symbol = new byte[size];
            byte[] bits = new byte[size];
            for (int s = 0; s < n; s++) {
                int w = weights[s];
                if (w == 0) {
                    continue;
                }
                int length = 1 << (w - 1);
                Arrays.fill(symbol, start[w], start[w] + length, (byte) s);
                Arrays.fill(bits, start[w], start[w] + length, (byte) (maxBits + 1 - w));
                start[w] += length;
            }
            return new Huffman(maxBits, symbol, bits, end);
        }

        /** Decodes {@code count} literals from the stream {@code in[from, to)} into {@code into} at {@code offset}. */
        void decode(MemorySegment in, long from, long to, byte[] into, int offset, int count) {
            BackwardBits b = new BackwardBits(in, from, to, "literals");
            for (int i = 0; i < count; i++) {
                int index = (int) b.peek(maxBits);
                into[offset + i] = symbol[index];
                b.skip(bits[index]);
            }
            b.requireEnd();
        }
    }

    /**
     * A bit stream read from its end back (RFC 8878 4.1: the last byte's highest set bit marks where
     * it starts), through a 64-bit window of the input moved back as bits are read, as the
     * reference decoder reads it: one load a few symbols, not one a read.
     */
    private static final class BackwardBits {
        private final MemorySegment in;
        private final long start;
        private final String what;
        /** The input byte the window's lowest byte is: {@code start}, or 8 or more bytes before the stream's end. */
        private long at;
        private long window;
        /** Bits of the window read, from its top; past 64 once read past the stream's start (zeros are read there). */
        private int used;
        /** Zero bits below the stream's start at the window's bottom: a stream under 8 bytes fills only its top. */
        private final int floor;

        BackwardBits(MemorySegment in, long start, long end, String what) {
            if (end <= start || in.get(ValueLayout.JAVA_BYTE, end - 1) == 0) {
                throw damaged(what + " bit stream " + (end <= start ? "is empty" : "has no end mark"), end - 1);
            }
            this.in = in;
            this.start = start;
            this.what = what;
            int mark = 8 - (31 - Integer.numberOfLeadingZeros(u8(in, end - 1)));   // the mark and the zeros above it
            used = mark;
            if (end - start >= 8) {
                at = end - 8;
                window = in.get(I64, at);
                floor = 0;
            } else {
                at = start;
                for (long i = end - 1; i >= start; i--) {
                    window = window << 8 | u8(in, i);
                }
                floor = 8 * (int) (8 - (end - start));
                window <<= floor;
            }
        }

        /** Moves the window back by the whole bytes read, as far as the stream's start. */
        private void refill() {
            long back = Math.min(used >>> 3, at - start);
            if (back > 0) {
                at -= back;
                used -= (int) back * 8;
                window = in.get(I64, at);
            }
        }

        /** {@return the next {@code n} bits (0 to 56), the first of them the most significant; zeros past the start} */
        long peek(int n) {
            if (used > 64 - n) {
                refill();
            }
            return take(window, used, n);
        }

        /** {@return the {@code n} bits (0 to 56) of {@code window} below its {@code used} top ones, zeros below its bottom} */
        static long take(long window, int used, int n) {
            return used >= 64 ? 0 : (window << used) >>> 1 >>> (63 - n);
        }

        void skip(int n) {
            used += n;
        }

        long read(int n) {
            long v = peek(n);
            used += n;
            return v;
        }

        /** {@return the bits not yet read; below 0 once read past the start} */
        private long left() {
            return (at - start) * 8 + 64 - floor - used;
        }

        boolean overflowed() {
            return left() < 0;
        }

        void requireEnd() {
            long left = left();
            if (left != 0) {
                throw damaged(what + " bit stream " + (left < 0 ? "read past its start" : "left " + left + " bits unread"), start);
            }
        }
    }
}
