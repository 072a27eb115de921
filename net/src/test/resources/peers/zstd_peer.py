"""pyarrow's Zstandard codec (what Arrow IPC's ZSTD buffers hold) as the reference for ZstdFrames.

write DIR: for each case and level, DIR/CASE.raw and DIR/CASE.LEVEL.zst, the bytes and
    pa.Codec("zstd", compression_level=LEVEL).compress(bytes); prints CASE.LEVEL, one a line.
"""
import sys

import numpy as np
import pyarrow as pa


def drift(rng):
    """Records of 64 bytes, each with a byte put in at a varying place."""
    base = rng.integers(0, 256, 64, dtype=np.uint8).tobytes()
    out = bytearray()
    for i in range(20_000):
        k = int(rng.integers(1, 6)) * 8
        out += base[:k] + bytes([i % 7]) + base[k:]
    return bytes(out)


def main():
    d = sys.argv[2]
    rng = np.random.default_rng(7)
    words = rng.integers(0, 5000, 60_000)
    cases = {
        "empty": b"",
        "one-byte": b"\x2a",
        "zeros-5MiB": bytes(5 << 20),                                   # RLE blocks, or long matches
        "random-300KiB": rng.integers(0, 256, 300 << 10, dtype=np.uint8).tobytes(),   # raw blocks
        "period-3": b"abc" * 100_000,                                   # matches overlapping what they write
        "f32-ramp": np.arange(1 << 20, dtype=np.float32).tobytes(),     # 4 MiB of tensor data
        "f32-normal": rng.standard_normal(1 << 18, dtype=np.float32).round(2).tobytes(),   # Huffman literals
        "text": b" ".join(b"word%d" % w for w in words),                # repeat offsets, treeless literals
        "small-ints": rng.integers(0, 4, 2 << 20, dtype=np.int8).tobytes(),
        "skewed": rng.geometric(0.3, 400_000).astype(np.uint8).tobytes(),   # FSE tables of many zero counts
        "drift": drift(rng),   # at level 19, matches one byte nearer than the last (repeat offset R1 - 1)
    }
    for name, raw in cases.items():
        with open(f"{d}/{name}.raw", "wb") as f:
            f.write(raw)
        for level in (-5, 1, 3, 9, 19):
            with open(f"{d}/{name}.{level}.zst", "wb") as f:
                f.write(pa.Codec("zstd", compression_level=level).compress(raw, asbytes=True))
            print(f"{name}.{level}")


main()
