"""XLA's convert between every pair of types, on the values conversions go wrong on, for
ConvertXlaAgreementTest.

usage: python3 xla_convert.py OUTDIR   (numpy_astype.py beside it)
Takes numpy_astype.py's types and source values: every bit pattern of the 8- and 16-bit types;
for the wider ones specials, powers of two and their neighbours, rounding ties, range edges and
random bit patterns. Writes OUTDIR/src_S.bin, the source values of type S (XLA's names) as raw
little-endian bytes, and for each target T OUTDIR/S_T.hlo, a module whose ROOT is convert(p0) to
T, and OUTDIR/xla_S_T.bin, what jaxlib's CPU client computes for it. Complex to pred is left out:
jaxlib 0.10.2's CPU compiler crashes on it.
"""
import os
import sys
import warnings

import numpy as np
import jax

jax.config.update("jax_enable_x64", True)
from jaxlib import _hlo  # noqa: E402
from jax._src import xla_bridge  # noqa: E402
from jax._src.lib import xla_client as xc  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numpy_astype import XLA_TYPES, sources  # noqa: E402


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
    backend = xla_bridge.get_backend("cpu")
    for s, values in sources(np.random.default_rng(20261122)).items():
        if s not in XLA_TYPES:
            continue
        values.tofile(os.path.join(out, "src_%s.bin" % s))
        for t in XLA_TYPES:
            if s[0] == "c" and t == "pred":
                continue
            text = "HloModule m\nENTRY e {\n  p0 = %s[%d]{0} parameter(0)\n  ROOT c = %s[%d]{0} convert(p0)\n}\n" % (
                s, len(values), t, len(values))
            with open(os.path.join(out, "%s_%s.hlo" % (s, t)), "w") as f:
                f.write(text)
            run(backend, text, values).tofile(os.path.join(out, "xla_%s_%s.bin" % (s, t)))


if __name__ == "__main__":
    main()
