"""PyTorch's and CuPy's figures beside tensorbuf's CudaSpeed: one buffer (1 GiB by default) host to
device and back with torch's .to('cuda', non_blocking=True) / copy_ from pinned and pageable memory,
and cudaMemcpy of the same bytes through CuPy's runtime binding. Prints one JSON object.
Run by gpu/check.sh on the GPU machine: python3 torch_speed.py [--bytes N] [--repeats N]"""
import argparse, json, statistics, time

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--bytes", type=int, default=1 << 30)
ap.add_argument("--repeats", type=int, default=5)
a = ap.parse_args()
n, reps = a.bytes, a.repeats


def timed(fn):
    fn()
    torch.cuda.synchronize()
    secs = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        secs.append(time.perf_counter() - t0)
    secs.sort()
    return {"best_gbps": n / secs[0] / 1e9, "median_gbps": n / statistics.median(secs) / 1e9, "best_s": secs[0]}


out = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0),
       "bytes": n, "repeats": reps}
pinned = torch.randint(0, 256, (n,), dtype=torch.uint8).pin_memory()
pageable = pinned.clone()
dev = torch.empty(n, dtype=torch.uint8, device="cuda")
out["torch_h2d_pinned_to_non_blocking"] = timed(lambda: pinned.to("cuda", non_blocking=True))
out["torch_h2d_pinned_copy"] = timed(lambda: dev.copy_(pinned, non_blocking=True))
out["torch_h2d_pageable_copy"] = timed(lambda: dev.copy_(pageable))
out["torch_d2h_pinned_copy"] = timed(lambda: pinned.copy_(dev, non_blocking=True))
out["torch_d2h_pageable_copy"] = timed(lambda: pageable.copy_(dev))
try:
    import cupy
    rt = cupy.cuda.runtime
    out["cupy"] = cupy.__version__
    out["cudaMemcpy_h2d_pinned"] = timed(lambda: rt.memcpy(dev.data_ptr(), pinned.data_ptr(), n, rt.memcpyHostToDevice))
    out["cudaMemcpy_d2h_pinned"] = timed(lambda: rt.memcpy(pinned.data_ptr(), dev.data_ptr(), n, rt.memcpyDeviceToHost))
    out["cudaMemcpy_h2d_pageable"] = timed(lambda: rt.memcpy(dev.data_ptr(), pageable.data_ptr(), n, rt.memcpyHostToDevice))
    out["cudaMemcpy_d2h_pageable"] = timed(lambda: rt.memcpy(pageable.data_ptr(), dev.data_ptr(), n, rt.memcpyDeviceToHost))
except ImportError as e:
    out["cupy"] = "not importable: %s" % e
print(json.dumps(out))
