package dev.tensorbuf.ops.quant.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Dequantization of ggml's grid (codebook) IQ types and NVFP4 to f32, scalar, each a transcription
 * of gguf-py's {@code dequantize_blocks} with its f32 operations in the same order, as
 * {@link ScalarBlocks} does for the other types. A sign is a product by {@code ±1f}, never a
 * negation, because NumPy multiplies: a NaN scale keeps its sign bit through it.
 *
 * <p>The codebooks are data of the format: {@code <TYPE>.grid} resources next to this class, one
 * signed byte a value, written from gguf-py's decoded {@code grid} by
 * {@code ops/src/test/resources/gguf_grids.py} (IQ1_M uses IQ1_S's).
 */
public final class GridBlocks {
    private static final float[] SIGN = {1f, -1f};
    private static final int[] FP4_VALUES = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

    private GridBlocks() {
    }

    /** The codebooks, read on first use. */
    private static final class Grids {
        static final byte[] IQ2_XXS = load("IQ2_XXS", 256 * 8);
        static final byte[] IQ2_XS = load("IQ2_XS", 512 * 8);
        static final byte[] IQ2_S = load("IQ2_S", 1024 * 8);
        static final byte[] IQ3_XXS = load("IQ3_XXS", 256 * 4);
        static final byte[] IQ3_S = load("IQ3_S", 512 * 4);
        static final byte[] IQ1_S = load("IQ1_S", 2048 * 8);

        private static byte[] load(String type, int size) {
            try (InputStream in = GridBlocks.class.getResourceAsStream(type + ".grid")) {
                if (in == null) {
                    throw new IllegalStateException("the " + type + " codebook resource is missing from tensorbuf's ops module");
                }
                byte[] grid = in.readAllBytes();
                if (grid.length != size) {
                    throw new IllegalStateException("the " + type + " codebook resource has " + grid.length + " bytes, expected "
                            + size);
                }
                return grid;
            } catch (IOException e) {
                throw new UncheckedIOException("reading the " + type + " codebook resource", e);
            }
        }
    }

    private static int u8(MemorySegment s, long at) {
        return Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, at));
    }

    private static int u16(MemorySegment s, long at) {
        return Short.toUnsignedInt(s.get(ScalarBlocks.F16, at));
    }

    private static void put(MemorySegment d, long dOff, int i, float v) {
        d.set(ScalarBlocks.F32, dOff + 4L * i, v);
    }

    /** ggml's {@code ksigns_iq2xs}: the 7 low bits of a sign byte stored, the 8th the parity that makes the count even. */
    private static int ksigns(int i) {
        return i | (Integer.bitCount(i) & 1) << 7;
    }

    private static float sign(int signs, int bit) {
        return SIGN[(signs >> bit) & 1];
    }

    public static void iq2_xxs(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        byte[] grid = Grids.IQ2_XXS;
        for (long b = 0; b < blocks; b++, so += 66, dOff += 1024) {
            float scale = ScalarBlocks.f16(s, so);
            for (int ib = 0; ib < 8; ib++) {
                long at = so + 2 + 8L * ib;
                int aux = s.get(ScalarBlocks.U32, at + 4);
                float db = scale * (0.5f + (float) (aux >>> 28)) * 0.25f;
                for (int l = 0; l < 4; l++) {
                    int row = u8(s, at + l) * 8;
                    int signs = ksigns((aux >>> (7 * l)) & 0x7F);
                    for (int j = 0; j < 8; j++) {
                        put(d, dOff, 32 * ib + 8 * l + j, db * (float) grid[row + j] * sign(signs, j));
                    }
                }
            }
        }
    }

    public static void iq2_xs(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        byte[] grid = Grids.IQ2_XS;
        for (long b = 0; b < blocks; b++, so += 74, dOff += 1024) {
            float scale = ScalarBlocks.f16(s, so);
            for (int g = 0; g < 16; g++) {
                int sc = (u8(s, so + 66 + g / 2) >> (4 * (g & 1))) & 0xF;
                float db = scale * (0.5f + (float) sc) * 0.25f;
                for (int h = 0; h < 2; h++) {
                    int q = u16(s, so + 2 + 2L * (2 * g + h));
                    int row = (q & 511) * 8;
                    int signs = ksigns(q >>> 9);
                    for (int j = 0; j < 8; j++) {
                        put(d, dOff, 16 * g + 8 * h + j, db * (float) grid[row + j] * sign(signs, j));
                    }
                }
            }
        }
    }

    public static void iq2_s(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        byte[] grid = Grids.IQ2_S;
        for (long b = 0; b < blocks; b++, so += 82, dOff += 1024) {
            float scale = ScalarBlocks.f16(s, so);
            for (int g = 0; g < 16; g++) {
                int sc = (u8(s, so + 74 + g / 2) >> (4 * (g & 1))) & 0xF;
                float db = scale * (0.5f + (float) sc) * 0.25f;
                for (int h = 0; h < 2; h++) {
                    int k = 2 * g + h;
                    int high = (u8(s, so + 66 + k / 4) >> (2 * (k & 3))) & 3;
                    int row = (u8(s, so + 2 + k) | high << 8) * 8;
                    int signs = u8(s, so + 34 + k);
                    for (int j = 0; j < 8; j++) {
                        put(d, dOff, 8 * k + j, db * (float) grid[row + j] * sign(signs, j));
                    }
                }
            }
        }
    }

    public static void iq3_xxs(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        byte[] grid = Grids.IQ3_XXS;
        for (long b = 0; b < blocks; b++, so += 98, dOff += 1024) {
            float scale = ScalarBlocks.f16(s, so);
            for (int ib = 0; ib < 8; ib++) {
                int aux = s.get(ScalarBlocks.U32, so + 66 + 4L * ib);
                float db = scale * (0.5f + (float) (aux >>> 28)) * 0.5f;
                for (int l = 0; l < 4; l++) {
                    int signs = ksigns((aux >>> (7 * l)) & 0x7F);
                    for (int j = 0; j < 8; j++) {
                        int i = 32 * ib + 8 * l + j;
                        put(d, dOff, i, db * (float) grid[u8(s, so + 2 + i / 4) * 4 + (i & 3)] * sign(signs, j));
                    }
                }
            }
        }
    }

    public static void iq3_s(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        byte[] grid = Grids.IQ3_S;
        for (long b = 0; b < blocks; b++, so += 110, dOff += 1024) {
            float scale = ScalarBlocks.f16(s, so);
            for (int g = 0; g < 8; g++) {
                int sc = (u8(s, so + 106 + g / 2) >> (4 * (g & 1))) & 0xF;
                float db = scale * (float) (1 + 2 * sc);
                for (int i = 32 * g; i < 32 * g + 32; i++) {
                    int k = i / 4;
                    int high = (u8(s, so + 66 + k / 8) >> (k & 7)) & 1;
                    int row = (u8(s, so + 2 + k) | high << 8) * 4;
                    int signs = u8(s, so + 74 + i / 8);
                    put(d, dOff, i, db * (float) grid[row + (i & 3)] * sign(signs, i & 7));
                }
            }
        }
    }

    public static void iq1_s(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        byte[] grid = Grids.IQ1_S;
        for (long b = 0; b < blocks; b++, so += 50, dOff += 1024) {
            float scale = ScalarBlocks.f16(s, so);
            for (int g = 0; g < 8; g++) {
                int qh = u16(s, so + 34 + 2L * g);
                float dl = scale * (float) (2 * ((qh >> 12) & 7) + 1);
                float delta = (qh & 0x8000) == 0 ? 0.125f : -0.125f;
                for (int l = 0; l < 4; l++) {
                    int k = 4 * g + l;
                    int row = (u8(s, so + 2 + k) | ((qh >> (3 * l)) & 7) << 8) * 8;
                    for (int j = 0; j < 8; j++) {
                        put(d, dOff, 8 * k + j, dl * ((float) grid[row + j] + delta));
                    }
                }
            }
        }
    }

    public static void iq1_m(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        byte[] grid = Grids.IQ1_S;
        int[] sc = new int[4];
        for (long b = 0; b < blocks; b++, so += 56, dOff += 1024) {
            for (int m = 0; m < 4; m++) {
                sc[m] = u16(s, so + 48 + 2L * m);
            }
            // The f16 scale is the top nibbles of the four scale words, the first one lowest.
            int bits = (sc[0] & 0xF000) >> 12 | (sc[1] & 0xF000) >> 8 | (sc[2] & 0xF000) >> 4 | sc[3] & 0xF000;
            float scale = Float.float16ToFloat((short) bits);
            for (int g = 0; g < 16; g++) {
                float dl = scale * (float) (2 * ((sc[g / 4] >> (3 * (g & 3))) & 7) + 1);
                for (int h = 0; h < 2; h++) {
                    int k = 2 * g + h;
                    int entry = (u8(s, so + 32 + k / 2) >> (4 * (k & 1))) & 0xF;
                    float delta = (entry & 8) == 0 ? 0.125f : -0.125f;
                    int row = (u8(s, so + k) | (entry & 7) << 8) * 8;
                    for (int j = 0; j < 8; j++) {
                        put(d, dOff, 8 * k + j, dl * ((float) grid[row + j] + delta));
                    }
                }
            }
        }
    }

    /** NVFP4's unsigned E4M3 scale with gguf-py's factor 0.5 (its values are E2M1's doubled): exact, so any order gives the same float. */
    private static float ue4m3(int x) {
        if (x == 0 || x == 0x7F) {
            return 0f;
        }
        int exp = (x >> 3) & 0xF;
        int man = x & 7;
        float raw = exp == 0 ? man * 0x1p-9f : (1f + man / 8f) * Math.scalb(1f, exp - 7);
        return raw * 0.5f;
    }

    public static void nvfp4(MemorySegment s, long so, MemorySegment d, long dOff, long blocks) {
        for (long b = 0; b < blocks; b++, so += 36, dOff += 256) {
            for (int sub = 0; sub < 4; sub++) {
                float scale = ue4m3(u8(s, so + sub));
                for (int j = 0; j < 8; j++) {
                    int q = u8(s, so + 4 + 8 * sub + j);
                    put(d, dOff, 16 * sub + j, scale * (float) FP4_VALUES[q & 0xF]);
                    put(d, dOff, 16 * sub + 8 + j, scale * (float) FP4_VALUES[q >> 4]);
                }
            }
        }
    }
}
