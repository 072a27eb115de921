#!/usr/bin/env python3
"""PyTorch's f32 -> T(8,128) (as bench/peers/copy_peers.py writes it, 2 threads) timed back to back
for 0.25 s and in blocks of 4 after 4 copies of the same 128 MiB between other tensors (the first
call of a block not counted): AfterCopies.java's measurement for the engine.
Usage: THP_MEM_ALLOC_ENABLE=1 python3 bench/experiments/after_copies.py [ROUNDS]"""
import sys
import time

import torch

torch.set_num_threads(2)
m = torch.ones((4096, 4096), dtype=torch.float32)
t = torch.zeros((512, 32, 8, 128), dtype=torch.float32)
b1, b2 = torch.ones(64 << 20, dtype=torch.uint8), torch.zeros(64 << 20, dtype=torch.uint8)


def tile():
    t.copy_(m.reshape(512, 8, 32, 128).permute(0, 2, 1, 3))


for _ in range(20):
    tile()
for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 4):
    ts = []
    start = time.perf_counter()
    while time.perf_counter() - start < 0.25:
        t0 = time.perf_counter()
        tile()
        ts.append(time.perf_counter() - t0)
    after = []
    for _ in range(15):
        for _ in range(4):
            b2.copy_(b1)
        for i in range(4):
            t0 = time.perf_counter()
            tile()
            if i > 0:
                after.append(time.perf_counter() - t0)
    ts.sort()
    after.sort()
    print(f"back to back {ts[len(ts) // 2] * 1e3:.2f} ms, after copies {after[len(after) // 2] * 1e3:.2f} ms")
