package dev.tensorbuf.interop;

import dev.tensorbuf.ops.copy.internal.AccessCopies;
import dev.tensorbuf.interop.internal.ByteSwap;
import dev.tensorbuf.interop.internal.CountedWrites;
import dev.tensorbuf.interop.internal.Errors;
import dev.tensorbuf.interop.internal.FileMapping;
import dev.tensorbuf.interop.internal.FileReplacement;
import dev.tensorbuf.interop.internal.NpyCodec;
import dev.tensorbuf.interop.internal.Sizes;
import dev.tensorbuf.memory.Allocator;
import dev.tensorbuf.memory.MemoryBuffer;
import dev.tensorbuf.memory.MemorySpace;
import dev.tensorbuf.ops.copy.internal.Access;
import dev.tensorbuf.ops.copy.CopyEngine;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.StridedLayout;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaLayout;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Reads and writes NumPy {@code .npy} files (format versions 1.0, 2.0 and 3.0).
 *
 * <p><b>Reading</b> accepts every numeric dtype NumPy has ({@code b1}, {@code i1..i8},
 * {@code u1..u8}, {@code f2}, {@code f4}, {@code f8}, {@code c8}, {@code c16}) in either byte
 * order, C or Fortran order. The data handed out are always little-endian, like every tensorbuf
 * buffer: a big-endian file is byte-swapped on the way in, into a copy (a mapping would need
 * write access to the file to be swapped copy-on-write). The header keeps the
 * file's byte order. A Fortran-order file keeps its bytes; {@link Npy.Tensor#layout()} is
 * column-major. Bytes after the data are ignored, as NumPy ignores them (several arrays may be
 * saved into one stream).
 *
 * <p><b>Hostile files</b> are refused with {@link IllegalArgumentException} naming the file and the
 * problem, before anything is allocated or mapped: a bad magic or version, a header length past
 * the file or above {@value #MAX_HEADER_BYTES} bytes, a header that is not the Python literal of
 * a dict with exactly {@code 'descr'}, {@code 'fortran_order'} and {@code 'shape'} (syntax errors
 * are {@link dev.tensorbuf.views.text.TextFormatException} with the position), negative or overflowing
 * dims, object, string, datetime, structured and void dtypes, and data shorter than the shape
 * needs. Reading the header costs time linear in its length.
 *
 * <p><b>Writing</b> takes C-order little-endian data and writes the header NumPy 2.x writes, byte
 * for byte: the oldest version that fits (1.0, else 2.0 past 65535 bytes of header, 3.0 when the
 * header is not latin-1), the header padded with spaces and a newline so that the data start on a
 * multiple of 64 bytes. The ml_dtypes types NumPy lacks are written as {@code np.save} writes an
 * ml_dtypes array, byte for byte: bf16 as the void {@code '<V2'}, the f8 types and the 1-, 2- and
 * 4-bit types as {@code '<V1'}, sub-byte elements one to a byte in the low bits. NumPy loads such
 * a file as raw voids; {@code np.load(f).view(ml_dtypes.bfloat16)} gives the values back, as
 * {@link #map(Path, DType)} does here.
 * {@snippet :
 * MemorySegment bytes = Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2, 3, 4, 5, 6);
 * Npy.write(Path.of("x.npy"), new DenseTensor(DType.F32, List.of(2L, 3L), bytes));
 * Npy.Header h = Npy.readHeader(Path.of("x.npy"));
 * h.descr();         // "<f4"
 * h.dataOffset();    // 128: magic 6 + version 2 + length 2 + header 118
 * try (Npy.Tensor a = Npy.map(Path.of("x.npy"))) {
 *     a.data().segment().get(ValueLayout.JAVA_FLOAT_UNALIGNED, 20); // 6.0f
 * }
 * }
 */
public final class Npy {
    /** The longest header read, in bytes. */
    public static final int MAX_HEADER_BYTES = NpyCodec.MAX_HEADER_BYTES;

    private Npy() {
    }

    /**
     * {@return the header of the file, checked against the file's size}
     *
     * @throws IllegalArgumentException naming the file and the problem, for a malformed file
     * @throws IOException if the file cannot be read
     */
    public static Header readHeader(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            return NpyCodec.read(channel, channel.size(), file.toString());
        }
    }

    /**
     * {@return the array, its data memory-mapped without a copy (read-only) for little-endian and
     * one-byte data; big-endian data cannot be mapped as little-endian, so they are copied into
     * 64-byte aligned memory of their own and swapped there ({@link Npy.Tensor#isMapped()} false,
     * writable)} Mapping and copy live in a shared arena, so any thread may read them; closing the
     * array unmaps or frees them.
     *
     * @throws IllegalArgumentException naming the file and the problem, for a malformed file
     * @throws IOException if the file cannot be read or mapped
     */
    public static Tensor map(Path file) throws IOException {
        return map(file, null);
    }

    /**
     * {@return the array as {@link #map(Path)} maps it, with a void descr read as {@code voidType}}
     * ml_dtypes saves the types NumPy lacks as voids of their width: bf16 as {@code '<V2'}, the
     * f8 types (but float8_e5m2, saved as {@code '<f1'}, which is read as f8e5m2 anyway) and the
     * sub-byte types (int4, uint4, int2, uint2, float4_e2m1fn, float6_e2m3fn, float6_e3m2fn) as
     * {@code '<V1'}. A sub-byte type's elements take one byte each, in its low bits, as ml_dtypes
     * stores them: {@link Npy.Tensor#layout()} counts whole bytes, so read them with
     * {@code ElementAccess.of(type)} ({@code TensorView.strided} does), not packed.
     * {@snippet :
     * // np.save("w.npy", np.ones((2, 3), dtype=ml_dtypes.bfloat16))   -> descr '<V2'
     * try (Npy.Tensor w = Npy.map(Path.of("w.npy"), DType.BF16)) {
     *     w.dtype();   // bf16
     * }
     * // np.save("q.npy", np.array([-8, -1, 7], dtype=ml_dtypes.int4))  -> descr '<V1', bytes 08 0f 07
     * try (Npy.Tensor q = Npy.map(Path.of("q.npy"), DType.S4)) {
     *     q.header().dataByteSize();                                 // 3: one byte per element
     *     ElementAccess.of(DType.S4).getLong(q.data().segment(), 1); // -1
     * }
     * }
     *
     * @param voidType the type of a void file's elements, of the void's width; null refuses void
     *     files, as {@link #map(Path)} does. A file whose descr names a type is read as that type.
     * @throws IllegalArgumentException for a malformed file, a void width that differs from
     *     {@code voidType}'s, or a sub-byte element whose byte sets bits above the type's width
     *     (ml_dtypes never writes one: the file holds another type)
     */
    public static Tensor map(Path file, DType voidType) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            Header header = NpyCodec.read(channel, channel.size(), file.toString(), voidType);
            if (!needsSwap(header)) {
                MemoryBuffer mapped = FileMapping.map(channel, header.dataOffset(), header.dataByteSize(),
                        "mapped " + file.getFileName());
                try {
                    requireLowBitsOnly(mapped.segment(), header.dtype(), file);
                } catch (IllegalArgumentException e) {
                    mapped.close();
                    throw e;
                }
                return new Tensor(file, header, mapped, true);
            }
            MemoryBuffer copy = FileMapping.copy(channel, header.dataOffset(), header.dataByteSize(), "swapped " + file.getFileName());
            ByteSwap.toLittleEndian(copy.segment(), header.dtype());
            return new Tensor(file, header, copy, false);
        }
    }

    /**
     * ml_dtypes writes a sub-byte element alone in its byte, the bits above its width zero (int4
     * -1 is 0x0f, never 0xff). Reading the low bits alone would make 0x38 the int4 -8: a byte
     * with any high bit set says the file holds some other type, so it is refused.
     */
    private static void requireLowBitsOnly(MemorySegment data, DType type, Path file) {
        if (!type.isSubByte()) {
            return;
        }
        int high = 0xff & ~((1 << type.bitWidth()) - 1);
        for (long i = 0; i < data.byteSize(); i++) {
            byte b = data.get(ValueLayout.JAVA_BYTE, i);
            if ((b & high) != 0) {
                throw new IllegalArgumentException(file + ": element " + i + " is the byte " + String.format("0x%02x", b & 0xff)
                        + ", which ml_dtypes never writes for " + type + " (one element to a byte, in its low "
                        + type.bitWidth() + " bits, the rest zero): the file does not hold " + type);
            }
        }
    }

    /**
     * {@return the array, its data read into a new buffer of {@code allocator} (64-byte aligned
     * unless the allocator's default says otherwise), swapped to little-endian} Closing the array
     * closes that buffer.
     *
     * @throws IllegalArgumentException naming the file and the problem, for a malformed file
     * @throws IllegalStateException if the allocator is closed or over its limit
     * @throws IOException if the file cannot be read
     */
    public static Tensor read(Path file, Allocator allocator) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            Header header = NpyCodec.read(channel, channel.size(), file.toString());
            MemoryBuffer buffer = allocator.allocate(header.dataByteSize());
            try {
                FileMapping.readFully(channel, header.dataOffset(), buffer.segment(), file.toString());
                if (needsSwap(header)) {
                    ByteSwap.toLittleEndian(buffer.segment(), header.dtype());
                }
            } catch (IOException | RuntimeException e) {
                buffer.close();
                throw e;
            }
            return new Tensor(file, header, buffer, false);
        }
    }

    /**
     * Writes the tensor as a C-order, little-endian {@code .npy} file in the oldest format
     * version that holds its header, replacing any file there once the new one is complete
     * (through a hidden {@code .part} file renamed over it: a failure leaves the old file, a link is written through, the
     * file's permissions are kept). A type NumPy lacks is written as ml_dtypes saves it (see the
     * class comment): NumPy sees a void array until viewed as the ml_dtypes type.
     * {@snippet :
     * MemorySegment s4 = MemorySegment.ofArray(new byte[] {(byte) 0xe1, 0x03});  // int4 [1, -2, 3, 0], packed
     * Npy.write(Path.of("q.npy"), new DenseTensor(DType.S4, List.of(4L), s4));
     * // descr '<V1', data 01 0e 03 00: np.load("q.npy").view(ml_dtypes.int4) is [1, -2, 3, 0]
     * }
     *
     * @throws IllegalArgumentException for f8e5m2 (ml_dtypes saves it as {@code '<f1'}, which
     *     np.load cannot read) and the 6-bit types (packed in a bit order no format defines)
     * @throws IOException if the file cannot be written
     */
    public static void write(Path file, DenseTensor tensor) throws IOException {
        write(file, tensor, 0);
    }

    /**
     * Writes the tensor in the given format version, e.g. 2 to test readers of 2.0 files.
     *
     * @param majorVersion 1, 2 or 3
     * @throws IllegalArgumentException for a type {@link #write(Path, DenseTensor)} refuses, a
     *     version that is not 1 to 3, or a header that does not fit version 1.0
     * @throws IOException if the file cannot be written
     */
    public static void write(Path file, DenseTensor tensor, int majorVersion) throws IOException {
        if (majorVersion != 0 && (majorVersion < 1 || majorVersion > 3)) {
            throw Errors.npyVersion(majorVersion);
        }
        DType type = tensor.dtype();
        String descr = descrToWrite(type, tensor, file);
        Optional<String> numpyRefuses = NpyCodec.whyNumpyRefuses(tensor.dims(), type.byteWidth());
        if (numpyRefuses.isPresent()) {
            throw new IllegalArgumentException(numpyRefuses.get());
        }
        byte[] preamble = NpyCodec.preamble(descr, false, tensor.dims(), majorVersion);
        FileReplacement.write(file, where -> {
            try (FileChannel channel = FileReplacement.open(where)) {
                writeFully(channel, ByteBuffer.wrap(preamble));
                if (type.isSubByte()) {
                    writeUnpacked(channel, tensor.bytes(), type, tensor.elementCount());
                } else {
                    writeSegment(channel, tensor.bytes());
                }
            }
        });
    }

    /**
     * Writes a C-order, little-endian {@code .npy} file of {@code type} and {@code dims} whose data
     * {@code data} writes after the header, piece by piece, so that no buffer of the whole tensor is
     * needed: a conversion can go through a small buffer straight into the file. Replaced as
     * {@link #write(Path, DenseTensor)} replaces it; the file is the same, byte for byte.
     * {@snippet :
     * Npy.write(Path.of("z.npy"), DType.F32, List.of(1000L, 1000L), channel -> {
     *     ByteBuffer row = ByteBuffer.allocateDirect(4000);   // zeros
     *     for (int i = 0; i < 1000; i++) {
     *         row.clear();
     *         while (row.hasRemaining()) {
     *             channel.write(row);
     *         }
     *     }
     * });   // np.load("z.npy") is np.zeros((1000, 1000), np.float32)
     * }
     *
     * @throws IllegalArgumentException for a type {@link #write(Path, DenseTensor)} refuses, or a
     *     sub-byte type (its file holds one element to a byte: write a {@link DenseTensor})
     * @throws IllegalStateException if {@code data} writes other than the tensor's byte count
     * @throws IOException if the file cannot be written, or as {@code data} throws
     */
    public static void write(Path file, DType type, List<Long> dims, DenseTensor.DataWriter data) throws IOException {
        Objects.requireNonNull(data, "data");
        String name = DenseTensor.describe(type, dims);
        if (type.isSubByte()) {
            throw new IllegalArgumentException("cannot write " + name + " to " + file + " from a DenseTensor.DataWriter: a .npy file"
                    + " holds " + type + " one element to a byte; write a DenseTensor of it");
        }
        long bytes = Sizes.byteSize(type, Sizes.elementCount(dims, name), name);
        byte[] preamble = NpyCodec.preamble(descrToWrite(type, name, file), false, dims, 0);
        FileReplacement.write(file, where -> {
            try (FileChannel channel = FileReplacement.open(where)) {
                writeFully(channel, ByteBuffer.wrap(preamble));
                CountedWrites counted = new CountedWrites(channel, bytes, file.toString());
                data.write(counted);
                counted.finish();
            }
        });
    }

    /**
     * {@return why {@link #write(Path, DenseTensor)} refuses tensors of {@code type}, or empty when
     * it writes them} A command that writes {@code .npy} files asks before it does any work, so
     * that it refuses exactly what the writer refuses, for the writer's reason.
     * {@snippet :
     * Npy.whyNotWritable(DType.BF16);     // Optional.empty(): written as '<V2', as np.save writes ml_dtypes' bfloat16
     * Npy.whyNotWritable(DType.F8E5M2);   // Optional["ml_dtypes saves float8_e5m2 as '<f1', which np.load cannot read"]
     * }
     */
    public static Optional<String> whyNotWritable(DType type) {
        if (type.isNumpyNative()) {
            return Optional.empty();
        }
        if (type.numpyDescr().isEmpty()) {
            return Optional.of(type + " has no NumPy or ml_dtypes dtype");
        }
        String name = type.numpyDescr().orElseThrow();
        if (type == DType.F8E5M2) {
            // ml_dtypes registers float8_e5m2 as a float: np.save writes '<f1', a file np.load refuses.
            return Optional.of("ml_dtypes saves " + name + " as '<f1', which np.load cannot read");
        }
        if (type.isSubByte() && 8 % type.bitWidth() != 0) {
            return Optional.of("its " + type.bitWidth() + "-bit elements are packed four to three bytes in a bit order no"
                    + " format defines, and ml_dtypes' " + name + " .npy holds one to a byte; tensorbuf does not unpack them");
        }
        return Optional.empty();
    }

    /**
     * {@return why {@link #write(Path, DenseTensor)} refuses a tensor of this type and dims, or empty
     * when it writes it}: {@link #whyNotWritable(DType)}, and what {@code np.load} refuses of the
     * dims (more than 64; non-zero dims whose product in bytes passes NumPy's {@code intp}), so that
     * no file is written that NumPy cannot load.
     * {@snippet :
     * Npy.whyNotWritable(ArrayShape.of(DType.F32, 0, 1L << 62));
     * // Optional["shape (0, 4611686018427387904) of 4-byte elements: its non-zero dims times the element size are
     * // 18446744073709551616 bytes, past NumPy's limit of 9223372036854775807 (the largest intp), so np.load would
     * // refuse the file (\"array is too big\")"]
     * }
     */
    public static Optional<String> whyNotWritable(ArrayShape shape) {
        Optional<String> type = whyNotWritable(shape.dtype());
        return type.isPresent() ? type : NpyCodec.whyNumpyRefuses(shape.dims(), shape.dtype().byteWidth());
    }

    /**
     * {@return the descr np.save writes for an array of the type: NumPy's own, or for an ml_dtypes
     * type the void of its width} ml_dtypes' arrays carry no type name in the file, so the void is
     * all np.save writes and all a reader can be told.
     */
    private static String descrToWrite(DType type, DenseTensor tensor, Path file) {
        return descrToWrite(type, tensor.toString(), file);
    }

    private static String descrToWrite(DType type, String tensor, Path file) {
        Optional<String> why = whyNotWritable(type);
        if (why.isPresent()) {
            throw new IllegalArgumentException("cannot write " + tensor + " to " + file + ": " + why.get()
                    + (type == DType.F8E5M2 ? "; write a .safetensors file (F8_E5M2) instead" : ""));
        }
        return type.isNumpyNative() ? type.numpyDescr().orElseThrow() : "<V" + type.byteWidth();
    }

    /** Elements unpacked per piece: a multiple of 8, so every piece of 1-, 2- and 4-bit data starts on a byte. */
    private static final long UNPACK_PIECE = 1 << 20;

    /**
     * Writes the first {@code count} packed sub-byte elements one to a byte, in the low bits with
     * the rest zero, as ml_dtypes stores them: packed data are first element lowest, so byte
     * {@code 0xe1} of {@code s4} becomes {@code 01 0e} (int4 -2 is {@code 0x0e}, not {@code 0xfe}).
     * The copy engine unpacks them, from the packed row-major shape ({@code s4[n]{0:E(4)}}) into
     * one byte per element: its one-to-a-byte store of a 1-, 2- or 4-bit type keeps the low bits
     * only, which is ml_dtypes' byte ({@code NpyTest} pins it for every type). Bits past the last
     * element (an odd count of 4-bit elements) are not read.
     */
    private static void writeUnpacked(FileChannel channel, MemorySegment packed, DType type, long count) throws IOException {
        int bits = type.bitWidth();
        // Shared: the engine may run a large piece on helper threads.
        try (Arena arena = Arena.ofShared()) {
            MemorySegment out = arena.allocate(Math.max(1, Math.min(UNPACK_PIECE, count)));
            for (long done = 0; done < count; ) {
                long n = Math.min(UNPACK_PIECE, count - done);
                ArrayShape piece = ArrayShape.of(type, n).withLayout(XlaLayout.packedDescending(type, 1));
                MemorySegment from = packed.asSlice(done / 8 * bits, piece.arraySize());
                if (from.isNative()) {
                    // As views, the engine stages packed storage through its planned kernels; an
                    // Access of packed E(n) tiles goes element by element.
                    MemorySegment to = out.asSlice(0, n);
                    CopyEngine.defaults().copy(TensorView.of(MemoryBuffer.foreign(from, MemorySpace.HOST, "Npy.write", () -> { }), piece),
                            TensorView.strided(MemoryBuffer.foreign(to, MemorySpace.HOST, "Npy.write", () -> { }), type,
                                    StridedLayout.packed(n)));
                } else {
                    AccessCopies.copy(CopyEngine.defaults(), Access.tiled(from, piece), Access.strided(out, type, StridedLayout.packed(new long[] {n})));
                }
                writeFully(channel, out.asSlice(0, n).asByteBuffer());
                done += n;
            }
        }
    }

    private static boolean needsSwap(Header header) {
        return header.byteOrder() == ByteOrder.BIG_ENDIAN && header.dtype().byteWidth() > 1;
    }

    // ByteBuffer views of a segment hold at most 2^31-1 bytes, so big data go in chunks.
    private static final long CHUNK = 1 << 30;

    static void writeSegment(FileChannel channel, MemorySegment data) throws IOException {
        boolean viewable = data.isNative() || data.heapBase().map(base -> base instanceof byte[]).orElse(false);
        // Heap segments over int[], float[]... have no ByteBuffer view: they go through a byte[].
        long chunkSize = viewable ? CHUNK : 1 << 20;
        byte[] staging = viewable ? null : new byte[(int) Math.min(chunkSize, data.byteSize())];
        for (long done = 0; done < data.byteSize(); ) {
            int n = (int) Math.min(chunkSize, data.byteSize() - done);
            ByteBuffer chunk;
            if (viewable) {
                chunk = data.asSlice(done, n).asByteBuffer();
            } else {
                MemorySegment.copy(data, ValueLayout.JAVA_BYTE, done, staging, 0, n);
                chunk = ByteBuffer.wrap(staging, 0, n);
            }
            done += n;
            writeFully(channel, chunk);
        }
    }

    static void writeFully(FileChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    /**
     * What a {@code .npy} file's preamble says: format version, element type and the byte order of
     * the data in the file, memory order, shape, and where the data start.
     *
     * <p>{@code fortran_order} is exposed as strides: {@link #layout()} is column-major for a Fortran
     * file, so element {@code (i, j)} of a {@code (2, 3)} array is at {@code i + 2 * j}.
     * {@snippet :
     * Npy.Header h = Npy.readHeader(Path.of("w.npy")); // np.save("w.npy", np.zeros((2, 3), ">f4", order="F"))
     * h.descr();          // ">f4"
     * h.dtype();          // DType.F32
     * h.byteOrder();      // BIG_ENDIAN (in the file; Npy.map and Npy.read give little-endian bytes)
     * h.dataOffset();     // 128
     * h.dataByteSize();   // 24
     * h.layout();         // sizes [2, 3] strides [1, 2]
     * }
     *
     * @param majorVersion 1, 2 or 3 (the minor version is always 0)
     * @param descr the {@code descr} string as written, e.g. {@code "<f4"}
     * @param dtype the element type
     * @param byteOrder the byte order of the data in the file; little-endian for one-byte types
     * @param fortranOrder whether the data are column-major
     * @param shape the dims; empty for a 0-d array (one element)
     * @param dataOffset the file offset of the first data byte
     */
    public record Header(int majorVersion, String descr, DType dtype, ByteOrder byteOrder, boolean fortranOrder,
            List<Long> shape, long dataOffset) {
        /**
         * The shape must pass NumPy's own check as well as {@link dev.tensorbuf.views.internal.Extents}' rule:
         * the product of the non-zero dims, from which NumPy builds strides, must fit in a long (here
         * in elements; NumPy counts bytes) even when a 0 dim leaves the array empty. {@code np.load}
         * refuses {@code (0, 2^62, 4)} as "array is too big", and so does this constructor, so every
         * header that reads has a {@link #layout()}.
         *
         * @throws IllegalArgumentException if the version is not 1 to 3, a dim is negative, the data
         *     size overflows, the strides overflow or the offset is negative
         */
        public Header {
            Objects.requireNonNull(descr, "descr");
            Objects.requireNonNull(dtype, "dtype");
            Objects.requireNonNull(byteOrder, "byteOrder");
            shape = List.copyOf(shape);
            if (majorVersion < 1 || majorVersion > 3) {
                throw Errors.npyVersion(majorVersion);
            }
            if (dataOffset < 0) {
                throw new IllegalArgumentException("data offset " + dataOffset + " is negative");
            }
            Sizes.unpackedByteSize(dtype, Sizes.elementCount(shape, descr + " " + shape), descr + " " + shape);
            strides(shape, fortranOrder);
        }

        /** {@return the number of elements: the product of the shape, 1 for a 0-d array} */
        public long elementCount() {
            return Sizes.elementCount(shape, descr);
        }

        /**
         * {@return the bytes of data that follow the header} A sub-byte type (ml_dtypes' int4,
         * float4_e2m1fn...) takes one byte per element, as ml_dtypes saves it.
         */
        public long dataByteSize() {
            return Sizes.unpackedByteSize(dtype, elementCount(), descr);
        }

        /**
         * {@return the element layout of the data: row-major strides, or column-major ones when
         * {@link #fortranOrder()}}
         */
        public StridedLayout layout() {
            long[] sizes = new long[shape.size()];
            for (int d = 0; d < sizes.length; d++) {
                sizes[d] = shape.get(d);
            }
            return StridedLayout.of(sizes, strides(shape, fortranOrder));
        }

        /** NumPy's strides, a 0 dim counted as 1; the product of all of them must fit, as NumPy requires. */
        private static long[] strides(List<Long> shape, boolean fortranOrder) {
            int rank = shape.size();
            long[] strides = new long[rank];
            long stride = 1;
            for (int k = 0; k < rank; k++) {
                int d = fortranOrder ? k : rank - 1 - k;
                strides[d] = stride;
                try {
                    stride = Math.multiplyExact(stride, Math.max(1, shape.get(d)));
                } catch (ArithmeticException e) {
                    throw new IllegalArgumentException("the product of the non-zero dims of shape " + shape
                            + " overflows a long: NumPy builds strides from it, even for an empty array", e);
                }
            }
            return strides;
        }
    }

    /**
     * A {@code .npy} array that has been mapped or read: its header and its data, always
     * little-endian, in the memory order the header states ({@link #layout()}). Closing it unmaps
     * the file or gives the buffer back to its allocator.
     *
     * {@snippet :
     * try (Npy.Tensor a = Npy.map(Path.of("x.npy"))) { // np.save("x.npy", np.arange(6, dtype="<i4").reshape(2, 3))
     *     a.dtype();                                   // DType.S32
     *     a.shape();                                   // [2, 3]
     *     a.isMapped();                                // true: no copy was made
     *     a.view().getLong(1, 2);                      // 5
     * }
     * }
     */
    public static final class Tensor implements AutoCloseable {
        private final Path file;
        private final Header header;
        private final MemoryBuffer root;
        private final MemoryBuffer data;
        private final boolean mapped;

        Tensor(Path file, Header header, MemoryBuffer root, boolean mapped) {
            this.file = Objects.requireNonNull(file, "file");
            this.header = Objects.requireNonNull(header, "header");
            this.root = root;
            this.mapped = mapped;
            this.data = mapped ? root.asReadOnly() : root;
        }

        /** {@return the file the array came from} */
        public Path file() {
            return file;
        }

        /** {@return the header as read from the file (its {@code byteOrder} is the file's, not the data's)} */
        public Header header() {
            return header;
        }

        /** {@return the element type} */
        public DType dtype() {
            return header.dtype();
        }

        /** {@return the dims, empty for a 0-d array} */
        public List<Long> shape() {
            return header.shape();
        }

        /** {@return the element layout of {@link #data()}: row-major, or column-major for a Fortran-order file} */
        public StridedLayout layout() {
            return header.layout();
        }

        /**
         * {@return the data bytes, little-endian: read-only when mapped, writable when copied} The
         * buffer lives until this array closes.
         */
        public MemoryBuffer data() {
            return data;
        }

        /**
         * {@return the array as a view of {@link #data()} through {@link #layout()}, so a
         * Fortran-order file reads by the same indices as a C-order one; sub-byte elements one to a
         * byte, as ml_dtypes saves them} The view lives until this array closes.
         * {@snippet :
         * // np.save("f.npy", np.asfortranarray(np.arange(6, dtype="<i4").reshape(2, 3)))
         * try (Npy.Tensor a = Npy.map(Path.of("f.npy"))) {
         *     a.view().getLong(1, 0);   // 3, though the file stores 3 second
         * }
         * }
         */
        public TensorView view() {
            return TensorView.strided(data, header.dtype(), header.layout());
        }

        /** {@return whether the data are a mapping of the file rather than a copy} */
        public boolean isMapped() {
            return mapped;
        }

        /** Unmaps the file, or closes the buffer; closing twice does nothing. */
        @Override
        public void close() {
            root.close();
        }

        @Override
        public String toString() {
            return file + ": " + header.descr() + " " + header.shape() + (header.fortranOrder() ? " fortran order" : "")
                    + (mapped ? " mapped" : " read");
        }
    }

    /**
     * A NumPy {@code .npz} archive ({@code np.savez}, {@code np.savez_compressed}), memory-mapped
     * read-only: a zip of {@code .npy} members, each a tensor named as {@code np.load} names it (the
     * member's name without {@code .npy}). A stored member ({@code np.savez}) is a view of the mapping,
     * as {@link Npy#map} gives a {@code .npy} file; a deflated one ({@code np.savez_compressed}) is
     * inflated into memory of its own when asked for. Every length and offset of the zip's directory is
     * checked against the file before it is used, an inflated member must be exactly the size the
     * directory gives it, and a member's bytes must match its CRC-32 before its tensor is handed
     * out, as {@code np.load} checks them: a damaged archive is refused, never read as other values.
     * {@snippet :
     * // np.savez("w.npz", a=np.arange(6, dtype="<f4").reshape(2, 3), b=np.ones(4))
     * try (Npy.Archive npz = Npy.Archive.open(Path.of("w.npz"))) {
     *     npz.names();                      // [a, b]
     *     try (Npy.Tensor a = npz.tensor("a")) {
     *         TensorElements.of(a.view()).getDouble(1, 2);   // 5.0
     *     }
     * }
     * }
     */
    public static final class Archive implements AutoCloseable {
        private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
        private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
        private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
        private static final int END = 0x06054b50;
        private static final int END64 = 0x06064b50;
        private static final int END64_LOCATOR = 0x07064b50;
        private static final int CENTRAL = 0x02014b50;
        private static final int LOCAL = 0x04034b50;
        private static final int STORED = 0;
        private static final int DEFLATED = 8;
        /** Deflate writes at least a byte for every 1032 it repeats (RFC 1951's longest match, 258, in two bits). */
        private static final long MAX_DEFLATE_RATIO = 1032;

        private final Path file;
        private final MemoryBuffer mapping;
        private final Map<String, Member> members;

        /**
         * One {@code .npy} member of the archive.
         *
         * @param name the tensor's name: the member's name without {@code .npy}
         * @param compressed whether it is deflated ({@code np.savez_compressed}) rather than stored
         * @param dataOffset where its bytes (the whole {@code .npy} file) start in the archive
         * @param storedBytes its bytes in the archive
         * @param npyBytes its bytes as a {@code .npy} file, inflated
         * @param crc32 the CRC-32 of those {@code npyBytes} bytes, as the zip directory gives it
         */
        public record Member(String name, boolean compressed, long dataOffset, long storedBytes, long npyBytes, long crc32) {
        }

        private Archive(Path file, MemoryBuffer mapping, Map<String, Member> members) {
            this.file = file;
            this.mapping = mapping;
            this.members = members;
        }

        /**
         * {@return the archive, mapped, its directory read and checked}
         *
         * @throws IllegalArgumentException naming the file and what is wrong: not a zip, a directory
         *     reaching past the file, a member encrypted, compressed otherwise than deflated, or named twice
         * @throws IOException if the file cannot be read or mapped
         */
        public static Archive open(Path file) throws IOException {
            try (FileChannel channel = FileChannel.open(file)) {
                MemoryBuffer mapping = FileMapping.map(channel, 0, channel.size(), "mapped " + file.getFileName());
                try {
                    return new Archive(file, mapping, directory(mapping.segment(), file.toString()));
                } catch (IndexOutOfBoundsException e) {
                    mapping.close();
                    throw new IllegalArgumentException(file + ": the zip directory reaches past the end of the file", e);
                } catch (RuntimeException e) {
                    mapping.close();
                    throw e;
                }
            }
        }

        private static Map<String, Member> directory(MemorySegment zip, String file) {
            long size = zip.byteSize();
            long end = -1;
            for (long at = size - 22; at >= Math.max(0, size - 22 - 65535); at--) {
                if (zip.get(I32, at) == END && at + 22 + (zip.get(I16, at + 20) & 0xffff) == size) {
                    end = at;
                    break;
                }
            }
            if (end < 0) {
                throw new IllegalArgumentException(file + ": not a zip archive (no end of central directory record)");
            }
            long entries = zip.get(I16, end + 10) & 0xffff;
            long directorySize = zip.get(I32, end + 12) & 0xffffffffL;
            long directory = zip.get(I32, end + 16) & 0xffffffffL;
            if (entries == 0xffff || directorySize == 0xffffffffL || directory == 0xffffffffL) {
                if (end < 20 || zip.get(I32, end - 20) != END64_LOCATOR) {
                    throw new IllegalArgumentException(file + ": the zip's end record points to a ZIP64 record that is not there");
                }
                long end64 = zip.get(I64, end - 20 + 8);
                if (end64 < 0 || end64 > end - 20 - 56 || zip.get(I32, end64) != END64) {
                    throw new IllegalArgumentException(file + ": the zip's ZIP64 end record is not at byte " + end64);
                }
                entries = zip.get(I64, end64 + 32);
                directorySize = zip.get(I64, end64 + 40);
                directory = zip.get(I64, end64 + 48);
            }
            if (directory < 0 || directorySize < 0 || directory > end || directorySize > end - directory
                    || entries < 0 || entries > directorySize / 46) {
                throw new IllegalArgumentException(file + ": the zip directory of " + entries + " entries (" + directorySize
                        + " bytes at byte " + directory + ") does not lie within the file");
            }
            Map<String, Member> members = new LinkedHashMap<>();
            long at = directory;
            for (long i = 0; i < entries; i++) {
                if (at > directory + directorySize - 46 || zip.get(I32, at) != CENTRAL) {
                    throw new IllegalArgumentException(file + ": zip directory entry " + i + " at byte " + at + " is damaged");
                }
                int flags = zip.get(I16, at + 8) & 0xffff;
                int method = zip.get(I16, at + 10) & 0xffff;
                long crc = zip.get(I32, at + 16) & 0xffffffffL;
                long stored = zip.get(I32, at + 20) & 0xffffffffL;
                long npy = zip.get(I32, at + 24) & 0xffffffffL;
                int nameLength = zip.get(I16, at + 28) & 0xffff;
                int extraLength = zip.get(I16, at + 30) & 0xffff;
                int commentLength = zip.get(I16, at + 32) & 0xffff;
                long local = zip.get(I32, at + 42) & 0xffffffffL;
                String name = new String(zip.asSlice(at + 46, nameLength).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
                // ZIP64: the sizes and offset too large for 4 bytes are in the extra field, in this order.
                for (long x = at + 46 + nameLength; x + 4 <= at + 46 + nameLength + extraLength; ) {
                    int id = zip.get(I16, x) & 0xffff;
                    int length = zip.get(I16, x + 2) & 0xffff;
                    if (id == 1) {
                        long y = x + 4;
                        if (npy == 0xffffffffL) {
                            npy = zip.get(I64, y);
                            y += 8;
                        }
                        if (stored == 0xffffffffL) {
                            stored = zip.get(I64, y);
                            y += 8;
                        }
                        if (local == 0xffffffffL) {
                            local = zip.get(I64, y);
                        }
                    }
                    x += 4 + length;
                }
                at += 46L + nameLength + extraLength + commentLength;
                if (!name.endsWith(".npy")) {
                    continue;   // np.load gives other members as bytes; they hold no tensor
                }
                String what = file + ": member '" + name + "'";
                if ((flags & 1) != 0) {
                    throw new IllegalArgumentException(what + " is encrypted");
                }
                if (method != STORED && method != DEFLATED) {
                    throw new IllegalArgumentException(what + " is compressed by zip method " + method
                            + "; NumPy writes stored (np.savez) or deflated (np.savez_compressed) members");
                }
                if (local < 0 || local > directory - 30 || zip.get(I32, local) != LOCAL) {
                    throw new IllegalArgumentException(what + ": its local header at byte " + local + " is not there");
                }
                long data = local + 30 + (zip.get(I16, local + 26) & 0xffff) + (zip.get(I16, local + 28) & 0xffff);
                if (stored < 0 || npy < 0 || data > directory || stored > directory - data
                        || (method == STORED && stored != npy)) {
                    throw new IllegalArgumentException(what + ": its " + stored + " bytes at byte " + data
                            + " do not lie within the archive" + (method == STORED && stored != npy ? " or differ from its size " + npy : ""));
                }
                String tensor = name.substring(0, name.length() - ".npy".length());
                if (members.put(tensor, new Member(tensor, method == DEFLATED, data, stored, npy, crc)) != null) {
                    throw new IllegalArgumentException(file + ": two members are named '" + name + "'");
                }
            }
            return members;
        }

        /** {@return the archive file} */
        public Path file() {
            return file;
        }

        /** {@return the tensors' names, in the archive's order} */
        public List<String> names() {
            return List.copyOf(members.keySet());
        }

        /** {@return the members, in the archive's order} */
        public List<Member> members() {
            return List.copyOf(members.values());
        }

        /**
         * {@return the header of tensor {@code name}'s {@code .npy} member; for a deflated member only
         * its start is inflated}
         *
         * @throws IllegalArgumentException naming the member and the problem, or the missing name and
         *     those there are
         */
        public Npy.Header header(String name) {
            Member m = member(name);
            if (!m.compressed()) {
                return NpyCodec.read(stored(m), m.npyBytes(), what(m), null);
            }
            long prefix = Math.min(m.npyBytes(), 12 + Npy.MAX_HEADER_BYTES);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment start = arena.allocate(Math.max(1, prefix)).asSlice(0, prefix);
                inflate(m, start, false);
                return NpyCodec.read(start, m.npyBytes(), what(m), null);
            }
        }

        /**
         * {@return tensor {@code name}: a view of the mapping for a stored member, little-endian and
         * one-byte data (else a copy, swapped); for a deflated member its data inflated into memory of
         * its own} Closing it frees that memory; the archive stays mapped while a stored member's
         * tensor is open, even after {@link #close()}. The member's bytes are read once to check
         * their CRC-32 (at several GB/s; the pages are then in memory for the caller's reads).
         *
         * @throws IllegalArgumentException naming the member and the problem (a malformed {@code .npy},
         *     a deflated stream that is damaged or not of the size the directory gives, bytes that do
         *     not match the CRC-32), or the missing name and those there are
         */
        public Npy.Tensor tensor(String name) {
            Member m = member(name);
            MemoryBuffer.Hold hold = mapping.hold();
            try {
                if (!m.compressed()) {
                    MemorySegment bytes = stored(m);
                    checkCrc(m, bytes);
                    Npy.Header h = NpyCodec.read(bytes, bytes.byteSize(), what(m), null);
                    MemorySegment data = bytes.asSlice(h.dataOffset(), h.dataByteSize());
                    if (h.byteOrder() == ByteOrder.BIG_ENDIAN && h.dtype().byteWidth() > 1) {
                        Npy.Tensor copy = copied(m, h, data);
                        hold.close();   // the copy needs the mapping no longer
                        return copy;
                    }
                    MemoryBuffer view = MemoryBuffer.foreign(data, MemorySpace.HOST, what(m), hold::close);
                    return new Npy.Tensor(file, h, view, true);
                }
                Arena arena = Arena.ofShared();
                try {
                    MemorySegment npy = arena.allocate(Math.max(1, m.npyBytes()), 64).asSlice(0, m.npyBytes());
                    inflate(m, npy, true);
                    checkCrc(m, npy);
                    Npy.Header h = NpyCodec.read(npy, npy.byteSize(), what(m), null);
                    MemorySegment data = npy.asSlice(h.dataOffset(), h.dataByteSize());
                    if (h.byteOrder() == ByteOrder.BIG_ENDIAN && h.dtype().byteWidth() > 1) {
                        ByteSwap.toLittleEndian(data, h.dtype());
                    }
                    hold.close();
                    return new Npy.Tensor(file, h, MemoryBuffer.foreign(data, MemorySpace.HOST, what(m), arena::close), false);
                } catch (RuntimeException | Error e) {
                    arena.close();
                    throw e;
                }
            } catch (RuntimeException | Error e) {
                hold.close();
                throw e;
            }
        }

        private Npy.Tensor copied(Member m, Npy.Header h, MemorySegment data) {
            Arena arena = Arena.ofShared();
            try {
                MemorySegment copy = arena.allocate(Math.max(1, data.byteSize()), 64).asSlice(0, data.byteSize());
                MemorySegment.copy(data, 0, copy, 0, data.byteSize());
                ByteSwap.toLittleEndian(copy, h.dtype());
                return new Npy.Tensor(file, h, MemoryBuffer.foreign(copy, MemorySpace.HOST, what(m), arena::close), false);
            } catch (RuntimeException | Error e) {
                arena.close();
                throw e;
            }
        }

        private Member member(String name) {
            if (!mapping.isAlive()) {
                throw Errors.closed(file);
            }
            Member m = members.get(name);
            if (m == null) {
                throw Errors.noTensor(name, file, names());
            }
            return m;
        }

        private String what(Member m) {
            return file + ": member '" + m.name() + ".npy'";
        }

        private void checkCrc(Member m, MemorySegment npy) {
            CRC32 crc = new CRC32();
            for (long at = 0; at < npy.byteSize(); at += 1 << 30) {
                crc.update(npy.asSlice(at, Math.min(1 << 30, npy.byteSize() - at)).asByteBuffer());
            }
            if (crc.getValue() != m.crc32()) {
                throw new IllegalArgumentException(String.format("%s: its bytes do not match the CRC-32 the zip directory gives"
                        + " them (%08x, read %08x): the archive is damaged", what(m), m.crc32(), crc.getValue()));
            }
        }

        private MemorySegment stored(Member m) {
            return mapping.segment().asSlice(m.dataOffset(), m.storedBytes());
        }

        /**
         * Inflates member {@code m} into {@code out}: all of it when {@code whole} (exactly its size, or
         * it is refused), else its first {@code out.byteSize()} bytes.
         */
        private void inflate(Member m, MemorySegment out, boolean whole) {
            if (m.npyBytes() / MAX_DEFLATE_RATIO > m.storedBytes() + 1) {
                throw new IllegalArgumentException(what(m) + ": " + m.storedBytes() + " deflated bytes cannot hold the "
                        + m.npyBytes() + " the zip directory gives it");
            }
            Inflater inflater = new Inflater(true);
            try {
                MemorySegment in = stored(m);
                long read = 0;
                long written = 0;
                while (written < out.byteSize()) {
                    if (inflater.needsInput()) {
                        if (read == in.byteSize()) {
                            break;
                        }
                        int n = (int) Math.min(1 << 30, in.byteSize() - read);
                        inflater.setInput(in.asSlice(read, n).asByteBuffer());
                        read += n;
                    }
                    int n = inflater.inflate(out.asSlice(written, Math.min(1 << 30, out.byteSize() - written)).asByteBuffer());
                    written += n;
                    if (n == 0 && (inflater.finished() || inflater.needsDictionary())) {
                        break;
                    }
                }
                if (written < out.byteSize()) {
                    throw new IllegalArgumentException(what(m) + ": its deflated stream holds " + written + " bytes, "
                            + m.npyBytes() + " expected");
                }
                if (whole && !inflater.finished()
                        && (inflater.inflate(new byte[1]) > 0 || !inflater.finished())) {
                    throw new IllegalArgumentException(what(m) + ": its deflated stream holds more than the "
                            + m.npyBytes() + " bytes expected");
                }
            } catch (DataFormatException e) {
                throw new IllegalArgumentException(what(m) + ": its deflated stream is damaged: " + e.getMessage(), e);
            } finally {
                inflater.end();
            }
        }

        /** Unmaps the archive once no stored member's tensor is open; closing twice does nothing. */
        @Override
        public void close() {
            mapping.close();
        }
    }
}
