"""NumPy's .npz archives as the reference for NpzFile.

write DIR: DIR/w.npz (np.savez: stored members) and DIR/wc.npz (np.savez_compressed: deflated),
    each of the arrays below, and DIR/NAME.npy, each array as np.save writes it alone; prints the
    names, one a line, in the archives' order.
read FILE: np.load(FILE)'s arrays, one a line: name, dtype, shape and the values, flattened.
"""
import sys

import numpy as np


def read(file):
    with np.load(file) as npz:
        for name in npz.files:
            a = npz[name]
            print(name, a.dtype.str, list(a.shape), a.ravel().tolist())


def main():
    if sys.argv[1] == "read":
        read(sys.argv[2])
        return
    d = sys.argv[2]
    rng = np.random.default_rng(3)
    arrays = {
        "f32": np.arange(6, dtype="<f4").reshape(2, 3),
        "i64": np.arange(-5, 5, dtype="<i8"),
        "big_endian": np.linspace(-1, 1, 12, dtype=">f8").reshape(3, 4),
        "fortran": np.asfortranarray(np.arange(12, dtype="<i4").reshape(3, 4)),
        "scalar": np.array(2.5, dtype="<f4"),
        "empty": np.zeros((0, 3), dtype="<u2"),
        "flags": np.array([True, False, True]),
        "big": rng.standard_normal((256, 1024), dtype=np.float32).round(1),   # 1 MiB, deflates well
        "image": rng.integers(0, 256, (2, 64, 64, 3), dtype=np.uint8),
    }
    np.savez(f"{d}/w.npz", **arrays)
    np.savez_compressed(f"{d}/wc.npz", **arrays)
    for name, a in arrays.items():
        np.save(f"{d}/{name}.npy", a)
        print(name)


main()
