"""NumPy side of NpyNumpyInteropTest.

write DIR: saves one .npy per case (every numeric dtype in both byte orders, Fortran order,
0-d, empty, format 1.0 and 2.0) and DIR/manifest.json with the expected values in C order.
check DIR: loads every file named in DIR/manifest.json (written by Java), compares values, and
compares each file byte for byte with what numpy.save writes for the same array.
mldtypes DIR: saves one .npy per ml_dtypes type NumPy lacks (as void '<V2'/'<V1', float8_e5m2 as
'<f1'), and DIR/manifest.json with each file's descr and its values as ml_dtypes converts them.
mlcheck DIR: loads every file named in DIR/manifest.json (written by Java for an ml_dtypes type),
checks NumPy sees the void np.save writes, views it as the type and compares values, and compares
each file byte for byte with what numpy.save writes for the same ml_dtypes array.
"""
import io
import json
import os
import sys

import numpy as np

KINDS = ["b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16"]


def values(kind, n):
    i = np.arange(n)
    if kind == "b1":
        return i % 3 == 0
    if kind[0] == "i":
        return (i * 37) % 200 - 100
    if kind[0] == "u":
        return (i * 37) % 250
    if kind[0] == "f":
        return (i - 3) * 0.5
    return (i - 3) * 0.5 - 1j * i


def flat(a):
    out = []
    for v in a.ravel(order="C").tolist():
        if isinstance(v, complex):
            out.append([v.real, v.imag])
        elif isinstance(v, bool):
            out.append(1 if v else 0)
        else:
            out.append(v)
    return out


def cases():
    for kind in KINDS:
        orders = ["|"] if kind in ("b1", "i1", "u1") else ["<", ">"]
        for order in orders:
            for shape, fortran in [((2, 3), False), ((2, 3), True), ((), False), ((0, 4), False), ((5,), False)]:
                yield kind, order, shape, fortran, 1
    yield "f4", "<", (3, 2, 2), True, 2
    yield "i2", ">", (4,), False, 2


def write(d):
    manifest = []
    for kind, order, shape, fortran, version in cases():
        dtype = np.dtype(order + kind)
        n = int(np.prod(shape))
        a = np.asarray(values(kind, n)).astype(dtype).reshape(shape)
        if fortran:
            a = np.asfortranarray(a)
        name = "np_%s%s_%s_%s_v%d.npy" % ({"<": "le", ">": "be", "|": "na"}[order], kind,
                                         "x".join(map(str, shape)) or "scalar", "F" if fortran else "C", version)
        with open(os.path.join(d, name), "wb") as f:
            if version == 1:
                np.save(f, a)
            else:
                np.lib.format.write_array(f, a, version=(version, 0))
        manifest.append({"file": name, "descr": dtype.str, "shape": list(shape), "fortran": fortran,
                         "version": version, "values": flat(a)})
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(manifest, f)
    print("wrote", len(manifest))


def check(d):
    with open(os.path.join(d, "manifest.json")) as f:
        manifest = json.load(f)
    for case in manifest:
        path = os.path.join(d, case["file"])
        a = np.load(path, allow_pickle=False)
        assert a.dtype.str == case["descr"], (case["file"], a.dtype.str)
        assert list(a.shape) == case["shape"], (case["file"], a.shape)
        assert flat(a) == case["values"], (case["file"], flat(a), case["values"])
        with open(path, "rb") as f:
            ours = f.read()
        buf = io.BytesIO()
        if case["version"] == 1:
            np.save(buf, a)
        else:
            np.lib.format.write_array(buf, a, version=(case["version"], 0))
        assert ours == buf.getvalue(), (case["file"], ours[:200], buf.getvalue()[:200])
    print("checked", len(manifest))


ML_DTYPES = ["bfloat16", "float8_e5m2", "float8_e4m3", "float8_e4m3fn", "float8_e4m3b11fnuz", "float8_e3m4",
             "float8_e5m2fnuz", "float8_e4m3fnuz", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn",
             "int4", "uint4", "int2", "uint2"]


def ml_values(t, n):
    i = np.arange(n)
    if np.dtype(t).kind == "V" and "int" in np.dtype(t).name:
        info = ml_dtypes.iinfo(t)
        return info.min + i % (int(info.max) - int(info.min) + 1)
    if "e8m0" in np.dtype(t).name:
        return 2.0 ** (i - 3)  # powers of two only, no sign, no zero
    return (i - 3) * 0.5 + i * 0.125


def mldtypes(d):
    global ml_dtypes
    import ml_dtypes
    manifest = []
    for name in ML_DTYPES:
        t = getattr(ml_dtypes, name, None)
        if t is None:
            continue
        for shape in [(4, 4), ()]:
            a = np.asarray(ml_values(t, int(np.prod(shape)))).astype(t).reshape(shape)
            file = "ml_%s_%dd.npy" % (name, len(shape))
            np.save(os.path.join(d, file), a)
            exact = np.int64 if "int" in name else np.float64
            manifest.append({"file": file, "type": name, "descr": np.dtype(t).str, "shape": list(shape),
                             "values": a.astype(exact).ravel().tolist()})
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(manifest, f)
    print("wrote", len(manifest))


def mlcheck(d):
    import ml_dtypes
    with open(os.path.join(d, "manifest.json")) as f:
        manifest = json.load(f)
    for case in manifest:
        t = np.dtype(getattr(ml_dtypes, case["type"]))
        path = os.path.join(d, case["file"])
        loaded = np.load(path, allow_pickle=False)
        assert loaded.dtype.kind == "V" and loaded.dtype.itemsize == t.itemsize, (case["file"], loaded.dtype.str)
        a = loaded.view(t)
        assert list(a.shape) == case["shape"], (case["file"], a.shape)
        exact = np.int64 if "int" in case["type"] else np.float64
        assert a.astype(exact).ravel().tolist() == case["values"], (case["file"], a.astype(exact).ravel().tolist())
        want = np.asarray(case["values"], dtype=exact).astype(t).reshape(case["shape"])
        buf = io.BytesIO()
        np.save(buf, want)
        with open(path, "rb") as f:
            ours = f.read()
        assert ours == buf.getvalue(), (case["file"], ours[:200], buf.getvalue()[:200])
    print("checked", len(manifest))


if __name__ == "__main__":
    {"write": write, "check": check, "mldtypes": mldtypes, "mlcheck": mlcheck}[sys.argv[1]](sys.argv[2])
