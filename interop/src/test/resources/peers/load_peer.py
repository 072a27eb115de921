"""NumPy's and the safetensors reference's side of NpyHeaderSpellingsTest: loads files Java wrote
by hand and prints, one JSON line per file (or tensor), what the reference made of them.

npy FILE...: np.load each file (ml_dtypes imported first, so its names read as NumPy reads them
there): {"file", "ok": true, "str": dtype.str, "name": dtype.name, "shape", "values"} or
{"file", "ok": false, "error"}. Values are floats (ml_dtypes floats converted), ints, or
[real, imag] pairs, in C order.
save-longdouble FILE: np.save of np.longdouble [1.5, -2], to show which descr NumPy writes for it.
safetensors FILE: safetensors.numpy.load_file: {"name", "shape", "values"} per tensor, by name.
"""
import json
import sys

import numpy as np

try:
    import ml_dtypes  # noqa: F401  registers 'bfloat16', 'int4'... with np.dtype
except ImportError:
    ml_dtypes = None


def plain(a):
    if a.dtype.kind == "c":
        return [[float(x.real), float(x.imag)] for x in a.ravel()]
    if a.dtype.kind == "b":
        return [int(x) for x in a.ravel()]
    if a.dtype.kind in "iu":
        return [int(x) for x in a.ravel()]
    if a.dtype.kind == "f":
        return [float(x) for x in a.ravel()]
    # ml_dtypes types: floats convert through float64, ints through int64.
    if "int" in a.dtype.name:
        return [int(x) for x in a.astype(np.int64).ravel()]
    return [float(x) for x in a.astype(np.float64).ravel()]


def main():
    mode, files = sys.argv[1], sys.argv[2:]
    if mode == "npy":
        for f in files:
            try:
                a = np.load(f)
                print(json.dumps({"file": f, "ok": True, "str": a.dtype.str, "name": a.dtype.name,
                                  "shape": list(a.shape), "values": plain(a)}))
            except Exception as e:  # the reference's refusal is the answer
                print(json.dumps({"file": f, "ok": False, "error": type(e).__name__ + ": " + str(e)}))
    elif mode == "save-longdouble":
        np.save(files[0], np.array([1.5, -2], dtype=np.longdouble))
    elif mode == "safetensors":
        from safetensors.numpy import load_file
        for name, a in sorted(load_file(files[0]).items()):
            print(json.dumps({"name": name, "shape": list(a.shape), "values": plain(a)}))
    else:
        raise SystemExit("unknown mode " + mode)


main()
