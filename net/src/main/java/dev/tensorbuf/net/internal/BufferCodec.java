package dev.tensorbuf.net.internal;

import java.lang.foreign.MemorySegment;

/**
 * The codecs Arrow IPC compresses a buffer with ({@code BodyCompression}, buffer by buffer): the
 * buffer holds its length uncompressed (-1 when it is stored as is) and then the frames. Files
 * ({@code ArrowTensors}) and Flight batches ({@link DoGetReader}) decode through it.
 */
public enum BufferCodec {
    /** {@code LZ4_FRAME}: {@link Lz4Frames}; LZ4 writes a byte at least for every 255 it repeats. */
    LZ4_FRAME("LZ4", 255),
    /** {@code ZSTD}: {@link ZstdFrames}. */
    ZSTD("Zstandard", ZstdFrames.MAX_RATIO);

    private final String label;
    private final long maxRatio;

    BufferCodec(String label, long maxRatio) {
        this.label = label;
        this.maxRatio = maxRatio;
    }

    /**
     * {@return the codec of Arrow's {@code CompressionType} number}
     *
     * @throws IllegalArgumentException for a number Arrow does not define
     */
    public static BufferCodec of(int codec) {
        if (codec < 0 || codec >= values().length) {
            throw new IllegalArgumentException("codec " + codec + " is neither LZ4_FRAME nor ZSTD");
        }
        return values()[codec];   // Arrow numbers them LZ4_FRAME = 0, ZSTD = 1
    }

    /** {@return the codec's name for messages: LZ4 or Zstandard} */
    public String label() {
        return label;
    }

    /**
     * {@return whether {@code stored} bytes of frames can decode to {@code values} bytes} Asked
     * before anything is allocated, so a damaged length cannot make a small input ask for much.
     */
    public boolean canHold(long stored, long values) {
        return values / maxRatio <= stored;
    }

    /**
     * Decodes {@code frames} into all of {@code out}.
     *
     * @throws IllegalArgumentException if they do not encode exactly {@code out.byteSize()} bytes
     */
    public void decode(MemorySegment frames, MemorySegment out) {
        switch (this) {
            case LZ4_FRAME -> Lz4Frames.decode(frames, out);
            case ZSTD -> ZstdFrames.decode(frames, out);
        }
    }
}
