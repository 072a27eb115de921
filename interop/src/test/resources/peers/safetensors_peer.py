"""safetensors side of SafetensorsReferenceTest (the reference library's numpy API, ml_dtypes for
BF16 and F8).

write DIR: saves DIR/ref.safetensors with one tensor per dtype, and DIR/manifest.json with each
tensor's dtype, shape and values in C order.
check DIR: for each file in DIR/manifest.json (written by Java) rebuilds the tensors from the
manifest, asks safetensors.numpy.save for the bytes it would write and compares them with the
file byte for byte; loads files without F8 with safetensors.numpy.load_file (which cannot make
F8 arrays in numpy mode) and compares values; F8 tensors are checked by reading the header with
struct + json and viewing the bytes as ml_dtypes arrays.
raw DIR: checks dtype, shape, bytes and metadata of each file in DIR/manifest.json through the
reference's deserialize, for dtypes no numpy API here unpacks (F6, F4).
"""
import json
import os
import struct
import sys

import ml_dtypes
import numpy as np
from safetensors.numpy import load_file, save, save_file

TYPES = {
    "BOOL": np.bool_, "U8": np.uint8, "I8": np.int8, "I16": np.int16, "U16": np.uint16, "I32": np.int32,
    "U32": np.uint32, "I64": np.int64, "U64": np.uint64, "F16": np.float16, "BF16": ml_dtypes.bfloat16,
    "F32": np.float32, "F64": np.float64, "F8_E4M3": ml_dtypes.float8_e4m3fn, "F8_E5M2": ml_dtypes.float8_e5m2,
}


def values(dtype, n):
    i = np.arange(n)
    if dtype == "BOOL":
        return i % 3 == 0
    if dtype[0] == "I":
        return (i * 37) % 200 - 100
    if dtype[0] == "U":
        return (i * 37) % 250
    return (i - 3) * 0.5


def flat(a):
    return [int(v) if a.dtype == np.bool_ else v for v in a.astype(np.float64 if a.dtype.kind == "V" or a.dtype.name.startswith(("float8", "bfloat")) else a.dtype).ravel().tolist()]


def arrays(manifest_tensors):
    out = {}
    for t in manifest_tensors:
        a = np.asarray(t["values"]).astype(TYPES[t["dtype"]]).reshape(t["shape"])
        out[t["name"]] = a
    return out


def write(d):
    shapes = [(2, 3), (), (0, 2), (4,)]
    tensors = {}
    listed = []
    for k, dtype in enumerate(TYPES):
        shape = shapes[k % len(shapes)]
        a = np.asarray(values(dtype, int(np.prod(shape)))).astype(TYPES[dtype]).reshape(shape)
        name = "t_" + dtype.lower()
        tensors[name] = a
        listed.append({"name": name, "dtype": dtype, "shape": list(shape), "values": flat(a)})
    save_file(tensors, os.path.join(d, "ref.safetensors"), metadata={"format": "np", "origin": "peer"})
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump({"files": [{"file": "ref.safetensors", "metadata": {"format": "np", "origin": "peer"},
                              "tensors": listed}]}, f)
    print("wrote", len(listed))


def manifest_files(d):
    """Yields each file DIR/manifest.json lists: its entry, its path and its bytes."""
    with open(os.path.join(d, "manifest.json")) as f:
        manifest = json.load(f)
    for entry in manifest["files"]:
        path = os.path.join(d, entry["file"])
        with open(path, "rb") as f:
            yield entry, path, f.read()


def check(d):
    checked = 0
    for entry, path, ours in manifest_files(d):
        expected = arrays(entry["tensors"])
        reference = save(expected, metadata=entry["metadata"] or None)
        assert ours == reference, (entry["file"], ours[:300], reference[:300])
        has_f8 = any(t["dtype"].startswith("F8") for t in entry["tensors"])
        if not has_f8:
            loaded = load_file(path)
            assert sorted(loaded) == sorted(expected), (sorted(loaded), sorted(expected))
            for name, a in expected.items():
                assert loaded[name].dtype == a.dtype and loaded[name].shape == a.shape, name
                assert np.array_equal(loaded[name].astype(np.float64), a.astype(np.float64)), name
        n = struct.unpack("<Q", ours[:8])[0]
        header = json.loads(ours[8:8 + n])
        for t in entry["tensors"]:
            info = header[t["name"]]
            begin, end = info["data_offsets"]
            got = np.frombuffer(ours[8 + n + begin:8 + n + end], dtype=TYPES[info["dtype"]]).reshape(info["shape"])
            assert flat(got) == t["values"], (t["name"], flat(got), t["values"])
            checked += 1
    print("checked", checked)


def raw(d):
    """Reads each file of DIR/manifest.json with the reference's deserialize, which hands out the
    bytes of any dtype (F6 and F4 included, which no framework API here unpacks), and safe_open for
    the metadata; compares dtype, shape and bytes (hex) with the manifest."""
    from safetensors import deserialize, safe_open
    checked = 0
    for entry, path, ours in manifest_files(d):
        got = {name: info for name, info in deserialize(ours)}
        with safe_open(path, framework="np") as f:
            assert (f.metadata() or {}) == entry["metadata"], (f.metadata(), entry["metadata"])
        assert sorted(got) == sorted(t["name"] for t in entry["tensors"]), sorted(got)
        for t in entry["tensors"]:
            info = got[t["name"]]
            assert info["dtype"] == t["dtype"] and info["shape"] == t["shape"], (t["name"], info["dtype"], info["shape"])
            assert bytes(info["data"]).hex() == t["hex"], (t["name"], bytes(info["data"]).hex(), t["hex"])
            checked += 1
    print("checked", checked)


if __name__ == "__main__":
    {"write": write, "check": check, "raw": raw}[sys.argv[1]](sys.argv[2])
