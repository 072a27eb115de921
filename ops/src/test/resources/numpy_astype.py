"""NumPy's (and ml_dtypes') astype for every pair of types, for ConversionNumpyAgreementTest.

usage: numpy_astype.py OUTDIR
For each source type S (names as XLA spells them) writes OUTDIR/src_S.bin, the source values as
raw little-endian bytes: every bit pattern of the 8- and 16-bit types, and for the wider ones the
values conversions go wrong on (powers of two and their neighbours, rounding ties, range edges,
specials) plus random bit patterns. For each target T it writes dst_S_T.bin, src.astype(T), and
ok_S_T.bin, one byte per value: 1 where tensorbuf's engine must convert the value (it is in T's
range), 0 where it must refuse it (NaN, infinity or an out-of-range value to an integer type,
where NumPy's result is undefined). Complex to real pairs are not written: the engine refuses them.
"""
import os
import sys
import warnings

import ml_dtypes
import numpy as np

TYPES = {
    "pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64,
    "f8e4m3fn": ml_dtypes.float8_e4m3fn, "f8e5m2": ml_dtypes.float8_e5m2,
    "c64": np.complex64, "c128": np.complex128,
    # ml_dtypes' narrow types, one element a byte (value in the low bits), as tensorbuf stores them unpacked.
    "s4": ml_dtypes.int4, "u4": ml_dtypes.uint4, "s2": ml_dtypes.int2, "u2": ml_dtypes.uint2,
    "f8e4m3": ml_dtypes.float8_e4m3, "f8e3m4": ml_dtypes.float8_e3m4, "f8e4m3b11fnuz": ml_dtypes.float8_e4m3b11fnuz,
    "f8e5m2fnuz": ml_dtypes.float8_e5m2fnuz, "f8e4m3fnuz": ml_dtypes.float8_e4m3fnuz,
    "f8e8m0fnu": ml_dtypes.float8_e8m0fnu, "f6e2m3fn": ml_dtypes.float6_e2m3fn, "f6e3m2fn": ml_dtypes.float6_e3m2fn,
    "f4e2m1fn": ml_dtypes.float4_e2m1fn,
}
# The types XLA's CPU convert is checked on (xla_convert.py): all but the f6 ones, which jaxlib 0.10.2's
# CPU backend refuses ("Invalid XLA PrimitiveType").
XLA_TYPES = [t for t in TYPES if t not in ("f6e2m3fn", "f6e3m2fn")]
REAL_FLOATS = {"f16", "bf16", "f32", "f64", "f8e4m3fn", "f8e5m2", "f8e4m3", "f8e3m4", "f8e4m3b11fnuz", "f8e5m2fnuz",
               "f8e4m3fnuz", "f8e8m0fnu", "f6e2m3fn", "f6e3m2fn", "f4e2m1fn"}
BITS = {"pred": 8, "s8": 8, "u8": 8, "f8e4m3fn": 8, "f8e5m2": 8, "s16": 16, "u16": 16, "f16": 16, "bf16": 16,
        "s4": 4, "u4": 4, "s2": 2, "u2": 2, "f8e4m3": 8, "f8e3m4": 8, "f8e4m3b11fnuz": 8, "f8e5m2fnuz": 8,
        "f8e4m3fnuz": 8, "f8e8m0fnu": 8, "f6e2m3fn": 6, "f6e3m2fn": 6, "f4e2m1fn": 4}


def awkward_integers(rnd):
    out = [0, 1, -1, 2, -2, 3, 7, 100, 127, 128, 255, 256, 32767, 32768, 65535, 65536]
    for k in range(1, 64):
        for d in (-2, -1, 0, 1, 2):
            out.append(2**k + d)
            out.append(-(2**k) + d)
    # Ties after a first rounding: to f32 through a double, 2^55 + 2^31 + 1 lands on 2^55 + 2^31.
    for top in range(24, 64):
        for low in range(top - 30, top - 22):
            if low > 0:
                out += [2**top + 2**low + 1, 2**top + 2**low, 2**top + 2**low - 1, 2**top + 3 * 2**low + 1]
    out += [int(x) for x in rnd.integers(-2**63, 2**63, 2000, dtype=np.int64)]
    out += [int(x) for x in rnd.integers(0, 2**64, 2000, dtype=np.uint64)]
    return out


