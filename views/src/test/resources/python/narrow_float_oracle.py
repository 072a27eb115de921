"""Expected bits of narrow-float conversions, computed by ml_dtypes (bf16, f8, f6, f4) and NumPy (f16).

usage: narrow_float_oracle.py OUTDIR SEED [TYPE ...]
Writes, little-endian:
  inputs_f32.bin           uint32: the float32 inputs (random patterns, then every type's ties
                           and their neighbours, overflow edges and specials)
  inputs_f64.bin           uint64: float64 inputs (random finite values, ties of the widest types)
  decode_<T>.bin           uint32: float32 bits of every pattern 0 .. 2^bits - 1 of type T
  encode_<T>.bin           uint16: pattern of each float32 input converted to T
  encode64_<T>.bin         uint16: pattern of each float64 input converted to T
T is the ml_dtypes name, or 'float16' for NumPy's half.
"""
import sys
import warnings

import numpy as np
import ml_dtypes

TYPES = {
    "float16": (np.float16, 16), "bfloat16": (ml_dtypes.bfloat16, 16),
    "float8_e5m2": (ml_dtypes.float8_e5m2, 8), "float8_e4m3": (ml_dtypes.float8_e4m3, 8),
    "float8_e4m3fn": (ml_dtypes.float8_e4m3fn, 8), "float8_e4m3b11fnuz": (ml_dtypes.float8_e4m3b11fnuz, 8),
    "float8_e3m4": (ml_dtypes.float8_e3m4, 8), "float8_e5m2fnuz": (ml_dtypes.float8_e5m2fnuz, 8),
    "float8_e4m3fnuz": (ml_dtypes.float8_e4m3fnuz, 8), "float8_e8m0fnu": (ml_dtypes.float8_e8m0fnu, 8),
    "float6_e3m2fn": (ml_dtypes.float6_e3m2fn, 6), "float6_e2m3fn": (ml_dtypes.float6_e2m3fn, 6),
    "float4_e2m1fn": (ml_dtypes.float4_e2m1fn, 4),
}


def storage(bits):
    return np.uint16 if bits > 8 else np.uint8


def decode_all(t, bits):
    patterns = np.arange(1 << bits, dtype=np.uint32).astype(storage(bits))
    return patterns.view(t).astype(np.float32)


def interesting_f32(names):
    out = []
    for name in names:
        t, bits = TYPES[name]
        values = decode_all(t, bits).astype(np.float64)
        finite = np.unique(values[np.isfinite(values)])
        mids = (finite[1:] + finite[:-1]) / 2
        edge = finite[-1] + (finite[-1] - finite[-2])  # one step past the largest finite value
        cand = np.concatenate([finite, mids, [edge, (finite[-1] + edge) / 2, finite[-1] * 2, -edge]])
        c32 = cand.astype(np.float32)
        up = np.nextafter(c32, np.float32(np.inf))
        down = np.nextafter(c32, np.float32(-np.inf))
        out += [c32, up, down, -c32, -up, -down]
    specials = np.array([0x0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001,
                         0xff800001, 0x7fa00000, 0x7fffffff, 0xffffffff, 0x00000001, 0x80000001,
                         0x007fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x3f800000], dtype=np.uint32)
    out.append(specials.view(np.float32))
    return np.concatenate(out).astype(np.float32)


def main():
    outdir, seed = sys.argv[1], int(sys.argv[2])
    names = sys.argv[3:] or list(TYPES)
    warnings.simplefilter("ignore")  # NaN and overflow casts are the point here
    rng = np.random.default_rng(seed)
    random_bits = rng.integers(0, 1 << 32, size=1 << 20, dtype=np.uint64).astype(np.uint32)
    inputs = np.concatenate([random_bits.view(np.float32), interesting_f32(names)])
    inputs.view(np.uint32).astype("<u4").tofile(f"{outdir}/inputs_f32.bin")
    # float64 inputs: finite only (NaN payload rules of doubles are not compared), including
    # values that lie between a float32 tie and its neighbours, where double rounding would show.
    f64 = rng.standard_normal(1 << 16) * np.exp2(rng.integers(-140, 20, size=1 << 16))
    finite = inputs[np.isfinite(inputs)]
    ties = rng.choice(finite, size=min(len(finite), 1 << 18), replace=False).astype(np.float64)
    f64 = np.concatenate([f64, ties * (1 + 2.0 ** -40), ties * (1 - 2.0 ** -40), ties])
    f64.astype("<f8").view("<u8").tofile(f"{outdir}/inputs_f64.bin")
    for name in names:
        t, bits = TYPES[name]
        decode_all(t, bits).view(np.uint32).astype("<u4").tofile(f"{outdir}/decode_{name}.bin")
        inputs.astype(t).view(storage(bits)).astype("<u2").tofile(f"{outdir}/encode_{name}.bin")
        f64.astype(t).view(storage(bits)).astype("<u2").tofile(f"{outdir}/encode64_{name}.bin")


if __name__ == "__main__":
    main()
