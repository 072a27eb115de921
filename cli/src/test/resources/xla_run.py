"""Runs HLO modules through XLA (jaxlib's CPU client) for RunXlaAgreementTest.

Usage: python3 xla_run.py MANIFEST
Each manifest line: MODULE.hlo<TAB>OUT.npy[<TAB>ARG0.npy<TAB>ARG1.npy...] (args in parameter order).
HLO text is parsed by XLA's own parser (jaxlib._hlo.hlo_module_from_text), converted to MLIR and
compiled for the CPU backend. Exit status 0 when every module ran; errors go to stderr, one per line.
"""
import sys

import numpy as np
import jax

jax.config.update("jax_enable_x64", True)  # keep s64/u64/f64 arguments as they are
from jaxlib import _hlo  # noqa: E402
from jax._src import xla_bridge  # noqa: E402
from jax._src.lib import xla_client as xc  # noqa: E402


def run(text, args):
    module = _hlo.hlo_module_from_text(text)
    computation = _hlo.XlaComputation(module.as_serialized_hlo_module_proto())
    mlir = xc._xla.mlir.xla_computation_to_mlir_module(computation)
    backend = xla_bridge.get_backend("cpu")
    devices = backend.devices()[:1]
    exe = backend.compile_and_load(mlir, xc.DeviceList(tuple(devices)), xc.CompileOptions())
    out = exe.execute([jax.device_put(a, devices[0]) for a in args])
    return np.asarray(out[0])


def load(path):
    # bf16 arguments come as void '<V2' (NumPy has no bfloat16); no other 2-byte void is written here.
    a = np.load(path)
    if a.dtype.kind == "V" and a.dtype.itemsize == 2:
        import ml_dtypes
        a = a.view(ml_dtypes.bfloat16)
    return a


def main():
    failed = 0
    with open(sys.argv[1]) as manifest:
        for line in manifest:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 2:
                continue
            hlo, out, arg_files = fields[0], fields[1], fields[2:]
            try:
                with open(hlo) as f:
                    result = run(f.read(), [load(a) for a in arg_files])
                np.save(out, np.asarray(result, order="C"))  # ascontiguousarray makes a scalar [1]
            except Exception as e:  # report and go on: one bad module must not hide the others
                failed += 1
                lines = str(e).splitlines()
                # A parse or verifier error says where on a later line ("... error: ..."): keep it.
                where = next((l.strip() for l in lines[1:] if "error" in l.lower()), "")
                print(f"{hlo}: {type(e).__name__}: {lines[0] if lines else ''}{' ' + where if where else ''}", file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