def awkward_floats(rnd):
    out = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 0.5, -0.5, 1.5, -1.5, 2.5, 0.49999999999999994,
           254.5, 255.5, 256.0, -128.5, -129.0, 65504.0, 65520.0, 65519.99, 3.4e38, 3.5e38, 1e-45, 1e-40,
           5e-324, 2.2e-308, 448.0, 464.0, 57344.0, 61440.0, 1e300]
    for k in range(0, 65):
        for s in (1, -1):
            for d in (-1.0, -0.5, 0.0, 0.5, 1.0):
                out.append(s * (2.0**k + d))
            out.append(s * np.nextafter(2.0**k, 0))
            out.append(s * np.nextafter(2.0**k, np.inf))
    # Ties after a first rounding through f32, for each narrow float's mantissa: 1 + 2^-11 + 2^-40
    # is 1 + 2^-11 in f32, a tie that f16 then rounds to 1, where rounding once gives 1 + 2^-10.
    for m in (1, 2, 3, 4, 7, 10):
        for e in (0, -3, 5, 14, -20):
            for d in (2.0**-40, -2.0**-40):
                out += [2.0**e * (1 + 2.0**-(m + 1) + d), -(2.0**e) * (1 + 2.0**-(m + 1) + d)]
    out += list(rnd.integers(0, 2**64, 3000, dtype=np.uint64).view(np.float64))
    out += list(rnd.integers(0, 2**32, 3000, dtype=np.uint32).view(np.float32).astype(np.float64))
    out += list(rnd.uniform(-300, 300, 2000))
    return out


def sources(rnd):
    src = {}
    for name, t in TYPES.items():
        if name in BITS:
            bits = BITS[name]
            if name == "pred":
                src[name] = np.array([False, True])
            elif bits <= 8:
                src[name] = np.arange(1 << bits, dtype=np.uint16).astype(np.uint8).view(t)
            else:
                src[name] = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(t)
        elif name[0] in "su":
            info = np.iinfo(t)
            values = [v for v in awkward_integers(rnd) if info.min <= v <= info.max]
            src[name] = np.array(sorted(set(values)), dtype=object).astype(t)
        elif name in REAL_FLOATS:
            src[name] = np.array(awkward_floats(rnd), dtype=np.float64).astype(t)
            if name == "f32":
                # Signalling NaNs, which a trip through f64 would quiet: XLA keeps their bits into c64.
                snan = np.array([0x7f800001, 0xffa00000, 0x7fbfffff, 0xff800001], dtype=np.uint32).view(np.float32)
                src[name] = np.concatenate([src[name], snan])
        else:
            f = np.array(awkward_floats(rnd), dtype=np.float64)
            z = np.empty(f.shape, dtype=np.complex128)
            z.real, z.imag = f, np.roll(f, 7)  # not f + 1j * g: 1j * inf has a NaN real part
            src[name] = z.astype(t)
    return src


def in_range(values, to):
    """Where the engine converts rather than refuses: NumPy's astype is undefined elsewhere."""
    if to == "pred" or to in REAL_FLOATS or to[0] == "c":
        return np.ones(values.shape, dtype=bool)
    info = ml_dtypes.iinfo(TYPES[to])
    if values.dtype.kind in "biu":
        as_int = values.astype(object)
        return np.array([info.min <= int(v) <= info.max for v in as_int], dtype=bool)
    f = values.real if values.dtype.kind == "c" else values.astype(np.float64)
    with np.errstate(invalid="ignore"):
        t = np.trunc(f)
        # info.max + 1 is a power of two, exact as a double; float(2**64 - 1) would round up to it.
        return np.isfinite(f) & (t >= float(info.min)) & (t < float(info.max + 1))


def main():
    out = sys.argv[1]
    rnd = np.random.default_rng(20261122)
    warnings.simplefilter("ignore")  # overflow and invalid casts are the point
    src = sources(rnd)
    for s, values in src.items():
        values.tofile(os.path.join(out, "src_%s.bin" % s))
        for t, ty in TYPES.items():
            if s[0] == "c" and t[0] != "c":
                continue
            ok = in_range(values, t)
            with np.errstate(all="ignore"):
                try:
                    converted = values.astype(ty)
                except TypeError:
                    # ml_dtypes casts some pairs of its own types only through f32, which holds every
                    # value of each exactly, so the one rounding is into the target.
                    converted = values.astype(np.float32).astype(ty)
                if s == "f64" and t in REAL_FLOATS and t not in ("f16", "bf16", "f32", "f64", "f8e8m0fnu"):
                    # ml_dtypes 0.6's astype from f64 rounds through f32, twice (1 + 2^-4 + 2^-40
                    # gives f8e4m3fn 1.0); its scalar constructor rounds once (1.125), as XLA does
                    # and as the engine does.
                    converted = np.array([ty(v) for v in values], dtype=ty)
            converted.tofile(os.path.join(out, "dst_%s_%s.bin" % (s, t)))
            ok.astype(np.uint8).tofile(os.path.join(out, "ok_%s_%s.bin" % (s, t)))


if __name__ == "__main__":
    main()
