"""gguf-py's gguf.quants as the reference for tensorbuf's BlockKernels.

  gguf_quants.py DIR

For each type gguf-py dequantizes, writes DIR/<TYPE>.blocks (random block bytes, then special
blocks: all zero; scale bytes 0x7bff/0xff (largest finite), inf, NaN, signalling NaN, -0 with
the largest codes; NVFP4's E4M3 and IQ1_M's nibble-split scales likewise) and DIR/<TYPE>.f32
(gguf.quants.dequantize of them, little-endian). For Q8_0 and Q4_0 also DIR/<TYPE>.in (f32 inputs:
random at several magnitudes, zero blocks, ties, one huge value, subnormals, -0, NaN, +-inf, the
largest f32 and f16 magnitudes) and DIR/<TYPE>.quant (gguf.quants.quantize of them), and the same
inputs as f16 (.in_f16, .quant_f16) and bf16 (.in_bf16, .quant_bf16: the f32 bits' top halves).
"""
import sys
import numpy as np
from gguf import GGMLQuantizationType as T, GGML_QUANT_SIZES
import gguf.quants as q

TYPES = ["Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K", "TQ1_0", "TQ2_0", "MXFP4", "IQ4_NL", "IQ4_XS",
         "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS", "IQ3_S", "IQ1_S", "IQ1_M", "NVFP4"]
# Where each type keeps its f16 scales (byte offsets in the block), so the special blocks set them.
SCALES = {"Q4_0": [0], "Q4_1": [0, 2], "Q5_0": [0], "Q5_1": [0, 2], "Q8_0": [0], "Q2_K": [80, 82], "Q3_K": [108],
          "Q4_K": [0, 2], "Q5_K": [0, 2], "Q6_K": [208], "TQ1_0": [52], "TQ2_0": [64],
          "IQ4_NL": [0], "IQ4_XS": [0], "IQ2_XXS": [0], "IQ2_XS": [0], "IQ2_S": [0], "IQ3_XXS": [0], "IQ3_S": [0],
          "IQ1_S": [0]}


def main(out):
    rng = np.random.default_rng(3838)
    written = 0
    for name in TYPES:
        # Older gguf-py releases lack the newest types (NVFP4): those are left out of a fresh run.
        if name not in T.__members__ or not hasattr(q, name):
            continue
        written += 1
        t = T[name]
        block, size = GGML_QUANT_SIZES[t]
        blocks = rng.integers(0, 256, size=(16, size), dtype=np.uint8)
        special = []
        special.append(np.zeros(size, np.uint8))
        for f16 in (0x7bff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x8000, 0x0001):
            b = np.full(size, 0xff, np.uint8)
            if name == "MXFP4":
                b[0] = f16 & 0xff
            elif name == "NVFP4":
                b[0:4] = [f16 & 0xff, f16 >> 8, 0x7f, 0x00]
            elif name == "IQ1_M":
                # The f16 scale is the top nibbles of the four 16-bit scale words at bytes 48 to 55.
                for m in range(4):
                    b[49 + 2 * m] = (b[49 + 2 * m] & 0x0f) | (((f16 >> (4 * m)) & 0xf) << 4)
            else:
                for at in SCALES.get(name, []):
                    b[at:at + 2] = np.array([f16], np.uint16).view(np.uint8)
            special.append(b)
        all_blocks = np.concatenate([blocks, np.stack(special)])
        all_blocks.tofile(f"{out}/{name}.blocks")
        with np.errstate(all="ignore"):
            values = q.dequantize(all_blocks.reshape(1, -1), t)
        values.astype("<f4").tofile(f"{out}/{name}.f32")
    for name in ("Q8_0", "Q4_0"):
        t = T[name]
        rows = [rng.standard_normal(32 * 16).astype(np.float32) * np.float32(s) for s in (1e-3, 1, 1e3, 1e30)]
        zeros = np.zeros(32, np.float32)
        neg_zero = np.full(32, -0.0, np.float32)
        ties = (np.arange(32, dtype=np.float32) - 15.5) * np.float32(127 / 15.5)
        ties[0] = 127
        huge = rng.standard_normal(32).astype(np.float32)
        huge[5] = np.float32(3e38)
        tiny = (rng.standard_normal(32) * 1e-40).astype(np.float32)
        halves = np.array([127] + [k + 0.5 for k in range(-16, 15)], np.float32)
        sign_max = rng.standard_normal(32).astype(np.float32)
        sign_max[3] = -8
        sign_max[9] = 8  # equal magnitude later: the first wins
        nan = rng.standard_normal(32).astype(np.float32)
        nan[4] = np.nan
        inf = rng.standard_normal(32).astype(np.float32)
        inf[6] = np.inf
        neg_inf = rng.standard_normal(32).astype(np.float32)
        neg_inf[30] = -np.inf
        nan_after_inf = rng.standard_normal(32).astype(np.float32)
        nan_after_inf[2] = np.inf
        nan_after_inf[9] = np.nan
        all_nan = np.full(32, np.nan, np.float32)
        largest = np.full(32, np.finfo(np.float32).max, np.float32)
        spread = (np.linspace(-1, 1, 32) * float(np.finfo(np.float32).max)).astype(np.float32)
        f16_max = np.full(32, 65504, np.float32)
        f16_max[1] = -65504
        data = np.concatenate(rows + [zeros, neg_zero, ties, huge, tiny, halves, sign_max, nan, inf, neg_inf, nan_after_inf,
                                      all_nan, largest, spread, f16_max]).astype(np.float32)
        data.astype("<f4").tofile(f"{out}/{name}.in")
        with np.errstate(all="ignore"):
            q.quantize(data.reshape(1, -1), t).tofile(f"{out}/{name}.quant")
            # f16 and bf16 inputs: gguf-py widens them to f32 before quantizing.
            halves16 = data.astype(np.float16)
            halves16.tofile(f"{out}/{name}.in_f16")
            q.quantize(halves16.reshape(1, -1), t).tofile(f"{out}/{name}.quant_f16")
            bf16 = (data.view(np.uint32) >> 16).astype(np.uint16)
            bf16.astype("<u2").tofile(f"{out}/{name}.in_bf16")
            q.quantize((bf16.astype(np.uint32) << 16).view(np.float32).reshape(1, -1), t).tofile(f"{out}/{name}.quant_bf16")
    print("wrote", written, "types")


if __name__ == "__main__":
    main(sys.argv[1])
