"""The Python side of codec_speed.sh: writes the cases (write DIR MiB), or decodes each with pyarrow's
codec RUNS times after as many untimed and prints the median and best MB/s (time DIR RUNS CASE...).
A case is CODEC-DATA-LEVEL: lz4 or zstd, of f32 values rounded to 2 decimals (normal) or a ramp."""
import sys
import time

import numpy as np
import pyarrow as pa

CASES = ["lz4-normal-0", "zstd-normal-1", "zstd-normal-3", "zstd-normal-9", "lz4-ramp-0", "zstd-ramp-3"]


def data(kind, mib):
    n = mib << 18
    if kind == "normal":
        return np.random.default_rng(1).standard_normal(n, dtype=np.float32).round(2).tobytes()
    return np.arange(n, dtype=np.float32).tobytes()


def main():
    d = sys.argv[2]
    if sys.argv[1] == "write":
        for case in CASES:
            codec, kind, level = case.split("-")
            raw = data(kind, int(sys.argv[3]))
            frame = pa.Codec(codec, compression_level=int(level) if codec == "zstd" else None).compress(raw, asbytes=True)
            open(f"{d}/{case}.raw", "wb").write(raw)
            open(f"{d}/{case}.frame", "wb").write(frame)
            print(case, f"{len(frame) / len(raw):.2f} of its size")
        return
    runs = int(sys.argv[3])
    for case in sys.argv[4:]:
        raw = open(f"{d}/{case}.raw", "rb").read()
        frame = open(f"{d}/{case}.frame", "rb").read()
        codec = pa.Codec(case.split("-")[0])
        speeds = []
        for r in range(-runs, runs):
            t = time.perf_counter()
            out = codec.decompress(frame, decompressed_size=len(raw), asbytes=False)
            if r >= 0:
                speeds.append(len(raw) / (time.perf_counter() - t) / 1e6)
        assert out.to_pybytes() == raw
        speeds.sort()
        print(f"{case} pyarrow {speeds[runs // 2]:.0f} MB/s (best {speeds[-1]:.0f})")


main()
