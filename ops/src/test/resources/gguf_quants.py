"""gguf-py's gguf.quants as the reference for tensorbuf's BlockKernels.

  gguf_quants.py DIR

For each type gguf-py dequantizes, writes DIR/<TYPE>.blocks (random block bytes, then special
blocks: all zero; scale bytes 0x7bff/0xff (largest finite), inf, NaN, signalling NaN, -0 with
the largest codes) and DIR/<TYPE>.f32 (gguf.quants.dequantize of them, little-endian). For Q8_0
and Q4_0 also DIR/<TYPE>.in (f32 inputs: random at several magnitudes, zero blocks, ties, one huge
value, subnormals, -0) and DIR/<TYPE>.quant (gguf.quants.quantize of them).
"""
import sys
import numpy as np
from gguf import GGMLQuantizationType as T, GGML_QUANT_SIZES
import gguf.quants as q

TYPES = ["Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K", "TQ1_0", "TQ2_0", "MXFP4", "IQ4_NL", "IQ4_XS"]
# Where each type keeps its f16 scales (byte offsets in the block), so the special blocks set them.
SCALES = {"Q4_0": [0], "Q4_1": [0, 2], "Q5_0": [0], "Q5_1": [0, 2], "Q8_0": [0], "Q2_K": [80, 82], "Q3_K": [108],
          "Q4_K": [0, 2], "Q5_K": [0, 2], "Q6_K": [208], "TQ1_0": [52], "TQ2_0": [64],
          "IQ4_NL": [0], "IQ4_XS": [0]}


def main(out):
    rng = np.random.default_rng(3838)
    for name in TYPES:
        t = T[name]
        block, size = GGML_QUANT_SIZES[t]
        blocks = rng.integers(0, 256, size=(16, size), dtype=np.uint8)
        special = []
        special.append(np.zeros(size, np.uint8))
        for f16 in (0x7bff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x8000, 0x0001):
            b = np.full(size, 0xff, np.uint8)
            if name == "MXFP4":
                b[0] = f16 & 0xff
            else:
                for at in SCALES[name]:
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
        data = np.concatenate(rows + [zeros, neg_zero, ties, huge, tiny, halves, sign_max]).astype(np.float32)
        data.astype("<f4").tofile(f"{out}/{name}.in")
        with np.errstate(all="ignore"):
            q.quantize(data.reshape(1, -1), t).tofile(f"{out}/{name}.quant")
    print("wrote", len(TYPES), "types")


if __name__ == "__main__":
    main(sys.argv[1])
