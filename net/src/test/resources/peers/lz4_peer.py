"""pyarrow's LZ4 frame codec (what Arrow IPC's LZ4_FRAME buffers hold) as the reference for Lz4Frames.

write DIR: for each case, DIR/CASE.raw and DIR/CASE.lz4, the bytes and pa.compress(bytes, codec='lz4');
    prints the case names, one a line.
"""
import sys

import numpy as np
import pyarrow as pa


def main():
    d = sys.argv[2]
    rng = np.random.default_rng(7)
    cases = {
        "empty": b"",
        "one-byte": b"\x2a",
        "zeros-5MiB": bytes(5 << 20),                                   # several blocks, long matches
        "random-300KiB": rng.integers(0, 256, 300 << 10, dtype=np.uint8).tobytes(),   # stored blocks
        "period-3": b"abc" * 100_000,                                   # matches overlapping what they write
        "f32-ramp": np.arange(1 << 20, dtype=np.float32).tobytes(),     # 4 MiB of tensor data
        "text": b" ".join(b"word%d" % (i % 977) for i in range(200_000)),
        "small-ints": rng.integers(0, 4, 2 << 20, dtype=np.int8).tobytes(),
    }
    for name, raw in cases.items():
        with open(f"{d}/{name}.raw", "wb") as f:
            f.write(raw)
        with open(f"{d}/{name}.lz4", "wb") as f:
            f.write(pa.compress(raw, codec="lz4", asbytes=True))
        print(name)


main()
