"""XLA's convert between every pair of types, on the values conversions go wrong on, for
ConvertXlaAgreementTest.

usage: python3 xla_convert.py OUTDIR
For each source type S (XLA's names) writes OUTDIR/in_S.npy: every bit pattern of the 8- and
16-bit types; for the wider ones specials, powers of two and their neighbours, rounding ties,
range edges and random bit patterns. For each target T it writes OUTDIR/S_T.hlo, a module whose
ROOT is convert(p0) to T, and OUTDIR/S_T.npy, what jaxlib's CPU client computes for it. bf16 and
f8 arrays are saved as ml_dtypes saves them (void '<V2' / '<V1'). Complex to pred is left out:
jaxlib 0.10.2's CPU compiler crashes on it.
"""
import os
import sys
import warnings

import ml_dtypes
import numpy as np
import jax

jax.config.update("jax_enable_x64", True)
from jaxlib import _hlo  # noqa: E402
from jax._src import xla_bridge  # noqa: E402
from jax._src.lib import xla_client as xc  # noqa: E402

TYPES = {
    "pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64,
    "f8e4m3fn": ml_dtypes.float8_e4m3fn, "f8e5m2": ml_dtypes.float8_e5m2,
    "c64": np.complex64, "c128": np.complex128,
}
PATTERN_BITS = {"s8": 8, "u8": 8, "f8e4m3fn": 8, "f8e5m2": 8, "s16": 16, "u16": 16, "f16": 16, "bf16": 16}


def awkward_floats(rnd):
    out = [0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, -0.5, 1.5, -1.5, 2.5, 254.5, 255.5, -128.5, -129.0,
           65504.0, 65520.0, 3.4e38, 3.5e38, 1e-45, 5e-324, 448.0, 464.0, 57344.0, 61440.0, 1e300]
    for k in range(0, 65):
        for s in (1.0, -1.0):
            out += [s * 2.0**k, s * np.nextafter(2.0**k, 0), s * np.nextafter(2.0**k, np.inf), s * (2.0**k + 0.5)]
    out += list(rnd.integers(0, 2**64, 1500, dtype=np.uint64).view(np.float64))
    out += list(rnd.integers(0, 2**32, 1500, dtype=np.uint32).view(np.float32).astype(np.float64))
    out += list(rnd.uniform(-300, 300, 1000))
    return np.array(out, dtype=np.float64)


def awkward_integers(rnd, t):
    info = np.iinfo(t)
    out = [0, 1, -1, info.min, info.max, info.min + 1, info.max - 1]
    for k in range(1, 64):
        for d in (-1, 0, 1):
            out += [2**k + d, -(2**k) + d]
    for top in range(24, 64):  # ties after a first rounding, as 2^55 + 2^31 + 1 is to f32 through a double
        for low in range(max(1, top - 30), top - 22):
            out += [2**top + 2**low + 1, 2**top + 2**low, 2**top + 3 * 2**low + 1]
    out += [int(x) for x in rnd.integers(info.min, info.max, 1500, dtype=t, endpoint=True)]
    return np.array([v for v in out if info.min <= v <= info.max], dtype=object).astype(t)


def sources(rnd):
    src = {}
    for name, t in TYPES.items():
        if name == "pred":
            src[name] = np.array([False, True, True, False])
        elif name in PATTERN_BITS:
            storage = np.uint8 if PATTERN_BITS[name] == 8 else np.uint16
            src[name] = np.arange(1 << PATTERN_BITS[name], dtype=np.uint32).astype(storage).view(t)
        elif name[0] in "su":
            src[name] = awkward_integers(rnd, t)
        elif name[0] == "f":
            src[name] = awkward_floats(rnd).astype(t)
        else:
            f = awkward_floats(rnd)
            z = np.empty(f.shape, dtype=np.complex128)
            z.real, z.imag = f, np.roll(f, 11)
            src[name] = z.astype(t)
    return src


def run(backend, text, arg):
    module = _hlo.hlo_module_from_text(text)
    computation = _hlo.XlaComputation(module.as_serialized_hlo_module_proto())
    mlir = xc._xla.mlir.xla_computation_to_mlir_module(computation)
    devices = backend.devices()[:1]
    exe = backend.compile_and_load(mlir, xc.DeviceList(tuple(devices)), xc.CompileOptions())
    return np.asarray(exe.execute([jax.device_put(arg, devices[0])])[0])


def main():
    out = sys.argv[1]
    warnings.simplefilter("ignore")
    rnd = np.random.default_rng(20261122)
    backend = xla_bridge.get_backend("cpu")
    for s, values in sources(rnd).items():
        np.save(os.path.join(out, "in_%s.npy" % s), values)
        for t in TYPES:
            if s[0] == "c" and t == "pred":
                continue
            text = "HloModule m\nENTRY e {\n  p0 = %s[%d]{0} parameter(0)\n  ROOT c = %s[%d]{0} convert(p0)\n}\n" % (
                s, len(values), t, len(values))
            with open(os.path.join(out, "%s_%s.hlo" % (s, t)), "w") as f:
                f.write(text)
            np.save(os.path.join(out, "%s_%s.npy" % (s, t)), run(backend, text, values))


if __name__ == "__main__":
    main()
