"""NumPy's side of PieceSpeed.java and SubByteSpeed.java, into preallocated outputs.

    python3 bench/experiments/piece_speed_numpy.py pieces 268435456
    python3 bench/experiments/piece_speed_numpy.py subbyte 67108864 s4 s8

NumPy has no packed 4-bit arrays: ml_dtypes' int4/uint4 hold one element a byte, so the
sub-byte rows time that form's conversion, not a pack or an unpack.
"""
import sys
import time

import numpy as np


def timed(label, n, fn, unit):
    for _ in range(2 if unit == "MB/s" else 3):
        t0 = time.perf_counter()
        fn()
        s = time.perf_counter() - t0
        rate = n / s / 1e6
        print(f"{label}: {s:.2f} s, {rate:.1f} {unit}")


def pieces(n):
    v = np.zeros(n, np.uint8)
    d = np.empty(n, np.uint8)
    v2 = np.zeros((n // 1024, 1024), np.uint8)
    d2 = np.empty_like(v2)
    h = n // 2

    def pad():
        d[:4] = 0
        d[4:n - 4] = v[:n - 8]
        d[n - 4:] = 0

    timed(f"concat dim0 u8[{n}]", n, lambda: np.concatenate([v[h:], v[:h]], out=d), "MB/s")
    timed(f"pad 4,4 u8[{n}]", n, pad, "MB/s")
    timed(f"concat dim1 u8[{n // 1024},1024]", n,
          lambda: np.concatenate([v2[:, 512:], v2[:, :512]], axis=1, out=d2), "MB/s")
    timed(f"plain copy u8[{n}]", n, lambda: np.copyto(d, v), "MB/s")


def subbyte(n, src, dst):
    import ml_dtypes
    types = {"s4": ml_dtypes.int4, "u4": ml_dtypes.uint4, "s8": np.int8, "u8": np.uint8}
    v = np.zeros(n, types[src])
    d = np.empty(n, types[dst])
    timed(f"{src} -> {dst} n={n} (one a byte)", n, lambda: np.copyto(d, v, casting="unsafe"), "Melem/s")


if __name__ == "__main__":
    if sys.argv[1] == "pieces":
        pieces(int(sys.argv[2]))
    else:
        subbyte(int(sys.argv[2]), sys.argv[3], sys.argv[4])
