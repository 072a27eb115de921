"""NumPy's side of PieceSpeed.java and SubByteSpeed.java, into preallocated outputs.

    python3 bench/experiments/piece_speed_numpy.py pieces 268435456
    python3 bench/experiments/piece_speed_numpy.py subbyte 67108864 s4 s8

NumPy has no packed 4-bit arrays (ml_dtypes' int4 holds one element a byte), so the sub-byte
rows time the shifts a NumPy user writes to unpack or pack them (s4 <-> s8 only).
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
    """s4 <-> s8 as a NumPy user writes it: packed bytes (first element low) unpacked with shifts."""
    packed = np.random.default_rng(0).integers(0, 256, n // 2, dtype=np.uint8)
    wide = np.empty(n, np.int8)
    if (src, dst) == ("s4", "s8"):
        def run():
            wide[0::2] = (packed << 4).view(np.int8) >> 4
            wide[1::2] = packed.view(np.int8) >> 4
    elif (src, dst) == ("s8", "s4"):
        out = np.empty(n // 2, np.uint8)

        def run():
            np.bitwise_or(wide[0::2].view(np.uint8) & 0x0F, wide[1::2].view(np.uint8) << 4, out=out)
    else:
        raise SystemExit("subbyte pairs: s4 s8, s8 s4")
    timed(f"{src} -> {dst} n={n} (shifts)", n, run, "Melem/s")


if __name__ == "__main__":
    if sys.argv[1] == "pieces":
        pieces(int(sys.argv[2]))
    else:
        subbyte(int(sys.argv[2]), sys.argv[3], sys.argv[4])
