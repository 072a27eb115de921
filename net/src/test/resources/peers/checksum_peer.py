"""Frames that carry checksums, as the reference for XxHash and the checksum checks of ZstdFrames
and Lz4Frames (pyarrow's codecs write none; Arrow Go's writers, the zstd and lz4 tools do).

write DIR: for each case, DIR/CASE.raw, DIR/CASE.zst (python-zstandard, content checksum) and
    DIR/CASE.lz4 (python-lz4, block and content checksums, linked blocks); prints CASE, one a line.
hashes: for lengths 0 to 80 and 1000, of bytes (i * 37 + 11) % 256, and seeds 0 and 2^31 + 5,
    prints "LENGTH SEED XXH32 XXH64" in hex, one a line.
"""
import sys

import lz4.frame
import numpy as np
import xxhash
import zstandard


def write(d):
    rng = np.random.default_rng(11)
    cases = {
        "empty": b"",
        "seven": b"abcdefg",
        "f32-ramp": np.arange(300_000, dtype=np.float32).tobytes(),
        "random-200KiB": rng.integers(0, 256, 200 << 10, dtype=np.uint8).tobytes(),
        "text": b" ".join(b"word%d" % (i % 977) for i in range(100_000)),
    }
    for name, raw in cases.items():
        with open(f"{d}/{name}.raw", "wb") as f:
            f.write(raw)
        with open(f"{d}/{name}.zst", "wb") as f:
            f.write(zstandard.ZstdCompressor(level=3, write_checksum=True).compress(raw))
        with open(f"{d}/{name}.lz4", "wb") as f:
            f.write(lz4.frame.compress(raw, block_size=lz4.frame.BLOCKSIZE_MAX64KB, block_linked=True,
                                       content_checksum=True, block_checksum=True))
        print(name)


def hashes():
    for n in list(range(81)) + [1000]:
        data = bytes((i * 37 + 11) % 256 for i in range(n))
        for seed in (0, 2**31 + 5):
            print(n, seed, xxhash.xxh32_hexdigest(data, seed=seed), xxhash.xxh64_hexdigest(data, seed=seed))


if sys.argv[1] == "write":
    write(sys.argv[2])
else:
    hashes()
