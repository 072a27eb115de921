#!/usr/bin/env python3
"""The copy engine's benchmark cases in NumPy 2.x and PyTorch 2.x (CPU, 2 threads), each writing
into a preallocated `out`. Prints {"cases": [{"name", "bytes", "numpy_gbps", "torch_gbps"}]}.
GB/s counts bytes read + bytes written, as `tensorbuf bench` does. bf16 in NumPy is moved as
uint16 (same bytes; NumPy has no bfloat16); the f32 -> bf16 case converts to ml_dtypes.bfloat16 and
has no NumPy figure when ml_dtypes is not importable. Usage: python3 copy_peers.py [--quick] [--case NAME]... > peers.json
"""
import json
import sys
import time

import numpy as np

try:
    import ml_dtypes  # NumPy's bfloat16; without it the f32 -> bf16 case has no NumPy figure
except ImportError:
    ml_dtypes = None

try:
    import torch
    torch.set_num_threads(2)
except ImportError:  # NumPy-only results; the report says so
    torch = None

QUICK = "--quick" in sys.argv
# --case NAME (repeatable): time only these cases
ONLY = {sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == "--case"}
REPS = 5 if QUICK else 15


def timed(fn):
    for _ in range(3):
        fn()
    ts = []
    for _ in range(REPS):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    ts.sort()
    return ts[len(ts) // 2]


def cases(lib):
    """Yields (name, bytes, fn) with inputs and outputs preallocated and touched."""
    if lib == "numpy":
        zeros, rand = np.zeros, lambda shape, dt: np.ones(shape, dtype=dt)
        f32, u16, u8 = np.float32, np.uint16, np.uint8
        def copy(out, src):
            np.copyto(out, src)
        perm = lambda a, p: a.transpose(p)
    else:
        zeros = lambda shape, dt: torch.zeros(shape, dtype=dt)
        rand = lambda shape, dt: torch.ones(shape, dtype=dt)
        f32, u16, u8 = torch.float32, torch.bfloat16, torch.uint8
        def copy(out, src):
            out.copy_(src)
        perm = lambda a, p: a.permute(p)

    n, c, h, w = 32, 64, 112, 112
    big = n * c * h * w * 4 * 2
    a = rand((n, c, h, w), f32)
    out = zeros((n, h, w, c), f32)
    yield "nchw_to_nhwc_f32_32x64x112x112", big, lambda: copy(out, perm(a, (0, 2, 3, 1)))
    a2 = rand((n, h, w, c), f32)
    out2 = zeros((n, c, h, w), f32)
    yield "nhwc_to_nchw_f32_32x64x112x112", big, lambda: copy(out2, perm(a2, (0, 3, 1, 2)))
    s = rand((1, 3, 224, 224), f32)
    so = zeros((1, 224, 224, 3), f32)
    yield "nchw_to_nhwc_f32_1x3x224x224", 3 * 224 * 224 * 8, lambda: copy(so, perm(s, (0, 2, 3, 1)))
    s2 = rand((1, 224, 224, 3), f32)
    so2 = zeros((1, 3, 224, 224), f32)
    yield "nhwc_to_nchw_f32_1x3x224x224", 3 * 224 * 224 * 8, lambda: copy(so2, perm(s2, (0, 3, 1, 2)))
    m = rand((4096, 4096), f32)
    t = zeros((512, 32, 8, 128), f32)
    yield "f32_4096x4096_to_T8x128", 4096 * 4096 * 8, lambda: copy(t, perm(m.reshape(512, 8, 32, 128), (0, 2, 1, 3)))
    t2 = rand((512, 32, 8, 128), f32)
    m2 = zeros((4096, 4096), f32)
    yield "f32_T8x128_to_4096x4096", 4096 * 4096 * 8, lambda: copy(m2.reshape(512, 8, 32, 128), perm(t2, (0, 2, 1, 3)))
    b = rand((4096, 4096), u16)
    bt = zeros((512, 32, 4, 128, 2), u16)
    yield "bf16_4096x4096_to_T8x128_2x1", 4096 * 4096 * 4, \
        lambda: copy(bt, perm(b.reshape(512, 4, 2, 32, 128), (0, 3, 1, 4, 2)))
    # f32 -> bf16 converted and (2,1)-packed in one pass: copy_/copyto convert while they permute.
    if lib == "torch" or ml_dtypes is not None:
        bf16 = torch.bfloat16 if lib == "torch" else ml_dtypes.bfloat16
        fm = rand((4096, 4096), f32)
        fbt = zeros((512, 32, 4, 128, 2), bf16)
        fview = perm(fm.reshape(512, 4, 2, 32, 128), (0, 3, 1, 4, 2))
        yield "f32_4096x4096_to_bf16_T8x128_2x1", 4096 * 4096 * 6, \
            (lambda: fbt.copy_(fview)) if lib == "torch" else (lambda: np.copyto(fbt, fview, casting="unsafe"))
        # and back: unpacked and widened to f32 in one pass.
        pbt = rand((512, 32, 4, 128, 2), bf16)
        fout = zeros((4096, 4096), f32)
        oview = perm(fout.reshape(512, 4, 2, 32, 128), (0, 3, 1, 4, 2))
        yield "bf16_T8x128_2x1_to_f32_4096x4096", 4096 * 4096 * 6, \
            (lambda: oview.copy_(pbt)) if lib == "torch" else (lambda: np.copyto(oview, pbt, casting="unsafe"))
    p = rand((1000, 1000), f32)
    pt = zeros((125, 8, 8, 128), f32)

    def padded():
        copy(pt[:, :7], perm(p[:, :896].reshape(125, 8, 7, 128), (0, 2, 1, 3)))
        copy(pt[:, 7, :, :104], p[:, 896:].reshape(125, 8, 104))
        pt[:, 7, :, 104:] = 0
    yield "f32_1000x1000_to_T8x128_padded", 1000 * 1000 * 4 + 1000 * 1024 * 4, padded
    img = rand((32, 224, 224, 3), u8)
    staged = zeros((32, 3, 224, 224), f32)
    if lib == "numpy":
        scale = np.array([1 / 58.395, 1 / 57.12, 1 / 57.375], dtype=np.float32).reshape(1, 3, 1, 1)
        bias = np.array([-123.675 / 58.395, -116.28 / 57.12, -103.53 / 57.375], dtype=np.float32).reshape(1, 3, 1, 1)

        def stage():
            np.multiply(img.transpose(0, 3, 1, 2), scale, out=staged)
            np.add(staged, bias, out=staged)
    else:
        scale = torch.tensor([1 / 58.395, 1 / 57.12, 1 / 57.375]).reshape(1, 3, 1, 1)
        bias = torch.tensor([-123.675 / 58.395, -116.28 / 57.12, -103.53 / 57.375]).reshape(1, 3, 1, 1)

        def stage():
            torch.addcmul(bias, img.permute(0, 3, 1, 2), scale, out=staged)
    yield "u8_nhwc_to_f32_nchw_scale_bias_32x224x224x3", 32 * 224 * 224 * 3 * 5, stage
    bb = rand((1, 64, 1, 1), f32)
    bo = zeros((n, c, h, w), f32)
    yield "broadcast_f32_1x64x1x1_to_32x64x112x112", n * c * h * w * 8, \
        (lambda: np.copyto(bo, bb)) if lib == "numpy" else (lambda: bo.copy_(bb.expand(n, c, h, w)))
    whole = rand((n, c, h, w), f32)
    sl = zeros((n, c, 56, 56), f32)
    yield "slice_step2_f32_32x64x112x112", n * c * 56 * 56 * 8, lambda: copy(sl, whole[:, :, ::2, ::2])


def main():
    results = {}
    for lib in ["numpy"] + (["torch"] if torch is not None else []):
        for name, nbytes, fn in cases(lib):
            if ONLY and name not in ONLY:
                continue
            sec = timed(fn)
            r = results.setdefault(name, {"name": name, "bytes": nbytes})
            r[lib + "_gbps"] = round(nbytes / sec / 1e9, 3)
    json.dump({"numpy": np.__version__, "torch": torch.__version__ if torch is not None else None,
               "cases": list(results.values())}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
